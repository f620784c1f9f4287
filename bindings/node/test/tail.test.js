// Stateless trims of long histories read from their newest messages (lib/tail.js): on long
// generated histories in every format, repairs and odd messages among the old ones, with and
// without budgets and models, trim() answers what the C ABI answers for the whole history.

import assert from "node:assert/strict";
import { test } from "node:test";

import { sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";
import { native } from "../lib/native.js";
import { plainRole, standInOf, tailStats } from "../lib/tail.js";
import { random } from "./helpers.js";

const WORDS = ["alpha", "beta", "gamma", "delta", "tool", "file", "screen", "näive", "日本", "🙂"];

function text(rand, max = 300) {
  const n = 1 + Math.floor(rand() * max);
  let out = "";
  while (out.length < n) out += WORDS[Math.floor(rand() * WORDS.length)] + " ";
  return out;
}

/** One event of a history in `format`: a list of messages. */
const EVENTS = {
  openai: {
    user: (r) => [{ role: "user", content: text(r) }],
    assistant: (r) => [{ role: "assistant", content: text(r) }],
    assistants: (r) => [
      { role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
    ],
    system: (r) => [{ role: "system", content: text(r, 40) }],
    named: (r) => [{ role: "user", name: "ann", content: text(r) }],
    parts: (r) => [{ role: "user", content: [{ type: "text", text: text(r) }] }],
    exchange: (r, id) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: id, content: text(r, 800) },
    ],
    orphan: (r, id) => [{ role: "tool", tool_call_id: `gone-${id}`, content: text(r) }],
    unanswered: (r, id) => [
      {
        role: "assistant",
        content: text(r, 50),
        tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }],
      },
    ],
    malformed: (r) => [
      {
        role: "assistant",
        content: "calling",
        tool_calls: [{ id: "", type: "function", function: { name: "x", arguments: "{}" } }],
      },
    ],
    empty: () => [{ role: "user", content: "" }],
    unknown: (r) => [{ role: "narrator", content: text(r, 40) }],
    extra: (r) => [{ role: "assistant", content: text(r), refusal: null }],
  },
  anthropic: {
    user: (r) => [{ role: "user", content: text(r) }],
    assistant: (r) => [{ role: "assistant", content: text(r) }],
    assistants: (r) => [
      { role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
    ],
    parts: (r) => [{ role: "user", content: [{ type: "text", text: text(r) }] }],
    exchange: (r, id) => [
      {
        role: "assistant",
        content: [
          { type: "text", text: text(r, 40) },
          { type: "tool_use", id, name: "read", input: { path: "a" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: text(r, 800) }],
      },
    ],
    orphan: (r, id) => [
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `gone-${id}`, content: text(r) }],
      },
    ],
    unanswered: (r, id) => [
      {
        role: "assistant",
        content: [{ type: "tool_use", id, name: "read", input: {} }],
      },
    ],
    empty: () => [{ role: "user", content: "" }],
  },
  responses: {
    user: (r) => [{ role: "user", content: text(r) }],
    assistant: (r) => [{ role: "assistant", content: text(r) }],
    assistants: (r) => [
      { role: "assistant", content: text(r) },
      { type: "message", role: "assistant", content: text(r) },
      { role: "assistant", content: text(r) },
    ],
    system: (r) => [{ role: "developer", content: text(r, 40) }],
    parts: (r) => [{ role: "user", content: [{ type: "input_text", text: text(r) }] }],
    exchange: (r, id) => [
      { type: "reasoning", id: `rs_${id}`, summary: [] },
      { type: "function_call", call_id: id, name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: id, output: text(r, 800) },
    ],
    orphan: (r, id) => [{ type: "function_call_output", call_id: `gone-${id}`, output: text(r) }],
    unanswered: (r, id) => [{ type: "function_call", call_id: id, name: "read", arguments: "{}" }],
    reasoning: (r, id) => [{ type: "reasoning", id: `rs_${id}`, summary: [] }],
    empty: () => [{ role: "user", content: "" }],
  },
  gemini: {
    user: (r) => [{ role: "user", parts: [{ text: text(r) }] }],
    assistant: (r) => [{ role: "model", parts: [{ text: text(r) }] }],
    assistants: (r) => [
      { role: "model", parts: [{ text: text(r) }] },
      { role: "model", parts: [{ text: text(r) }, { text: text(r) }] },
      { role: "model", parts: [{ text: text(r) }] },
    ],
    parts: (r) => [{ role: "user", parts: [{ text: text(r) }, { text: "" }] }],
    exchange: (r, id) => [
      { role: "model", parts: [{ functionCall: { name: "read", args: {}, id } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "read", id, response: { out: text(r, 800) } } }],
      },
    ],
    noid: (r) => [
      { role: "model", parts: [{ functionCall: { name: "read", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "read", response: { out: text(r) } } }] },
    ],
    orphan: (r, id) => [
      {
        role: "user",
        parts: [{ functionResponse: { name: "read", id: `gone-${id}`, response: {} } }],
      },
    ],
    unanswered: (r, id) => [
      { role: "model", parts: [{ functionCall: { name: "read", args: {}, id } }] },
    ],
    empty: () => [{ role: "user", parts: [] }],
  },
  "ai-sdk": {
    user: (r) => [{ role: "user", content: text(r) }],
    assistant: (r) => [{ role: "assistant", content: text(r) }],
    assistants: (r) => [
      { role: "assistant", content: text(r) },
      { role: "assistant", content: [{ type: "text", text: text(r) }] },
      { role: "assistant", content: text(r) },
    ],
    system: (r) => [{ role: "system", content: text(r, 40) }],
    parts: (r) => [{ role: "user", content: [{ type: "text", text: text(r) }] }],
    exchange: (r, id) => [
      {
        role: "assistant",
        content: [
          { type: "text", text: text(r, 40) },
          { type: "tool-call", toolCallId: id, toolName: "read", input: { path: "a" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: id,
            toolName: "read",
            output: { type: "text", value: text(r, 800) },
          },
        ],
      },
    ],
    approval: (r, id) => [
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: id, toolName: "rm", input: {} },
          { type: "tool-approval-request", approvalId: `ap_${id}`, toolCallId: id },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: `ap_${id}`, approved: true }],
      },
    ],
    orphan: (r, id) => [
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `gone-${id}`,
            toolName: "read",
            output: { type: "text", value: text(r) },
          },
        ],
      },
    ],
    unanswered: (r, id) => [
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: id, toolName: "read", input: {} }],
      },
    ],
    empty: () => [{ role: "user", content: "" }],
    extra: (r) => [{ role: "user", content: text(r), providerOptions: {} }],
  },
};

