#!/usr/bin/env bash
# Tests of the Node package: installs its npm dependencies from the lockfile, makes sure the
# native library is built, checks formatting and the typed example, then runs node --test.
# Called by `make test` (which builds the library first); runs on its own too.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"

case "$(uname -s)" in
  Darwin) lib="libankita.dylib" ;;
  MINGW* | MSYS* | CYGWIN*) lib="ankita.dll" ;;
  *) lib="libankita.so" ;;
esac

echo "== node $(node --version), npm $(npm --version)"
npm ci --no-audit --no-fund --loglevel=error </dev/null

if [[ -z "${ANKITA_LIB:-}" && ! -f "$repo/target/release/$lib" ]]; then
  echo "== $repo/target/release/$lib is missing: cargo build --release"
  (cd "$repo" && cargo build --release --locked)
fi

echo "== prettier --check (this package, and the repository's other JavaScript with its settings)"
npx --no-install prettier --check . </dev/null
# tests/cases/generate_tokens.mjs (the token-mode case generator) has no configuration of its own
# on its way up to the root: it takes this package's.
npx --no-install prettier --check --config .prettierrc.json "$repo"/tests/cases/*.mjs </dev/null

echo "== tsc (the typed example against index.d.ts), TypeScript 5 and 7"
npx --no-install tsc -p examples </dev/null
node node_modules/typescript-7/bin/tsc -p examples </dev/null
echo "== tsc --strict with the compiler's defaults (no @types/node, no lib), TypeScript 5 and 7"
npx --no-install tsc -p examples/tsconfig.bare.json </dev/null
node node_modules/typescript-7/bin/tsc -p examples/tsconfig.bare.json </dev/null

echo "== tsc --strict --checkJs on the token-mode case generator (tests/cases/generate_tokens.mjs)"
npx --no-install tsc -p tsconfig.scripts.json </dev/null

echo "== tsc --strict on the READMEs' JavaScript examples"
node examples/readme.mjs </dev/null

echo "== node --test"
node --test test/*.test.js </dev/null
