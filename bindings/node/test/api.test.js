// probeImage, estimateImageTokens, version, AnkitaError and the shape of trim's answer.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

import * as ankita from "../index.js";
import {
  AnkitaError,
  estimateImageTokens,
  probeFile,
  probeImage,
  trim,
  version,
} from "../index.js";
import { IMAGES_DIR, REPO } from "./helpers.js";

const manifest = JSON.parse(fs.readFileSync(path.join(IMAGES_DIR, "manifest.json"), "utf8"));

test("the package exports exactly the documented API", () => {
  assert.deepStrictEqual(Object.keys(ankita).sort(), [
    "AnkitaError",
    "Session",
    "countTokens",
    "estimateImageTokens",
    "libraryPath",
    "probeFile",
    "probeImage",
    "sanitize",
    "sanitizeAsync",
    "trim",
    "trimAsync",
    "trimMany",
    "version",
  ]);
});

test("version() is the crate's version", () => {
  const cargo = fs.readFileSync(path.join(REPO, "Cargo.toml"), "utf8");
  assert.equal(version(), cargo.match(/^version\s*=\s*"([^"]+)"/m)[1]);
});

describe("probeImage on every fixture", () => {
  for (const entry of manifest) {
    test(entry.file, () => {
      const bytes = fs.readFileSync(path.join(IMAGES_DIR, entry.file));
      const base64 = bytes.toString("base64");
      const asBuffer = probeImage(bytes);
      if (entry.format === null) {
        assert.equal(asBuffer, null);
        assert.equal(probeImage(`data:image/png;base64,${base64}`), null);
        return;
      }
      const expected = {
        format: entry.format,
        width: entry.width,
        height: entry.height,
        ...estimateImageTokens(entry.width, entry.height),
      };
      assert.deepStrictEqual(asBuffer, expected);
      assert.deepStrictEqual(probeImage(`data:image/${entry.format};base64,${base64}`), expected);
      assert.deepStrictEqual(probeImage(base64), expected);
      assert.deepStrictEqual(probeImage(new Uint8Array(bytes)), expected);
      const view = new Uint8Array(bytes.length + 7);
      view.set(bytes, 7);
      assert.deepStrictEqual(probeImage(view.subarray(7)), expected, "a view at an offset");
      const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
      assert.deepStrictEqual(probeImage(copy), expected, "an ArrayBuffer");
    });
  }
});

describe("estimateImageTokens", () => {
  test("the worked example of DESIGN §3", () => {
    assert.deepStrictEqual(estimateImageTokens(1700, 2200), { tokens: 765, budget_bytes: 3060 });
    assert.deepStrictEqual(estimateImageTokens(1700, 2200, { profile: "ankita" }), {
      tokens: 765,
      budget_bytes: 3060,
    });
  });

  test("bytes_per_token scales budget_bytes", () => {
    assert.deepStrictEqual(estimateImageTokens(1700, 2200, { bytes_per_token: 3 }), {
      tokens: 765,
      budget_bytes: 2295,
    });
  });

  test("detail is accepted", () => {
    for (const detail of ["low", "high", "auto"]) {
      assert.equal(typeof estimateImageTokens(640, 480, { detail }).tokens, "number");
    }
  });

  test("the largest 32-bit sides are priced", () => {
    assert.ok(estimateImageTokens(2 ** 32 - 1, 2 ** 32 - 1).tokens > 0);
  });
});

describe("AnkitaError", () => {
  test("carries code, message, path and details", () => {
    const error = AnkitaError.fromJSON({
      code: "context_budget_exceeded",
      message: "too big",
      path: "messages[2]",
      breakdown: { max_bytes: 10 },
    });
    assert.ok(error instanceof Error);
    assert.equal(error.name, "AnkitaError");
    assert.equal(error.code, "context_budget_exceeded");
    assert.equal(error.message, "too big");
    assert.equal(error.path, "messages[2]");
    assert.deepStrictEqual(error.details, { breakdown: { max_bytes: 10 } });
    assert.deepStrictEqual(error.toJSON(), {
      code: "context_budget_exceeded",
      message: "too big",
      path: "messages[2]",
      breakdown: { max_bytes: 10 },
    });
    assert.match(error.stack, /AnkitaError: too big/);
  });

  test("a real budget failure has the breakdown in details", () => {
    const history = [
      { role: "system", content: "s".repeat(3000) },
      { role: "user", content: "q" },
    ];
    assert.throws(
      () => trim(history, { max_bytes: 1000 }),
      (error) =>
        error instanceof AnkitaError &&
        error.code === "context_budget_exceeded" &&
        error.path === undefined &&
        error.details.breakdown.max_bytes === 1000 &&
        error.details.breakdown.system_bytes > 1000,
    );
  });
});

