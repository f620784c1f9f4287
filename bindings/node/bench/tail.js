// Benchmark: the stateless trim() of a long text history, which reads the newest messages in
// growing tails (lib/tail.js), against the per-call work of the seed it replaces, in one
// process, runs interleaved, medians compared:
//
//   seed         one pass over every message checking its role, content and tool calls and
//                copying the kept fields (its sanitize), grouping, then JSON.stringify of each
//                selected message (at most max_messages) to price it;
//   seed, all    the same keeping everything: every message stringified;
//   whole        what trim() did before tails: the whole request serialised, the native trim,
//                the whole answer parsed (JSON.stringify + ankita_trim + JSON.parse); for
//                sanitize(), the same through ankita_sanitize.
//
// Then the agent session of bench/session.js (20,001 messages after 1,000 turns: tool loops
// with multi-kilobyte outputs, screenshots), nearly every older message a call or a result
// (with a limit, runs of whole turns left out, the rest as stand-ins), against
// bench/session.js's trimMessages (JSON.stringify of every message to measure it, then the
// newest that fit): trim() with max_messages 40 and keeping everything, each answer first
// checked against the C ABI's answer for the whole history, byte for byte.
//
//   node --expose-gc bench/tail.js [--runs N] [--messages N]   (from bindings/node; the
//   library built; with --expose-gc, a collection before each timed call)

import { performance } from "node:perf_hooks";

import { sanitize, trim, trimAsync, version } from "../index.js";
import { native } from "../lib/native.js";
import { tailStats } from "../lib/tail.js";
import { agentSession, trimMessages } from "./agent-session.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg("--runs", 31);
const MESSAGES = arg("--messages", 20_000);

/** xorshift32: the same history on every run. */
let seed = 0x5eed;
function rand(n) {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}
const WORDS = ["build", "failed", "at", "line", "the", "config", "value", "error:", "expected"];
function prose(bytes) {
  let s = "";
  while (s.length < bytes) s += `${WORDS[rand(WORDS.length)]} `;
  return s;
}

/** `n` text messages (~250 bytes each), a system prompt first. */
function history(n) {
  const out = [{ role: "system", content: `You are a desktop companion. ${prose(400)}` }];
  while (out.length < n) {
    out.push({ role: out.length % 2 ? "user" : "assistant", content: prose(40 + rand(380)) });
  }
  return out;
}

/** The seed's per-call work (see the header); `max` selected messages are stringified. */
function seedTrim(messages, max) {
  const clean = [];
  for (const m of messages) {
    if (m === null || typeof m !== "object") continue;
    const role = m.role;
    if (role !== "system" && role !== "user" && role !== "assistant" && role !== "tool") continue;
    const content = m.content;
    if (content === undefined || (content === null && !Array.isArray(m.tool_calls))) continue;
    if (typeof content !== "string" && !Array.isArray(content) && content !== null) continue;
    const copy = { role, content };
    if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) copy.tool_calls = m.tool_calls;
    if (typeof m.tool_call_id === "string") copy.tool_call_id = m.tool_call_id;
    if (typeof m.name === "string") copy.name = m.name;
    clean.push(copy);
  }
  const groups = [];
  for (let i = 0; i < clean.length;) {
    let j = i + 1;
    if (clean[i].tool_calls) while (j < clean.length && clean[j].role === "tool") j++;
    groups.push([i, j]);
    i = j;
  }
  const system = clean[0]?.role === "system" ? 1 : 0;
  let count = system;
  let bytes = system ? JSON.stringify(clean[0]).length : 0;
  let start = clean.length;
  for (let g = groups.length - 1; g >= system; g--) {
    const [a, b] = groups[g];
    if (count + (b - a) > max) break;
    for (let k = a; k < b; k++) bytes += JSON.stringify(clean[k]).length;
    count += b - a;
    start = a;
  }
  return { messages: [...clean.slice(0, system), ...clean.slice(start)], bytes };
}