/** A history of about `length` messages in `format`, odd events mostly among the older. */
function history(format, length, seed) {
  const rand = random(seed);
  const events = EVENTS[format];
  const odd = Object.keys(events).filter((k) => k !== "user" && k !== "assistant");
  const out = [];
  if (format === "openai" || format === "responses" || format === "ai-sdk") {
    out.push({ role: "system", content: "Be brief." });
  }
  let id = 0;
  // Some end in a long tool loop: the request and its anchors lie far back (a longer tail).
  const loop = seed % 3 === 0 ? 40 + (seed % 5) * 20 : 0;
  while (out.length < length) {
    // Odd events are frequent early, rare in the newest fifth.
    const late = out.length > length * 0.8;
    if (rand() < (late ? 0.03 : 0.25)) {
      out.push(...events[odd[Math.floor(rand() * odd.length)]](rand, `c${id++}`));
    } else {
      out.push(...events.user(rand), ...events.assistant(rand));
    }
  }
  out.push(...events.user(rand));
  for (let k = 0; k < loop; k++) out.push(...events.exchange(rand, `loop${k}`));
  return out;
}

const OPTIONS = [
  { max_messages: 40 },
  { max_messages: 12 },
  { max_bytes: 6000 },
  { max_bytes: 20_000, max_messages: null },
  { max_bytes: 150_000, max_messages: null },
  { max_messages: 300 },
  { max_bytes: 5000, fill: false },
  { context_tokens: 3000 },
  { context_tokens: 6000, tokenizer: "bytes" },
  {},
  { max_messages: null },
  { max_messages: null, bytes_per_token: 3 },
];

const MODELS = {
  openai: "gpt-4o",
  anthropic: "claude-sonnet-4-5",
  responses: "gpt-4.1",
  gemini: "gemini-2.5-flash",
  "ai-sdk": "gpt-4o",
};

