// The browser entry in a real headless browser (Debian's chromium, driven by puppeteer-core; no
// browser is downloaded): a page served from 127.0.0.1 imports the package as a browser does
// (the package's browser condition: lib/native-browser.js fetches the WebAssembly build), trims
// the example session with its two real screenshots, probes a screenshot's bytes and runs a
// Session. The test checks the page's answers against the native library's for the same calls.
// Run by `make test-wasm`, not by run-tests.sh. CHROMIUM=path overrides /usr/bin/chromium.

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

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

// The page imports "ankita" as a bundler resolves it for a browser: the package's entry, with
// its "#native" import under the browser condition (an import map says so without a bundler).
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>ankita</title>
<script type="importmap">
{ "imports": { "ankita": "/pkg/index.js" },
  "scopes": { "/pkg/": { "#native": "/pkg/lib/native-browser.js" } } }
</script>
<script type="module">
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
</script>`;

let server;
let origin;
let browser;
let profile;

before(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://127.0.0.1");
    let file = null;
    if (url.pathname === "/") {
      response.writeHead(200, { "content-type": TYPES[".html"] });
      response.end(PAGE);
      return;
    }
    if (url.pathname.startsWith("/pkg/")) file = path.join(PACKAGE, url.pathname.slice(5));
    if (url.pathname.startsWith("/examples/")) file = path.join(EXAMPLES, url.pathname.slice(10));
    const inside = file && (file.startsWith(PACKAGE) || file.startsWith(EXAMPLES));
    if (!inside || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
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
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "ankita-chromium-"));
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
      `--user-data-dir=${profile}`,
    ],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

test("headless chromium trims the example session through the browser entry", async () => {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => "answers" in window, { timeout: 60_000 });
  const answers = JSON.parse(await page.evaluate(() => window["answers"]));
  assert.equal(answers.error, undefined, answers.error);
  assert.deepEqual(problems, []);

  assert.equal(answers.version, version());
  assert.equal(answers.library, `${origin}/pkg/wasm/ankita.wasm`);
  assert.equal(answers.hasBuffer, false);

  // The same calls in Node, on the native library: the same answers.
  const { messages } = JSON.parse(fs.readFileSync(path.join(EXAMPLES, "session.json"), "utf8"));
  const images = JSON.stringify(messages).match(/data:image\/png;base64,/g) ?? [];
  assert.ok(images.length >= 2, "the example session holds two screenshots");
  const expected = trim(messages, OPTIONS);
  assert.equal(JSON.stringify(answers.trimmed), JSON.stringify(expected));
  const png = fs.readFileSync(path.join(EXAMPLES, "screenshots", SCREENSHOT));
  assert.deepEqual(answers.probed, probeImage(png));
  assert.ok(answers.probed.width > 0 && answers.probed.tokens > 0);
  const session = new Session(OPTIONS);
  session.append(messages);
  assert.equal(JSON.stringify(answers.fromSession), JSON.stringify(session.trim()));
  session.close();
  await page.close();
});
