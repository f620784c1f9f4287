#!/usr/bin/env bash
# The Python and Node packages as a user without Rust gets them:
#   - `make wheel`: the wheel's tag (abi3, manylinux2014/manylinux_2_17), auditwheel's verdict,
#     a stripped extension, complete metadata (license expression and files, URLs, classifiers,
#     a description that is the Python README, which installs the built wheel); the sdist holds
#     only what the build needs, and a wheel builds from it;
#   - the wheel installed into fresh venvs (the default python3, and the oldest CPython >= 3.9
#     found) with no cargo or rustc on PATH, imported and used;
#   - `make prebuilds` and `npm pack`: the tarball carries the stripped library and the licenses;
#     installed into an empty directory (koffi comes with it), without ANKITA_LIB and with no
#     repository around it, it trims;
#   - README.md's Python and JavaScript quickstarts, run with those installs.
# Cross builds (aarch64) are left out here (CROSS=): `make wheel` and `make prebuilds` do them.
# So is the packages' fat LTO (PACKAGE_LTO=): the same code, compiled in a third of the time.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n 1)"
arch="$(uname -m)"
passed=0
failed=0
started=$(date +%s)
# Each step says how long the script has run when it starts (make test's time goes here).
section() { echo "== [$(($(date +%s) - started)) s] $*"; }

ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*" >&2; }
check() { # check "what" command...; its output is kept in $scratch/out
    local what="$1"
    shift
    if "$@" >"$scratch/out" 2>&1; then ok "$what"; else fail "$what"; cat "$scratch/out" >&2; : >"$scratch/out"; fi
}

# A PATH with no Rust toolchain on it (only the system directories that hold no cargo).
bare_path=""
for dir in /usr/local/bin /usr/bin /bin; do
    [ -x "$dir/cargo" ] || [ -x "$dir/rustc" ] || bare_path="$bare_path${bare_path:+:}$dir"
done

section "make wheel CROSS="
make -C "$repo" --no-print-directory wheel CROSS= PACKAGE_LTO= >"$scratch/wheel.log" 2>&1 || { cat "$scratch/wheel.log" >&2; exit 1; }
wheel="$(ls "$repo"/target/wheels/ankita_context-"$version"-cp39-abi3-*"$arch".whl)"
sdist="$repo/target/wheels/ankita_context-$version.tar.gz"
echo "   $(basename "$wheel") ($(stat -c %s "$wheel") bytes), $(basename "$sdist") ($(stat -c %s "$sdist") bytes)"
check "the wheel's size is docs/performance.md's" python3 "$repo/tests/docs/sizes.py" "the wheel" "$wheel"

check "wheel tag cp39-abi3-manylinux2014_$arch.manylinux_2_17_$arch" \
    test "$(basename "$wheel")" = "ankita_context-$version-cp39-abi3-manylinux2014_$arch.manylinux_2_17_$arch.whl"
check "auditwheel: manylinux_2_17" bash -c "'$repo/target/dist/venv/bin/auditwheel' show '$wheel' | tr '\n' ' ' | grep -q 'consistent with the following platform tag: *\"manylinux_2_17_$arch\"'"
mkdir "$scratch/wheel"
(cd "$scratch/wheel" && python3 -m zipfile -e "$wheel" .)
so="$(ls "$scratch"/wheel/ankita/_ankita*.so)"
check "the extension is stripped" bash -c "! readelf -S '$so' | grep -q -e '\.debug_' -e '\.symtab'"
meta="$scratch/wheel/ankita_context-$version.dist-info/METADATA"
for field in "Name: ankita-context" "License-Expression: MIT OR Apache-2.0" "License-File: LICENSE-MIT" \
    "License-File: LICENSE-APACHE" "Requires-Python: >=3.9" "Project-URL: Repository, " \
    "Project-URL: Issues, " "Classifier: Programming Language :: Python :: 3.9" \
    "Classifier: Operating System :: POSIX :: Linux" "Description-Content-Type: text/markdown"; do
    check "METADATA: $field" grep -q "^$field" "$meta"
done
# The description is bindings/python/README.md, whose install texts tests/install_texts.rs checks.
check "the description is bindings/python/README.md (it installs the built wheel)" \
    python3 -c 'import sys; body = open(sys.argv[1]).read().split("\n\n", 1)[1]; sys.exit(body.strip() != open(sys.argv[2]).read().strip())' \
    "$meta" "$repo/bindings/python/README.md"
for f in LICENSE-MIT LICENSE-APACHE; do
    check "dist-info/licenses/$f is the repository's" cmp "$scratch/wheel/ankita_context-$version.dist-info/licenses/$f" "$repo/$f"
done

tar tzf "$sdist" | sed "s|^ankita_context-$version/||" | sort >"$scratch/sdist.txt"
for f in pyproject.toml Cargo.toml Cargo.lock LICENSE-MIT LICENSE-APACHE build.rs cbindgen.toml \
    include/ankita.h src/lib.rs src/ffi.rs bindings/python/Cargo.toml bindings/python/src/lib.rs \
    python/ankita/__init__.py python/ankita/py.typed PKG-INFO; do
    check "sdist has $f" grep -qx "$f" "$scratch/sdist.txt"