/** What the C ABI answers for the whole history, in trim()'s shape (or the error). */
function whole(messages, options) {
  const answer = JSON.parse(native().trim(JSON.stringify({ ...options, messages })));
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

for (const format of Object.keys(EVENTS)) {
  test(`${format}: trim of a long history from its tail answers the whole history's trim`, () => {
    const before = { ...tailStats };
    let calls = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const messages = history(format, 300 + seed * 150, seed * 7919 + format.length);
      for (const base of OPTIONS) {
        for (const model of [undefined, MODELS[format]]) {
          const options = { ...base, format };
          if (model !== undefined) options.model = model;
          if (format !== "openai" && format !== "ai-sdk" && seed % 2 === 0) {
            options.system = "You are terse.";
          }
          const expected = whole(messages, options);
          const actual = mine(() => trim(messages, options));
          if (expected.error) {
            assert.deepEqual(actual.error?.code, expected.error.code, `seed ${seed}`);
            continue;
          }
          assert.deepEqual(actual, expected, `seed ${seed}, ${JSON.stringify(options)}`);
          calls++;
        }
      }
    }
    // Most trims were answered from a tail.
    const tails = tailStats.tails - before.tails;
    const wholes = tailStats.whole - before.whole;
    assert.ok(tails >= calls / 2, `${tails} tails for ${calls} trims`);
    assert.ok(wholes < calls / 2, `${wholes} whole histories sent for ${calls} trims`);
  });
}

test("messages returned unchanged are the caller's own objects", async () => {
  const messages = history("openai", 2000, 3);
  for (const result of [trim(messages), await trimAsync(messages, { max_bytes: 4000 })]) {
    const kept = new Set(messages);
    assert.ok(result.messages.length > 0);
    for (const m of result.messages) {
      if (!kept.has(m)) assert.ok(m.tool_calls === undefined || m.content !== undefined);
    }
    assert.ok(result.messages.filter((m) => kept.has(m)).length >= result.messages.length - 1);
  }
});

test("trimAsync answers what trim answers, from a tail", async () => {
  const messages = history("anthropic", 3000, 11);
  const before = tailStats.tails;
  const sync = trim(messages, { format: "anthropic", max_bytes: 8000 });
  const later = await trimAsync(messages, { format: "anthropic", max_bytes: 8000 });
  assert.deepEqual(JSON.parse(JSON.stringify(later)), JSON.parse(JSON.stringify(sync)));
  assert.ok(tailStats.tails - before >= 2);
});

test("a plain message is a role and a non-empty string only", () => {
  assert.equal(plainRole({ role: "user", content: "hi" }, "openai"), "user");
  assert.equal(plainRole({ role: "user", content: "" }, "openai"), null);
  assert.equal(plainRole({ role: "tool", content: "x" }, "openai"), null);
  assert.equal(plainRole({ role: "user", content: "x", extra: 1 }, "openai"), null);
  assert.equal(plainRole({ role: "user", content: "bad \ud800" }, "openai"), null);
  assert.equal(plainRole({ role: "user", content: "x", name: "a" }, "openai"), "user");
  assert.equal(plainRole({ role: "user", content: "x", name: "a" }, "anthropic"), null);
  assert.equal(plainRole({ role: "system", content: "x" }, "anthropic"), null);
  assert.equal(plainRole({ type: "message", role: "user", content: "x" }, "responses"), "user");
  assert.equal(plainRole({ role: "model", parts: [{ text: "x" }] }, "gemini"), "model");
  assert.equal(plainRole({ role: "model", parts: [{ text: "" }] }, "gemini"), null);
  assert.equal(plainRole({ role: "model", parts: [] }, "gemini"), null);
  assert.equal(plainRole({ role: "user", content: "x", toJSON: () => ({}) }, "openai"), null);
});

test("a history that keeps everything sends its plain messages' sizes, as the C ABI answers", () => {
  for (const format of ["openai", "responses"]) {
    const messages = history(format, 1000, 5);
    const options = { max_messages: null, format };
    const before = { ...tailStats };
    assert.deepEqual(
      mine(() => trim(messages, options)),
      whole(messages, options),
    );
    assert.equal(tailStats.sized - before.sized, 1, format);
    assert.equal(tailStats.whole - before.whole, 0, format);
  }
  // Text counted in tokens needs the text: the whole history answers.
  const messages = history("openai", 1000, 5);
  const options = { max_messages: null, model: "gpt-4o" };
  const before = { ...tailStats };
  assert.deepEqual(
    mine(() => trim(messages, options)),
    whole(messages, options),
  );
  assert.equal(tailStats.whole - before.whole, 1);
});

test("a window key of the caller's is an unknown request key", () => {
  const messages = history("openai", 1000, 5);
  assert.throws(
    () => trim(messages, { window: 3 }),
    (e) => e.code === "invalid_request" && /window/.test(e.message),
  );
});

