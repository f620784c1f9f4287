// Bad input of every kind gets an AnkitaError with a code (a rejection for the async calls),
// never a crash nor a silent default.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  AnkitaError,
  estimateImageTokens,
  probeImage,
  sanitize,
  sanitizeAsync,
  trim,
  trimAsync,
} from "../index.js";
import { ERROR_CODES } from "./helpers.js";

const user = (content) => ({ role: "user", content });
const circular = [user("a")];
circular[0].self = circular[0];
const deep = JSON.parse("[".repeat(5000) + "]".repeat(5000));

/** [name, messages, options, expected code, expected path] */
const badTrims = [
  ["options is a number", [user("a")], 5, "invalid_request"],
  ["options is a string", [user("a")], "max_bytes=100", "invalid_request"],
  ["options is an array", [user("a")], [1000], "invalid_request"],
  ["options is a boolean", [user("a")], true, "invalid_request"],
  ["unknown option", [user("a")], { max_byte: 100 }, "invalid_request", "max_byte"],
  ["negative budget", [user("a")], { max_bytes: -1 }, "invalid_request", "max_bytes"],
  ["budget as text", [user("a")], { max_bytes: "100" }, "invalid_request", "max_bytes"],
  ["NaN budget", [user("a")], { max_bytes: NaN }, "invalid_request", "max_bytes"],
  [
    "infinite budget",
    [user("a")],
    { context_tokens: Infinity },
    "invalid_request",
    "context_tokens",
  ],
  ["fractional budget", [user("a")], { max_bytes: 1000.5 }, "invalid_request", "max_bytes"],
  ["huge budget", [user("a")], { max_bytes: 1e300 }, "invalid_request", "max_bytes"],
  ["unknown overflow mode", [user("a")], { on_image_overflow: "boom" }, "invalid_request"],
  ["unknown image profile", [user("a")], { image_profile: "nope" }, "invalid_request"],
  ["tools not an array", [user("a")], { tools: "search" }, "invalid_request", "tools"],
  ["memory not text", [user("a")], { memory: 42 }, "invalid_request", "memory"],
  ["budget too small", [user("a")], { context_tokens: 100 }, "history_budget_too_small"],
  ["messages is a string", "hello", {}, "invalid_request", "messages"],
  ["messages is a number", 42, {}, "invalid_request", "messages"],
  ["messages is an object", { role: "user" }, {}, "invalid_request", "messages"],
  ["messages is null", null, {}, "invalid_request", "messages"],
  ["messages is missing", undefined, {}, "invalid_request", "messages"],
  ["a message is a number", [1, 2], {}, "invalid_request", "messages[0]"],
  ["a message is null", [user("a"), null], {}, "invalid_request", "messages[1]"],
  ["content is a number", [user(42)], {}, "invalid_request", "messages[0].content"],
  [
    "part without a type",
    [user([{ text: "x" }])],
    {},
    "invalid_request",
    "messages[0].content[0].type",
  ],
  ["lone high surrogate", [user("broken \ud83d emoji")], {}, "invalid_json", "messages[0].content"],
  [
    "lone low surrogate",
    [user("a"), user([{ type: "text", text: "\ude00" }])],
    {},
    "invalid_json",
    "messages[1].content[0].text",
  ],
  [
    "lone surrogate in a key",
    [{ role: "user", content: "a", ["k\ud800"]: 1 }],
    {},
    "invalid_json",
    "messages[0].k\ud800",
  ],
  ["lone surrogate in an option", [user("a")], { memory: "\udfff" }, "invalid_json", "memory"],
  ["circular message", circular, {}, "invalid_json"],
  [
    "BigInt in a message",
    [user("a"), { role: "assistant", content: "b", n: 1n }],
    {},
    "invalid_json",
  ],
  [
    "nesting deeper than the parser allows",
    [{ role: "user", content: "a", extra: deep }],
    {},
    "invalid_json",
  ],
];

test("the lone-surrogate error's stack shows its own message", () => {
  assert.throws(
    () => trim([user("x"), user("\ud800")]),
    (error) =>
      error.stack.startsWith(`AnkitaError: ${error.message}`) &&
      error.path === "messages[1].content",
  );
});

function checkError(error, code, path) {
  assert.ok(error instanceof AnkitaError, `not an AnkitaError: ${error?.stack ?? error}`);
  assert.ok(error instanceof Error);
  assert.ok(ERROR_CODES.includes(error.code), `unknown code ${error.code}`);
  assert.equal(error.code, code, error.message);
  assert.equal(typeof error.message, "string");
  assert.ok(error.message.length > 0);
  if (path !== undefined) assert.equal(error.path, path, error.message);
  return true;
}

describe("bad trim input", () => {
  for (const [name, messages, options, code, path] of badTrims) {
    test(`${name}: sync throws ${code}`, () => {
      assert.throws(
        () => trim(messages, options),
        (error) => checkError(error, code, path),
      );
    });
    test(`${name}: async rejects ${code}`, async () => {
      let promise;
      assert.doesNotThrow(() => {
        promise = trimAsync(messages, options);
      }, "trimAsync threw instead of rejecting");
      await assert.rejects(promise, (error) => checkError(error, code, path));
    });
  }
});

