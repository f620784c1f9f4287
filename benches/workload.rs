//! A realistic long session for benchmarks: 200 messages with a system prompt, user turns with
//! pasted screenshots (real PNG headers padded with incompressible bytes to ~1 MB of base64
//! each), attachments, and tool loops with multi-kilobyte outputs.

use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::{json, Value};

/// xorshift64*: deterministic filler without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn screenshot(rng: &mut Rng, raw_bytes: usize) -> String {
    let mut png = vec![
        0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
    ];
    png.extend(b"IHDR");
    png.extend(1920u32.to_be_bytes());
    png.extend(1080u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    while png.len() < raw_bytes {
        png.extend(rng.next().to_le_bytes());
    }
    format!("data:image/png;base64,{}", STANDARD.encode(&png))
}

fn prose(rng: &mut Rng, bytes: usize) -> String {
    const WORDS: [&str; 12] = [
        "build", "failed", "at", "line", "the", "config", "value", "error:", "expected", "token",
        "while", "parsing",
    ];
    let mut s = String::with_capacity(bytes + 16);
    while s.len() < bytes {
        s.push_str(WORDS[(rng.next() % 12) as usize]);
        s.push(' ');
    }
    s
}

/// The messages of the session: `messages` in all, `screenshots` of them pasted images.
pub fn session(messages: usize, screenshots: usize, screenshot_raw_bytes: usize) -> Vec<Value> {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut out = vec![json!({"role": "system", "content": prose(&mut rng, 1500)})];
    // Four messages a turn; screenshots spread evenly over the turns.
    let turns = messages / 4;
    let mut shots_taken = 0;
    let mut turn = 0;
    while out.len() < messages {
        if shots_taken < screenshots && turn * screenshots >= shots_taken * turns {
            shots_taken += 1;
            out.push(json!({"role": "user", "content": [
                {"type": "text", "text": format!("Screenshot {turn}: what is wrong here?")},
                {"type": "image_url", "image_url": {"url": screenshot(&mut rng, screenshot_raw_bytes), "detail": "auto"}},
            ]}));
        } else if turn % 7 == 3 {
            out.push(json!({"role": "user", "content": [
                {"type": "text", "text": "Here is the log."},
                {"type": "text", "text": format!("Attached file: build-{turn}.log\n{}", prose(&mut rng, 6000))},
            ]}));
        } else {
            out.push(json!({"role": "user", "content": prose(&mut rng, 300)}));
        }
        let id = format!("call_{turn}");
        out.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "read_file", "arguments": format!("{{\"path\":\"src/m{turn}.rs\"}}")}},
        ]}));
        let output_bytes = 2000 + (rng.next() % 6000) as usize;
        out.push(
            json!({"role": "tool", "tool_call_id": id, "content": prose(&mut rng, output_bytes)}),
        );
        out.push(json!({"role": "assistant", "content": prose(&mut rng, 600)}));
        turn += 1;
    }
    out.truncate(messages - 1);
    out.push(json!({"role": "user", "content": "Which screenshot showed the parser error?"}));
    out
}
