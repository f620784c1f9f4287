// Large data URLs travel as header-only stand-ins (lib/images.js): the answers must be exactly
// those of sending every URL whole.

import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import { probeImage, sanitize, sanitizeAsync, trim, trimAsync } from "../index.js";
import { standInSettings, withStandIns } from "../lib/images.js";
import { IMAGES_DIR, caseArguments, checkCase, loadCases, outcome } from "./helpers.js";

const defaults = { ...standInSettings };

/** Runs `fn` with every data URL sent whole. */
async function sentWhole(fn) {
  standInSettings.minLength = Infinity;
  try {
    return await fn();
  } finally {
    Object.assign(standInSettings, defaults);
  }
}

function sentWholeSync(fn) {
  standInSettings.minLength = Infinity;
  try {
    return fn();
  } finally {
    Object.assign(standInSettings, defaults);
  }
}

function deepFreeze(value) {
  if (value !== null && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** A data URL of a fixture padded with random bytes to about `size` bytes. */
function padded(file, mime, size = 200 * 1024) {
  const bytes = fs.readFileSync(path.join(IMAGES_DIR, file));
  const pad = crypto.randomBytes(Math.max(0, size - bytes.length));
  return `data:${mime};base64,${Buffer.concat([bytes, pad]).toString("base64")}`;
}

const urls = {
  png: padded("png/rgb_1700x2200.png", "image/png"),
  jpeg: padded("jpeg/progressive_333x222.jpg", "image/jpeg"),
  // A 61 KB APP segment before the SOF: the first, short prefix does not reach the size.
  jpegDeep: padded("edge/app_60k_220x140.jpg", "image/jpeg", 400 * 1024),
  gif: padded("gif/page_1700x2200.gif", "image/gif"),
  webp: padded("webp/lossless_vp8l_1700x2200.webp", "image/webp"),
  garbage: `data:image/png;base64,${crypto.randomBytes(150 * 1024).toString("base64")}`,
  truncated:
    padded("invalid/png_truncated_ihdr.png", "image/png").slice(0, 40) + "A".repeat(90_000),
  nonAscii: `${padded("png/rgb_640x480.png", "image/png")}é€😀`,
  params: padded("png/rgb_640x480.png", "IMAGE/PNG;name=shot.png;BASE64").replace(
    ";BASE64;base64,",
    ";BASE64,",
  ),
};

function session() {
  const shot = (url, text, detail = "high") => ({
    role: "user",
    content: [
      { type: "text", text },
      { type: "image_url", image_url: { url, detail }, cache_control: { type: "ephemeral" } },
    ],
  });
  return [
    { role: "system", content: "You help with the screen." },
    shot(urls.png, "png"),
    { role: "assistant", content: "a1" },
    shot(urls.jpeg, "jpeg"),
    { role: "assistant", content: "a2" },
    shot(urls.garbage, "garbage"),
    { role: "assistant", content: "a3" },
    shot(urls.jpegDeep, "deep jpeg", "low"),
    { role: "assistant", content: "a4" },
    { role: "user", content: [{ type: "image_url", image_url: urls.gif }] },
    { role: "assistant", content: "a5" },
    shot(urls.truncated, "truncated"),
    shot(urls.nonAscii, "non-ascii"),
    shot(urls.params, "params"),
    { role: "assistant", content: "a6" },
    shot("https://example.com/remote.png", "remote"),
    shot(urls.webp, "webp, the current request"),
  ];
}

describe("stand-ins give the answers of whole URLs", () => {
  const messages = deepFreeze(session());

  test("stand-ins are made for the decodable large images only", () => {
    const { messages: sent, originals } = withStandIns(messages);
    const expected = [urls.png, urls.jpeg, urls.jpegDeep, urls.gif, urls.webp, urls.params];
    // Node 18 has no String.prototype.isWellFormed: only plain ASCII URLs get stand-ins there.
    if (typeof "".isWellFormed === "function") expected.push(urls.nonAscii);
    assert.deepStrictEqual([...originals.values()].sort(), expected.sort());
    for (const [standIn, original] of originals) assert.ok(standIn.length < original.length / 2);
    assert.equal(sent.length, messages.length);
  });

  for (const options of [
    {},
    { max_bytes: 1_000_000 },
    { max_bytes: 9_000 },
    { max_bytes: 9_000, on_image_overflow: "drop" },
    { max_bytes: 200_000, max_messages: 6 },
    { context_tokens: 6_000, max_output_tokens: 1_000, bytes_per_token: 3 },
    { max_bytes: 12_000, model: "gpt-4o-mini" },
    { max_bytes: 12_000, image_profile: "anthropic" },
    { max_bytes: 12_000, image_profile: "gemini", on_image_overflow: "drop" },
  ]) {
    test(`trim ${JSON.stringify(options)}`, async () => {
      const whole = await sentWhole(() => outcome(() => trim(messages, options)));
      assert.deepStrictEqual(await outcome(() => trim(messages, options)), whole);
      assert.deepStrictEqual(await outcome(() => trimAsync(messages, options)), whole);
    });
  }

  test("on_image_overflow error fails the same way", async () => {
    const request = {
      role: "user",
      content: [urls.png, urls.gif, urls.webp, urls.jpeg].map((url) => ({
        type: "image_url",
        image_url: { url },
      })),
    };
    const shots = deepFreeze([...messages, request]);
    const options = { max_bytes: 5_000, on_image_overflow: "error" };
    const whole = await sentWhole(() => outcome(() => trim(shots, options)));
    assert.equal(whole.ok, false);
    assert.equal(whole.error.code, "image_overflow");
    assert.deepStrictEqual(await outcome(() => trim(shots, options)), whole);
  });

  test("sanitize", async () => {
    const broken = [...messages, { role: "tool", tool_call_id: "nope", content: "orphan" }];
    const whole = await sentWhole(() => sanitize(broken));
    assert.deepStrictEqual(sanitize(broken), whole);
    assert.deepStrictEqual(await sanitizeAsync(broken), whole);
  });

  test("kept images carry the caller's own URL strings", () => {
    const { messages: kept } = trim(messages);
    const sent = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const got = kept.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    assert.equal(got.length, sent.length);
    got.forEach((part, i) => assert.deepStrictEqual(part, sent[i]));
  });
});

describe("what gets no stand-in", () => {
  const message = (part) => [{ role: "user", content: [part] }];
  const cases = [
    ["a short URL", { type: "image_url", image_url: { url: "data:image/gif;base64,R0lGODlh" } }],
    ["an undecodable URL", { type: "image_url", image_url: { url: urls.garbage } }],
    ["a lone surrogate", { type: "image_url", image_url: { url: `${urls.png}\ud800` } }],
    [
      "a remote URL",
      { type: "image_url", image_url: { url: `https://x.org/${"a".repeat(70_000)}` } },
    ],
    [
      "a URL without ;base64",
      { type: "image_url", image_url: { url: urls.png.replace(";base64", "") } },
    ],
    ["another part type", { type: "input_image", image_url: { url: urls.png } }],
    ["a part with toJSON", { type: "image_url", image_url: { url: urls.png }, toJSON: () => ({}) }],
    [
      "a class instance",
      Object.assign(new (class Part {})(), { type: "image_url", image_url: { url: urls.png } }),
    ],
  ];
  for (const [name, part] of cases) {
    test(name, () => {
      const messages = message(part);
      const sent = withStandIns(messages);
      assert.equal(sent.originals, null);
      assert.equal(sent.messages, messages);
    });
  }

  test("a caller's URL that looks like a stand-in is left alone", () => {
    const url = urls.png.replace(";base64,", ";ankita-ref=0.1;base64,");
    const { messages } = trim([
      { role: "user", content: [{ type: "image_url", image_url: { url } }] },
    ]);
    assert.equal(messages[0].content[0].image_url.url, url);
  });
});

describe("the shared cases, every image through a stand-in", () => {
  before(() => Object.assign(standInSettings, { minLength: 0, prefixLengths: [8, 64, 1024] }));
  after(() => Object.assign(standInSettings, defaults));
  const cases = loadCases();

  test("some cases do get stand-ins", () => {
    const with_ = cases.filter((c) => withStandIns(caseArguments(c)[0]).originals !== null);
    assert.ok(with_.length >= 3, `${with_.length} cases`);
  });

  for (const testCase of cases) {
    const call = { trim, sanitize }[testCase.function];
    const callAsync = { trim: trimAsync, sanitize: sanitizeAsync }[testCase.function];
    test(testCase.name, async () => {
      const args = caseArguments(testCase);
      checkCase(testCase, await outcome(() => call(...args)));
      checkCase(testCase, await outcome(() => callAsync(...args)));
    });
  }
});

describe("probeImage of large bytes reads a prefix first", () => {
  test("a padded image", () => {
    const url = urls.jpegDeep;
    const bytes = Buffer.from(url.slice(url.indexOf(",") + 1), "base64");
    assert.deepStrictEqual(probeImage(bytes), probeImage(url));
    assert.equal(probeImage(bytes).width, 220);
  });

  test("a long data URL or base64 text", () => {
    for (const url of [urls.png, urls.jpegDeep, urls.webp, urls.params]) {
      const whole = sentWholeSync(() => probeImage(url));
      assert.ok(whole !== null);
      assert.deepStrictEqual(probeImage(url), whole);
      assert.deepStrictEqual(probeImage(url.slice(url.indexOf(",") + 1)), whole);
      assert.deepStrictEqual(
        probeImage(url, { model: "gpt-4o" }),
        sentWholeSync(() => probeImage(url, { model: "gpt-4o" })),
      );
    }
  });

  test("large garbage is still not decodable", () => {
    assert.equal(probeImage(crypto.randomBytes(300 * 1024)), null);
    assert.equal(probeImage(urls.garbage), null);
    assert.equal(probeImage(urls.truncated), null);
  });
});