describe("bad sanitize input", () => {
  const bad = [
    ["a string", "hello", "invalid_request"],
    ["a number", 42, "invalid_request"],
    ["undefined", undefined, "invalid_request"],
    ["null", null, "invalid_request"],
    ["an array of numbers", [1, 2, 3], "invalid_request"],
    ["a lone surrogate", [user("\ud800")], "invalid_json", "messages[0].content"],
    ["a circular structure", circular, "invalid_json"],
  ];
  for (const [name, messages, code, path] of bad) {
    test(`${name}: sync throws ${code}`, () => {
      assert.throws(
        () => sanitize(messages),
        (error) => checkError(error, code, path),
      );
    });
    test(`${name}: async rejects ${code}`, async () => {
      await assert.rejects(sanitizeAsync(messages), (error) => checkError(error, code, path));
    });
  }
});

describe("deep nesting on a worker thread's stack", () => {
  const nest = (depth) => {
    let value = "x";
    for (let i = 0; i < depth; i++) value = { a: [value] };
    return value;
  };
  for (const depth of [30, 61, 62, 100]) {
    test(`nesting ${2 * depth} levels: an answer or invalid_json, never a crash`, async () => {
      const messages = [
        { role: "user", content: [{ type: "custom", deep: nest(depth) }], extra: nest(depth) },
        { role: "user", content: "q" },
      ];
      for (const call of [
        () => trimAsync(messages, { max_bytes: 100_000 }),
        () => sanitizeAsync(messages),
        () => trim(messages, { max_bytes: 100_000 }),
      ]) {
        try {
          assert.equal((await call()).messages.length, 2);
        } catch (error) {
          checkError(error, "invalid_json");
        }
      }
    });
  }
});

describe("odd but valid input", () => {
  test("a NUL character inside a text survives the C string boundary", () => {
    const { messages } = trim([user("before\0after")]);
    assert.equal(messages[0].content, "before\0after");
  });

  test("astral characters (well-formed surrogate pairs) survive", () => {
    const text = "emoji 😀, math 𝔸, CJK 漢字";
    assert.equal(trim([user(text)]).messages[0].content, text);
  });

  test("undefined option values are left out, as JSON does", () => {
    assert.deepStrictEqual(trim([user("a")], { max_bytes: undefined }).messages, [user("a")]);
  });

  test("options null is no options", () => {
    assert.deepStrictEqual(trim([user("a")], null).messages, [user("a")]);
  });

  test("an empty history is an empty answer", () => {
    const { messages, report } = trim([]);
    assert.deepStrictEqual(messages, []);
    assert.equal(report.output_messages, 0);
  });

  test("a 5 MB message goes through", () => {
    const text = "y".repeat(5 * 1024 * 1024);
    assert.equal(trim([user(text)]).messages[0].content.length, text.length);
  });

  test("the messages argument wins over a messages key in options", () => {
    assert.deepStrictEqual(trim([user("kept")], { messages: [user("ignored")] }).messages, [
      user("kept"),
    ]);
  });
});

describe("bad probeImage input", () => {
  for (const [name, value] of [
    ["a number", 42],
    ["null", null],
    ["undefined", undefined],
    ["an object", { url: "data:image/png;base64,AAAA" }],
    ["an array of bytes", [137, 80, 78, 71]],
  ]) {
    test(`${name} is invalid_argument`, () => {
      assert.throws(
        () => probeImage(value),
        (error) => checkError(error, "invalid_argument"),
      );
    });
  }

  test("text holding a NUL is invalid_argument", () => {
    assert.throws(
      () => probeImage("data:image/png;base64,iVBOR\0w0KGgo"),
      (error) => checkError(error, "invalid_argument"),
    );
  });

  for (const [name, value] of [
    ["empty text", ""],
    ["garbage text", "not an image at all"],
    ["a lone surrogate", "\ud800"],
    ["an empty buffer", Buffer.alloc(0)],
    ["random bytes", Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) % 256))],
    ["a non-image data URL", "data:text/plain;base64,aGVsbG8="],
  ]) {
    test(`${name} is not decodable: null`, () => {
      assert.equal(probeImage(value), null);
    });
  }
});

describe("bad estimateImageTokens input", () => {
  for (const [name, width, height] of [
    ["zero width", 0, 10],
    ["negative width", -1, 10],
    ["fractional height", 10, 2.5],
    ["NaN", NaN, 10],
    ["Infinity", 10, Infinity],
    ["over 32 bits", 2 ** 32, 10],
    ["text", "100", 10],
    ["undefined", undefined, undefined],
  ]) {
    test(`${name} is invalid_argument`, () => {
      assert.throws(
        () => estimateImageTokens(width, height),
        (error) => checkError(error, "invalid_argument"),
      );
    });
  }

  test("an unknown profile is invalid_request", () => {
    assert.throws(
      () => estimateImageTokens(10, 10, { profile: "nope" }),
      (error) => checkError(error, "invalid_request", "image_profile"),
    );
  });

  test("options that are not an object are invalid_request", () => {
    assert.throws(
      () => estimateImageTokens(10, 10, "ankita"),
      (error) => checkError(error, "invalid_request"),
    );
  });

  test("a NaN bytes_per_token is refused, not defaulted", () => {
    assert.throws(
      () => estimateImageTokens(10, 10, { bytes_per_token: NaN }),
      (error) => checkError(error, "invalid_request", "bytes_per_token"),
    );
  });
});
