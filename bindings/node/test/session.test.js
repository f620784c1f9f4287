// Incremental sessions: over random append / truncate / trim sequences, Session#trim() answers
// what the stateless trim() answers for the same history and options, in every format and
// unit; unchanged messages are the caller's own objects; the native handle is released. A
// session is cache-stable by default (trim_to 0.75, the cut carried); trim_to: null opts out and
// restores the stateless answers.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { AnkitaError, Session, trim } from "../index.js";
import { standInSettings } from "../lib/images.js";
import { sessionStats } from "../lib/native.js";
import { IMAGES_DIR } from "./helpers.js";

const PNG = fs.readFileSync(path.join(IMAGES_DIR, "png", "rgb_1700x2200.png"));
// A screenshot: a real PNG padded past the stand-in threshold.
const SCREENSHOT = `data:image/png;base64,${Buffer.concat([PNG, Buffer.alloc(40_000, 7)]).toString("base64")}`;

/** xorshift32: deterministic cases. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

function text(r, n) {
  const words = ["build", "failed", "é世", "line\n", '"quoted"', "config", "value"];
  let s = "";
  while (s.length < n) s += `${words[r(words.length)]} `;
  return s;
}

function step(format, r, k) {
  const t = text(r, r(1200));
  const id = `call_${k}`;
  const kind = r(7);
  if (format === "openai") {
    return [
      [{ role: "user", content: t }],
      [
        {
          role: "user",
          content: [
            { type: "text", text: t },
            { type: "image_url", image_url: { url: SCREENSHOT, detail: "high" } },
          ],
        },
      ],
      [{ role: "assistant", content: t }],
      [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: id, content: t },
      ],
      [{ role: "tool", tool_call_id: "orphan", content: t }],
      [{ role: "user", content: [{ type: "text", text: `Attached file: a.txt\n${t}` }] }],
      [{ role: "bogus", content: t }],
    ][kind];
  }
  if (format === "anthropic") {
    return [
      [{ role: "user", content: t }],
      [{ role: "assistant", content: t }],
      [
        {
          role: "assistant",
          content: [{ type: "tool_use", id, name: "read", input: { path: "a" } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: t }] },
      ],
      [{ role: "user", content: [{ type: "tool_result", tool_use_id: "orphan", content: t }] }],
      [{ role: "user", content: [{ type: "text", text: t }] }],
      [{ role: "assistant", content: [{ type: "text", text: t }] }],
      [{ role: "user", content: t }],
    ][kind];
  }
  return [
    [{ role: "user", content: t }],
    [{ type: "message", role: "assistant", content: [{ type: "output_text", text: t }] }],
    [
      { type: "function_call", call_id: id, name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: id, output: t },
    ],
    [{ type: "function_call_output", call_id: "orphan", output: t }],
    [{ type: "function_call", call_id: id, name: "read", arguments: "{}" }],
    [{ role: "user", content: [{ type: "input_text", text: t }] }],
    [{ role: "user", content: t }],
  ][kind];
}

// Sessions opted out of cache-stable trimming (trim_to: null; trim reads null as not given).
const OPTIONS = [
  { max_bytes: 6000, trim_to: null },
  { max_bytes: 20000, max_messages: 12, trim_to: null },
  {
    context_tokens: 3000,
    max_output_tokens: 200,
    model: "gpt-4o",
    overhead_bytes: 0,
    trim_to: null,
  },
  { context_tokens: 5000, tokenizer: "cl100k_base", max_messages: 1000, trim_to: null },
];

function outcome(call) {
  try {
    return call();
  } catch (error) {
    if (!(error instanceof AnkitaError)) throw error;
    return { error: error.code, message: error.message };
  }
}

test("a long session answers as the stateless trim, trimmed from its newest messages", () => {
  for (const [format, base] of [
    ...OPTIONS.map((o) => ["openai", o]),
    ...OPTIONS.map((o) => ["anthropic", { ...o, format: "anthropic", system: "Be terse." }]),
    ...OPTIONS.map((o) => ["responses", { ...o, format: "responses", system: "Be terse." }]),
  ]) {
    const options = base;
    const r = rng(4242);
    const session = new Session(options);
    const held = [
      format === "openai"
        ? { role: "system", content: "You are a desktop companion." }
        : { role: "user", content: "Where were we?" },
    ];
    session.append(held);
    for (let turn = 0; turn < 150; turn++) {
      const added = step(format, r, turn);
      session.append(added);
      held.push(...added);
      if (turn % 5 !== 4) continue;
      const got = session.trim();
      const expected = trim(held, options);
      assert.deepEqual(got, expected, `turn ${turn}`);
      // In the same order, and listed out once read.
      assert.equal(JSON.stringify(got.report), JSON.stringify(expected.report));
      assert.ok(Array.isArray(got.report.dropped_messages));
    }
    session.close();
  }
});

for (const format of ["openai", "anthropic", "responses"]) {
  test(`a ${format} session answers as the stateless trim over random edits`, () => {
    for (let seed = 1; seed <= 24; seed++) {
      const r = rng(seed * 7919);
      const options = { ...OPTIONS[seed % OPTIONS.length], format };
      if (format !== "openai") options.system = "Be terse.";
      const session = new Session(options);
      const held = [];
      for (let op = 0; op < 20; op++) {
        const what = r(10);
        if (what < 6) {
          const added = [];
          for (let k = r(4); k > 0; k--) added.push(...step(format, r, op * 10 + k));
          assert.equal(session.append(added), held.length + added.length);
          held.push(...added);
        } else if (what < 7) {
          const n = r(held.length + 3);
          session.truncate(n);
          held.length = Math.min(n, held.length);
          assert.equal(session.length, held.length);
        } else {
          const got = outcome(() => session.trim());
          assert.deepEqual(
            got,
            outcome(() => trim(held, options)),
            `seed ${seed}, op ${op}`,
          );
          for (const m of got.messages ?? []) {
            // Unchanged messages are the caller's objects; changed ones are new.
            if (held.includes(m)) continue;
            assert.ok(!held.some((h) => h === m));
          }
        }
      }
      assert.deepEqual(session.snapshot(), held);
      const restored = Session.restore(session.snapshot(), options);
      assert.deepEqual(
        outcome(() => restored.trim()),
        outcome(() => session.trim()),
      );
      restored.close();
      session[Symbol.dispose]();
      assert.throws(() => session.append([]), { code: "invalid_argument" });
    }
  });
}

test("a cache-stable session carries its cut: each answer is the stateless trim given the previous cut", () => {
  for (const format of ["openai", "anthropic", "responses"]) {
    const options = { max_bytes: 8000, trim_to: 0.75, format };
    if (format !== "openai") options.system = "Be terse.";
    const r = rng(77);
    const session = new Session(options);
    const held = [];
    let cut = null;
    let previous = [];
    let previousRepairs = new Set();
    let previousTruncated = false;
    const cuts = [];
    for (let turn = 0; turn < 120; turn++) {
      const added = step(format, r, turn);
      session.append(added);
      held.push(...added);
      let got;
      let expected;
      try {
        got = session.trim();
      } catch (error) {
        got = { error: error.code };
      }
      try {
        expected = trim(held, { ...options, cut });
      } catch (error) {
        expected = { error: error.code };
      }
      assert.deepEqual(got, expected, `${format} turn ${turn}`);
      if (got.error) continue;
      const next = got.report.cut;
      // What follows can change the previous answer's end: a same-role message merges into its
      // last message, a stray reply makes repair remove an older call. Else, while the cut
      // stands, the previous answer is the start of this one.
      const repaired = new Set(got.report.repaired.map((e) => `${e.index}:${e.action}`));
      // Shedding (the request alone over the budget) cuts texts to what the rest leaves.
      const settled =
        [...repaired]
          .filter((e) => !previousRepairs.has(e))
          .every((e) => Number(e.split(":")[0]) >= held.length - added.length) &&
        got.report.truncated.length === 0 &&
        !previousTruncated;
      previousTruncated = got.report.truncated.length > 0;
      if (cut !== null && next === cut && settled) {
        const stable = previous.slice(0, -1);
        assert.deepEqual(got.messages.slice(0, stable.length), stable, `${format} turn ${turn}`);
      }
      previousRepairs = repaired;
      if (next !== null) {
        assert.ok(cut === null || next >= cut, `${format}: the cut moved back`);
        cut = next;
        cuts.push(cut);
      }
      previous = got.messages;
    }
    session.close();
    assert.ok(cuts.length > 0, `${format}: the budget never filled`);
    assert.ok(new Set(cuts).size * 3 < cuts.length, `${format}: the cut moved on most calls`);
  }
});

test("unchanged messages come back as the caller's own objects", () => {
  const session = new Session({ max_bytes: 4096 });
  const history = [
    { role: "system", content: "Be brief." },
    { role: "tool", tool_call_id: "gone", content: "orphan" },
    { role: "user", content: [{ type: "image_url", image_url: { url: SCREENSHOT } }] },
  ];
  session.append(history);
  const { messages, report } = session.trim();
  assert.equal(messages[0], history[0]);
  assert.equal(messages[1], history[2]);
  assert.equal(report.repaired[0].action, "orphan_tool_removed");
  session.close();
  session.close();
  assert.throws(() => session.trim(), { code: "invalid_argument" });
});

test("a changed message keeps its screenshot URL, though a stand-in crossed", () => {
  const saved = { ...standInSettings };
  standInSettings.minLength = 64;
  try {
    const image = { type: "image_url", image_url: { url: SCREENSHOT } };
    // Repair edits the message (its broken tool calls go, a note is appended); its image
    // part is kept.
    const history = [
      {
        role: "assistant",
        content: [{ type: "text", text: "Look:" }, image],
        tool_calls: [{ id: "a", type: "function" }],
      },
      { role: "user", content: "And now?" },
    ];
    const session = new Session({ max_bytes: 100_000, trim_to: null });
    session.append(history);
    const got = session.trim();
    assert.equal(got.report.repaired[0].action, "incomplete_tool_calls_removed");
    assert.deepEqual(got, trim(history, { max_bytes: 100_000 }));
    assert.notEqual(got.messages[0], history[0]);
    assert.equal(got.messages[0].content[1].image_url.url, SCREENSHOT);
    assert.equal(got.messages[1], history[1]);
    session.close();
  } finally {
    Object.assign(standInSettings, saved);
  }
});

test("bad arguments and options are AnkitaErrors", () => {
  assert.throws(() => new Session({ max_byts: 1 }), { code: "invalid_request" });
  assert.throws(() => new Session({ max_bytes: NaN }), { code: "invalid_request" });
  const session = new Session({ max_bytes: 4096 });
  assert.throws(() => session.append({ role: "user" }), { code: "invalid_request" });
  assert.throws(() => session.truncate(-1), { code: "invalid_argument" });
  assert.equal(session.length, 0);
  session.close();
});

test("a session dropped without close() is freed by the FinalizationRegistry", async () => {
  if (typeof globalThis.gc !== "function") {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose-gc");
    globalThis.gc = vm.runInNewContext("gc");
  }
  const before = sessionStats.freed;
  (() => {
    for (let i = 0; i < 50; i++)
      new Session({ max_bytes: 4096 }).append([{ role: "user", content: "x" }]);
  })();
  for (let i = 0; i < 50 && sessionStats.freed - before < 50; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(sessionStats.freed - before, 50);
  const closed = new Session({ max_bytes: 4096 });
  const freed = sessionStats.freed;
  closed.close();
  closed.close();
  assert.equal(sessionStats.freed, freed + 1);
});

/** An agent loop's step in `format`: a user message every eighth step, else a tool exchange. */
function agentStep(format, k) {
  const t = `step ${k}: ${"the build log says the config value is wrong ".repeat(40 + (k % 7) * 20)}`;
  const id = `call_${k}`;
  if (k % 8 === 0) {
    const task = `Task ${k}: fix the build.`;
    return [
      format === "gemini"
        ? { role: "user", parts: [{ text: task }] }
        : { role: "user", content: task },
    ];
  }
  switch (format) {
    case "openai":
      return [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: id, content: t },
      ];
    case "anthropic":
      return [
        { role: "assistant", content: [{ type: "tool_use", id, name: "read", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: t }] },
      ];
    case "gemini":
      return [
        { role: "model", parts: [{ functionCall: { id, name: "read", args: {} } }] },
        {
          role: "user",
          parts: [{ functionResponse: { id, name: "read", response: { output: t } } }],
        },
      ];
    case "ai-sdk":
      return [
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: id, toolName: "read", input: {} }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: id,
              toolName: "read",
              output: { type: "text", value: t },
            },
          ],
        },
      ];
    default:
      return [
        { type: "function_call", call_id: id, name: "read", arguments: "{}" },
        { type: "function_call_output", call_id: id, output: t },
      ];
  }
}

