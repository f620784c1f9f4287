// Runs of whole turns left out of a tail request (lib/tail.js, `window.gaps`): on generated agent
// histories in every format — parallel calls, unanswered calls, orphan, empty and reordered
// results, user parts with images — trim() with a message limit and sanitize() answer what the
// C ABI answers for the whole history, while the requests sent leave most older messages out.

import assert from "node:assert/strict";
import { test } from "node:test";

import { sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";
import { native } from "../lib/native.js";
import { tailStats } from "../lib/tail.js";
import { random } from "./helpers.js";

const WORDS = ["read", "the", "file", "näive", "日本", "🙂", "error:", "line", "tool", '"q"'];

function text(rand, max = 300) {
  const n = 1 + Math.floor(rand() * max);
  let out = "";
  while (out.length < n) out += WORDS[Math.floor(rand() * WORDS.length)] + " ";
  return out;
}

/** A small PNG (a 640×480 header, then filler), as base64. */
const PNG = Buffer.concat([
  Buffer.from("89504e470d0a1a0a0000000d4948445200000280000001e008060000005c72a866", "hex"),
  Buffer.alloc(48, 7),
]).toString("base64");

/**
 * Each format's messages: `user` and `model` text, `parts` (the user's text parts), `image`
 * (the user's text and an image), `calls(ids)` (the model's calls, parallel when more than one:
 * a list of messages), `replies(calls)` (the results, in the order given: a list of messages),
 * `empty(id)` (an empty result).
 */
const FORMATS = {
  openai: {
    user: (r) => ({ role: "user", content: text(r) }),
    model: (r) => ({ role: "assistant", content: text(r) }),
    parts: (r) => ({ role: "user", content: [{ type: "text", text: text(r) }] }),
    image: (r) => ({
      role: "user",
      content: [
        { type: "text", text: text(r) },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    }),
    calls: (r, ids) => [
      {
        role: "assistant",
        content: r() < 0.3 ? text(r, 80) : null,
        tool_calls: ids.map((id) => ({
          id,
          type: "function",
          function: { name: `t${id.length % 3}`, arguments: JSON.stringify({ p: text(r, 90) }) },
        })),
      },
    ],
    replies: (r, ids) =>
      ids.map((id) => ({ role: "tool", tool_call_id: id, content: text(r, 900) })),
    empty: (id) => ({ role: "tool", tool_call_id: id, content: "" }),
  },
  anthropic: {
    user: (r) => ({ role: "user", content: text(r) }),
    model: (r) => ({ role: "assistant", content: text(r) }),
    parts: (r) => ({ role: "user", content: [{ type: "text", text: text(r) }] }),
    image: (r) => ({
      role: "user",
      content: [
        { type: "text", text: text(r) },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    }),
    calls: (r, ids) => [
      {
        role: "assistant",
        content: [
          ...(r() < 0.5 ? [{ type: "text", text: text(r, 80) }] : []),
          ...ids.map((id) => ({
            type: "tool_use",
            id,
            name: `t${id.length % 3}`,
            input: { path: text(r, 40), n: 3, deep: [{ ok: true, none: null }] },
          })),
        ],
      },
    ],
    replies: (r, ids) => [
      {
        role: "user",
        content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: text(r, 900) })),
      },
    ],
    empty: (id) => ({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: "" }],
    }),
  },
  responses: {
    user: (r) => ({ role: "user", content: text(r) }),
    model: (r) => ({ role: "assistant", content: text(r) }),
    parts: (r) => ({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: text(r) }],
    }),
    image: (r) => ({
      role: "user",
      content: [
        { type: "input_text", text: text(r) },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
      ],
    }),
    calls: (r, ids) =>
      ids.map((id) => ({
        type: "function_call",
        call_id: id,
        name: `t${id.length % 3}`,
        arguments: JSON.stringify({ p: text(r, 90) }),
      })),
    replies: (r, ids) =>
      ids.map((id) => ({ type: "function_call_output", call_id: id, output: text(r, 900) })),
    empty: (id) => ({ type: "function_call_output", call_id: id, output: "" }),
  },
  gemini: {
    user: (r) => ({ role: "user", parts: [{ text: text(r) }] }),
    model: (r) => ({ role: "model", parts: [{ text: text(r) }] }),
    parts: (r) => ({ role: "user", parts: [{ text: text(r) }, { text: text(r, 30) }] }),
    image: (r) => ({
      role: "user",
      parts: [{ text: text(r) }, { inlineData: { mimeType: "image/png", data: PNG } }],
    }),
    calls: (r, ids) => [
      {
        role: "model",
        parts: [
          ...(r() < 0.5 ? [{ text: text(r, 80) }] : []),
          ...ids.map((id) => ({
            functionCall: { id, name: `t${id.length % 3}`, args: { p: text(r, 90), n: 1.5 } },
          })),
        ],
      },
    ],
    replies: (r, ids) => [
      {
        role: "user",
        parts: ids.map((id) => ({
          functionResponse: { id, name: `t${id.length % 3}`, response: { out: text(r, 900) } },
        })),
      },
    ],
    empty: (id) => ({
      role: "user",
      parts: [{ functionResponse: { id, name: `t${id.length % 3}`, response: {} } }],
    }),
  },
  "ai-sdk": {
    user: (r) => ({ role: "user", content: text(r) }),
    model: (r) => ({ role: "assistant", content: text(r) }),
    parts: (r) => ({ role: "user", content: [{ type: "text", text: text(r) }] }),
    image: (r) => ({
      role: "user",
      content: [
        { type: "text", text: text(r) },
        { type: "image", image: `data:image/png;base64,${PNG}` },
      ],
    }),
    calls: (r, ids) => [
      {
        role: "assistant",
        content: [
          ...(r() < 0.5 ? [{ type: "text", text: text(r, 80) }] : []),
          ...ids.map((id) => ({
            type: "tool-call",
            toolCallId: id,
            toolName: `t${id.length % 3}`,
            input: { p: text(r, 90) },
          })),
        ],
      },
    ],
    replies: (r, ids) => [
      {
        role: "tool",
        content: ids.map((id) => ({
          type: "tool-result",
          toolCallId: id,
          toolName: `t${id.length % 3}`,
          output: { type: "text", value: text(r, 900) },
        })),
      },
    ],
    empty: (id) => ({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: id,
          toolName: `t${id.length % 3}`,
          output: { type: "text", value: "" },
        },
      ],
    }),
  },
};

