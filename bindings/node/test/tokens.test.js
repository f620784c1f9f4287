// Token mode against a tokenizer nobody here wrote: the `gpt-tokenizer` package's o200k_base and
// cl100k_base. Counts of real text (tests/fixtures/text) must be equal; histories trimmed with
// model "gpt-4o" must fit the window by its counts, and use most of it.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import * as gpt4o from "gpt-tokenizer/model/gpt-4o";

import { countTokens, trim } from "../index.js";
import { IMAGES_DIR, random, REPO } from "./helpers.js";

const TEXT_DIR = path.join(REPO, "tests", "fixtures", "text");
const corpus = fs
  .readdirSync(TEXT_DIR)
  .filter((name) => name !== "SOURCES.md")
  .sort()
  .map((name) => ({ name, text: fs.readFileSync(path.join(TEXT_DIR, name), "utf8") }));

// Special-token spellings are ordinary text in a message.
const plain = { disallowedSpecial: new Set() };
const REFERENCE = {
  o200k_base: (text) => o200k.countTokens(text, plain),
  cl100k_base: (text) => cl100k.countTokens(text, plain),
};

const EDGES = {
  emoji: "👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 ❤️‍🔥 and 🤖 in text",
  combining:
    "e\u0301 a\u0308 n\u0303 \u1e9b\u0323 Z\u0351\u0360\u035b\u0334 ñ (NFC) vs n\u0303 (NFD)",
  specials: "<|endoftext|> <|im_start|>user<|im_sep|>hi<|im_end|> <|fim_prefix|>",
  whitespace: "a  \n\n\n   \t\t b \r\n\r\n" + " ".repeat(300) + "\n" + "x\u00a0\u2003y\u3000z",
  replacement: "\ufffd\ufffd bytes that were not UTF-8 \ufffd and \u{10ffff} \u{e000}",
  numbers: "3.14159265358979 1234567890123 0x7fffffff 1e-9 ١٢٣ 一二三",
  mixed: "Γειά σου κόσμε — Привет, мир — こんにちは世界 — 안녕하세요 — مرحبا بالعالم — שלום",
};

/** One user message: 3 framing tokens + the role + the text. */
function single(text) {
  return [{ role: "user", content: text }];
}

describe("counts equal the reference tokenizer's", () => {
  for (const tokenizer of ["o200k_base", "cl100k_base"]) {
    const ref = REFERENCE[tokenizer];
    test(`${tokenizer}: real text of every kind`, () => {
      for (const { name, text } of corpus) {
        const count = countTokens(single(text), { tokenizer });
        assert.equal(count.unit, "tokens");
        assert.equal(count.exact, true);
        assert.equal(count.total, 3 + ref("user") + ref(text), name);
      }
    });
    test(`${tokenizer}: emoji, combining marks, special-token spellings, odd whitespace`, () => {
      for (const [name, text] of Object.entries(EDGES)) {
        assert.equal(countTokens(single(text), { tokenizer }).total, 3 + 1 + ref(text), name);
      }
    });
    test(`${tokenizer}: every prefix cut of a CJK and emoji text`, () => {
      const text = corpus.find((c) => c.name.startsWith("zh_")).text.slice(0, 400) + EDGES.emoji;
      for (let end = 1; end <= text.length; end += 7) {
        const piece = text.slice(0, end).replace(/[\ud800-\udbff]$/, "");
        assert.equal(countTokens(single(piece), { tokenizer }).total, 4 + ref(piece), `${end}`);
      }
    });
  }

  test("a chat's framing is the reference's chat encoding without the reply priming", () => {
    const chat = [
      { role: "system", content: corpus[0].text.slice(0, 500) },
      { role: "user", content: EDGES.mixed },
      { role: "assistant", content: corpus.find((c) => c.name.startsWith("code_")).text },
    ];
    const priming = 3; // <|im_start|>assistant<|im_sep|>
    assert.equal(
      countTokens(chat, { model: "gpt-4o" }).total,
      gpt4o.encodeChat(chat).length - priming,
    );
  });

  test("models select the tokenizer; Claude and Gemini are estimates", () => {
    const text = corpus.find((c) => c.name.startsWith("prose_")).text;
    const gpt4 = countTokens(single(text), { model: "gpt-4-turbo" });
    assert.equal(gpt4.tokenizer, "cl100k_base");
    assert.equal(gpt4.total, 4 + cl100k.countTokens(text));
    const claude = countTokens(single(text), { model: "claude-sonnet-4-5" });
    assert.deepEqual([claude.tokenizer, claude.exact], ["o200k_base", false]);
    assert.ok(claude.total >= 1.3 * (4 + o200k.countTokens(text)));
    const bytes = countTokens(single(text));
    assert.deepEqual([bytes.unit, bytes.exact], ["bytes", false]);
  });
});

// ---------------------------------------------------------------------------------------------
// Histories built from the real text, trimmed for gpt-4o, recounted with the reference.

