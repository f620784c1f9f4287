// Benchmark: trim a 200-message session holding 20 screenshots (~20 MB of data URLs) under a
// tight budget, against a JSON.stringify + JSON.parse round trip of the same messages; and the
// event-loop delay while trimAsync runs compared with while sync trim runs. Each is measured
// as the package runs (large data URLs replaced by header-only stand-ins, lib/images.js) and
// with every data URL sent whole across the boundary.
//
//   node bench/bench.js [--runs N]       (from bindings/node; the library must be built)

import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

import { trim, trimAsync, version } from "../index.js";
import { standInSettings } from "../lib/images.js";
import { native } from "../lib/native.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const PNG = path.resolve(here, "../../../tests/fixtures/images/png/rgb_1700x2200.png");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;

/** A ~1 MB PNG data URL: a real 1700×2200 PNG padded with random bytes after its end. */
function screenshot() {
  const png = fs.readFileSync(PNG);
  const padded = Buffer.concat([png, crypto.randomBytes(Math.max(0, 768 * 1024 - png.length))]);
  return `data:image/png;base64,${padded.toString("base64")}`;
}

/** 200 messages: a system prompt, user/assistant turns, tool exchanges, 20 screenshots. */
function session() {
  const messages = [{ role: "system", content: "You are a desktop companion. ".repeat(20) }];
  let call = 0;
  while (messages.length < 200) {
    const turn = messages.length;
    if (turn % 10 === 1) {
      messages.push({
        role: "user",
        content: [
          { type: "text", text: `Here is my screen at step ${turn}. What changed?` },
          { type: "image_url", image_url: { url: screenshot(), detail: "high" } },
        ],
      });
    } else if (turn % 10 === 5) {
      const id = `call_${call++}`;
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [
          { id, type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
        ],
      });
      messages.push({ role: "tool", tool_call_id: id, content: "file body ".repeat(200) });
    } else if (turn % 2 === 1) {
      messages.push({
        role: "user",
        content: `Question ${turn}: ${"why does it fail? ".repeat(15)}`,
      });
    } else {
      messages.push({
        role: "assistant",
        content: `Answer ${turn}: ${"because of X. ".repeat(40)}`,
      });
    }
  }
  return messages.slice(0, 200);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeIt(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Event-loop delay (ms) while `call` runs RUNS times, the loop free to turn between calls. */
async function loopDelay(call) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  for (let i = 0; i < RUNS; i++) {
    await call();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  histogram.disable();
  return {
    max: histogram.max / 1e6,
    p99: histogram.percentile(99) / 1e6,
    mean: histogram.mean / 1e6,
  };
}

const messages = session();
const options = { context_tokens: 16_000, max_output_tokens: 2_000 };
const inputBytes = Buffer.byteLength(JSON.stringify(messages));
const images = messages.filter((m) => Array.isArray(m.content)).length;
const result = trim(messages, options);

// Warm up the JIT and the allocator.
for (let i = 0; i < 3; i++) {
  trim(messages, options);
  await trimAsync(messages, options);
}

// The same trims with every data URL sent whole across the boundary (no stand-ins).
const whole = async (fn) => {
  const saved = standInSettings.minLength;
  standInSettings.minLength = Infinity;
  try {
    return await fn();
  } finally {
    standInSettings.minLength = saved;
  }
};
assert.deepStrictEqual(await whole(() => trim(messages, options)), result);

const requestText = JSON.stringify({ ...options, messages });
const answerText = native().trim(requestText);
const answerBytes = Buffer.byteLength(answerText);
const rows = [
  [
    "JSON.stringify + JSON.parse of the messages",
    await timeIt(() => JSON.parse(JSON.stringify(messages))),
  ],
  ["trim (sync)", await timeIt(() => trim(messages, options))],
  ["trimAsync (wall time)", await timeIt(() => trimAsync(messages, options))],
  [
    "trim, data URLs sent whole (no stand-ins)",
    await whole(() => timeIt(() => trim(messages, options))),
  ],
  [
    "  of which: JSON.stringify of the request",
    await timeIt(() => JSON.stringify({ ...options, messages })),
  ],
  [
    "  of which: native ankita_trim (copy in, trim, copy out)",
    await timeIt(() => native().trim(requestText)),
  ],
  ["  of which: JSON.parse of the answer", await timeIt(() => JSON.parse(answerText))],
  [
    "trimAsync, data URLs sent whole (wall time)",
    await whole(() => timeIt(() => trimAsync(messages, options))),
  ],
];

const delays = [
  ["trim (sync)", await loopDelay(() => trim(messages, options))],
  ["trimAsync", await loopDelay(() => trimAsync(messages, options))],
  ["trim, data URLs sent whole", await whole(() => loopDelay(() => trim(messages, options)))],
  [
    "trimAsync, data URLs sent whole",
    await whole(() => loopDelay(() => trimAsync(messages, options))),
  ],
];

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(`ankita ${version()}, node ${process.version}, ${process.platform}-${process.arch}`);
console.log(
  `session: ${messages.length} messages, ${images} screenshots, ${mb(inputBytes)} of JSON; ` +
    `budget ${result.report.budget_bytes} bytes -> kept ${result.messages.length} messages ` +
    `(${result.report.cost_bytes} bytes), dropped ${result.report.dropped_messages.length}, ` +
    `answer sent whole ${mb(answerBytes)}; median of ${RUNS} runs`,
);
console.log();
const width = Math.max(...rows.map(([name]) => name.length));
console.log(`${"".padEnd(width)}  median ms`);
for (const [name, ms] of rows) console.log(`${name.padEnd(width)}  ${ms.toFixed(1).padStart(9)}`);
const baseline = rows[0][1];
console.log(
  `${"trim / JSON round trip".padEnd(width)}  ${(rows[1][1] / baseline).toFixed(2).padStart(8)}x`,
);
console.log(
  `${"trim sent whole / JSON round trip".padEnd(width)}  ${(rows[3][1] / baseline).toFixed(2).padStart(8)}x`,
);
console.log();
console.log("event-loop delay while the calls run (ms)      max     p99    mean");
for (const [name, d] of delays) {
  const cells = [d.max, d.p99, d.mean].map((ms) => ms.toFixed(1).padStart(6)).join("  ");
  console.log(`${name.padEnd(44)} ${cells}`);
}
