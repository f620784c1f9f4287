#!/usr/bin/env node
// Writes the shared cases of token mode (tests/cases/tokens_*.json). Expected costs come from an
// independent tokenizer, the `gpt-tokenizer` npm package (o200k_base, cl100k_base), and the
// cost rule of docs/design.md "Tokens" written out again here, never from the library.
//
// Run: (cd bindings/node && npm ci) && node tests/cases/generate_tokens.mjs

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, "..", "..", "bindings", "node", "package.json"));
const o200k = require("gpt-tokenizer/cjs/encoding/o200k_base");
const cl100k = require("gpt-tokenizer/cjs/encoding/cl100k_base");

const TEXT = path.join(HERE, "..", "fixtures", "text");
/** @param {string} name */
const read = (name) => fs.readFileSync(path.join(TEXT, name), "utf8");
const plain = { disallowedSpecial: new Set() };

/**
 * A chat message as the cases write it: its role, its content (a string, parts or null) and any
 * other field.
 * @typedef {{ role: string, content?: string | Part[] | null, [key: string]: unknown }} Message
 * @typedef {{ type: string, text?: string, [key: string]: unknown }} Part
 * @typedef {(text: string) => number} Count
 */

/**
 * A tokenizer's counter with a factor: each counted piece rounded up on its own.
 * @param {typeof o200k} encoding
 * @returns {Count}
 */
function counter(encoding, factor = 1) {
  return (text) => {
    const n = encoding.countTokens(text, plain);
    return factor === 1 ? n : Math.ceil(n * factor);
  };
}

const FRAMING = 3; // tokens of a message's start and end markers
const DEFAULT_OVERHEAD = 256; // 1,024 bytes at 4 bytes a token

/**
 * A chat message's cost: framing, the role, every other field (key and value; a string's
 * text, another value's compact JSON), and the content (texts; images by the profile).
 * @param {Message} m
 * @param {Count} count
 * @param {(part: Part) => number} [imageTokens]
 * @returns {number}
 */
function messageCost(m, count, imageTokens = () => 765) {
  let cost = FRAMING + count(m.role);
  for (const [key, value] of Object.entries(m)) {
    if (key === "role" || key === "content") continue;
    cost += count(key) + count(typeof value === "string" ? value : JSON.stringify(value));
  }
  if (typeof m.content === "string") cost += count(m.content);
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      cost += part.type === "text" ? count(/** @type {string} */ (part.text)) : imageTokens(part);
    }
  }
  return cost;
}

/**
 * A shared case (tests/cases/README.md).
 * @typedef {{ name: string, description: string, function: string, request: object,
 *   expect: object }} Case
 */
/** @type {Case[]} */
const CASES = [];
/**
 * @param {string} name
 * @param {string} description
 * @param {object} request
 * @param {object} expect
 */
function addCase(name, description, request, expect) {
  CASES.push({ name, description, function: "trim", request, expect });
}
/** @param {object[]} messages @param {object} report */
const ok = (messages, report) => ({ ok: true, messages, report });
/** @param {number[]} xs */
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
/** @param {string} text @param {number} from @param {number} count */
const lines = (text, from, count) =>
  text
    .split("\n")
    .slice(from, from + count)
    .join("\n");

