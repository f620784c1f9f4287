// The browser entry in a real headless browser (Debian's chromium, driven by puppeteer-core; no
// browser is downloaded): a page served from 127.0.0.1 imports the package as a browser does
// (the package's browser condition: lib/native-browser.js fetches the WebAssembly build), trims
// the example session with its two real screenshots, probes a screenshot's bytes and runs a
// Session. The test checks the page's answers against the native library's for the same calls.
// A second page runs the same script bundled by esbuild for the browser (the package resolved
// from node_modules, as an application's bundle resolves it), with no import map.
// Run by `make test-wasm`, not by run-tests.sh. CHROMIUM=path overrides /usr/bin/chromium.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

import { probeImage, Session, trim, version } from "../../index.js";

const PACKAGE = path.resolve(import.meta.dirname, "..", "..");
const EXAMPLES = path.resolve(PACKAGE, "..", "..", "examples");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OPTIONS = { context_tokens: 16000, max_output_tokens: 2000 };
const SCREENSHOT = fs
  .readdirSync(path.join(EXAMPLES, "screenshots"))
  .find((f) => f.endsWith(".png"));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".wasm": "application/wasm",
};

// What each page runs, with the package imported as "ankita".
const SCRIPT = `
  try {
    const ankita = await import("ankita");
    const { messages } = await (await fetch("/examples/session.json")).json();
    const png = new Uint8Array(await (await fetch("/examples/screenshots/${SCREENSHOT}")).arrayBuffer());
    const trimmed = ankita.trim(messages, ${JSON.stringify(OPTIONS)});
    const session = new ankita.Session(${JSON.stringify(OPTIONS)});
    session.append(messages);
    const fromSession = session.trim();
    session.close();
    window.answers = JSON.stringify({
      version: ankita.version(),
      library: ankita.libraryPath(),
      hasBuffer: typeof globalThis.Buffer !== "undefined",
      trimmed,
      probed: ankita.probeImage(png),
      fromSession,
    });
  } catch (error) {
    window.answers = JSON.stringify({ error: String(error?.stack ?? error) });
  }
`;

// Without a bundler, an import map says where "ankita" is and what its "#native" import is
// under the browser condition.
const PAGES = {
  "/": `<!doctype html>
<meta charset="utf-8">
<title>ankita</title>
<script type="importmap">
{ "imports": { "ankita": "/pkg/index.js" },
  "scopes": { "/pkg/": { "#native": "/pkg/lib/native-browser.js" } } }
</script>
<script type="module">${SCRIPT}</script>`,
  // The bundle at /bundle/app.js fetches ../wasm/ankita.wasm from its own URL: /wasm/.
  "/bundled": `<!doctype html>
<meta charset="utf-8">
<title>ankita, bundled</title>
<script type="module" src="/bundle/app.js"></script>`,
};

let server;
let origin;
let browser;
let scratch;
let expected;

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ankita-browser-"));
  // An application with the package in its node_modules, bundled for the browser.
  const app = path.join(scratch, "app");
  fs.mkdirSync(path.join(app, "node_modules"), { recursive: true });
  fs.symlinkSync(PACKAGE, path.join(app, "node_modules", "ankita"));
  fs.writeFileSync(path.join(app, "main.js"), SCRIPT);
  await esbuild.build({
    entryPoints: [path.join(app, "main.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outfile: path.join(scratch, "bundle", "app.js"),
    logLevel: "error",
  });

  server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    if (PAGES[url.pathname]) {
      response.writeHead(200, { "content-type": TYPES[".html"] });
      response.end(PAGES[url.pathname]);
      return;
    }
    const roots = [
      ["/pkg/", PACKAGE],
      ["/examples/", EXAMPLES],
      ["/bundle/", path.join(scratch, "bundle")],
      ["/wasm/", path.join(PACKAGE, "wasm")],
    ];
    const [prefix, root] = roots.find(([p]) => url.pathname.startsWith(p)) ?? [null, null];
    const file = root && path.join(root, url.pathname.slice(prefix.length));
    if (!file || !file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404);
      response.end();
      return;
    }
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    response.writeHead(200, { "content-type": type });
    fs.createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${path.join(scratch, "profile")}`,
    ],
  });

  // The same calls in Node, on the native library.
  const { messages } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, "session.json"), "utf8"));
  const images = JSON.stringify(messages).match(/data:image\/png;base64,/g) ?? [];
  assert.ok(images.length >= 2, "the example session holds two screenshots");
  const session = new Session(OPTIONS);
  session.append(messages);
  expected = {
    trimmed: JSON.stringify(trim(messages, OPTIONS)),
    probed: probeImage(fs.readFileSync(path.join(EXAMPLES, "screenshots", SCREENSHOT))),
    fromSession: JSON.stringify(session.trim()),
  };
  session.close();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Loads `page` and answers what its script left in window.answers. */
async function answersOf(page) {
  const tab = await browser.newPage();
  const problems = [];
  tab.on("pageerror", (error) => problems.push(String(error)));
  tab.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
  await tab.goto(`${origin}${page}`);
  await tab.waitForFunction(() => "answers" in window, { timeout: 60_000 });
  const answers = JSON.parse(await tab.evaluate(() => window["answers"]));
  await tab.close();
  assert.equal(answers.error, undefined, answers.error);
  assert.deepEqual(problems, []);
  return answers;
}

function check(answers, library) {
  assert.equal(answers.version, version());
  assert.equal(answers.library, library);
  assert.equal(answers.hasBuffer, false);
  assert.equal(JSON.stringify(answers.trimmed), expected.trimmed);
  assert.deepEqual(answers.probed, expected.probed);
  assert.ok(answers.probed.width > 0 && answers.probed.tokens > 0);
  assert.equal(JSON.stringify(answers.fromSession), expected.fromSession);
}

test("headless chromium trims the example session through the browser entry", async () => {
  check(await answersOf("/"), `${origin}/pkg/wasm/ankita.wasm`);
});

test("the same in a bundle made by esbuild for the browser", async () => {
  check(await answersOf("/bundled"), `${origin}/wasm/ankita.wasm`);
});
