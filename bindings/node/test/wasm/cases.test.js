// Every shared case (tests/cases/*.json) through the package's API on the WebAssembly build
// (ANKITA_BACKEND=wasm: the fallback where no native library loads), sync and async, checked
// against each case's expectations as test/cases.test.js checks the native library's answers.
// A request naming a tokenizer file gets the WebAssembly build's own error (docs/wasm.md).
// Run by `make test-wasm`, not by run-tests.sh.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { caseArguments, checkCase, loadCases, outcome } from "../helpers.js";

process.env.ANKITA_BACKEND = "wasm";
const api = await import("../../index.js");
const cases = loadCases();

test("the package runs on the WebAssembly build", () => {
  assert.match(api.libraryPath(), /ankita\.wasm$/);
});

function check(testCase, response) {
  if (JSON.stringify(testCase.request).includes('"tokenizer":{"file"')) {
    assert.equal(response.ok, false);
    assert.equal(response.error.code, "invalid_request");
    assert.equal(response.error.path, "tokenizer.file");
    assert.match(response.error.message, /WebAssembly build leaves them out/);
    return;
  }
  checkCase(testCase, response);
}

for (const [mode, functions] of [
  ["sync", { trim: api.trim, sanitize: api.sanitize }],
  ["async", { trim: api.trimAsync, sanitize: api.sanitizeAsync }],
]) {
  describe(`shared cases, ${mode}`, () => {
    for (const testCase of cases) {
      test(testCase.name, async () => {
        const args = caseArguments(testCase);
        check(testCase, await outcome(() => functions[testCase.function](...args)));
      });
    }
  });
}

test("every trim case through trimMany", async () => {
  const trims = cases.filter((c) => c.function === "trim");
  const answers = await api.trimMany(trims.map((c) => c.request));
  assert.equal(answers.length, trims.length);
  answers.forEach((answer, i) => check(trims[i], JSON.parse(answer)));
});
