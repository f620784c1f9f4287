// Where the native library is looked for, and what is said when it is nowhere.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";

import { libraryPath } from "../index.js";
import {
  candidatePaths,
  isMusl,
  libraryFileName,
  loadFirst,
  PACKAGE_DIR,
  prebuildName,
} from "../lib/native.js";
import { REPO } from "./helpers.js";

const BUILT = path.join(REPO, "target", "release", libraryFileName());

describe("candidatePaths", () => {
  const base = {
    env: {},
    packageDir: "/app/node_modules/ankita",
    platform: "linux",
    arch: "x64",
    musl: false,
  };

  test("ANKITA_LIB, then the repository build, then the prebuild, then resourcesPath", () => {
    const found = candidatePaths({
      ...base,
      env: { ANKITA_LIB: "/opt/lib/libankita.so" },
      resourcesPath: "/app/resources",
    });
    assert.deepStrictEqual(found, [
      { source: "ANKITA_LIB", path: "/opt/lib/libankita.so" },
      { source: "repository build", path: "/app/target/release/libankita.so" },
      { source: "prebuild", path: "/app/node_modules/ankita/prebuilds/linux-x64/libankita.so" },
      { source: "resourcesPath", path: "/app/resources/libankita.so" },
      { source: "resourcesPath prebuild", path: "/app/resources/prebuilds/linux-x64/libankita.so" },
    ]);
  });

  test("without ANKITA_LIB nor resourcesPath, only the package's own places", () => {
    assert.deepStrictEqual(
      candidatePaths(base).map((c) => c.source),
      ["repository build", "prebuild"],
    );
  });

  test("a relative ANKITA_LIB is resolved from the working directory", () => {
    const [first] = candidatePaths({ ...base, env: { ANKITA_LIB: "lib/libankita.so" } });
    assert.equal(first.path, path.resolve("lib/libankita.so"));
  });

  test("inside an asar archive, the unpacked twin comes first", () => {
    const found = candidatePaths({
      ...base,
      packageDir: "/App/resources/app.asar/node_modules/ankita",
      resourcesPath: "/App/resources",
      platform: "darwin",
      arch: "arm64",
    });
    assert.deepStrictEqual(found.slice(1, 3), [
      {
        source: "prebuild (asar unpacked)",
        path: "/App/resources/app.asar.unpacked/node_modules/ankita/prebuilds/darwin-arm64/libankita.dylib",
      },
      {
        source: "prebuild",
        path: "/App/resources/app.asar/node_modules/ankita/prebuilds/darwin-arm64/libankita.dylib",
      },
    ]);
  });

  test("a Linux on musl has its own prebuild", () => {
    assert.deepStrictEqual(candidatePaths({ ...base, musl: true })[1], {
      source: "prebuild",
      path: "/app/node_modules/ankita/prebuilds/linux-x64-musl/libankita.so",
    });
    assert.equal(prebuildName("linux", "arm64", true), "linux-arm64-musl");
    assert.equal(prebuildName("linux", "x64", false), "linux-x64");
    assert.equal(prebuildName("win32", "x64", true), "win32-x64");
    assert.equal(prebuildName("darwin", "arm64"), "darwin-arm64");
  });

  test("musl is told from glibc by Node's report", () => {
    const glibc = process.report.getReport().header.glibcVersionRuntime;
    assert.equal(isMusl("linux"), !glibc);
    assert.equal(isMusl("darwin"), false);
    assert.equal(isMusl("win32"), false);
  });

  test("file names per platform", () => {
    assert.equal(libraryFileName("linux"), "libankita.so");
    assert.equal(libraryFileName("freebsd"), "libankita.so");
    assert.equal(libraryFileName("darwin"), "libankita.dylib");
    assert.equal(libraryFileName("win32"), "ankita.dll");
  });
});

