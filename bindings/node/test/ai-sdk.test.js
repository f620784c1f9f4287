// The Vercel AI SDK format (`format: "ai-sdk"`) against the `ai` package itself: every message
// trim, sanitize and a Session return validates against the SDK's own `modelMessageSchema`,
// whatever was dropped, shrunk or repaired; image bytes given as a Uint8Array or a Buffer are
// priced by their pixels like base64 text.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { modelMessageSchema, pruneMessages } from "ai";

import { Session, sanitize, trim } from "../index.js";
import { loadCases } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const images = path.join(here, "../../../tests/fixtures/images");
const png = fs.readFileSync(path.join(images, "png/rgb_1700x2200.png"));
const jpeg = fs.readFileSync(path.join(images, "jpeg/baseline_500x375.jpg"));

function assertValid(messages, what) {
  for (const [i, message] of messages.entries()) {
    const parsed = modelMessageSchema.safeParse(message);
    assert.ok(
      parsed.success,
      `${what}: messages[${i}] is not a ModelMessage: ${JSON.stringify(message).slice(0, 300)}\n${parsed.error}`,
    );
  }
}

const filler = (n, seed) => `${seed} `.repeat(Math.ceil(n / (seed.length + 1))).slice(0, n);

// An agent session as generateText's response.messages hold it: reasoning, parallel calls, a
// call gated by an approval, a screenshot tool whose content output carries an image, files.
function session() {
  return [
    { role: "system", content: "You are a desktop companion." },
    {
      role: "user",
      content: [
        { type: "text", text: "Why does the settings page look wrong? " + filler(2000, "spec") },
        { type: "image", image: png.toString("base64"), mediaType: "image/png" },
        {
          type: "file",
          data: filler(3000, "log line"),
          mediaType: "text/plain",
          filename: "app.log",
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Take a screenshot and read the config." },
        { type: "text", text: "Looking." },
        { type: "tool-call", toolCallId: "c1", toolName: "screenshot", input: {} },
        { type: "tool-call", toolCallId: "c2", toolName: "read", input: { path: "a.toml" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c2",
          toolName: "read",
          output: { type: "text", value: filler(4000, "key = value") },
        },
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "screenshot",
          output: {
            type: "content",
            value: [
              { type: "text", text: "The screen:" },
              { type: "media", data: png.toString("base64"), mediaType: "image/png" },
            ],
          },
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "I will reset the layout." },
        { type: "tool-call", toolCallId: "c3", toolName: "reset", input: {} },
        { type: "tool-approval-request", approvalId: "a1", toolCallId: "c3" },
      ],
    },
    {
      role: "tool",
      content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c3",
          toolName: "reset",
          output: { type: "json", value: { ok: true } },
        },
      ],
    },
    { role: "assistant", content: "Done. " + filler(500, "It was the grid.") },
    {
      role: "user",
      content: [
        { type: "text", text: "And this one?" },
        { type: "image", image: jpeg },
      ],
    },
  ];
}

test("the session is made of valid ModelMessages", () => {
  assertValid(session(), "input");
});

test("every trimmed answer validates against modelMessageSchema", () => {
  for (const max_bytes of [600, 1500, 3000, 6000, 12000, 20000, 40000, 100000]) {
    for (const on_image_overflow of ["placeholder", "drop"]) {
      const { messages, report } = trim(session(), {
        format: "ai-sdk",
        max_bytes,
        on_image_overflow,
        max_messages: null,
      });
      assertValid(messages, `max_bytes ${max_bytes}, ${on_image_overflow}`);
      assert.equal(report.format, "ai-sdk");
      assert.ok(report.cost_bytes <= max_bytes, `${report.cost_bytes} > ${max_bytes}`);
      // The answer starts on the user's turn, after the system message.
      const first = messages.find((m) => m.role !== "system");
      if (first !== undefined) assert.equal(first.role, "user");
    }
  }
});

test("every shared ai-sdk case's answer validates", () => {
  const cases = loadCases().filter((c) => c.name.startsWith("ai_sdk_") && c.expect.ok);
  assert.ok(cases.length >= 8, `only ${cases.length} cases`);
  for (const testCase of cases) {
    const { messages, ...options } = testCase.request;
    const run = testCase.function === "trim" ? trim : sanitize;
    assertValid(run(messages, options).messages, testCase.name);
  }
});

test("repair answers valid messages", () => {
  const broken = [
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "x",
          toolName: "t",
          output: { type: "text", value: "stale" },
        },
      ],
    },
    { role: "user", content: "start" },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "t", input: {} }],
    },
    { role: "user", content: "next" },
  ];
  const { messages, report } = sanitize(broken, { format: "ai-sdk" });
  assertValid(messages, "sanitize");
  assert.deepEqual(
    report.repaired.map((r) => [r.index, r.action]),
    [
      [0, "orphan_tool_result_removed"],
      [2, "incomplete_tool_calls_removed"],
    ],
  );
});

test("image bytes (Uint8Array, Buffer) are priced by their pixels, like base64", () => {
  const asText = [{ role: "user", content: [{ type: "image", image: png.toString("base64") }] }];
  const asBuffer = [{ role: "user", content: [{ type: "image", image: png }] }];
  const asArray = [{ role: "user", content: [{ type: "image", image: new Uint8Array(png) }] }];
  const asFile = [
    {
      role: "user",
      content: [{ type: "file", data: new Uint8Array(png), mediaType: "image/png" }],
    },
  ];
  const cost = (messages) =>
    trim(messages, { format: "ai-sdk", max_bytes: 100000 }).report.cost_bytes;
  assert.equal(cost(asText), 15 + 3060);
  assert.equal(cost(asBuffer), cost(asText));
  assert.equal(cost(asArray), cost(asText));
  assert.equal(cost(asFile), cost(asText));
  // The caller's messages are left as they were.
  assert.ok(Buffer.isBuffer(asBuffer[0].content[0].image));
});

test("a Session answers what trim answers, valid", () => {
  const options = { format: "ai-sdk", max_bytes: 9000 };
  // Opted out of cache-stable trimming: the stateless trim's answer.
  const s = new Session({ ...options, trim_to: null });
  try {
    for (const message of session()) s.append([message]);
    const stateful = s.trim();
    const stateless = trim(session(), options);
    assertValid(stateful.messages, "session");
    // The session answers the caller's own objects (the image still a Buffer), trim its JSON.
    const plain = (messages) =>
      JSON.parse(
        JSON.stringify(messages, function (key, value) {
          const raw = this[key];
          return raw instanceof Uint8Array ? Buffer.from(raw).toString("base64") : value;
        }),
      );
    assert.deepEqual(plain(stateful.messages), plain(stateless.messages));
  } finally {
    s.close();
  }
});

test("after the SDK's pruneMessages, the trim still validates", () => {
  const pruned = pruneMessages({
    messages: session(),
    reasoning: "before-last-message",
    toolCalls: "before-last-2-messages",
  });
  assertValid(pruned, "pruned");
  assertValid(trim(pruned, { format: "ai-sdk", max_bytes: 4000 }).messages, "pruned, trimmed");
});
