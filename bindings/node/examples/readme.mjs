// Type-checks the JavaScript examples of the READMEs and docs (the repository's README and
// docs/*.md, and this package's README) under `tsc --strict --checkJs`, against index.d.ts and the
// SDKs' own types (openai, @anthropic-ai/sdk, @google/genai, ai): each example is a module of its
// own, as written (its JSDoc `@type` comments type its histories as the SDK does), after typed
// declarations of the names it takes as given (a provider's client, which
// tests/docs/run_blocks.py replaces with a stand-in when it runs the example).
// Run by run-tests.sh: node examples/readme.mjs

import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const node = dirname(here);
const repo = join(node, "..", "..");
const docs = join(repo, "docs");
const documents = {
  repository: join(repo, "README.md"),
  node: join(node, "README.md"),
  ...Object.fromEntries(
    readdirSync(docs)
      .filter((name) => name.endsWith(".md"))
      .map((name) => [`docs_${name.slice(0, -3).replace(/-/g, "_")}`, join(docs, name)]),
  ),
};
const out = join(here, ".readme");

/** A declaration of `name` with the JSDoc type `type`, for a name an example takes as given. */
const declare = (name, type) =>
  `/** @type {${type}} */\nconst ${name} = /** @type {any} */ (undefined);`;

// name → its declaration, for the names an example uses but does not define.
const given = {
  history: declare("history", `import("ai").ModelMessage[]`),
  messages: declare(
    "messages",
    `import("openai/resources/chat/completions").ChatCompletionMessageParam[]`,
  ),
  userMessage: declare(
    "userMessage",
    `import("openai/resources/chat/completions").ChatCompletionMessageParam`,
  ),
  saved: declare("saved", "string"),
  anthropic: declare("anthropic", `import("@anthropic-ai/sdk").default`),
  openai: declare("openai", `import("openai").default`),
  ai: declare("ai", `import("@google/genai").GoogleGenAI`),
  fs: `import fs from "node:fs";`,
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
  for (const [name, declaration] of Object.entries(given)) {
    const used = new RegExp(`(?<![.\\w])${name}\\b`).test(code);
    if (used && !names.has(name)) lines.push(declaration);
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
        ? declare("model", `import("ai").LanguageModel`)
        : declare("model", "string"),
    );
  }
  return [...new Set(lines.filter(Boolean))].join("\n") + "\n";
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = [];
for (const [name, path] of Object.entries(documents)) {
  const blocks = [
    ...readFileSync(path, "utf8").matchAll(
      /```(?:js|javascript|mjs)(?:[ \t][^\n]*)?\n([\s\S]*?)```/g,
    ),
  ];
  blocks.forEach(([, code], k) => {
    const file = `${name}_${k}.mjs`;
    writeFileSync(join(out, file), `${prelude(code)}${code}\nexport {};\n`);
    files.push(file);
  });
}
if (files.length < 5) throw new Error(`fewer JavaScript examples than expected: ${files.length}`);
writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify(
    { extends: "../tsconfig.json", compilerOptions: { allowJs: true, checkJs: true }, files },
    null,
    2,
  ) + "\n",
);
const tsc = spawnSync("npx", ["--no-install", "tsc", "-p", out], { cwd: node, stdio: "inherit" });
if (tsc.status !== 0) {
  console.error(`README and docs examples: tsc --strict failed (the modules are in ${out})`);
  process.exit(1);
}
console.log(`README and docs examples: ${files.length} modules pass tsc --strict --checkJs`);
