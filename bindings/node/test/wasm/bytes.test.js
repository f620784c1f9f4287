// The WebAssembly build (wasm/ankita.wasm) against the native library at the C ABI: every shared
// case (tests/cases/*.json), and the calls the package makes besides trim and sanitize, sent as
// the same text to both must get the same answer, byte for byte. A request naming a tokenizer
// file is the exception: the WebAssembly build has none (docs/wasm.md) and says so.
// Run by `make test-wasm` (which builds the module first), not by run-tests.sh.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

import { native } from "../../lib/native.js";
import { loadWasm } from "../../lib/wasm.js";
import { loadCases } from "../helpers.js";

delete process.env.ANKITA_BACKEND;
const lib = native();
const wasm = loadWasm();
const cases = loadCases();
const EXAMPLES = path.resolve(import.meta.dirname ?? ".", "..", "..", "..", "..", "examples");

/** Whether a case's request names a tokenizer file (`"tokenizer": {"file": …}`). */
function namesTokenizerFile(request) {
  return JSON.stringify(request).includes('"tokenizer":{"file"');
}

test("the two are the native library and the WebAssembly module", () => {
  assert.match(lib.path, /\.(so|dylib|dll)$/, `native() loaded ${lib.path}`);
  assert.match(wasm.path, /\.wasm$/);
  assert.equal(wasm.version(), lib.version());
  assert.deepEqual(wasm.formats, lib.formats);
});

describe("every shared case, byte for byte", () => {
  for (const testCase of cases) {
    test(testCase.name, () => {
      const text = JSON.stringify(testCase.request);
      const answer = wasm[testCase.function](text);
      if (namesTokenizerFile(testCase.request)) {
        const { ok, error } = JSON.parse(answer);
        assert.equal(ok, false);
        assert.equal(error.code, "invalid_request");
        assert.equal(error.path, "tokenizer.file");
        assert.match(error.message, /WebAssembly build leaves them out/);
        return;
      }
      assert.equal(answer, lib[testCase.function](text));
      if (testCase.function === "trim") {
        assert.equal(wasm.countTokens(text), lib.countTokens(text));
      }
    });
  }
});

const { messages: history } = JSON.parse(
  fs.readFileSync(path.join(EXAMPLES, "session.json"), "utf8"),
);
const screenshots = fs
  .readdirSync(path.join(EXAMPLES, "screenshots"))
  .filter((name) => name.endsWith(".png"))
  .map((name) => fs.readFileSync(path.join(EXAMPLES, "screenshots", name)).toString("base64"));

describe("the example session and its screenshots", () => {
  for (const options of [
    { context_tokens: 16000, max_output_tokens: 2000 },
    { context_tokens: 16000, max_output_tokens: 2000, tokenizer: "bytes" },
    { max_bytes: 200000, format: "openai", model: "gpt-4o" },
    { context_tokens: 8000, model: "claude-sonnet-4-5", format: "openai" },
  ]) {
    test(`trim ${JSON.stringify(options)}`, () => {
      const text = JSON.stringify({ messages: history, ...options });
      const answer = wasm.trim(text);
      assert.equal(JSON.parse(answer).ok, true, answer.slice(0, 300));
      assert.equal(answer, lib.trim(text));
    });
  }

  test("probe each screenshot, with and without a model", () => {
    assert.ok(screenshots.length >= 2);
    for (const image of screenshots) {
      assert.equal(wasm.probeImage(image), lib.probeImage(image));
      const url = `data:image/png;base64,${image}`;
      const pricing = JSON.stringify({ model: "gpt-4o" });
      assert.equal(wasm.probeImageWith(url, pricing), lib.probeImageWith(url, pricing));
      assert.equal(wasm.probeFile(image, null), lib.probeFile(image, null));
    }
  });

  test("estimates and stand-in lengths", () => {
    for (const [w, h] of [
      [1, 1],
      [1700, 2200],
      [4096, 4096],
    ]) {
      assert.equal(wasm.estimateImageTokens(w, h, "{}"), lib.estimateImageTokens(w, h, "{}"));
    }
    const url = `data:image/png;base64,${screenshots[0]}`;
    const head = url.slice(0, 64 * 1024);
    assert.equal(
      wasm.standInLen(head, head.length, url.length),
      Number(lib.standInLen(head, head.length, url.length)),
    );
    assert.equal(
      wasm.standInLenWith(head, head.length, url.length, 0, [1024, 4096], 2),
      Number(lib.standInLenWith(head, head.length, url.length, 0, [1024, 4096], 2)),
    );
  });

  test("a session: new, append, plan, truncate", () => {
    const messages = history;
    const options = JSON.stringify({ context_tokens: 16000, max_output_tokens: 2000 });
    const a = wasm.sessionNew(options);
    const b = lib.sessionNew(options);
    assert.equal(a.error, b.error);
    try {
      for (let i = 0; i < messages.length; i += 3) {
        const more = JSON.stringify(messages.slice(i, i + 3));
        assert.equal(wasm.sessionAppend(a.handle, more), lib.sessionAppend(b.handle, more));
        assert.equal(wasm.sessionPlan(a.handle), lib.sessionPlan(b.handle));
      }
      assert.equal(wasm.sessionTruncate(a.handle, 2), lib.sessionTruncate(b.handle, 2));
      assert.equal(wasm.sessionPlan(a.handle), lib.sessionPlan(b.handle));
    } finally {
      wasm.sessionFree(a.handle);
      lib.sessionFree(b.handle);
    }
  });

  test("a batch of every trim case", async () => {
    const texts = cases
      .filter((c) => c.function === "trim" && !namesTokenizerFile(c.request))
      .map((c) => JSON.stringify(c.request));
    const run = (backend) =>
      new Promise((resolve, reject) =>
        backend.trimManyAsync(texts, null, 2, (error, status, answers) =>
          error ? reject(error) : resolve({ status, answers }),
        ),
      );
    const [a, b] = await Promise.all([run(wasm), run(lib)]);
    assert.equal(a.status, b.status);
    assert.deepEqual(a.answers, b.answers);
  });
});