const byKind = (prefix) => corpus.filter((c) => c.name.startsWith(prefix)).map((c) => c.text);
const KINDS = {
  prose: byKind("prose_"),
  human: [...byKind("de_"), ...byKind("ja_"), ...byKind("ru_"), ...byKind("zh_")],
  code: byKind("code_"),
  log: byKind("log_"),
  json: byKind("json_"),
  emoji: byKind("emoji_"),
};
const SCREENSHOT = `data:image/png;base64,${fs
  .readFileSync(path.join(IMAGES_DIR, "png", "rgb_1700x2200.png"))
  .toString("base64")}`;
const SCREENSHOT_TOKENS = 765; // 1700×2200 → 768×993 → 2×2 tiles: 85 + 4 × 170

function session(seed, targetBytes) {
  const rand = random(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const slice = (kind, min, max) => {
    const text = pick(KINDS[kind]);
    const want = Math.floor(min + rand() * (max - min));
    const start = Math.floor(rand() * Math.max(1, text.length - want));
    return text.slice(start, start + want).replace(/^[\udc00-\udfff]|[\ud800-\udbff]$/g, "");
  };
  const id = () =>
    "call_" +
    Array.from({ length: 24 }, () =>
      pick([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]),
    ).join("");
  const messages = [{ role: "system", content: slice("prose", 300, 900) }];
  let bytes = 0;
  while (bytes < targetBytes) {
    const question = slice(pick(["prose", "human", "human", "emoji"]), 40, 900);
    if (rand() < 0.15) {
      messages.push({
        role: "user",
        content: [
          { type: "text", text: question },
          { type: "image_url", image_url: { url: SCREENSHOT } },
        ],
      });
    } else {
      messages.push({ role: "user", content: question });
    }
    if (rand() < 0.5) {
      const calls = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        id: id(),
        type: "function",
        function: {
          name: pick(["read_file", "run_command", "search_logs", "http_get"]),
          arguments: JSON.stringify({ path: slice("code", 10, 60), query: slice("human", 5, 120) }),
        },
      }));
      messages.push({ role: "assistant", content: null, tool_calls: calls });
      for (const call of calls) {
        const body = slice(pick(["log", "log", "json", "code"]), 200, rand() < 0.1 ? 17000 : 4000);
        messages.push({ role: "tool", tool_call_id: call.id, content: body });
      }
    }
    messages.push({
      role: "assistant",
      content: slice(pick(["prose", "code", "human"]), 100, 3000),
    });
    bytes = JSON.stringify(messages).length - 2 * SCREENSHOT.length * 0; // images priced apart
  }
  return messages;
}

/** The reference count of a chat for gpt-4o: per message 3 + role + content (texts, image tiles)
 * + tool calls (id, name, arguments) + tool_call_id; plus 3 tokens priming the reply. */
function referenceCount(messages) {
  const ref = REFERENCE.o200k_base;
  let total = 3;
  for (const m of messages) {
    total += 3 + ref(m.role);
    if (typeof m.content === "string") total += ref(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (part.type === "text") total += ref(part.text);
        else if (part.type === "image_url") total += SCREENSHOT_TOKENS;
        else throw new Error(`unexpected part ${part.type}`);
      }
    }
    for (const call of m.tool_calls ?? []) {
      total += ref(call.id) + ref(call.function.name) + ref(call.function.arguments);
    }
    if (m.tool_call_id !== undefined) total += ref(m.tool_call_id);
  }
  return total;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe("trimmed for gpt-4o, histories fit the real window", () => {
  const usage = {};
  for (const [window, sessions] of [
    [8_000, 24],
    [32_000, 12],
    [128_000, 4],
  ]) {
    test(`${window} tokens: never over the window by the reference's count`, () => {
      const output = window / 8;
      usage[window] = [];
      for (let s = 0; s < sessions; s++) {
        const history = session(window * 31 + s, window * 4 * 3);
        const { messages, report } = trim(history, {
          model: "gpt-4o",
          context_tokens: window,
          max_output_tokens: output,
          overhead_tokens: 3,
          max_messages: 1_000_000,
        });
        assert.equal(report.unit, "tokens");
        const real = referenceCount(messages);
        assert.ok(real <= window - output, `session ${s}: ${real} > ${window - output}`);
        assert.ok(
          real <= report.cost_tokens + 3,
          `session ${s}: report says ${report.cost_tokens}`,
        );
        usage[window].push(real / (window - output));
      }
      const m = median(usage[window]);
      const p10 = [...usage[window]].sort((a, b) => a - b)[Math.floor(usage[window].length / 10)];
      // Fill (DESIGN §6): a tool loop with a 17 KB log (~6,800 tokens) that does not fit an 8k
      // window whole comes back shrunk into the room left instead of leaving it empty.
      assert.ok(m >= 0.95, `median use ${m}`);
      if (window === 8_000) assert.ok(p10 >= 0.85, `10th percentile use ${p10}`);
      console.log(
        `# ${window}: median use of the window ${(100 * m).toFixed(1)}%, 10th percentile ${(100 * p10).toFixed(1)}%, min ${(100 * Math.min(...usage[window])).toFixed(1)}%`,
      );
    });
  }
});
