// The agent session of bench/session.js (a 1,000-turn companion session growing to 20,000
// messages: text, tool loops with multi-kilobyte outputs, a pasted screenshot every 20 turns)
// and the classic trimMessages() it is compared with; bench/tail.js times the stateless trim
// of the whole session against it.

/** xorshift32: the same session on every run. */
let seed = 0x5eed;
function rand(n) {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}

const WORDS = ["build", "failed", "at", "line", "the", "config", "value", "error:", "expected"];
export function prose(bytes) {
  let s = "";
  while (s.length < bytes) s += `${WORDS[rand(WORDS.length)]} `;
  return s;
}

/** A ~300 KB PNG data URL: a real 1920×1080 PNG header, then filler. */
function screenshot() {
  const header = Buffer.from(
    "89504e470d0a1a0a0000000d49484452000007800000043808060000005c72a866",
    "hex",
  );
  const filler = Buffer.alloc(225_000);
  for (let i = 0; i < filler.length; i++) filler[i] = rand(256);
  return `data:image/png;base64,${Buffer.concat([header, filler]).toString("base64")}`;
}

/** The 20 messages of turn `t`: the user's message, a 9-call tool loop, the answer. */
export function turn(t) {
  const out = [];
  out.push(
    t % 20 === 1
      ? {
          role: "user",
          content: [
            { type: "text", text: `Turn ${t}: here is my screen. ${prose(200)}` },
            { type: "image_url", image_url: { url: screenshot() } },
          ],
        }
      : { role: "user", content: `Turn ${t}: ${prose(300)}` },
  );
  for (let c = 0; c < 9; c++) {
    const id = `call_${t}_${c}`;
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${c}.rs` }) },
        },
      ],
    });
    out.push({ role: "tool", tool_call_id: id, content: prose(200 + rand(1800)) });
  }
  out.push({ role: "assistant", content: prose(400) });
  return out;
}

/**
 * The classic trimMessages() ankita replaces, as companions wrote it: keep the system
 * message, measure the history (JSON bytes of every message), and when it is over the budget
 * keep the newest messages while both the count and the bytes fit, then drop tool replies whose
 * call was cut off. Screenshots count as their data URL's length.
 */
export function trimMessages(messages, { maxBytes, maxMessages }) {
  const sizes = messages.map((m) => JSON.stringify(m).length);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= maxBytes && messages.length <= maxMessages) return messages;
  const system = messages[0]?.role === "system" ? [messages[0]] : [];
  let bytes = system.length ? sizes[0] : 0;
  let start = messages.length;
  while (start > system.length) {
    const size = sizes[start - 1];
    if (bytes + size > maxBytes || messages.length - start + system.length >= maxMessages) break;
    bytes += size;
    start--;
  }
  let kept = messages.slice(start);
  while (kept.length && kept[0].role === "tool") kept = kept.slice(1);
  return [...system, ...kept];
}

/**
 * The session after `turns` turns: the system prompt and every turn's messages (a fresh module
 * state: the same session as bench/session.js's, when called first).
 */
export function agentSession(turns) {
  const history = [{ role: "system", content: `You are a desktop companion. ${prose(1500)}` }];
  for (let t = 1; t <= turns; t++) history.push(...turn(t));
  return history;
}
