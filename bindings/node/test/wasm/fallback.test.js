// The fallback to the WebAssembly build in a copy of the package outside the repository, where
// no native library is found: the package answers on the module; ANKITA_BACKEND=native and
// ANKITA_LIB refuse the fallback. Run by `make test-wasm`, not by run-tests.sh.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

const PACKAGE = path.resolve(import.meta.dirname, "..", "..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ankita-fallback-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const dir = path.join(scratch, "pkg");
fs.mkdirSync(dir);
for (const item of ["index.js", "package.json", "lib", "wasm"]) {
  fs.cpSync(path.join(PACKAGE, item), path.join(dir, item), { recursive: true });
}
fs.symlinkSync(path.join(PACKAGE, "node_modules"), path.join(dir, "node_modules"));

function run(env) {
  const script =
    'import("./index.js").then((a) => console.log(a.libraryPath(), ' +
    'a.trim([{ role: "user", content: "hi" }], { max_bytes: 4000 }).messages.length))';
  const { ANKITA_BACKEND, ANKITA_LIB, ...rest } = process.env;
  void ANKITA_BACKEND;
  void ANKITA_LIB;
  return spawnSync(process.execPath, ["-e", script], {
    cwd: dir,
    env: { ...rest, ...env },
    encoding: "utf8",
  });
}

test("no native library: the package answers on the WebAssembly build", () => {
  const result = run({});
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), `${path.join(dir, "wasm", "ankita.wasm")} 1`);
});

test("ANKITA_BACKEND=native refuses the fallback", () => {
  const result = run({ ANKITA_BACKEND: "native" });
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /cannot load the native library/);
});

test("a library named by ANKITA_LIB is never replaced by the module", () => {
  const result = run({ ANKITA_LIB: path.join(scratch, "nowhere.so") });
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /nowhere\.so \(ANKITA_LIB\): not found/);
});
