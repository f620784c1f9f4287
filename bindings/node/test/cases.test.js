// Every shared case (tests/cases/*.json) through trim/sanitize and through their async twins.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";
import { caseArguments, checkCase, loadCases, outcome } from "./helpers.js";

const cases = loadCases();
const sync = { trim, sanitize };
const async = { trim: trimAsync, sanitize: sanitizeAsync };

test("the shared cases are there", () => {
  assert.ok(cases.length >= 20, `only ${cases.length} cases`);
});

describe("shared cases, sync", () => {
  for (const testCase of cases) {
    test(testCase.name, async () => {
      const args = caseArguments(testCase);
      checkCase(testCase, await outcome(() => sync[testCase.function](...args)));
    });
  }
});

describe("shared cases, async", () => {
  for (const testCase of cases) {
    test(testCase.name, async () => {
      const args = caseArguments(testCase);
      checkCase(testCase, await outcome(() => async[testCase.function](...args)));
    });
  }
});

describe("shared cases, all at once through the async API", () => {
  test("every case answers as it does alone", async () => {
    const responses = await Promise.all(
      cases.map((testCase) => outcome(() => async[testCase.function](...caseArguments(testCase)))),
    );
    responses.forEach((response, i) => checkCase(cases[i], response));
  });
});

test("the input is not changed by trimming", () => {
  for (const testCase of cases.filter((c) => c.function === "trim")) {
    const before = JSON.stringify(testCase.request);
    const [messages, options] = caseArguments(testCase);
    try {
      trim(messages, options);
    } catch {
      // errors are checked above; only the input matters here
    }
    assert.equal(JSON.stringify(testCase.request), before, testCase.name);
  }
});

test("the comparison itself rejects a wrong answer", () => {
  const testCase = cases.find((c) => c.expect.ok && c.expect.messages?.length);
  const args = caseArguments(testCase);
  const response = { ok: true, ...sync[testCase.function](...args) };
  checkCase(testCase, response);
  const changed = structuredClone(response);
  changed.messages[0].extra = 1;
  assert.throws(() => checkCase(testCase, changed));
  assert.throws(() => checkCase(testCase, { ok: false, error: { code: "internal" } }));
  const failing = cases.find((c) => !c.expect.ok);
  assert.throws(() =>
    checkCase(failing, { ok: false, error: { ...failing.expect.error, code: "other" } }),
  );
});
