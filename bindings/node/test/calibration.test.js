// Session#observeUsage: the provider's count of a request sets the token factor of a model
// counted with a margin (the core's tests/calibration.rs runs the 200-call loop against a
// stand-in provider; here, what the binding hands over and answers).

import assert from "node:assert/strict";
import { test } from "node:test";

import { AnkitaError, Session, trim } from "../index.js";

const TEXT = "The parser reads the window's buffer and reports the session's budget. ".repeat(40);

function history(n) {
  const messages = [{ role: "system", content: "Be brief." }];
  for (let k = 0; k < n; k++) {
    messages.push({ role: "user", content: `Question ${k}: ${TEXT}` });
    messages.push({ role: "assistant", content: `Answer ${k}: ${TEXT}` });
  }
  return messages;
}

test("observed usage sets the factor of the next trims", (t) => {
  const session = new Session({
    messages: history(20),
    model: "claude-sonnet-4-5",
    context_tokens: 8000,
    max_output_tokens: 1000,
    // Not cache-stable: each trim fills the window, which is what the factor decides.
    trim_to: null,
  });
  t.after(() => session.close());
  const first = session.trim();
  const fixed = first.report.token_factor;
  assert.deepEqual([fixed.value, fixed.source, fixed.observations], [1.35, "fixed_margin", 0]);
  // A provider counting 10% over o200k_base: the factor follows, with a small margin.
  const factor = session.observeUsage(Math.floor(fixed.counted * 1.1));
  assert.equal(factor.source, "observed");
  assert.equal(factor.observations, 1);
  assert.ok(factor.value >= 1.1 && factor.value < 1.15, `${factor.value}`);
  const second = session.trim();
  assert.deepEqual(second.report.token_factor, {
    ...factor,
    counted: second.report.token_factor.counted,
  });
  assert.ok(second.messages.length > first.messages.length);
});

test("a caller's factor and a public tokenizer are kept", (t) => {
  for (const [options, value, source] of [
    [{ model: "claude-sonnet-4-5", token_factor: 1.2 }, 1.2, "caller"],
    [{ model: "gpt-4o" }, 1, "tokenizer"],
  ]) {
    const session = new Session({ messages: history(2), context_tokens: 8000, ...options });
    t.after(() => session.close());
    assert.equal(session.trim().report.token_factor.source, source);
    assert.deepEqual(session.observeUsage(5000), { value, source, observations: 1 });
  }
});

test("usage that cannot be paired is an invalid_argument error", (t) => {
  const session = new Session({ messages: history(2), model: "claude-sonnet-4-5" });
  t.after(() => session.close());
  const invalid = (pattern) => (error) =>
    error instanceof AnkitaError &&
    error.code === "invalid_argument" &&
    pattern.test(error.message);
  assert.throws(() => session.observeUsage(100), invalid(/trim first/));
  session.trim();
  assert.throws(() => session.observeUsage(0), invalid(/not 0/));
  assert.throws(() => session.observeUsage(-1), invalid(/not -1/));
  assert.throws(() => session.observeUsage(1.5), invalid(/not 1\.5/));
  assert.throws(() => session.observeUsage("100"), invalid(/inputTokens/));
  assert.throws(() => session.observeUsage(10_000_000), invalid(/no factor/));
  const inBytes = new Session({ messages: history(2), max_bytes: 100_000 });
  t.after(() => inBytes.close());
  inBytes.trim();
  assert.throws(() => inBytes.observeUsage(100), invalid(/counts bytes/));
});

test("a stateless trim takes the observed usage", () => {
  const options = { model: "gemini-3.1-pro", context_tokens: 8000 };
  const first = trim(history(20), options);
  const factor = first.report.token_factor;
  assert.deepEqual([factor.value, factor.source, factor.observations], [1.25, "fixed_margin", 0]);
  const usage = [[factor.counted, Math.floor(factor.counted * 1.05)]];
  const second = trim(history(20), { ...options, observed_usage: usage });
  const observed = second.report.token_factor;
  assert.deepEqual([observed.source, observed.observations], ["observed", 1]);
  assert.ok(observed.value >= 1.05 && observed.value < 1.1, `${observed.value}`);
  assert.ok(second.messages.length > first.messages.length);
  assert.equal(trim(history(2), { max_bytes: 100_000 }).report.token_factor, undefined);
});

test("the factor observed holds when the session places a summary", (t) => {
  const calls = [];
  const session = new Session({
    messages: history(20),
    model: "claude-sonnet-4-5",
    context_tokens: 8000,
    max_output_tokens: 1000,
    summarize: (messages, previous) => {
      calls.push(messages.length);
      return `${previous ?? ""} ${messages.length} messages folded in.`;
    },
  });
  t.after(() => session.close());
  const first = session.trim();
  const factor = session.observeUsage(Math.floor(first.report.token_factor.counted * 1.1));
  assert.equal(factor.source, "observed");
  const before = calls.length;
  // Enough new turns that the cut must move: the summary is placed anew.
  session.append(history(12).slice(1));
  const after = session.trim();
  assert.ok(calls.length > before, "the cut moved and summarize was called");
  assert.ok(after.report.summary, "a summary is placed");
  assert.deepEqual(
    [after.report.token_factor.value, after.report.token_factor.source],
    [factor.value, "observed"],
  );
  assert.equal(after.report.token_factor.observations, 1);
});
