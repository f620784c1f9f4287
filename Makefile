# make demo — build and run the main job on the bundled example session.
# make test — every test suite (Rust, C; Python and Node where present), one release build.
SHELL := /bin/bash
CARGO ?= cargo
RELEASE := target/release
LIB := $(RELEASE)/libankita.so
CLI := $(RELEASE)/ankita
C_TEST := target/c/test_ankita
C_DRIVER := target/c/case_driver
CFLAGS_TEST := -std=c99 -Wall -Wextra -Werror -Iinclude
VALGRIND := valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1

.PHONY: all build demo test test-rust test-c test-python test-node lint tools clean fuzz-smoke miri

all: build

build:
	$(CARGO) build --release --locked

# A companion session with two real screenshots (~0.9 MB of base64), an attached log and a long
# tool loop, trimmed for a 16k-token model that reserves 2k tokens for its answer.
demo: build
	@mkdir -p target/demo
	$(CLI) probe examples/screenshots/*.png
	$(CLI) trim examples/session.json --context-tokens 16000 --max-output-tokens 2000 \
		--tools examples/tools.json --memory examples/memory.txt --summary > target/demo/response.json
	@echo "Trimmed session written to target/demo/response.json; the question it ends with:"
	@python3 -c 'import json; m = json.load(open("target/demo/response.json"))["messages"]; print("  " + m[-1]["content"])'

test: build test-rust test-c test-python test-node

test-rust: build
	$(CARGO) test --release --locked

$(C_TEST): tests/c/test_ankita.c include/ankita.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TEST) $< -L$(RELEASE) -lankita -Wl,-rpath,$(abspath $(RELEASE)) -o $@

$(C_DRIVER): tests/c/case_driver.c include/ankita.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TEST) $< -L$(RELEASE) -lankita -Wl,-rpath,$(abspath $(RELEASE)) -o $@

test-c: build tools $(C_TEST) $(C_DRIVER)
	$(VALGRIND) $(C_TEST)
	python3 tests/c/run_cases.py $(C_DRIVER) $(VALGRIND)

# Each binding owns its test script; it installs what it needs (venv, npm packages) itself.
test-python: build
	@if [ -x bindings/python/run-tests.sh ]; then bindings/python/run-tests.sh; else echo "test-python: no Python package yet"; fi

test-node: build
	@if [ -x bindings/node/run-tests.sh ]; then bindings/node/run-tests.sh; else echo "test-node: no Node package yet"; fi

# Installs what the test suites need when the machine lacks it.
tools:
	@command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind; }

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