for (const format of Object.keys(EVENTS)) {
  test(`${format}: sanitize of a long history answers the whole history's sanitize`, async () => {
    const before = { ...tailStats };
    for (let seed = 1; seed <= 6; seed++) {
      const messages = history(format, 200 + seed * 150, seed * 104_729 + format.length);
      const request = format === "openai" && seed % 2 ? messages : { messages, format };
      const expected = JSON.parse(native().sanitize(JSON.stringify(request)));
      delete expected.ok;
      const options = format === "openai" && seed % 2 ? undefined : { format };
      const call =
        seed % 3 === 0 ? await sanitizeAsync(messages, options) : sanitize(messages, options);
      assert.deepEqual(JSON.parse(JSON.stringify(call)), expected, `seed ${seed}`);
      const given = new Set(messages);
      assert.ok(call.messages.filter((m) => given.has(m)).length * 2 >= call.messages.length);
    }
    if (format === "openai" || format === "responses") {
      assert.ok(tailStats.tails - before.tails >= 6, "sanitized from tails");
    }
  });
}

test("a getter that throws among the older messages fails as the whole history's trim", () => {
  const messages = history("openai", 1000, 9);
  Object.defineProperty(messages[5], "content", {
    enumerable: true,
    get() {
      throw new Error("no content");
    },
  });
  // What reading the whole history throws (the getter's own error).
  assert.throws(() => trim(messages), /no content/);
  assert.throws(() => trim(messages, { max_messages: null }), /no content/);
});

test("trimAsync answers for the history as it was called with", async () => {
  const messages = history("openai", 2000, 13);
  const expected = JSON.parse(JSON.stringify(trim(messages)));
  const pending = trimAsync(messages);
  messages.length = 10;
  assert.deepEqual(JSON.parse(JSON.stringify(await pending)), expected);
});

/** One step of an agent in `format`: the model's call (its words, thinking or reasoning, and a
 * long input) and the tool's long result. */
const AGENT = {
  openai: (r, id) => [
    {
      role: "assistant",
      content: r() < 0.3 ? text(r, 200) : null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: "edit", arguments: JSON.stringify({ path: "a", patch: text(r, 600) }) },
        },
      ],
    },
    { role: "tool", tool_call_id: id, content: text(r, 2000) },
  ],
  anthropic: (r, id) => [
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: text(r, 600), signature: "c2ln" },
        { type: "tool_use", id, name: "edit", input: { path: "a", patch: [text(r, 600)] } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: id,
          content: [{ type: "text", text: text(r, 2000) }],
        },
      ],
    },
  ],
  responses: (r, id) => [
    { type: "reasoning", id: `rs_${id}`, summary: [{ type: "summary_text", text: text(r, 600) }] },
    { type: "function_call", call_id: id, name: "edit", arguments: text(r, 600) },
    { type: "function_call_output", call_id: id, output: text(r, 2000) },
  ],
  gemini: (r, id) => [
    {
      role: "model",
      parts: [
        { text: text(r, 600), thought: true },
        { functionCall: { name: "edit", id, args: { path: "a", patch: text(r, 600) } } },
      ],
    },
    {
      role: "user",
      parts: [
        {
          functionResponse: {
            name: "edit",
            id,
            response: { out: text(r, 2000), log: [{ line: text(r, 300) }] },
          },
        },
      ],
    },
  ],
  "ai-sdk": (r, id) => [
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: text(r, 600) },
        { type: "tool-call", toolCallId: id, toolName: "edit", input: { patch: text(r, 600) } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: id,
          toolName: "edit",
          output:
            r() < 0.5
              ? { type: "text", value: text(r, 2000) }
              : { type: "json", value: { out: text(r, 2000) } },
        },
      ],
    },
  ],
};

/** An agent session of about `length` messages in `format`: tasks (a user message, plain or
 * in parts) of tool steps; orphan results, unanswered calls and empty messages anywhere,
 * the newest ones included (unless not `odd`). */
function agentHistory(format, length, seed, odd = true) {
  const rand = random(seed);
  const events = EVENTS[format];
  const out = [];
  if (format === "openai" || format === "responses" || format === "ai-sdk") {
    out.push({ role: "system", content: "You are a coding agent." });
  }
  let id = 0;
  while (out.length < length) {
    out.push(...(rand() < 0.5 ? events.user(rand) : events.parts(rand)));
    const steps = 1 + Math.floor(rand() * 8);
    for (let s = 0; s < steps; s++) {
      const event = odd ? rand() : 1;
      if (event < 0.04) out.push(...events.orphan(rand, `c${id++}`));
      else if (event < 0.08) out.push(...events.unanswered(rand, `c${id++}`));
      else if (event < 0.1) out.push(...events.empty(rand));
      out.push(...AGENT[format](rand, `c${id++}`));
    }
    out.push(...events.assistant(rand));
  }
  out.push(...events.user(rand));
  return out;
}