// --- logs are dense in tokens: the byte rule would keep what does not fit --------------------
{
  const log = read("log_ls_la_usr_bin.txt");
  const count = counter(o200k);
  /** @param {string} id */
  const call = (id) => ({
    id,
    type: "function",
    function: { name: "read_log", arguments: JSON.stringify({ path: "/usr/bin" }) },
  });
  const messages = [
    { role: "system", content: "You read directory listings and answer briefly." },
    { role: "user", content: "What was installed first?" },
    { role: "assistant", content: null, tool_calls: [call("call_a1")] },
    { role: "tool", tool_call_id: "call_a1", content: lines(log, 0, 12) },
    { role: "assistant", content: "The first package installed was base-files." },
    { role: "user", content: "And what came after the upgrade?" },
    { role: "assistant", content: null, tool_calls: [call("call_b2")] },
    { role: "tool", tool_call_id: "call_b2", content: lines(log, 12, 60) },
    { role: "assistant", content: "Mostly libraries, configured in order." },
    { role: "user", content: "Which of them failed?" },
  ];
  const costs = messages.map((m) => messageCost(m, count));
  const bytes = Buffer.byteLength(JSON.stringify(messages));
  // A window the whole history fits at 4 bytes a token, but not in o200k tokens: the older
  // exchange (messages 1–4) goes whole; message 1 is an anchor (a user message) and stays.
  const keep = [0, 1, 5, 6, 7, 8, 9];
  const kept = sum(keep.map((i) => costs[i]));
  const context = kept + DEFAULT_OVERHEAD + 1000 + 2; // message 4 alone does not fit the slack
  if (sum(costs) <= context - 1000 - DEFAULT_OVERHEAD) throw new Error("all fits: not a case");
  if (bytes / 4 > context - 1000 - DEFAULT_OVERHEAD) throw new Error("bytes would not fit either");
  addCase(
    "tokens_logs_counted_in_model_tokens",
    "model gpt-4o counts in o200k_base tokens: `ls -la` output runs ~2.5 bytes a token, so a history " +
      "that fits the window at 4 bytes a token does not; the older exchange goes whole, the " +
      "earlier user message stays as an anchor, and the report speaks tokens.",
    { messages, model: "gpt-4o", context_tokens: context, max_output_tokens: 1000 },
    ok(
      keep.map((i) => messages[i]),
      {
        unit: "tokens",
        tokenizer: "o200k_base",
        exact: true,
        budget_bytes: null,
        budget_tokens: context - 1000 - DEFAULT_OVERHEAD,
        cost_bytes: null,
        cost_tokens: kept,
        dropped_messages: [2, 3, 4],
      },
    ),
  );
}

// --- GPT-4 counts in cl100k_base; tools and memory come off the budget in tokens -------------
{
  const count = counter(cl100k);
  const ru = read("ru_gnupg_help.txt");
  const messages = [
    { role: "system", content: "Отвечай кратко." },
    { role: "user", content: lines(ru, 0, 20) },
    { role: "assistant", content: lines(ru, 20, 10) },
    { role: "user", content: "Что это значит?", name: "ivan" },
  ];
  const tools = [
    {
      type: "function",
      function: {
        name: "lookup",
        description: "Look a term up in the GnuPG manual.",
        parameters: { type: "object", properties: { term: { type: "string" } } },
      },
    },
  ];
  const memory = ["The user reads Russian.", "Keys are RSA 4096."];
  const costs = messages.map((m) => messageCost(m, count));
  const budget =
    20000 - 500 - DEFAULT_OVERHEAD - count(JSON.stringify(tools)) - sum(memory.map(count));
  addCase(
    "tokens_cl100k_tools_and_memory",
    "model gpt-4-turbo counts in cl100k_base: every message's framing, role, name and text, and " +
      "the tool schemas and memory come off the budget in the same tokens.",
    {
      messages,
      model: "gpt-4-turbo",
      context_tokens: 20000,
      max_output_tokens: 500,
      tools,
      memory,
    },
    ok(messages, {
      unit: "tokens",
      tokenizer: "cl100k_base",
      exact: true,
      budget_tokens: budget,
      cost_tokens: sum(costs),
      dropped_messages: [],
    }),
  );
}