describe("loadFirst", () => {
  const candidates = [
    { source: "ANKITA_LIB", path: "/a/missing.so" },
    { source: "prebuild", path: "/b/broken.so" },
    { source: "repository build", path: "/c/good.so" },
  ];
  const exists = (file) => !file.includes("missing");
  const load = (file) => {
    if (file.includes("broken")) throw new Error("invalid ELF header\nmore detail");
    return `loaded ${file}`;
  };

  test("returns the first that loads", () => {
    assert.deepStrictEqual(loadFirst(candidates, load, exists), {
      path: "/c/good.so",
      lib: "loaded /c/good.so",
    });
  });

  test("when none loads, the error lists every path and why", () => {
    assert.throws(
      () => loadFirst(candidates.slice(0, 2), load, exists),
      (error) => {
        assert.equal(error.code, "library_not_found");
        assert.match(error.message, /\/a\/missing\.so \(ANKITA_LIB\): not found/);
        assert.match(error.message, /\/b\/broken\.so \(prebuild\): invalid ELF header$/m);
        assert.match(error.message, /cargo build --release/);
        assert.equal(error.tried.length, 2);
        return true;
      },
    );
  });
});

describe("loading for real", () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ankita-node-"));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /** A copy of the package outside the repository (so ../../target/release is not there). */
  function copyPackage(name) {
    const dir = path.join(scratch, name, "pkg");
    fs.mkdirSync(dir, { recursive: true });
    for (const item of ["index.js", "package.json", "lib"]) {
      fs.cpSync(path.join(PACKAGE_DIR, item), path.join(dir, item), { recursive: true });
    }
    fs.symlinkSync(path.join(PACKAGE_DIR, "node_modules"), path.join(dir, "node_modules"));
    return dir;
  }

  function run(dir, env) {
    const script = 'import("./index.js").then((a) => console.log(a.libraryPath(), a.version()))';
    return spawnSync(process.execPath, ["-e", script], {
      cwd: dir,
      env: { ...process.env, ANKITA_LIB: "", ...env },
      encoding: "utf8",
    });
  }

  test("in the repository, the build at target/release is found", () => {
    if (!process.env.ANKITA_LIB) assert.equal(libraryPath(), BUILT);
  });

  test("ANKITA_LIB wins", () => {
    const dir = copyPackage("env");
    const copy = path.join(scratch, "env", "custom-name.so");
    fs.copyFileSync(BUILT, copy);
    const result = run(dir, { ANKITA_LIB: copy });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^${copy} \\d+\\.\\d+\\.\\d+`));
  });

  test("a bundled prebuild is found", () => {
    const dir = copyPackage("prebuild");
    const target = path.join(dir, "prebuilds", prebuildName());
    fs.mkdirSync(target, { recursive: true });
    fs.copyFileSync(BUILT, path.join(target, libraryFileName()));
    const result = run(dir, { ANKITA_LIB: path.join(scratch, "nowhere.so") });
    assert.equal(result.status, 0, result.stderr);
    assert.ok(result.stdout.startsWith(path.join(target, libraryFileName())), result.stdout);
  });

  test("a file that is not a library is skipped with its reason", () => {
    const dir = copyPackage("broken");
    const notALibrary = path.join(dir, "package.json");
    const result = run(dir, { ANKITA_LIB: notALibrary });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /cannot load the native library/);
    assert.ok(result.stderr.includes(`${notALibrary} (ANKITA_LIB): `), result.stderr);
    assert.ok(!result.stderr.includes(`${notALibrary} (ANKITA_LIB): not found`));
    const prebuild = path.join(dir, "prebuilds", prebuildName());
    assert.ok(
      result.stderr.includes(`${path.join(prebuild, libraryFileName())} (prebuild): not found`),
    );
    assert.ok(result.stderr.includes("(repository build): not found"), result.stderr);
  });

  test("a library without ankita's functions is named in the error", (t) => {
    const other = fs
      .readdirSync(path.join(PACKAGE_DIR, "node_modules", "@koromix"), { recursive: true })
      .find((file) => file.endsWith("koffi.node") && !file.includes("musl"));
    if (!other) return t.skip("no other shared library at hand");
    const file = path.join(PACKAGE_DIR, "node_modules", "@koromix", other);
    const result = run(copyPackage("other"), { ANKITA_LIB: file });
    assert.notEqual(result.status, 0);
    assert.ok(result.stderr.includes(`${file} does not match this package`), result.stderr);
  });

  test("importing never loads the library; the first call does", () => {
    const dir = copyPackage("lazy");
    const out = execFileSync(
      process.execPath,
      ["-e", 'import("./index.js").then((a) => console.log(typeof a.trim))'],
      { cwd: dir, env: { ...process.env, ANKITA_LIB: "" }, encoding: "utf8" },
    );
    assert.equal(out.trim(), "function");
  });
});
