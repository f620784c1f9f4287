// The Anthropic format through the Node API: sanitize and sanitizeAsync with {format},
// trim's `system` answered back, and every report key the core emits.

import assert from "node:assert/strict";
import { test } from "node:test";

import { AnkitaError, sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";

// Repair merges the two assistant turns left side by side once the unanswered tool_use goes.
const claudeSession = () => [
  { role: "user", content: "What is in a.txt?" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "tu_1", name: "read", input: { path: "a.txt" } },
    ],
  },
  { role: "assistant", content: "Never mind, I remember: alpha." },
  { role: "user", content: "Thanks." },
];

const system = [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }];

const REPORT_KEYS = [
  "format",
  "unit",
  "tokenizer",
  "exact",
  "budget_bytes",
  "budget_tokens",
  "cost_bytes",
  "cost_tokens",
  "input_messages",
  "output_messages",
  "dropped_messages",
  "truncated",
  "dropped_images",
  "dropped_files",
  "dropped_attachments",
  "limited_by",
  "refilled",
  "cleared_tool_results",
  "warnings",
  "repaired",
];

test("sanitize repairs Anthropic messages with {format: 'anthropic'}", async () => {
  const messages = claudeSession();
  const before = structuredClone(messages);
  const { messages: repaired, report } = sanitize(messages, { format: "anthropic" });
  assert.deepEqual(messages, before);
  assert.deepEqual(
    repaired.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.ok(
    report.repaired.some((r) => r.index === 1 && r.action === "incomplete_tool_use_removed"),
    JSON.stringify(report.repaired),
  );
  assert.deepEqual(report.merged, [{ index: 2, into: 1 }]);
  assert.equal(report.format, "anthropic");
  const merged = JSON.stringify(repaired[1].content);
  assert.ok(!merged.includes("tool_use"), merged);
  assert.ok(merged.includes("alpha"), merged);

  assert.deepEqual(await sanitizeAsync(messages, { format: "anthropic" }), {
    messages: repaired,
    report,
  });
});

test("sanitize with the OpenAI format, given or not, answers alike", async () => {
  const messages = [
    { role: "tool", tool_call_id: "gone", content: "stale" },
    { role: "user", content: "hi" },
  ];
  const plain = sanitize(messages);
  assert.deepEqual(plain.messages, [messages[1]]);
  assert.deepEqual(sanitize(messages, { format: "openai" }).messages, plain.messages);
  assert.deepEqual(sanitize(messages, { format: undefined }), plain);
  assert.deepEqual((await sanitizeAsync(messages, {})).messages, plain.messages);
});

test("sanitize refuses bad options", async () => {
  assert.throws(
    () => sanitize([], "anthropic"),
    (e) => e instanceof AnkitaError && e.code === "invalid_request",
  );
  assert.throws(
    () => sanitize([], { format: "gemini-ish" }),
    (e) => e instanceof AnkitaError && e.code === "invalid_request" && e.path === "format",
  );
  assert.throws(
    () => sanitize([], { fromat: "anthropic" }),
    (e) => e instanceof AnkitaError && e.code === "invalid_request",
  );
  await assert.rejects(
    sanitizeAsync([], { format: 3 }),
    (e) => e instanceof AnkitaError && e.code === "invalid_request",
  );
});

test("trim answers the Anthropic system back, with the Anthropic report", async () => {
  const messages = claudeSession();
  const result = trim(messages, { format: "anthropic", system, max_bytes: 100_000 });
  assert.deepEqual(result.system, system);
  assert.equal(result.report.format, "anthropic");
  for (const key of [...REPORT_KEYS, "merged", "dropped_blocks", "turn_start"]) {
    assert.ok(key in result.report, `report lacks ${key}`);
  }
  assert.deepEqual(result.report.merged, [{ index: 2, into: 1 }]);
  assert.deepEqual(result.report.dropped_blocks, []);
  assert.equal(result.report.turn_start, null);
  assert.deepEqual(
    await trimAsync(messages, { format: "anthropic", system, max_bytes: 100_000 }),
    result,
  );

  const noSystem = trim(messages, { format: "anthropic" });
  assert.ok(!("system" in noSystem) || noSystem.system === null, JSON.stringify(noSystem.system));
});

test("an OpenAI trim has every report key and no system", () => {
  const result = trim([{ role: "user", content: "hi" }], { max_bytes: 4096 });
  assert.deepEqual(Object.keys(result.report).sort(), [...REPORT_KEYS].sort());
  assert.equal(result.report.format, "openai");
  assert.equal(result.report.budget_tokens, 1024);
  assert.equal(result.report.cost_tokens, Math.ceil(result.report.cost_bytes / 4));
  assert.ok(!("system" in result));
  assert.deepEqual(Object.keys(result).sort(), ["messages", "report"]);
});

test("a dropped tool exchange leaves its tool_result block's message, and says so", () => {
  const messages = [
    { role: "user", content: "old question " + "x".repeat(3000) },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "tu_1", name: "read", input: { path: "big" } }],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "tu_1", content: "y".repeat(20_000) },
        { type: "text", text: "And now a new question?" },
      ],
    },
  ];
  const { messages: kept, report } = trim(messages, { format: "anthropic", max_bytes: 2000 });
  assert.equal(kept.at(-1).role, "user");
  assert.ok(JSON.stringify(kept.at(-1)).includes("And now a new question?"));
  assert.ok(!JSON.stringify(kept).includes("tool_result"), JSON.stringify(kept));
  assert.deepEqual(report.dropped_blocks, [{ index: 2, part: 0 }]);
});