// --- a window in tokens without a model counts in o200k_base, an estimate ---------------------
{
  const count = counter(o200k);
  const logs = read("log_dpkg.log");
  const messages = [
    { role: "user", content: lines(logs, 0, 30) },
    { role: "assistant", content: "Mostly 200s; a few 404s on /favicon.ico." },
    { role: "user", content: "And the 5xx?" },
  ];
  const tools = [{ type: "function", function: { name: "grep", parameters: { type: "object" } } }];
  const memory = ["The user runs nginx 1.24."];
  const costs = messages.map((m) => messageCost(m, count));
  const budget =
    8000 - 1000 - DEFAULT_OVERHEAD - count(JSON.stringify(tools)) - sum(memory.map(count));
  addCase(
    "tokens_by_default_without_a_model",
    "context_tokens without model or tokenizer counts in o200k_base tokens (reported as an " +
      "estimate: no model says whose tokens), not 4 bytes a token, which logs overrun; the " +
      "tools and memory come off the budget in the same tokens.",
    { messages, context_tokens: 8000, max_output_tokens: 1000, tools, memory },
    ok(messages, {
      unit: "tokens",
      tokenizer: "o200k_base",
      exact: false,
      budget_bytes: null,
      budget_tokens: budget,
      cost_tokens: sum(costs),
      dropped_messages: [],
    }),
  );
  addCase(
    "tokens_bytes_per_token_asks_for_the_byte_rule",
    'context_tokens with bytes_per_token (or tokenizer: "bytes") keeps the byte rule.',
    { messages, context_tokens: 8000, max_output_tokens: 1000, bytes_per_token: 4 },
    ok(messages, {
      unit: "bytes",
      tokenizer: "bytes",
      budget_bytes: 8000 * 4 - 1000 * 4 - 1024,
    }),
  );
}

// --- Claude: an estimate, o200k_base × 1.35, images by Claude's rule ------------------------
{
  const count = counter(o200k, 1.35);
  const code = read("code_python_json_decoder.py");
  const messages = [
    { role: "user", content: lines(code, 0, 40) },
    { role: "assistant", content: "It is the JSON decoder's scanner." },
    { role: "user", content: "Explain py_scanstring." },
  ];
  // Anthropic messages priced as OpenAI ones (DESIGN §4): the same framing and fields.
  const costs = messages.map((m) => messageCost(m, count));
  addCase(
    "tokens_claude_is_an_estimate",
    "A Claude model's tokenizer is not public: text is counted with o200k_base and multiplied " +
      "by 1.35 (each text rounded up), and the report says the count is an estimate.",
    {
      messages,
      format: "anthropic",
      model: "claude-sonnet-4-5",
      context_tokens: 200000,
      max_output_tokens: 8000,
    },
    ok(messages, {
      unit: "tokens",
      tokenizer: "o200k_base",
      exact: false,
      budget_tokens: 200000 - 8000 - DEFAULT_OVERHEAD,
      cost_tokens: sum(costs),
    }),
  );
}

// --- errors ---------------------------------------------------------------------------------
/** @param {string} code @param {object} error */
const err = (code, error) => ({ ok: false, error: { code, ...error } });
const few = [{ role: "user", content: "hi" }];
addCase(
  "tokens_unknown_tokenizer",
  "An unknown tokenizer is named, with the known ones.",
  { messages: few, tokenizer: "p50k_base", context_tokens: 8000 },
  err("invalid_request", { path: "tokenizer" }),
);
addCase(
  "tokens_max_bytes_with_a_tokenizer",
  "A byte budget does not combine with a tokenizer: the budget is context_tokens.",
  { messages: few, tokenizer: "o200k_base", max_bytes: 8000 },
  err("invalid_request", { path: "max_bytes" }),
);
addCase(
  "tokens_factor_needs_tokens",
  "token_factor scales token counts: in bytes (max_bytes alone) it is an error, not ignored.",
  { messages: few, token_factor: 1.2, max_bytes: 8000 },
  err("invalid_request", { path: "token_factor" }),
);
addCase(
  "tokens_budget_too_small",
  "In tokens the floor is 128: 600 − 300 − 256 leaves 44.",
  { messages: few, model: "gpt-4o", context_tokens: 600, max_output_tokens: 300 },
  err("history_budget_too_small", {
    breakdown: {
      context_tokens: 600,
      output_reserve_tokens: 300,
      overhead_tokens: 256,
      history_tokens: 44,
    },
  }),
);

for (const c of CASES) {
  fs.writeFileSync(path.join(HERE, `${c.name}.json`), JSON.stringify(c, null, 1) + "\n");
}
console.log(`wrote ${CASES.length} cases to ${HERE}`);