done
check "sdist holds no tests, fuzz, examples, docs, node or CI files" \
    bash -c "! grep -E '^(tests|fuzz|examples|docs|\.ci|bindings/node|bindings/python/(tests|bench))/' '$scratch/sdist.txt'"
# Sources (five format adapters, the CLI, the bindings' Rust and Python, the README): ~410 KB
# besides the vendored vocabularies (src/tokens/data: tiktoken's two, 2.4 MB, and Gemma 3's,
# 1.7 MB, compressed already); a stray build output or data file would be megabytes more.
vocabularies="$(cat "$repo"/src/tokens/data/*.gz "$repo"/src/tokens/data/*.deflate 2>/dev/null | wc -c)"
check "sdist is under 600 KB besides the vocabularies ($vocabularies bytes)" \
    test "$(( $(stat -c %s "$sdist") - vocabularies ))" -lt 600000

section "a wheel from the sdist (pip, maturin backend, reusing the wheel's build in target/)"
# The wheel's linker and profile (the Makefile's ZIG_LINKER and PACKAGE_PROFILE): the
# dependencies it compiled are reused, and only the sdist's own two crates are compiled.
upper_arch="$(echo "$arch" | tr a-z A-Z)"
if PATH="$repo/target/dist/venv/bin:$PATH" CARGO_TARGET_DIR="$repo/target" \
    CARGO_BUILD_TARGET="$arch-unknown-linux-gnu" CARGO_PROFILE_RELEASE_STRIP=symbols \
    CARGO_PROFILE_RELEASE_DEBUG=0 \
    env "CARGO_TARGET_${upper_arch}_UNKNOWN_LINUX_GNU_LINKER=$repo/scripts/dist/zigcc" \
    ZIG_PYTHON="$repo/target/dist/venv/bin/python" ZIG_TARGET="$arch-linux-gnu.2.17" \
    "$repo/target/dist/venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation "$sdist" -w "$scratch/from-sdist" >"$scratch/sdist-build.log" 2>&1; then
    ok "a wheel builds from the sdist"
    # maturin's build backend also leaves its wheel (tagged linux_<arch>) in target/wheels/,
    # where it would match the README's install glob beside the manylinux wheel.
    rm -f "$repo/target/wheels/ankita_context-$version-cp39-abi3-linux_$arch.whl"
else
    fail "a wheel builds from the sdist"
    tail -30 "$scratch/sdist-build.log" >&2
fi

section "the wheel in fresh venvs, no cargo on PATH"
pythons=(python3)
for p in "$HOME"/.pyenv/versions/3.9*/bin/python3.9 /usr/bin/python3.9; do
    if [ -x "$p" ]; then pythons+=("$p"); break; fi
done
cat >"$scratch/use.py" <<'PY'
import json, pathlib, sys
import ankita

repo = pathlib.Path(sys.argv[1])
assert pathlib.Path(ankita.__file__).resolve().is_relative_to(pathlib.Path(sys.prefix).resolve())
messages = json.loads((repo / "examples" / "session.json").read_text())["messages"]
tools = json.loads((repo / "examples" / "tools.json").read_text())
result = ankita.trim(messages, context_tokens=16000, max_output_tokens=2000, tools=tools)
assert result.report["output_messages"] < len(messages), result.report
# A window in tokens without a model counts in o200k_base tokens (an estimate).
assert result.report["unit"] == "tokens", result.report
assert result.report["cost_tokens"] <= result.report["budget_tokens"], result.report
assert result.messages[-1] is messages[-1]
info = ankita.probe_image(messages[38]["content"][1]["image_url"]["url"])
assert (info.format, info.width, info.height, info.tokens) == ("png", 1024, 768, 765), info
try:
    ankita.trim([{"role": "user", "content": [{"text": "no type"}]}])
    raise SystemExit("an invalid request did not raise")
except ankita.InvalidRequest as e:
    assert e.path == "messages[0].content[0].type", e.path
print(sys.version.split()[0], ankita.__file__, "kept", result.report["output_messages"], "of", len(messages))
PY
for py in "${pythons[@]}"; do
    venv="$scratch/venv-$(basename "$py")"
    "$py" -m venv "$venv"
    check "$("$py" --version): no cargo on the venv's PATH" \
        env -i PATH="$venv/bin:$bare_path" HOME="$scratch" bash -c '! command -v cargo && ! command -v rustc'
    check "$("$py" --version): pip install the wheel" \
        env -i PATH="$venv/bin:$bare_path" HOME="$scratch" "$venv/bin/python" -m pip install \
        --quiet --disable-pip-version-check --no-index "$wheel"
    check "$("$py" --version): the README's extras form (ankita-context[langchain] @ file://…)" \
        env -i PATH="$venv/bin:$bare_path" HOME="$scratch" "$venv/bin/python" -m pip install \
        --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \
        "ankita-context[langchain] @ file://$wheel"
    check "$("$py" --version): import ankita, trim, probe, errors" \
        env -i PATH="$venv/bin:$bare_path" HOME="$scratch" bash -c "cd '$scratch' && '$venv/bin/python' '$scratch/use.py' '$repo'"
    cat "$scratch/out"
    check "$("$py" --version): README.md's Python quickstart" \
        env -i PATH="$venv/bin:$bare_path" HOME="$scratch" python3 "$repo/tests/install/readme_examples.py" python "$repo/README.md" "$venv/bin/python"
