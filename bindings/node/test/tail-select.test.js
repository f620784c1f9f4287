// The selection of a tail is the core's (ankita_tail_select): the binding reads its objects
// into shapes and sends what the core selects, whatever that is. A rule changed in the core's
// answer (here: every older message given, or a tail that starts elsewhere) is followed as it
// is, and the answer stays the whole history's.

import assert from "node:assert/strict";
import { test } from "node:test";

import { trim } from "../index.js";
import { native } from "../lib/native.js";

/** An agent history: user turns, a tool exchange every third turn, the model's answers. */
function history(turns) {
  const out = [{ role: "system", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `Turn ${t}: what now?` });
    if (t % 3 === 0) {
      const id = `call_${t}`;
      out.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "ls", arguments: "{}" } }],
      });
      out.push({ role: "tool", tool_call_id: id, content: `files of turn ${t}` });
    }
    out.push({ role: "assistant", content: `Answer ${t}.` });
  }
  return out;
}

/** The C ABI's answer for the whole history. */
function whole(messages, options) {
  return JSON.parse(native().trim(JSON.stringify({ ...options, messages })));
}

/** Runs `body` with the core's selection answers passed through `change`, and the tail
 * requests sent collected. */
function withChangedRule(change, body) {
  const bound = native();
  const { tailSelect, trimTail } = bound;
  const sent = [];
  bound.tailSelect = (request, shapes, len) => {
    const answer = JSON.parse(tailSelect(request, shapes, len));
    return JSON.stringify(answer.send === "tail" ? change(answer) : answer);
  };
  bound.trimTail = (text) => {
    sent.push(JSON.parse(text));
    return trimTail(text);
  };
  try {
    return { result: body(), sent };
  } finally {
    bound.tailSelect = tailSelect;
    bound.trimTail = trimTail;
  }
}

const options = { max_messages: 40 };

test("the binding sends the tail the core selects, runs of whole turns left out", () => {
  const messages = history(600);
  const { result, sent } = withChangedRule(
    (answer) => answer,
    () => trim(messages, options),
  );
  const expected = whole(messages, options);
  assert.deepEqual(result.messages, expected.messages);
  assert.deepEqual(result.report.dropped_messages, expected.report.dropped_messages);
  assert.equal(sent.length, 1);
  assert.ok(sent[0].window.gaps.includes("turns"));
  const given = sent[0].window.earlier.reduce((n, [, run]) => n + run.length, 0);
  assert.ok(given < messages.length / 10, `${given} older messages sent`);
});

test("a rule changed in the core is followed: every older message given", () => {
  const messages = history(600);
  const { result, sent } = withChangedRule(
    (answer) => ({
      ...answer,
      earlier: [[0, answer.window.from]],
      window: { from: answer.window.from },
    }),
    () => trim(messages, options),
  );
  const expected = whole(messages, options);
  assert.deepEqual(result.messages, expected.messages);
  assert.deepEqual(result.report.dropped_messages, expected.report.dropped_messages);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].window.earlier.length, 1);
  assert.equal(sent[0].window.earlier[0][1].length, sent[0].window.from);
  assert.equal(sent[0].window.gaps, undefined);
});

test("a rule changed in the core is followed: a tail that starts too late is widened", () => {
  const messages = history(600);
  // The first tail starts on the history's last message: the core asks for a wider one.
  const { result, sent } = withChangedRule(
    (answer) => {
      if (answer.size !== 112) return answer;
      const from = messages.length - 1;
      return { ...answer, earlier: [[0, 1]], window: { from, gaps: undefined } };
    },
    () => trim(messages, options),
  );
  const expected = whole(messages, options);
  assert.deepEqual(result.messages, expected.messages);
  assert.ok(sent.length >= 2, `${sent.length} requests`);
  assert.equal(sent[0].window.from, messages.length - 1);
});