// The Responses format: items of a Responses request's `input`, its instructions as `system`.
const responsesSession = () => [
  { role: "user", content: "Read a.txt." },
  { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "read it" }] },
  { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a.txt"}' },
  { type: "function_call_output", call_id: "call_1", output: "alpha ".repeat(500) },
  {
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: "It says alpha.", annotations: [] }],
  },
  { type: "reasoning", id: "rs_2", summary: [] },
  { role: "user", content: "Thanks." },
];

test("trim reads Responses items with {format: 'responses'}, instructions answered back", async () => {
  const items = responsesSession();
  const result = trim(items, { format: "responses", system: "Be brief.", max_bytes: 100_000 });
  assert.equal(result.system, "Be brief.");
  assert.equal(result.report.format, "responses");
  assert.deepEqual(Object.keys(result.report).sort(), [...REPORT_KEYS].sort());
  // The reasoning item with nothing after it in its step goes.
  assert.deepEqual(result.report.repaired, [
    {
      index: 5,
      action: "orphan_reasoning_removed",
      reason: "a reasoning item must be followed by an item of its step",
    },
  ]);
  assert.deepEqual(result.messages, [...items.slice(0, 5), items[6]]);
  assert.deepEqual(
    await trimAsync(items, { format: "responses", system: "Be brief.", max_bytes: 100_000 }),
    result,
  );
  // Tight, whole groups only: the step (reasoning, call, output, the answer after it) goes whole.
  const tight = trim(items, { format: "responses", max_bytes: 600, fill: false });
  assert.deepEqual(tight.report.dropped_messages, [1, 2, 3, 4]);
  assert.deepEqual(tight.messages, [items[0], items[6]]);
});

test("sanitize repairs Responses items with {format: 'responses'}", async () => {
  const items = [
    { role: "user", content: "Run it." },
    { type: "reasoning", id: "rs_1", summary: [] },
    { type: "function_call", call_id: "c1", name: "run", arguments: "{}" },
    { type: "function_call_output", call_id: "c9", output: "stale" },
    { role: "user", content: "Status?" },
  ];
  const { messages, report } = sanitize(items, { format: "responses" });
  assert.deepEqual(messages, [items[0], items[4]]);
  assert.deepEqual(
    report.repaired.map((r) => r.action),
    ["orphan_reasoning_removed", "incomplete_call_removed", "orphan_call_output_removed"],
  );
  assert.deepEqual(await sanitizeAsync(items, { format: "responses" }), { messages, report });
  assert.throws(
    () =>
      trim([{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }], {
        format: "responses",
      }),
    (e) => e instanceof AnkitaError && e.path === "messages[0].content[0].type",
  );
});

// The Gemini format: contents in either spelling, the system instruction answered back.
// The response answers no call (another name, no id): repair removes the call and the
// response, and the two model contents then side by side merge.
const geminiSession = () => [
  { role: "user", parts: [{ text: "What is in a.txt?" }] },
  {
    role: "model",
    parts: [
      { text: "Let me look." },
      { functionCall: { name: "read", args: { path: "a.txt" } }, thoughtSignature: "c2ln" },
    ],
  },
  { role: "user", parts: [{ functionResponse: { name: "write", response: { ok: true } } }] },
  { role: "model", parts: [{ text: "Never mind, I remember: alpha." }] },
  { role: "user", parts: [{ text: "Thanks." }] },
];

test("sanitize repairs Gemini contents with {format: 'gemini'}", async () => {
  const { messages: repaired, report } = sanitize(geminiSession(), { format: "gemini" });
  const note = "[Incomplete tool calls removed from restored session.]";
  assert.deepEqual(repaired[1], {
    role: "model",
    parts: [{ text: "Let me look." }, { text: note }, { text: "Never mind, I remember: alpha." }],
  });
  assert.equal(report.format, "gemini");
  assert.deepEqual(report.merged, [{ index: 3, into: 1 }]);
  assert.deepEqual(
    report.repaired.map((r) => r.action),
    ["incomplete_function_calls_removed", "incomplete_function_response_removed"],
  );
  assert.deepEqual(await sanitizeAsync(geminiSession(), { format: "gemini" }), {
    messages: repaired,
    report,
  });
});

test("trim answers the Gemini system instruction back, with the merge report", async () => {
  const contents = [
    { role: "user", parts: [{ text: "Check the config." }] },
    { role: "model", parts: [{ function_call: { name: "read", args: {} } }] },
    {
      role: "user",
      parts: [{ function_response: { name: "read", response: { output: "x".repeat(4000) } } }],
    },
    { role: "user", parts: [{ text: "Thanks. What next?" }] },
  ];
  const instruction = { parts: [{ text: "Be brief." }] };
  const result = trim(contents, {
    format: "gemini",
    system: instruction,
    max_bytes: 1000,
    fill: false,
  });
  assert.deepEqual(result.system, instruction);
  assert.equal(result.report.format, "gemini");
  assert.deepEqual(result.report.dropped_messages, [1, 2]);
  assert.deepEqual(result.report.merged, [{ index: 3, into: 0 }]);
  assert.deepEqual(result.messages, [
    { role: "user", parts: [{ text: "Check the config." }, { text: "Thanks. What next?" }] },
  ]);
  assert.deepEqual(
    await trimAsync(contents, {
      format: "gemini",
      system: instruction,
      max_bytes: 1000,
      fill: false,
    }),
    result,
  );
});
