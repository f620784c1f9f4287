//! The validating pass of serde_json over a text the scanner leaves to it (deep nesting):
//! serde_json checks grammar, depth and escapes; the visitor notes what the document reads
//! afterwards.

use super::NOTE;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;

/// What validating notes down: the spans of long strings without escapes, where the root
/// object's keys start (`None` once one has escapes: serde_json hands it decoded, without its
/// place), and (key index, items) of the root object's array values.
pub(super) struct Noted {
    pub noted: Vec<(usize, usize)>,
    pub root_keys: Option<Vec<usize>>,
    pub root_arrays: Vec<(usize, usize)>,
}

/// Validates `text` with serde_json (grammar, depth, escapes, nothing after the value) and
/// notes what [`Noted`] holds.
pub(super) fn validate(text: &str) -> Result<Noted, serde_json::Error> {
    let notes = Notes {
        base: text.as_ptr() as usize,
        noted: RefCell::new(Vec::new()),
        root_keys: RefCell::new(Some(Vec::new())),
        root_arrays: RefCell::new(Vec::new()),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    Validate {
        notes: &notes,
        at: Level::Root,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(Noted {
        noted: notes.noted.into_inner(),
        root_keys: notes.root_keys.into_inner(),
        root_arrays: notes.root_arrays.into_inner(),
    })
}

/// A visitor that walks every value (serde_json checks grammar, depth and escapes on the way)
/// and remembers the spans of long strings it is handed borrowed from the text.
#[derive(Clone, Copy)]
struct Validate<'c> {
    notes: &'c Notes,
    at: Level,
}

/// What validating notes down.
struct Notes {
    /// Where the text starts in memory.
    base: usize,
    noted: RefCell<Vec<(usize, usize)>>,
    /// Where the root object's keys start; `None` once one has escapes (serde_json hands it
    /// decoded, without its place).
    root_keys: RefCell<Option<Vec<usize>>>,
    /// (key index, items) of the root object's array values.
    root_arrays: RefCell<Vec<(usize, usize)>>,
}

/// Where in the document a value is: the root, a key of the root object, anywhere else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    RootKey,
    RootValue,
    Inner,
}

impl<'de> DeserializeSeed<'de> for Validate<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Validate<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        if self.at == Level::RootKey {
            *self.notes.root_keys.borrow_mut() = None;
        }
        Ok(())
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<(), E> {
        // Borrowed means no escapes: the token is the slice and its two quotes.
        let start = s.as_ptr() as usize - self.notes.base - 1;
        if self.at == Level::RootKey {
            if let Some(keys) = self.notes.root_keys.borrow_mut().as_mut() {
                keys.push(start);
            }
        }
        if s.len() + 2 >= NOTE {
            self.notes
                .noted
                .borrow_mut()
                .push((start, start + s.len() + 2));
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = Validate {
            at: Level::Inner,
            ..self
        };
        let mut items = 0;
        while seq.next_element_seed(inner)?.is_some() {
            items += 1;
        }
        if self.at == Level::RootValue {
            if let Some(keys) = self.notes.root_keys.borrow().as_ref() {
                let key = keys.len().saturating_sub(1);
                self.notes.root_arrays.borrow_mut().push((key, items));
            }
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = Validate {
            at: Level::Inner,
            ..self
        };
        let (key, value) = match self.at {
            Level::Root => (
                Validate {
                    at: Level::RootKey,
                    ..self
                },
                Validate {
                    at: Level::RootValue,
                    ..self
                },
            ),
            _ => (inner, inner),
        };
        while map.next_key_seed(key)?.is_some() {
            map.next_value_seed(value)?;
        }
        Ok(())
    }
}