/**
 * An agent history of about `length` messages in `format`: tasks (the user's text, text parts
 * or an image) of tool steps, one to three parallel calls a step; now and then a step with an
 * unanswered call, an orphan result (besides its results, or in place of one), an empty result
 * or its results out of order.
 */
function agentHistory(format, length, seed) {
  const rand = random(seed);
  const f = FORMATS[format];
  const out = [];
  if (format === "openai" || format === "responses" || format === "ai-sdk") {
    out.push({ role: "system", content: "You are a coding agent." });
  }
  let next = 0;
  while (out.length < length) {
    const kind = rand();
    out.push(kind < 0.03 ? f.image(rand) : kind < 0.4 ? f.parts(rand) : f.user(rand));
    const steps = 1 + Math.floor(rand() * 6);
    for (let s = 0; s < steps; s++) {
      const ids = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => `c${next++}`);
      out.push(...f.calls(rand, ids));
      const odd = rand();
      if (odd < 0.01) {
        // unanswered
      } else if (odd < 0.02) {
        out.push(...f.replies(rand, [...ids, `gone${next++}`]));
      } else if (odd < 0.03) {
        out.push(...f.replies(rand, ids.slice(1)), f.empty(ids[0]));
      } else if (odd < 0.045 && ids.length > 1) {
        out.push(...f.replies(rand, [...ids].reverse()));
      } else if (odd < 0.05) {
        out.push(...f.replies(rand, [`gone${next++}`]), ...f.replies(rand, ids));
      } else if (odd < 0.055) {
        // A result for a call that was not made, in place of one that was.
        out.push(...f.replies(rand, [`gone${next++}`, ...ids.slice(1)]));
      } else {
        out.push(...f.replies(rand, ids));
      }
    }
    out.push(f.model(rand));
  }
  out.push(f.user(rand));
  return out;
}

/** What the C ABI answers for the whole history, in trim()'s shape (or the error). */
function whole(messages, options) {
  let text;
  try {
    text = JSON.stringify({ ...options, messages });
  } catch {
    return { error: { code: "invalid_json" } };
  }
  const answer = JSON.parse(native().trim(text));
  if (!answer.ok) return { error: answer.error };
  const { ok, ...rest } = answer;
  void ok;
  return rest;
}

/** What the C ABI answers for the whole history's sanitize, in sanitize()'s shape. */
function wholeSanitize(messages, format) {
  const answer = JSON.parse(native().sanitize(JSON.stringify({ messages, format })));
  if (!answer.ok) return { error: answer.error };
  const { ok, ...rest } = answer;
  void ok;
  return rest;
}

function mine(call) {
  try {
    return JSON.parse(JSON.stringify(call()));
  } catch (error) {
    return { error: error.toJSON?.() ?? String(error) };
  }
}

/** Runs `body` with the lengths of the tail requests sent to the library noted. */
function noting(body) {
  const lib = native();
  const sent = [];
  const saved = { trimTail: lib.trimTail, sanitizeTail: lib.sanitizeTail };
  for (const call of /** @type {const} */ (["trimTail", "sanitizeTail"])) {
    const original = saved[call];
    lib[call] = (text) => {
      sent.push(text.length);
      return original(text);
    };
  }
  try {
    body();
  } finally {
    Object.assign(lib, saved);
  }
  return sent;
}

const LIMITS = [12, 40, 100];