for (const format of Object.keys(EVENTS)) {
  test(`${format}: trim of an agent history from its tail, the older messages as stand-ins, answers the whole history's trim byte for byte`, async () => {
    const before = { ...tailStats };
    let calls = 0;
    for (let seed = 1; seed <= 4; seed++) {
      const messages = agentHistory(format, 600 + seed * 300, seed * 6_151 + format.length);
      for (const base of [...OPTIONS, { max_messages: 40 }]) {
        const options = { ...base, format };
        if (seed % 2 === 0) options.model = MODELS[format];
        const expected = whole(messages, options);
        const actual = mine(() => trim(messages, options));
        if (expected.error) {
          assert.deepEqual(actual.error?.code, expected.error.code, `seed ${seed}`);
          continue;
        }
        assert.equal(JSON.stringify(actual), JSON.stringify(expected), `seed ${seed}`);
        calls++;
      }
      const options = { max_messages: 40, format };
      const later = await trimAsync(messages, options);
      assert.equal(JSON.stringify(later), JSON.stringify(whole(messages, options)));
    }
    // Answered from tails whose older messages went as stand-ins.
    const tails = tailStats.tails - before.tails;
    assert.ok(tails >= calls / 2, `${tails} tails for ${calls} trims`);
    assert.ok(tailStats.standIns - before.standIns > 1000, "older messages as stand-ins");
  });
}

test("a stand-in replaces long text only, and leaves what JSON.stringify writes its own way", () => {
  const long = "x".repeat(2000);
  const standIn = standInOf("openai");
  const message = {
    role: "tool",
    tool_call_id: long,
    content: long,
    extra: { content: long, list: [long] },
  };
  const sent = standIn(message);
  assert.notEqual(sent, message);
  assert.equal(sent.tool_call_id, long);
  assert.notEqual(sent.content, long);
  assert.ok(sent.content.length < 100);
  assert.notEqual(sent.extra.content, long);
  assert.equal(sent.extra.list[0], long);
  assert.equal(message.content, long, "the caller's message is not changed");
  // A lone surrogate, a toJSON and a class instance go as they are.
  const lone = { role: "tool", tool_call_id: "a", content: `${long}\ud800` };
  assert.equal(standIn(lone), lone);
  const custom = { role: "tool", tool_call_id: "a", content: long, toJSON: () => ({}) };
  assert.equal(standIn(custom), custom);
  class Message {
    constructor() {
      this.role = "tool";
      this.content = long;
    }
  }
  const instance = new Message();
  assert.equal(standIn(instance), instance);
  assert.equal(standIn({ role: "user", content: "short" }).content, "short");
});

test("an older message that the core refuses, or that JSON writes its own way, answers as the whole history", () => {
  for (const odd of [
    (m) => (m.content = `${"y".repeat(500)}\udc00`),
    (m) => (m.content = { toJSON: () => "from toJSON ".repeat(20) }),
    (m) => (m.extra = new Date(0)),
    (m) => (m.content = "z".repeat(500) + "\u2028" + '"'.repeat(10)),
  ]) {
    const messages = agentHistory("openai", 2000, 17);
    const at = messages.findIndex((m, i) => i > 100 && m.role === "tool");
    odd(messages[at]);
    const options = { max_messages: 40 };
    const expected = whole(messages, options);
    const actual = mine(() => trim(messages, options));
    if (expected.error) assert.equal(actual.error?.code, expected.error.code);
    else assert.equal(JSON.stringify(actual), JSON.stringify(expected));
  }
});

// (A message repair changes — its calls cut, a note added to its text — is written from what
// was sent: when that was a stand-in, the whole history answers.)
test("an agent history that keeps everything is answered from its stand-ins and their lengths", () => {
  for (const format of ["openai", "responses"]) {
    for (const options of [
      { max_messages: null, format },
      { max_messages: null, bytes_per_token: 3, format },
    ]) {
      const messages = agentHistory(format, 3000, 29, false);
      const before = { ...tailStats };
      const expected = whole(messages, options);
      assert.equal(JSON.stringify(mine(() => trim(messages, options))), JSON.stringify(expected));
      assert.equal(tailStats.sized - before.sized, 1, format);
      assert.equal(tailStats.whole - before.whole, 0, format);
      assert.ok(tailStats.standIns - before.standIns > 1000, format);
    }
  }
});