/**
 * Runs the agent loop through a session; returns the share of the answers' JSON bytes that
 * repeat the previous answer as a prefix (over the calls after the window first filled), and
 * every tenth call's answer with the history and the cut the session carried into it.
 */
function loop(options, calls = 150) {
  const session = new Session(options);
  const held = [];
  let previous = [];
  let [repeated, total, filled, cut] = [0, 0, false, null];
  const checked = [];
  for (let k = 0; k < calls; k++) {
    const added = agentStep(options.format, k);
    session.append(added);
    held.push(...added);
    const got = session.trim();
    if (k % 10 === 0) checked.push({ got, held: [...held], cut });
    if ("cut" in got.report) cut = got.report.cut;
    filled ||= got.report.dropped_messages.length > 0;
    if (filled) {
      let same = 0;
      while (same < previous.length && same < got.messages.length) {
        if (JSON.stringify(previous[same]) !== JSON.stringify(got.messages[same])) break;
        same++;
      }
      const sizes = got.messages.map((m) => JSON.stringify(m).length);
      repeated += sizes.slice(0, same).reduce((a, b) => a + b, 0);
      total += sizes.reduce((a, b) => a + b, 0);
    }
    previous = got.messages;
  }
  session.close();
  assert.ok(filled, `${options.format}: the window never filled`);
  return { share: repeated / total, checked };
}