for (const format of Object.keys(FORMATS)) {
  test(`${format}: a trim with a limit leaves runs of whole turns out and answers the whole history's trim`, async () => {
    const before = { ...tailStats };
    let calls = 0;
    let largest = 0;
    let history = 0;
    const sent = noting(() => {
      for (let seed = 1; seed <= 4; seed++) {
        const messages = agentHistory(format, 800 + seed * 400, seed * 7_477 + format.length);
        history = Math.max(history, JSON.stringify(messages).length);
        for (const max of LIMITS) {
          const options = { max_messages: max, format };
          if (seed % 2 === 0 && format !== "openai" && format !== "ai-sdk") {
            options.system = "Be terse.";
          }
          const expected = whole(messages, options);
          assert.equal(expected.error, undefined, `seed ${seed}, max ${max}`);
          assert.deepEqual(
            mine(() => trim(messages, options)),
            expected,
            `seed ${seed}, ${max}`,
          );
          calls++;
        }
      }
    });
    for (const length of sent) largest = Math.max(largest, length);
    const tails = tailStats.tails - before.tails;
    assert.equal(tailStats.whole - before.whole, 0, "no whole history sent");
    assert.ok(tails >= calls, `${tails} tails for ${calls} trims`);
    // Most older messages were left out as whole turns: every request is a small part of the
    // history.
    assert.ok(tailStats.turns - before.turns > calls * 500, `${tailStats.turns - before.turns}`);
    assert.ok(largest * 5 < history, `a request of ${largest} characters, a history of ${history}`);
    // And from a worker thread.
    const messages = agentHistory(format, 1500, 99 + format.length);
    const options = { max_messages: 40, format };
    assert.deepEqual(
      JSON.parse(JSON.stringify(await trimAsync(messages, options))),
      whole(messages, options),
    );
  });
}

for (const format of Object.keys(FORMATS)) {
  test(`${format}: a sanitize of an agent history answers the whole history's sanitize`, async () => {
    const before = { ...tailStats };
    for (let seed = 1; seed <= 4; seed++) {
      const messages = agentHistory(format, 600 + seed * 300, seed * 3_119 + format.length);
      const expected = wholeSanitize(messages, format);
      const call =
        seed % 2 === 0
          ? await sanitizeAsync(messages, { format })
          : mine(() => sanitize(messages, { format }));
      assert.deepEqual(JSON.parse(JSON.stringify(call)), expected, `seed ${seed}`);
    }
    // Formats that merge no turns sanitize from the last message, whole turns left out.
    if (native().formats.formats.find((f) => f.name === format)?.merges_turns === false) {
      assert.ok(tailStats.tails - before.tails >= 4, "sanitized from tails");
      assert.ok(tailStats.turns - before.turns > 2000, `${tailStats.turns - before.turns}`);
    }
  });
}

test("a message that is not plain data inside a run of whole turns is given, and the whole history's errors come first", () => {
  class Args {
    constructor() {
      this.p = "x";
    }
  }
  const values = {
    toJSON: () => ({ toJSON: () => "from toJSON" }),
    "lone surrogate": () => `bad \ud800 text ${"y".repeat(100)}`,
    "surrogate key": () => ({ ["k\udc00"]: 1 }),
    "class instance": () => new Args(),
    date: () => new Date(0),
    NaN: () => Number.NaN,
    BigInt: () => 10n,
    undefined: () => undefined,
  };
  /** Where a value goes: a tool result's text, a call's arguments, a member of a call's input. */
  const places = [
    ["openai", (m) => m.role === "tool", (m, v) => (m.content = v)],
    ["openai", (m) => m.tool_calls, (m, v) => (m.tool_calls[0].function.arguments = v)],
    ["anthropic", (m) => m.content?.[0]?.type === "tool_use", (m, v) => (m.content[0].input.x = v)],
    [
      "anthropic",
      (m) => Array.isArray(m.content) && m.content.at(-1)?.type === "tool_use",
      (m, v) => (m.content.at(-1).input.deep[0].x = v),
    ],
    [
      "gemini",
      (m) => m.parts?.[0]?.functionResponse,
      (m, v) => (m.parts[0].functionResponse.response.x = [1, v]),
    ],
  ];
  for (const [what, value] of Object.entries(values)) {
    for (const [format, here, put] of places) {
      const messages = agentHistory(format, 3000, 41);
      const at = messages.findIndex((m, i) => i > 200 && here(m));
      put(messages[at], value());
      const options = { max_messages: 40, format };
      const expected = whole(messages, options);
      const actual = mine(() => trim(messages, options));
      const where = `${what} in ${format} messages[${at}]`;
      if (expected.error) {
        assert.equal(actual.error?.code, expected.error.code, where);
        if (expected.error.path !== undefined)
          assert.equal(actual.error?.path, expected.error.path);
      } else {
        assert.deepEqual(actual, expected, where);
      }
    }
  }
});