/** trim() as it was before tails: the whole history across the boundary and back. */
function whole(messages, options) {
  return JSON.parse(native().trim(JSON.stringify({ ...options, messages })));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs each of `fns` RUNS times, interleaved; returns each one's median in ms. */
function measure(fns) {
  const times = fns.map(() => []);
  for (let r = 0; r < RUNS; r++) {
    fns.forEach((fn, k) => {
      globalThis.gc?.();
      const t0 = performance.now();
      fn();
      times[k].push(performance.now() - t0);
    });
  }
  return times.map(median);
}

async function asyncMedian(fn) {
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    globalThis.gc?.();
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const long = history(MESSAGES);
const short = history(200);
const bytes = JSON.stringify(long).length;
const before = { ...tailStats };

const forty = { max_messages: 40 };
const all = { max_messages: null };
// The answers agree before anything is timed.
if (trim(long, forty).messages.length !== whole(long, forty).messages.length) {
  throw new Error("trim and the whole history's trim disagree");
}

// Each call is interleaved with its baseline; the whole-history calls (megabytes of garbage
// each, collected during whatever runs next) in runs of their own.
const [tail40, seed40] = measure([() => trim(long, forty), () => seedTrim(long, 40)]);
const [whole40] = measure([() => whole(long, forty)]);
const [tailAll, seedAll] = measure([() => trim(long, all), () => seedTrim(long, Infinity)]);
const [wholeAll] = measure([() => whole(long, all)]);
const [short40, shortWhole] = measure([() => trim(short, forty), () => whole(short, forty)]);
const async40 = await asyncMedian(() => trimAsync(long, forty));
const [sanitized] = measure([() => sanitize(long)]);
const [sanitizedWhole] = measure([() => JSON.parse(native().sanitize(JSON.stringify(long)))]);

const row = (what, ms, base, baseMs) => ({
  what,
  ms: ms.toFixed(2),
  baseline: base,
  "baseline ms": baseMs.toFixed(2),
  ratio: (ms / baseMs).toFixed(2),
});
console.log(
  `ankita ${version()}, node ${process.version}: ${MESSAGES} text messages ` +
    `(${(bytes / 1e6).toFixed(1)} MB of JSON), ${RUNS} runs each, medians`,
);
console.table([
  row("trim, max_messages 40", tail40, "seed", seed40),
  row("trim, max_messages 40", tail40, "whole (before)", whole40),
  row("trimAsync, max_messages 40", async40, "seed", seed40),
  row("trim, keeping everything", tailAll, "seed, all", seedAll),
  row("trim, keeping everything", tailAll, "whole (before)", wholeAll),
  row("trim, 200 messages, max 40", short40, "whole (before)", shortWhole),
  row("sanitize", sanitized, "whole (before)", sanitizedWhole),
]);
console.log(
  `tails sent: ${tailStats.tails - before.tails}, widened: ${tailStats.widened - before.widened}, ` +
    `whole histories sent: ${tailStats.whole - before.whole}`,
);

const agent = agentSession(1000);
const agentBytes = JSON.stringify(agent).length;
/** The C ABI's answer for the whole session, as trim() returns it (JSON text). */
function wholeText(messages, options) {
  const { ok, ...rest } = JSON.parse(native().trim(JSON.stringify({ ...options, messages })));
  if (ok !== true) throw new Error(JSON.stringify(rest));
  return JSON.stringify(rest);
}
for (const options of [forty, all]) {
  if (JSON.stringify(trim(agent, options)) !== wholeText(agent, options)) {
    throw new Error(`the agent session: trim and the whole history's trim disagree`);
  }
}
const agentBefore = { ...tailStats };
const everything = { maxBytes: Infinity, maxMessages: Infinity };
const [agent40, classic40] = measure([
  () => trim(agent, forty),
  () => trimMessages(agent, { maxBytes: Infinity, maxMessages: 40 }),
]);
const [agentAll, classicAll] = measure([
  () => trim(agent, all),
  () => trimMessages(agent, everything),
]);
console.log(
  `\nthe agent session of bench/session.js: ${agent.length} messages ` +
    `(${(agentBytes / 1e6).toFixed(1)} MB of JSON), ${RUNS} runs each, medians`,
);
console.table([
  row("trim, max_messages 40", agent40, "trimMessages, 40", classic40),
  row("trim, keeping everything", agentAll, "trimMessages, all", classicAll),
]);
console.log(
  `tails sent: ${tailStats.tails - agentBefore.tails}, older messages as stand-ins: ` +
    `${tailStats.standIns - agentBefore.standIns}, left out as whole turns: ` +
    `${tailStats.turns - agentBefore.turns}, sized: ${tailStats.sized - agentBefore.sized}, ` +
    `whole histories sent: ${tailStats.whole - agentBefore.whole}`,
);
