// The async API: many calls in flight at once, each answer its own.

import assert from "node:assert/strict";
import crypto from "node:crypto";
import { test } from "node:test";

import { AnkitaError, sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";

/** A history that differs with `seed`: its own words, length and a tool exchange. */
function history(seed) {
  const messages = [{ role: "system", content: `You are assistant number ${seed}.` }];
  for (let turn = 0; turn < 5 + (seed % 17); turn++) {
    messages.push({
      role: "user",
      content: `question ${seed}.${turn} ${"lorem ipsum ".repeat(seed)}`,
    });
    if (turn % 4 === 1) {
      const id = `call_${seed}_${turn}`;
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [
          { id, type: "function", function: { name: "look", arguments: `{"n":${seed}}` } },
        ],
      });
      messages.push({ role: "tool", tool_call_id: id, content: `result ${seed}.${turn}` });
    }
    messages.push({ role: "assistant", content: `answer ${seed}.${turn}` });
  }
  messages.push({ role: "user", content: `the last question of ${seed}` });
  return messages;
}

function options(seed) {
  return { max_bytes: 600 + 97 * seed, max_messages: 4 + (seed % 11) };
}

test("50 concurrent trimAsync calls each get the answer to their own input", async () => {
  const seeds = Array.from({ length: 50 }, (_, i) => i + 1);
  const results = await Promise.all(seeds.map((seed) => trimAsync(history(seed), options(seed))));
  results.forEach((result, i) => {
    const seed = seeds[i];
    assert.deepStrictEqual(result, trim(history(seed), options(seed)), `seed ${seed}`);
    assert.equal(result.messages[0].content, `You are assistant number ${seed}.`);
    assert.equal(result.messages.at(-1).content, `the last question of ${seed}`);
    assert.equal(result.report.input_messages, history(seed).length);
    assert.equal(result.report.output_messages, result.messages.length);
    assert.ok(result.report.cost_bytes <= options(seed).max_bytes, `seed ${seed} over budget`);
  });
});

test("successes and failures in flight together settle independently", async () => {
  const calls = [];
  for (let seed = 1; seed <= 40; seed++) {
    if (seed % 3 === 0) {
      const tooLong = { role: "user", content: "x".repeat(5000 + seed) };
      calls.push(trimAsync([...history(seed), tooLong], { max_bytes: 1000 }));
    } else if (seed % 3 === 1) calls.push(sanitizeAsync(history(seed)));
    else calls.push(trimAsync(history(seed), { ...options(seed), typo_key: 1 }));
  }
  const settled = await Promise.allSettled(calls);
  settled.forEach((outcome, i) => {
    const seed = i + 1;
    if (seed % 3 === 1) {
      assert.equal(outcome.status, "fulfilled");
      assert.deepStrictEqual(outcome.value, sanitize(history(seed)));
    } else {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof AnkitaError);
      const code = seed % 3 === 0 ? "context_budget_exceeded" : "invalid_request";
      assert.equal(outcome.reason.code, code, `seed ${seed}: ${outcome.reason.message}`);
      if (code === "invalid_request") assert.equal(outcome.reason.path, "typo_key");
      else assert.equal(typeof outcome.reason.details.breakdown, "object");
    }
  });
});

test("timers keep firing while a long native call runs on a worker thread", async () => {
  // 30 undecodable ~1 MB images: they cross the boundary whole (no stand-in), so the native
  // call parses some 30 MB of JSON, many milliseconds that the event loop must not wait on.
  const junk = () => `data:image/png;base64,${crypto.randomBytes(768 * 1024).toString("base64")}`;
  const messages = [];
  for (let i = 0; i < 30; i++) {
    messages.push({ role: "user", content: [{ type: "image_url", image_url: { url: junk() } }] });
    messages.push({ role: "assistant", content: `ok ${i}` });
  }
  messages.push({ role: "user", content: "and now?" });
  const pending = trimAsync(messages, { max_bytes: 5000, fill: false });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const started = performance.now();
  const { report } = await pending;
  const waited = performance.now() - started;
  clearInterval(timer);
  assert.ok(report.dropped_messages.length >= 50, `${report.dropped_messages.length} dropped`);
  assert.ok(ticks > 0 || waited < 2, `no timer fired in ${waited.toFixed(1)} ms of native work`);
});

test("3,000 pending trimAsync calls are queued, none refused", async () => {
  const calls = Array.from({ length: 3000 }, (_, i) =>
    trimAsync([{ role: "user", content: `question ${i}` }]),
  );
  const results = await Promise.all(calls);
  results.forEach((result, i) => assert.equal(result.messages[0].content, `question ${i}`));
});