test("a default session keeps the prefix; trim_to: null restores the stateless answers", () => {
  for (const format of ["openai", "anthropic", "responses", "gemini", "ai-sdk"]) {
    const options = { model: "gpt-4o", context_tokens: 64_000, max_output_tokens: 4000, format };
    if (format !== "openai" && format !== "ai-sdk") options.system = "You are a coding agent.";
    const stable = loop(options);
    assert.ok(stable.share >= 0.85, `${format}: prefix share ${stable.share}`);
    for (const { got, held, cut } of stable.checked) {
      assert.deepEqual(got, trim(held, { ...options, trim_to: 0.75, cut }), format);
    }
    const plain = loop({ ...options, trim_to: null });
    assert.ok(plain.share < 0.5, `${format}: opted out, prefix share ${plain.share}`);
    for (const { got, held } of plain.checked) assert.deepEqual(got, trim(held, options), format);
  }
});

test("a session places the summary its summarize callback writes", () => {
  for (const format of ["openai", "anthropic", "responses", "gemini", "ai-sdk"]) {
    const calls = [];
    const summarize = (messages, previous) => {
      calls.push([messages.length, previous]);
      return `${previous ?? ""}${messages.length} messages of tool calls and results. `;
    };
    const options = { model: "gpt-4o", context_tokens: 64_000, max_output_tokens: 4000, format };
    if (format !== "openai" && format !== "ai-sdk") options.system = "You are a coding agent.";
    const session = new Session({ ...options, summarize });
    const head = format === "openai" || format === "ai-sdk" ? 1 : 0;
    if (head) session.append([{ role: "system", content: "You are a coding agent." }]);
    let placed = 0;
    for (let k = 0; k < 150; k++) {
      session.append(agentStep(format, k));
      const { messages, report } = session.trim();
      assert.ok(report.cost_tokens <= report.budget_tokens, format);
      assert.equal(report.compaction, undefined, format);
      if (report.summary !== undefined) {
        placed++;
        assert.equal(report.summary.output_index, head);
        assert.match(JSON.stringify(messages[head]), /\[Summary of the earlier conversation\]/);
      }
    }
    session.close();
    assert.ok(calls.length > 0 && placed > 0, format);
    assert.equal(calls[0][1], null);
    assert.ok(calls.slice(1).every(([, previous]) => previous));
  }
});

