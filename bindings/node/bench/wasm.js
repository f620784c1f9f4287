// Benchmark: the WebAssembly build (wasm/ankita.wasm) against the native library on a
// 20,000-message text session, the same request text through the same C ABI call
// (ankita_trim), in one process, runs interleaved, medians compared; and the module's size,
// raw and gzipped. The answers must be equal, byte for byte.
//
//   node bench/wasm.js [--runs N] [--messages N]   (from bindings/node; `make bench-wasm`
//   builds both first)

import fs from "node:fs";
import { performance } from "node:perf_hooks";
import zlib from "node:zlib";

import { native } from "../lib/native.js";
import { loadWasm, wasmPath } from "../lib/wasm.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg("--runs", 11);
const MESSAGES = arg("--messages", 20_000);

/** xorshift32: the same history on every run (as bench/tail.js makes it). */
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
const messages = [{ role: "system", content: `You are a desktop companion. ${prose(400)}` }];
while (messages.length < MESSAGES) {
  messages.push({
    role: messages.length % 2 ? "user" : "assistant",
    content: prose(40 + rand(380)),
  });
}

delete process.env.ANKITA_BACKEND;
const lib = native();
const wasm = loadWasm();
if (!/\.(so|dylib|dll)$/.test(lib.path)) throw new Error(`no native library: ${lib.path}`);

const file = fs.readFileSync(wasmPath());
const gzip = zlib.gzipSync(file, { level: 9 }).length;
console.log(`ankita.wasm: ${file.length} B raw, ${gzip} B gzip -9 (${wasmPath()})`);
console.log(`native: ${lib.path}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const [name, options] of [
  ["tokens (o200k_base), 128k window", { model: "gpt-4o", context_tokens: 128_000 }],
  ["bytes, 400 kB", { max_bytes: 400_000 }],
]) {
  const text = JSON.stringify({ messages, ...options });
  const answers = [lib.trim(text), wasm.trim(text)];
  if (answers[0] !== answers[1]) throw new Error(`${name}: the answers differ`);
  if (!answers[0].startsWith('{"ok":true')) throw new Error(`${name}: ${answers[0].slice(0, 200)}`);
  const times = { native: [], wasm: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const [which, backend] of [
      ["native", lib],
      ["wasm", wasm],
    ]) {
      const start = performance.now();
      backend.trim(text);
      times[which].push(performance.now() - start);
    }
  }
  const n = median(times.native);
  const w = median(times.wasm);
  console.log(
    `${name}: ${messages.length} messages, ${(text.length / 1e6).toFixed(1)} MB request; ` +
      `native ${n.toFixed(1)} ms, wasm ${w.toFixed(1)} ms (medians of ${RUNS}): ` +
      `wasm ÷ native = ${(w / n).toFixed(2)}`,
  );
}