done

section "make prebuilds wasm CROSS=, npm pack"
# The tarball carries the WebAssembly build too (the fallback where no native library loads).
make -C "$repo" --no-print-directory prebuilds wasm CROSS= PACKAGE_LTO= >"$scratch/prebuilds.log" 2>&1 || { cat "$scratch/prebuilds.log" >&2; exit 1; }
node_arch="$(node -p process.arch)"
prebuild="$repo/bindings/node/prebuilds/linux-$node_arch/libankita.so"
check "prebuilds/linux-$node_arch/libankita.so is stripped" bash -c "! readelf -S '$prebuild' | grep -q -e '\.debug_' -e '\.symtab'"
check "the prebuild needs no glibc newer than 2.17" \
    bash -c "! readelf -V '$prebuild' | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | awk -F. '\$2 > 17' | grep -q ."
(cd "$repo/bindings/node" && npm pack --silent --pack-destination "$scratch" </dev/null >/dev/null)
tarball="$scratch/ankita-$version.tgz"
echo "   $(basename "$tarball") ($(stat -c %s "$tarball") bytes)"
check "the tarball's size is docs/performance.md's" python3 "$repo/tests/docs/sizes.py" "the npm tarball (the Linux x86_64 library and the WebAssembly build)" "$tarball"
check "the prebuild's size is docs/performance.md's" \
    python3 "$repo/tests/docs/sizes.py" "the stripped \`libankita.so\` (the Node prebuild)" "$prebuild"
tar tzf "$tarball" | sed 's|^package/||' | sort >"$scratch/tarball.txt"
for f in package.json index.js index.d.ts types/names.d.ts types/report.d.ts lib/native.js README.md LICENSE-MIT LICENSE-APACHE \
    "prebuilds/linux-$node_arch/libankita.so" wasm/ankita.wasm; do
    check "tarball has $f" grep -qx "$f" "$scratch/tarball.txt"
done
check "tarball holds no tests, benchmarks or examples" bash -c "! grep -E '^(test|bench|examples|node_modules)/' '$scratch/tarball.txt'"

app="$scratch/empty app"
mkdir "$app"
# An app that says koffi needs no install script (as the READMEs advise): npm warns of nothing.
echo '{"private": true, "allowScripts": {"koffi": false}}' >"$app/package.json"
check "npm install the tarball into an empty app, without a warning" \
    bash -c "cd '$app' && out=\$(env -u ANKITA_LIB npm install --no-audit --no-fund '$tarball' </dev/null 2>&1) && echo \"\$out\" && ! grep -q 'npm warn' <<<\"\$out\""
check "koffi came with it" test -f "$app/node_modules/koffi/package.json"
cat >"$app/use.mjs" <<'JS'
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { libraryPath, probeImage, trim, trimAsync, version, AnkitaError } from "ankita";

const repo = process.argv[2];
const session = JSON.parse(fs.readFileSync(path.join(repo, "examples", "session.json"), "utf8"));
const messages = session.messages;
const tools = JSON.parse(fs.readFileSync(path.join(repo, "examples", "tools.json"), "utf8"));
const where = path.join(process.cwd(), "node_modules", "ankita", "prebuilds");
assert.ok(libraryPath().startsWith(where), `${libraryPath()} is not under ${where}`);
const { messages: kept, report } = await trimAsync(messages, {
  context_tokens: 16000,
  max_output_tokens: 2000,
  tools,
});
assert.equal(report.unit, "tokens");
assert.ok(kept.length < messages.length && report.cost_tokens <= report.budget_tokens);
assert.deepEqual(trim(messages, { context_tokens: 16000, max_output_tokens: 2000, tools }).report, report);
const info = probeImage(messages[38].content[1].image_url.url);
assert.equal(info.tokens, 765);
assert.throws(() => trim([{ role: "user", content: [{ text: "no type" }] }]), AnkitaError);
console.log(version(), libraryPath(), "kept", kept.length, "of", messages.length);
JS
check "the installed package trims (no ANKITA_LIB, no repository around it)" \
    bash -c "cd '$app' && env -u ANKITA_LIB node use.mjs '$repo' </dev/null"
cat "$scratch/out"
check "README.md's JavaScript quickstart, against that directory's install" \
    env -u ANKITA_LIB python3 "$repo/tests/install/readme_examples.py" js "$repo/README.md" "$app"

section "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