/** The agent loop's options in `format` (the system given apart where the format keeps it). */
function loopOptions(format) {
  const options = { model: "gpt-4o", context_tokens: 64_000, max_output_tokens: 4000, format };
  if (format !== "openai" && format !== "ai-sdk") options.system = "You are a coding agent.";
  return options;
}

/** A session of the loop, its system prompt the first message where the format keeps it. */
function loopSession(format, extra = {}) {
  const session = new Session({ ...loopOptions(format), ...extra });
  if (format === "openai" || format === "ai-sdk") {
    session.append([{ role: "system", content: "You are a coding agent." }]);
  }
  return session;
}

/** A deterministic stand-in summariser: what a model would write, by counting. */
const standIn = (messages, previous) =>
  `${previous ?? ""}${messages.length} messages of tool calls and results. `;

/** The loop's answers from `session.trim()`, or `await session.trimAsync()`; closes it. */
async function answers(session, format, { sync = false, calls = 150 } = {}) {
  const out = [];
  for (let k = 0; k < calls; k++) {
    session.append(agentStep(format, k));
    out.push(sync ? session.trim() : await session.trimAsync());
  }
  session.close();
  return out;
}

/** Runs `fn`, and returns what it returned with the process warnings emitted meanwhile. */
async function warned(fn) {
  const seen = [];
  const listen = (warning) => seen.push(warning.message);
  process.on("warning", listen);
  try {
    const value = await fn();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a tick
    return { value, warnings: seen };
  } finally {
    process.off("warning", listen);
  }
}

