// Benchmark: the stateless trim() of a long chat whose first tail asks to be widened (every
// message sent fit the budget), against the whole request (JSON.stringify + ankita_trim +
// JSON.parse), runs interleaved, medians compared; and what trim() sent (lib/tail.js's
// counters). A tail widened by the answer's `scale` is a whole number of messages: a fractional
// one found no message to start on and ended in the whole history.
//
//   node bench/tail-widen.js [--runs N] [--messages N]   (from bindings/node; the library built)

import { performance } from "node:perf_hooks";

import { trim } from "../index.js";
import { native } from "../lib/native.js";
import { tailStats } from "../lib/tail.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg("--runs", 41);
const MESSAGES = arg("--messages", 6000);

const messages = [];
for (let i = 0; i < MESSAGES; i++) {
  messages.push({ role: i % 2 ? "assistant" : "user", content: "word ".repeat(20 + (i % 7)) });
}

const median = (list) => list.slice().sort((a, b) => a - b)[list.length >> 1];

console.log(`${MESSAGES} plain messages, ${RUNS} runs each, medians`);
for (const max_bytes of [60_000, 150_000, 400_000]) {
  const options = { max_bytes };
  for (const key of Object.keys(tailStats)) tailStats[key] = 0;
  const kept = trim(messages, options).messages.length;
  const sent = { ...tailStats };
  const tails = [];
  const wholes = [];
  for (let run = 0; run < RUNS; run++) {
    let start = performance.now();
    trim(messages, options);
    tails.push(performance.now() - start);
    start = performance.now();
    JSON.parse(native().trim(JSON.stringify({ ...options, messages })));
    wholes.push(performance.now() - start);
  }
  const [tail, whole] = [median(tails), median(wholes)];
  console.log(
    `max_bytes ${max_bytes}: ${kept} kept; sent ${JSON.stringify(sent)}; ` +
      `trim ${tail.toFixed(2)} ms, whole request ${whole.toFixed(2)} ms: ${(whole / tail).toFixed(1)}x`,
  );
}
