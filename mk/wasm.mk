# make wasm: the WebAssembly build of the core (wasm32-unknown-unknown, without the default
# feature tokenizer-files; docs/wasm.md), copied into the Node package (bindings/node/wasm/,
# which `npm pack` ships) and into target/dist/wasm/ (listed in make dist's manifest).
# make test-wasm: every shared case through it in Node, byte for byte against the native
# library, and the browser entry in headless chromium (apt-get install chromium). Not part of
# `make test`. make bench-wasm: its size and its speed against the native library.
#
# The module exports its stack pointer, which the host puts back after a call that trapped
# (lib/wasm-bind.js). Its own cargo target directory (target/wasm), so it never waits on target/'s lock. WASM_SRC
# is the tree built (make dist builds its snapshot of HEAD, target/dist/src).

WASM_SRC ?= .
WASM_TARGET_DIR := $(abspath target/wasm)
WASM_FILE := $(WASM_TARGET_DIR)/wasm32-unknown-unknown/release/ankita.wasm
WASM_NODE := bindings/node/wasm
WASM_DIST := target/dist/wasm
CHROMIUM ?= /usr/bin/chromium

.PHONY: wasm dist-wasm test-wasm bench-wasm

wasm:
	@rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || \
		rustup target add wasm32-unknown-unknown
	cd $(WASM_SRC) && CARGO_TARGET_DIR=$(WASM_TARGET_DIR) $(PACKAGE_PROFILE) \
		$(CARGO) rustc --release --locked --lib --crate-type cdylib \
		--target wasm32-unknown-unknown --no-default-features --features gemma3 \
		-- -C link-arg=--export=__stack_pointer
	mkdir -p $(WASM_NODE) $(WASM_DIST)
	cp $(WASM_FILE) $(WASM_NODE)/ankita.wasm
	cp $(WASM_FILE) $(WASM_DIST)/ankita.wasm
	@echo "== ankita.wasm: $$(stat -c %s $(WASM_FILE)) B, $$(gzip -9c $(WASM_FILE) | wc -c) B gzipped"

# A step of make dist (mk/dist.mk), before the npm package is packed.
dist-wasm:
	$(MAKE) --no-print-directory wasm WASM_SRC=$(if $(filter 1,$(DIST_TREE)),.,target/dist/src)
DIST_BUILD_STEPS += dist-wasm

test-wasm: build wasm
	@command -v $(CHROMIUM) >/dev/null || { echo "== chromium is missing: apt-get install chromium"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium </dev/null >/dev/null; }
	@test -d bindings/node/node_modules/puppeteer-core -a -d bindings/node/node_modules/esbuild || \
		(cd bindings/node && npm ci --no-audit --no-fund --loglevel=error </dev/null)
	@start=$$(date +%s); cd bindings/node && CHROMIUM=$(CHROMIUM) node --test \
		test/wasm/bytes.test.js test/wasm/cases.test.js test/wasm/fallback.test.js \
		test/wasm/browser.test.js </dev/null; \
		status=$$?; echo "== test-wasm: $$(( $$(date +%s) - start )) s"; exit $$status

bench-wasm: build wasm
	cd bindings/node && node bench/wasm.js