test("trimAsync awaits an async summarize, as trim calls a sync one", async () => {
  for (const format of ["openai", "anthropic"]) {
    const seen = [];
    let session;
    const summarize = async (messages, previous) => {
      await new Promise((resolve) => setImmediate(resolve));
      // Outside the session: it may be read (and appended to) meanwhile.
      seen.push([session.length, previous]);
      return standIn(messages, previous);
    };
    session = loopSession(format, { summarize });
    const got = await answers(session, format);
    const expected = await answers(loopSession(format, { summarize: standIn }), format, {
      sync: true,
    });
    assert.deepEqual(got, expected, format);
    const placed = got.filter(({ report }) => report.summary !== undefined);
    assert.ok(seen.length >= 2 && placed.length > 0, format);
    assert.equal(seen[0][1], null);
    assert.ok(seen.slice(1).every(([, previous]) => previous));
    const head = format === "openai" ? 1 : 0;
    for (const { messages, report } of placed) {
      assert.equal(report.summary.output_index, head, format);
      assert.match(JSON.stringify(messages[head]), /\[Summary of the earlier conversation\]/);
    }
    assert.ok(
      got.every(({ report }) => report.compaction === undefined),
      format,
    );
    // A sync summariser, and a plain function returning a Promise, serve trimAsync too.
    const sync = await answers(loopSession(format, { summarize: standIn }), format);
    assert.deepEqual(sync, expected, format);
    const deferred = (messages, previous) => Promise.resolve(standIn(messages, previous));
    assert.deepEqual(await answers(loopSession(format, { summarize: deferred }), format), expected);
  }
});

