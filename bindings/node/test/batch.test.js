// trimMany: many requests at once answer, row for row and in order, what the library answers
// for each request alone (ankita_trim): the shared cases in every format, bad rows among them.

import assert from "node:assert/strict";
import { test } from "node:test";

import { AnkitaError, trimMany } from "../index.js";
import { native } from "../lib/native.js";
import { loadCases } from "./helpers.js";

const requests = loadCases()
  .filter((c) => c.function === "trim")
  .map((c) => c.request);

/** What ankita_trim answers for one request text (a bare array is {"messages": [...]}). */
function alone(text) {
  return native().trim(text.startsWith("[") ? `{"messages":${text}}` : text);
}

const BAD = ["", '{"messages": [', '{"messages": [], "max_byte": 1}', "[1, 2]", "7"];

test("every shared case and bad row answers as the library answers it alone", async () => {
  const texts = [...requests.map((r) => JSON.stringify(r)), ...BAD];
  assert.ok(requests.length > 150, `${requests.length} cases`);
  const formats = new Set(requests.map((r) => r.format ?? "openai"));
  for (const format of ["anthropic", "gemini", "openai", "responses"]) {
    assert.ok(formats.has(format), `no case of the ${format} format`);
  }
  for (const threads of [1, 2, undefined]) {
    const answers = await trimMany(texts, { threads });
    assert.equal(answers.length, texts.length);
    answers.forEach((answer, i) => assert.equal(answer, alone(texts[i]), texts[i].slice(0, 120)));
  }
  // Objects, arrays and bytes are requests too.
  const objects = await trimMany(requests);
  objects.forEach((answer, i) => assert.equal(answer, alone(JSON.stringify(requests[i]))));
  const bytes = await trimMany(texts.map((t) => Buffer.from(t)));
  bytes.forEach((answer, i) => assert.equal(answer, alone(texts[i])));
});

test("options fill in what a request lacks; a request's own keys win", async () => {
  const messages = Array.from({ length: 50 }, (_, i) => ({ role: "user", content: `m${i}` }));
  const [filled, own, list] = await trimMany(
    [{ messages }, { messages, max_messages: 3 }, messages],
    { max_messages: 5, max_bytes: 100000 },
  );
  assert.equal(filled, alone(JSON.stringify({ messages, max_messages: 5, max_bytes: 100000 })));
  assert.equal(JSON.parse(filled).report.output_messages, 5);
  assert.equal(JSON.parse(own).report.output_messages, 3);
  assert.equal(list, filled);
});

test("a bad row is its own error; bad options and arguments reject", async () => {
  const cyclic = { messages: [] };
  cyclic.self = cyclic;
  const good = { messages: [{ role: "user", content: "hi" }] };
  const answers = (
    await trimMany([good, cyclic, Buffer.from([0xff, 0xfe]), "\ud800", 7, "{}\0", good])
  ).map((a) => JSON.parse(a));
  assert.equal(answers[0].ok, true);
  assert.deepEqual(answers[6], answers[0]);
  assert.equal(answers[1].error.code, "invalid_request");
  assert.match(answers[2].error.message, /requests\[2\] is not valid UTF-8/);
  assert.match(answers[3].error.message, /lone UTF-16 surrogate/);
  assert.equal(answers[4].error.code, "invalid_request");
  assert.match(answers[5].error.message, /NUL character/);
  await assert.rejects(trimMany([good], { max_byte: 1 }), (error) => {
    assert.ok(error instanceof AnkitaError);
    assert.equal(error.code, "invalid_request");
    assert.equal(error.path, "max_byte");
    return true;
  });
  await assert.rejects(trimMany([good], { threads: 0 }), TypeError);
  await assert.rejects(trimMany("[]"), TypeError);
  await assert.rejects(trimMany(5), TypeError);
  assert.deepEqual(await trimMany([]), []);
});

test("the event loop runs while a batch is trimmed", async () => {
  const texts = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify(requests[i % requests.length]),
  );
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const answers = await trimMany(texts, { threads: 1 });
  clearInterval(timer);
  assert.equal(answers.length, texts.length);
  assert.ok(ticks > 0, "the event loop ticked during the batch");
});
