//! Small JSON helpers: byte lengths of compact JSON without building the text.

use serde_json::{Map, Value};
use std::io;

/// Counts bytes written, keeping none.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `serde_json::to_string(value)` without allocating it.
pub(crate) fn compact_len(value: &Value) -> u64 {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).expect("writing JSON to a counter cannot fail");
    counter.0
}

/// The compact JSON length of `object` without the keys in `skip`, braces and commas included.
pub(crate) fn compact_len_without(object: &Map<String, Value>, skip: &[&str]) -> u64 {
    let mut counter = ByteCounter(0);
    let mut fields = 0u64;
    for (key, value) in object {
        if skip.contains(&key.as_str()) {
            continue;
        }
        fields += 1;
        serde_json::to_writer(&mut counter, key).expect("counter");
        serde_json::to_writer(&mut counter, value).expect("counter");
    }
    // Braces, one colon per field, commas between fields.
    counter.0 + 2 + fields + fields.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_match_serialisation() {
        let v = json!({"role": "tool", "tool_call_id": "c\"1", "content": "x", "n": [1, 2]});
        assert_eq!(compact_len(&v), v.to_string().len() as u64);
        let mut without = v.as_object().unwrap().clone();
        without.remove("content");
        assert_eq!(
            compact_len_without(v.as_object().unwrap(), &["content"]),
            Value::Object(without).to_string().len() as u64
        );
        assert_eq!(compact_len_without(&Map::new(), &[]), 2);
    }
}