test("a summarize that fails or overflows leaves the trim as it was, with a warning", async () => {
  for (const format of ["openai", "anthropic"]) {
    const plain = await answers(loopSession(format), format, { sync: true });
    assert.ok(
      plain.some(({ report }) => report.dropped_messages.length > 0),
      format,
    );
    const cases = [
      [
        async () => {
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error("the model is down");
        },
        /summarize failed \(Error: the model is down\)/,
      ],
      [async () => ({ text: "an object" }), /summarize must return a string, not an object/],
      [async () => "the whole build log, again. ".repeat(20_000), /does not fit the budget/],
    ];
    for (const [summarize, warning] of cases) {
      const { value, warnings } = await warned(() =>
        answers(loopSession(format, { summarize }), format),
      );
      assert.deepEqual(value, plain, `${format}: ${warning}`);
      assert.ok(warnings.length > 0 && warnings.every((w) => warning.test(w)), `${warnings}`);
    }
    // The sync trim takes the same fallbacks.
    const failing = () => {
      throw new Error("no model today");
    };
    const { value } = await warned(() =>
      answers(loopSession(format, { summarize: failing }), format, { sync: true }),
    );
    assert.deepEqual(value, plain, format);
  }
});

test("trim given an async summarize names trimAsync", async () => {
  let called = 0;
  const summarize = async () => {
    called++;
    return "never";
  };
  const session = loopSession("openai", { summarize });
  session.append(agentStep("openai", 0));
  assert.throws(
    () => session.trim(),
    (error) =>
      error instanceof AnkitaError &&
      error.code === "invalid_argument" &&
      error.path === "summarize" &&
      /await session\.trimAsync\(\) instead of session\.trim\(\)/.test(error.message),
  );
  assert.equal(called, 0);
  session.close();
  // A plain function returning a Promise is known when the cut first moves: refused then, and
  // its rejection is not left unhandled.
  const rejected = [];
  const deferred = () => {
    called++;
    return Promise.reject(new Error("not awaited"));
  };
  process.on("unhandledRejection", (reason) => rejected.push(reason));
  const other = loopSession("openai", { summarize: deferred });
  let k = 0;
  assert.throws(() => {
    for (; k < 150; k++) {
      other.append(agentStep("openai", k));
      other.trim();
    }
  }, /summarize returned a Promise: await session\.trimAsync\(\)/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(called, 1);
  assert.deepEqual(rejected, []);
  other.close();
});

test("a truncation while summarize runs leaves the summary out", async () => {
  let session;
  const summarize = async (messages, previous) => {
    session.truncate(1);
    session.append([agentStep("anthropic", 1)[0]]);
    return standIn(messages, previous);
  };
  session = loopSession("anthropic", { summarize });
  const { value, warnings } = await warned(async () => {
    for (let k = 0; k < 150; k++) {
      session.append(agentStep("anthropic", k));
      const result = await session.trimAsync();
      if (session.length === 2) return result;
    }
    throw new Error("the cut never moved");
  });
  assert.equal(value.report.summary, undefined);
  assert.equal(value.report.input_messages, 2);
  assert.ok(
    warnings.some((w) => /truncated while summarize ran/.test(w)),
    `${warnings}`,
  );
  session.close();
});

test("a restored session takes summarize", () => {
  const saved = [];
  for (let k = 0; k < 150; k++) saved.push(...agentStep("openai", k));
  const session = Session.restore(saved, { ...loopOptions("openai"), summarize: standIn });
  assert.notEqual(session.trim().report.summary, undefined);
  session.close();
});
