// Type-checks the JavaScript examples of the READMEs (the repository's and this package's) as
// TypeScript under `tsc --strict`, against index.d.ts and the SDKs' own types (openai,
// @anthropic-ai/sdk, @google/genai, ai): each example is a module of its own, after typed
// declarations of the names it takes as given (a history as the SDK types it, a client, ...).
// Run by run-tests.sh: node examples/readme.mjs

import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const node = dirname(here);
const readmes = { repository: join(node, "..", "..", "README.md"), node: join(node, "README.md") };
const out = join(here, ".readme");

// name → [imports, declaration], for the names an example uses but does not define.
const given = {
  history: [`import type { ModelMessage } from "ai";`, `declare const history: ModelMessage[];`],
  messages: [
    `import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";`,
    `declare const messages: ChatCompletionMessageParam[];`,
  ],
  userMessage: [
    `import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";`,
    `declare const userMessage: ChatCompletionMessageParam;`,
  ],
  mySchemas: [
    `import type { ChatCompletionTool } from "openai/resources/chat/completions";`,
    `declare const mySchemas: ChatCompletionTool[];`,
  ],
  saved: ["", `declare const saved: string;`],
  claudeHistory: [
    `import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";`,
    `declare const claudeHistory: MessageParam[];`,
  ],
  system: [
    `import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages";`,
    `declare const system: TextBlockParam[];`,
  ],
  anthropic: [`import Anthropic from "@anthropic-ai/sdk";`, `declare const anthropic: Anthropic;`],
  max_tokens: ["", `declare const max_tokens: number;`],
  input: [
    `import type { ResponseInputItem } from "openai/resources/responses/responses";`,
    `declare const input: ResponseInputItem[];`,
  ],
  instructions: ["", `declare const instructions: string;`],
  openai: [`import OpenAI from "openai";`, `declare const openai: OpenAI;`],
  contents: [`import type { Content } from "@google/genai";`, `declare const contents: Content[];`],
  instruction: [
    `import type { Content } from "@google/genai";`,
    `declare const instruction: Content;`,
  ],
  ai: [`import type { GoogleGenAI } from "@google/genai";`, `declare const ai: GoogleGenAI;`],
  fs: [`import fs from "node:fs";`, ""],
};

/** The names an example binds: declared (`const x`, `const { a, b: c }`) or imported. */
function bound(code) {
  const names = new Set();
  const each = (list, rename) =>
    list.split(",").forEach((item) => {
      const words = item
        .replace(/^\s*(type\s+)?\.\.\./, "")
        .trim()
        .split(rename);
      const name = words[words.length - 1].trim();
      if (/^\w+$/.test(name)) names.add(name);
    });
  for (const [, what] of code.matchAll(/^(?:const|let|var|using)\s+(\{[^}]*\}|\[[^\]]*\]|\w+)/gm)) {
    if (/^\w+$/.test(what)) names.add(what);
    else each(what.slice(1, -1), ":");
  }
  for (const [, what] of code.matchAll(/^import\s+(?:type\s+)?([\s\S]*?)\s+from\s/gm)) {
    const braces = what.match(/\{([\s\S]*)\}/);
    if (braces) each(braces[1].replace(/\btype\s+/g, ""), /\s+as\s+/);
    const plain = what
      .replace(/\{[\s\S]*\}/, "")
      .replace(/,/g, " ")
      .trim();
    if (/^\w+$/.test(plain)) names.add(plain);
  }
  return names;
}

function prelude(source) {
  const lines = [];
  const names = bound(source);
  // Names are looked for in the code, not in its strings and comments.
  const code = source.replace(/"(?:[^"\\\n]|\\.)*"|`[^`]*`|\/\/[^\n]*/g, '""');
  for (const [name, [imports, declaration]] of Object.entries(given)) {
    const used = new RegExp(`(?<![.\\w])${name}\\b`).test(code);
    if (used && !names.has(name)) lines.push(imports, declaration);
  }
  // A fragment that uses the package's functions without importing them.
  const api = ["trim", "trimAsync", "Session", "sanitize", "countTokens"].filter(
    (name) => new RegExp(`(?<![.\\w])${name}\\b[(.]|new ${name}\\b`).test(code) && !names.has(name),
  );
  if (api.length) lines.push(`import { ${api.join(", ")} } from "ankita";`);
  // `model`: the AI SDK's model object where generateText takes it, else a model name.
  if (/\bmodel\b[,}]/.test(code) && !names.has("model")) {
    lines.push(
      /generateText\(/.test(code)
        ? `import type { LanguageModel } from "ai";\ndeclare const model: LanguageModel;`
        : `declare const model: string;`,
    );
  }
  return [...new Set(lines.filter(Boolean))].join("\n") + "\n";
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = [];
for (const [name, path] of Object.entries(readmes)) {
  const blocks = [...readFileSync(path, "utf8").matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)];
  if (blocks.length < 2) throw new Error(`${path}: fewer JavaScript examples than expected`);
  blocks.forEach(([, code], k) => {
    const file = `${name}_${k}.ts`;
    writeFileSync(join(out, file), `${prelude(code)}${code}\nexport {};\n`);
    files.push(file);
  });
}
writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({ extends: "../tsconfig.json", files }, null, 2) + "\n",
);
const tsc = spawnSync("npx", ["--no-install", "tsc", "-p", out], { cwd: node, stdio: "inherit" });
if (tsc.status !== 0) {
  console.error(`README examples: tsc --strict failed (the modules are in ${out})`);
  process.exit(1);
}
console.log(`README examples: ${files.length} modules pass tsc --strict`);
