//! A 1,000-turn session (as `bindings/node/bench/session.js` builds it) fed to a
//! [`ankita::session::TrimSession`], timing each turn's append + plan answer, for a profiler:
//! `target/release/examples/session_turns [TURNS]`.

use ankita::session::TrimSession;
use std::time::Instant;

struct Rng(u32);
impl Rng {
    fn next(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0 % n
    }
    fn prose(&mut self, bytes: usize) -> String {
        const WORDS: [&str; 9] = [
            "build", "failed", "at", "line", "the", "config", "value", "error:", "expected",
        ];
        let mut s = String::new();
        while s.len() < bytes {
            s += WORDS[self.next(9) as usize];
            s.push(' ');
        }
        s
    }
}

fn turn(rng: &mut Rng, t: usize) -> String {
    use serde_json::json;
    let mut out = Vec::new();
    if t % 20 == 1 {
        let mut png =
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x07\x80\0\0\x048\x08\x06\0\0\0\\r\xa8f".to_vec();
        png.extend((0..225_000).map(|_| rng.next(256) as u8));
        use base64::Engine;
        let url = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&png)
        );
        out.push(json!({"role": "user", "content": [
            {"type": "text", "text": format!("Turn {t}: here is my screen. {}", rng.prose(200))},
            {"type": "image_url", "image_url": {"url": url}}]}));
    } else {
        out.push(json!({"role": "user", "content": format!("Turn {t}: {}", rng.prose(300))}));
    }
    for c in 0..9 {
        let id = format!("call_{t}_{c}");
        out.push(
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": id,
            "type": "function", "function": {"name": "read_file",
            "arguments": json!({"path": format!("src/f{c}.rs")}).to_string()}}]}),
        );
        let n = 200 + rng.next(1800) as usize;
        out.push(json!({"role": "tool", "tool_call_id": id, "content": rng.prose(n)}));
    }
    out.push(json!({"role": "assistant", "content": rng.prose(400)}));
    serde_json::Value::Array(out).to_string()
}

fn main() {
    let turns: usize = std::env::args().nth(1).map_or(1000, |s| s.parse().unwrap());
    let tokens = std::env::args().any(|a| a == "--tokens");
    // `--plain`: opted out of cache-stable trimming (a session's default), so that long
    // histories are trimmed from their newest messages.
    let plain = std::env::args().any(|a| a == "--plain");
    let budget = if tokens {
        r#""context_tokens": 128000, "model": "gpt-4o", "max_messages": 1000"#
    } else {
        r#""max_bytes": 512000, "max_messages": 1000"#
    };
    let options = format!(
        "{{{budget}{}}}",
        if plain { r#", "trim_to": null"# } else { "" }
    );
    let options = options.as_str();
    let mut rng = Rng(0x5eed);
    let mut session = TrimSession::new(options).unwrap();
    let system = serde_json::json!([{"role": "system", "content": format!("You are a desktop companion. {}", rng.prose(1500))}]);
    session.append(&system.to_string()).unwrap();
    let mut total = 0;
    for t in 1..=turns {
        let added = turn(&mut rng, t);
        let t0 = Instant::now();
        session.append(&added).unwrap();
        let t1 = Instant::now();
        let len = session.plan_answer().unwrap().len();
        total += len;
        let t2 = Instant::now();
        if t % 100 == 0 || t == 1 {
            println!(
                "turn {t:5}: {:6} messages, append {:7.3} ms, plan answer {:7.3} ms ({} bytes), held {:.2}× given",
                session.len(),
                (t1 - t0).as_secs_f64() * 1e3,
                (t2 - t1).as_secs_f64() * 1e3,
                len,
                session.bytes_held() as f64 / session.bytes_given() as f64,
            );
        }
    }
    println!(
        "{} of {turns} trims read only the newest messages; answers: {total} bytes",
        session.trims_from_newest()
    );
}
