# make dist: every platform's artifacts in target/dist/, listed in target/dist/manifest.json.
# make test-platforms: the Windows build under Wine (the C cases, the Node package's tests),
# the musl build with musl's loader, the macOS builds and the wheels checked structurally, the
# archives used as a user would, aarch64 Linux under QEMU (when built), every library's exports
# against include/ankita.h.
# Neither is part of `make test` (the cross builds take minutes each); see docs/platforms.md.
#
# make dist builds the committed tree (HEAD, laid out in target/dist/src by
# scripts/dist/snapshot.sh); DIST_TREE=1 builds the working tree. The cross builds share their
# own cargo target directory, target/cross, so they never wait on target/'s lock.
#
# Adding artifacts: a makefile adds its step to DIST_BUILD_STEPS (`DIST_BUILD_STEPS +=
# dist-wasm`; those steps run after the libraries and before the npm package and the wheels)
# and drops its files in a kind directory of target/dist/ (lib/, archives/, wheels/, npm/,
# wasm/): scripts/dist/manifest.py lists every file found there.

DIST := target/dist
# Windows, macOS (both architectures), Linux musl and glibc (2.17) on x86-64; aarch64 Linux
# (glibc and musl) when its Rust standard library is installed
# (`rustup target add aarch64-unknown-linux-gnu aarch64-unknown-linux-musl`).
DIST_TRIPLES = x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin \
	x86_64-unknown-linux-musl x86_64-unknown-linux-gnu \
	$(filter aarch64-unknown-linux-gnu aarch64-unknown-linux-musl,$(shell rustup target list --installed 2>/dev/null))
DIST_RUST_TARGETS := x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin x86_64-unknown-linux-musl
DIST_BUILD_STEPS += dist-libs dist-archives
# What the dist steps need from apt (a command each, and its package): mingw-w64 (Windows),
# lld (ld64.lld, macOS), llvm (llvm-lipo, llvm-objdump, llvm-nm, llvm-readobj), musl-tools and
# wine64 (test-platforms). apt-get runs through sudo when make does not run as root.
DIST_APT := x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 llvm-lipo:llvm ld64.lld:lld \
	musl-gcc:musl-tools wine:wine64
DIST_SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Debian's llvm package puts llvm-lipo in /usr/lib/llvm-<version>/bin alone.
DIST_PATH := $(PATH)$(addprefix :,$(lastword $(sort $(wildcard /usr/lib/llvm-*/bin))))
DIST_GOALS := dist dist-tools dist-src dist-libs dist-archives dist-npm dist-wheels dist-manifest \
	test-platforms test-windows test-windows-node test-musl test-archives test-aarch64 \
	check-macos check-wheels check-exports
$(DIST_GOALS): export PATH := $(DIST_PATH)

.PHONY: $(DIST_GOALS)

dist: dist-tools
	@start=$$(date +%s); \
	for step in dist-src $(DIST_BUILD_STEPS) dist-npm dist-wheels; do \
		t=$$(date +%s); $(MAKE) --no-print-directory $$step || exit 1; \
		echo "== $$step: $$(( $$(date +%s) - t )) s"; done; \
	scripts/dist/manifest.py --since $$start

# The tools, installed when missing: the Rust standard libraries (rustup), the apt packages
# above, and maturin, ziglang, packaging and wheel in target/dist/venv.
dist-tools: $(DIST_VENV)/bin/maturin
	@missing=$$(for t in $(DIST_RUST_TARGETS); do \
		rustup target list --installed | grep -qx $$t || echo $$t; done); \
	if [ -n "$$missing" ]; then rustup target add $$missing; fi
	@missing=$$(for pair in $(DIST_APT); do \
		command -v $${pair%%:*} >/dev/null || echo $${pair#*:}; done); \
	if [ -n "$$missing" ]; then echo "== apt-get install $$missing"; \
		$(DIST_SUDO) apt-get update -qq -o DPkg::Lock::Timeout=600 && \
		$(DIST_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=600 $$missing </dev/null >/dev/null; fi
	@$(DIST_VENV)/bin/python -c 'import packaging, wheel' 2>/dev/null || \
		$(DIST_VENV)/bin/python -m pip install --quiet --disable-pip-version-check packaging wheel

dist-src:
	@if [ "$(DIST_TREE)" != 1 ]; then scripts/dist/snapshot.sh; fi

# The libraries in target/dist/lib/<triple>/, and the universal2 macOS library (llvm-lipo).
dist-libs:
	@for triple in $(DIST_TRIPLES); do scripts/dist/build-lib.sh $$triple || exit 1; done
	mkdir -p $(DIST)/lib/universal2-apple-darwin
	llvm-lipo -create $(DIST)/lib/aarch64-apple-darwin/libankita.dylib \
		$(DIST)/lib/x86_64-apple-darwin/libankita.dylib \
		-output $(DIST)/lib/universal2-apple-darwin/libankita.dylib

# The C/C++ release archives, one a target (universal2 too).
dist-archives:
	rm -rf $(DIST)/archives
	@for triple in $(DIST_TRIPLES) universal2-apple-darwin; do \
		scripts/dist/archive.py $$triple || exit 1; done

# The npm package with every prebuild (bindings/node/prebuilds/), in target/dist/npm/.
dist-npm:
	scripts/dist/npm.sh

dist-wheels:
	scripts/dist/wheels.sh

dist-manifest:
	scripts/dist/manifest.py

# ---------------------------------------------------------------------------------------------
# make test-platforms: needs the artifacts of make dist (the libraries are built when missing;
# the archive and wheel checks need make dist's).

test-platforms: dist-tools
	@for triple in $(DIST_TRIPLES); do test -d $(DIST)/lib/$$triple || \
		{ $(MAKE) --no-print-directory dist-src dist-libs; break; }; done
	@start=$$(date +%s); failed=; \
	for step in check-exports check-macos check-wheels test-musl test-windows test-windows-node \
		test-archives test-aarch64; do \
		t=$$(date +%s); $(MAKE) --no-print-directory $$step || failed="$$failed $$step"; \
		echo "== $$step: $$(( $$(date +%s) - t )) s"; done; \
	echo "== make test-platforms: $$(( $$(date +%s) - start )) s"; \
	if [ -n "$$failed" ]; then echo "== failed:$$failed"; exit 1; fi

check-exports:
	scripts/dist/check_exports.py

check-macos:
	$(DIST_VENV)/bin/python scripts/dist/check_macos.py

check-wheels:
	$(DIST_VENV)/bin/python scripts/dist/check_wheels.py

test-musl:
	scripts/dist/test-musl.sh

test-windows:
	scripts/dist/test-windows.sh

test-windows-node:
	scripts/dist/test-windows-node.sh

test-archives:
	scripts/dist/test-archives.sh

# aarch64 Linux glibc under QEMU (when make dist built it).
test-aarch64:
	scripts/dist/test-aarch64.sh
