// Shared by the test suites: the shared JSON cases and how an outcome is compared with them.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { AnkitaError } from "../index.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const CASES_DIR = path.join(REPO, "tests", "cases");
export const IMAGES_DIR = path.join(REPO, "tests", "fixtures", "images");

/** Every shared case of tests/cases/*.json, sorted by file name. */
export function loadCases() {
  return fs
    .readdirSync(CASES_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(CASES_DIR, name), "utf8")));
}

/** The arguments of the call a case describes: trim(messages, rest) or sanitize(request). */
export function caseArguments(testCase) {
  if (testCase.function === "trim") {
    const { messages, ...options } = testCase.request;
    return [messages, options];
  }
  if (testCase.function === "sanitize") {
    // The messages array, or {messages, format}.
    const request = testCase.request;
    if (Array.isArray(request) || request === null || typeof request !== "object") return [request];
    const { messages, ...options } = request;
    return [messages, options];
  }
  throw new Error(`${testCase.name}: unknown function ${testCase.function}`);
}

/**
 * Runs `call` and turns its result or its AnkitaError into the response shape of the JSON
 * contract, so it can be compared with a case's `expect`.
 */
export async function outcome(call) {
  try {
    return { ok: true, ...(await call()) };
  } catch (error) {
    assert.ok(
      error instanceof AnkitaError,
      `expected an AnkitaError, got ${error?.stack ?? error}`,
    );
    return { ok: false, error: error.toJSON() };
  }
}

/**
 * `actual` cut down to the keys `expected` names (objects recursively; arrays and scalars
 * whole), so that deepStrictEqual checks a subset and still shows a readable diff.
 */
export function project(expected, actual) {
  if (!isPlainObject(expected) || !isPlainObject(actual)) return actual;
  const out = {};
  for (const key of Object.keys(expected)) {
    if (Object.hasOwn(actual, key)) out[key] = project(expected[key], actual[key]);
  }
  return out;
}

/** Checks a response against a case's `expect` as tests/cases/README.md says. */
export function checkCase(testCase, response) {
  const { expect } = testCase;
  assert.equal(response.ok, expect.ok, `ok: got ${JSON.stringify(response.error ?? response.ok)}`);
  for (const key of ["messages", "system"]) {
    if (key in expect) assert.deepStrictEqual(response[key], expect[key], key);
  }
  for (const key of ["report", "error"]) {
    if (key in expect) assert.deepStrictEqual(project(expect[key], response[key]), expect[key]);
  }
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The error codes of the core (DESIGN §8). */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_request",
  "context_budget_exceeded",
  "history_budget_too_small",
  "image_overflow",
  "invalid_argument",
  "internal",
];

/** A small seeded generator of numbers in [0, 1) (mulberry32), for generated histories. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
