// Benchmark: a 1,000-turn companion session growing to 20,000 messages (text, tool loops with
// multi-kilobyte outputs, a pasted screenshot every 20 turns), trimmed before every model call.
// Per-turn cost at turns 1, 100, 500 and 1,000 of:
//
//   Session      session.append(the turn's messages) + session.trim(), every turn;
//   trim         the stateless trim(history, options) of the whole history;
//   trimMessages a small JS reimplementation of the classic count-and-bytes trimming
//                (bench/agent-session.js, with the session's messages).
//
//   node --expose-gc bench/session.js [--turns N] [--runs N] [--tokens]   (from bindings/node)
//
// --tokens: costs in gpt-4o's tokens (context_tokens 128,000) instead of bytes; the session
// tokenizes each message once, the stateless trim every turn.

import { performance } from "node:perf_hooks";

import { Session, trim, version } from "../index.js";
import { prose, trimMessages, turn } from "./agent-session.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TURNS = arg("--turns", 1000);
const RUNS = arg("--runs", 5);
const SAMPLES = [1, 100, 500, 1000].filter((t) => t <= TURNS);

const TOKENS = process.argv.includes("--tokens");
// Opted out of cache-stable trimming (a session's default; docs/cache-stable.md): the session
// answers as the stateless trim it is compared with.
const OPTIONS = TOKENS
  ? { context_tokens: 128_000, model: "gpt-4o", max_messages: 1000, trim_to: null }
  : { max_bytes: 512_000, max_messages: 1000, trim_to: null };

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const history = [{ role: "system", content: `You are a desktop companion. ${prose(1500)}` }];
const session = new Session(OPTIONS);
session.append(history);
const rows = [];
const sessionTimes = [];
for (let t = 1; t <= TURNS; t++) {
  const added = turn(t);
  history.push(...added);
  let result;
  sessionTimes.push(
    time(() => {
      session.append(added);
      result = session.trim();
    }),
  );
  if (!SAMPLES.includes(t)) continue;
  globalThis.gc?.();
  // The session's figure: the median of the turns around this one (it ran once a turn).
  const around = sessionTimes.slice(-Math.min(5, sessionTimes.length));
  // The same turn again, timed on its own (append of the turn's messages + trim).
  const again = [];
  for (let r = 0; r < RUNS; r++) {
    session.truncate(history.length - added.length);
    again.push(
      time(() => {
        session.append(added);
        session.trim();
      }),
    );
  }
  const stateless = [];
  let expected;
  for (let r = 0; r < RUNS; r++) stateless.push(time(() => (expected = trim(history, OPTIONS))));
  const classic = [];
  for (let r = 0; r < RUNS; r++) {
    classic.push(time(() => trimMessages(history, { maxBytes: 512_000, maxMessages: 1000 })));
  }
  if (JSON.stringify(result) !== JSON.stringify(expected)) {
    throw new Error(`turn ${t}: the session's answer differs from trim's`);
  }
  rows.push({
    turn: t,
    messages: history.length,
    "Session ms": median([...around, ...again]).toFixed(2),
    "trim ms": median(stateless).toFixed(2),
    "trimMessages ms": median(classic).toFixed(2),
    kept: result.messages.length,
  });
}
session.close();

console.log(`ankita ${version()}, node ${process.version}; options ${JSON.stringify(OPTIONS)}`);
console.table(rows);
const first = Number(rows.find((r) => r.turn === 100)?.["Session ms"] ?? NaN);
const last = Number(rows.at(-1)["Session ms"]);
console.log(
  `Session per turn: ${last.toFixed(2)} ms at turn ${rows.at(-1).turn} vs ${first.toFixed(2)} ms at turn 100 ` +
    `(×${(last / first).toFixed(1)} for ×${(rows.at(-1).messages / rows[1]?.messages).toFixed(0)} messages)`,
);
