// Every string the library returns is released (by ankita_string_free): memory does not grow
// over 10,000 calls.

import assert from "node:assert/strict";
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";

import { probeImage, sanitize, trim, trimAsync } from "../index.js";
import { stringStats } from "../lib/native.js";

if (typeof globalThis.gc !== "function") {
  v8.setFlagsFromString("--expose-gc");
  globalThis.gc = vm.runInNewContext("gc");
}

const MB = 1024 * 1024;

// ~20 KB in and out per call: 10,000 unreleased answers would hold some 200 MB.
const history = Array.from({ length: 40 }, (_, i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `turn ${i} ${"memory test ".repeat(40)}`,
}));
const options = { max_bytes: 100_000 };

function settle() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage();
}

function growth(before, after) {
  return {
    rss: (after.rss - before.rss) / MB,
    external: (after.external - before.external) / MB,
    heapUsed: (after.heapUsed - before.heapUsed) / MB,
  };
}

test("10,000 sync calls: every answer is released, RSS does not grow", () => {
  const answerBytes = JSON.stringify(trim(history, options)).length;
  assert.ok(answerBytes > 15_000, `answers of ${answerBytes} bytes are too small to show a leak`);
  for (let i = 0; i < 1000; i++) trim(history, options); // warm-up: allocator pools, JIT
  const before = settle();
  const releasedBefore = stringStats.released;
  for (let i = 0; i < 10_000; i++) {
    const { messages } = trim(history, options);
    if (messages.length !== history.length) throw new Error(`call ${i}: ${messages.length}`);
  }
  const grown = growth(before, settle());
  assert.equal(stringStats.released - releasedBefore, 10_000, "one ankita_string_free per call");
  const leakIfUnreleased = (10_000 * answerBytes) / MB;
  assert.ok(
    grown.rss < Math.min(40, leakIfUnreleased / 4),
    `RSS grew by ${grown.rss.toFixed(1)} MB (a leak would be ~${leakIfUnreleased.toFixed(0)} MB)`,
  );
  assert.ok(grown.external < 8, `external memory grew by ${grown.external.toFixed(1)} MB`);
});

test("10,000 calls of the other functions, errors included, release their answers", () => {
  const image = `data:image/gif;base64,R0lGODlhAQABAPAAAAAAAAAAACH5BAAAAAAALAAAAAABAAEAAAICRAEAOw==`;
  const call = (i) => {
    if (i % 3 === 0) return sanitize(history);
    if (i % 3 === 1) return probeImage(image);
    try {
      trim(history, { max_bytes: 600 });
    } catch (error) {
      if (error.code !== "context_budget_exceeded") throw error;
    }
  };
  for (let i = 0; i < 1000; i++) call(i);
  const before = settle();
  const releasedBefore = stringStats.released;
  for (let i = 0; i < 10_000; i++) call(i);
  const grown = growth(before, settle());
  assert.equal(stringStats.released - releasedBefore, 10_000);
  assert.ok(grown.rss < 40, `RSS grew by ${grown.rss.toFixed(1)} MB`);
});

test("2,000 async calls in batches release every answer, RSS does not grow", async () => {
  const batch = async () => {
    await Promise.all(Array.from({ length: 50 }, () => trimAsync(history, options)));
  };
  for (let i = 0; i < 10; i++) await batch();
  const before = settle();
  const releasedBefore = stringStats.released;
  for (let i = 0; i < 40; i++) await batch();
  const grown = growth(before, settle());
  assert.equal(stringStats.released - releasedBefore, 2000);
  assert.ok(grown.rss < 40, `RSS grew by ${grown.rss.toFixed(1)} MB`);
});