test("trim answers { messages, report } with the report of DESIGN §8", () => {
  const result = trim([{ role: "user", content: "hello" }], { max_bytes: 1000 });
  assert.deepStrictEqual(Object.keys(result).sort(), ["messages", "report"]);
  for (const key of [
    "budget_bytes",
    "cost_bytes",
    "input_messages",
    "output_messages",
    "dropped_messages",
    "truncated",
    "dropped_images",
    "dropped_files",
    "dropped_attachments",
    "repaired",
  ]) {
    assert.ok(Object.hasOwn(result.report, key), `report.${key} is missing`);
  }
  assert.equal(result.report.budget_bytes, 1000);
});

describe("pricing options", () => {
  const bytes = fs.readFileSync(path.join(IMAGES_DIR, "png/rgb_1700x2200.png"));

  for (const options of [
    { model: "gpt-4o" },
    { model: "gpt-4o-mini", detail: "low" },
    { profile: "anthropic" },
    { profile: "gemini", bytes_per_token: 3 },
    { profile: "ankita", detail: undefined },
  ]) {
    test(`probeImage and estimateImageTokens agree: ${JSON.stringify(options)}`, () => {
      const info = probeImage(bytes, options);
      assert.deepStrictEqual(info, {
        format: "png",
        width: 1700,
        height: 2200,
        ...estimateImageTokens(1700, 2200, options),
      });
    });
  }

  test("a model no family claims is priced by the default profile, with a warning", () => {
    const estimate = estimateImageTokens(1700, 2200, { model: "no-such-model-9" });
    assert.equal(estimate.tokens, estimateImageTokens(1700, 2200).tokens);
    assert.equal(estimate.warnings.length, 1);
    assert.equal(estimate.warnings[0].code, "unknown_model");
    assert.equal(estimate.warnings[0].index, null);
    const info = probeImage(bytes, { model: "no-such-model-9" });
    assert.equal(info.warnings[0].code, "unknown_model");
    assert.equal(estimateImageTokens(1700, 2200, { model: "gpt-4o" }).warnings, undefined);
  });

  test("a model's price differs from the default upper bound", () => {
    const tokens = (options) => estimateImageTokens(4000, 3000, options).tokens;
    assert.notEqual(tokens({ model: "claude-sonnet-4" }), tokens({}));
  });

  for (const [name, options, path] of [
    ["an unknown profile", { profile: "nope" }, "image_profile"],
    [
      "an unknown model under strict_model",
      { model: "no-such-model-9", strict_model: true },
      "model",
    ],
    ["both profile and model", { profile: "openai", model: "gpt-4o" }, "model"],
    ["an unknown key", { colour: "red" }, "colour"],
  ]) {
    test(`${name} is invalid_request`, () => {
      for (const call of [
        () => probeImage(bytes, options),
        () => estimateImageTokens(10, 10, options),
      ]) {
        assert.throws(call, (error) => {
          assert.ok(error instanceof AnkitaError);
          assert.equal(error.code, "invalid_request", error.message);
          if (path) assert.equal(error.path, path);
          return true;
        });
      }
    });
  }
});

test("probeFile reads PDFs and audio", () => {
  const files = path.join(REPO, "tests", "fixtures", "files");
  const pdf = fs.readFileSync(path.join(files, "pdf-10-objstm.pdf"));
  const info = probeFile(pdf, { model: "gemini-2.5-flash" });
  assert.deepStrictEqual(
    [
      info.kind,
      info.format,
      info.pages,
      info.page_width,
      info.page_height,
      info.tokens,
      info.exact,
    ],
    ["document", "pdf", 10, 612, 792, 2580, true],
  );
  const url = `data:application/pdf;base64,${pdf.toString("base64")}`;
  assert.deepStrictEqual(probeFile(url, { model: "gemini-2.5-flash" }), info);
  const mp3 = fs.readFileSync(path.join(files, "mp3-30s-cbr.mp3"));
  const audio = probeFile(new Uint8Array(mp3), { profile: "gemini" });
  assert.equal(audio.format, "mp3");
  assert.equal(audio.tokens, 32 * audio.seconds);
  assert.equal(probeFile(fs.readFileSync(path.join(files, "pdf-3-encrypted-objstm.pdf"))), null);
  assert.throws(() => probeFile(42), { code: "invalid_argument" });
});
