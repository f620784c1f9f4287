#!/usr/bin/env bash
# `make install` into a scratch prefix, then what a C or C++ user does with it:
#   - the layout: libankita.so.VERSION with its SONAME libankita.so.MAJOR, the symlinks, the
#     static archive, both headers, ankita.pc and the CMake package; the installed library is
#     stripped;
#   - ankita.h compiles as C89, C99, C11 and C++17, ankita.hpp as C++17 and C++20, with
#     -Wall -Wextra -pedantic -Werror;
#   - check.c built with pkg-config (shared with an rpath, and static) as C89, C99 and C11;
#   - check.cpp built with CMake's find_package(ankita) (shared and static), run under valgrind;
#   - docs/c-api.md's C and CMake examples built and run as written against the install.
# Needs the release build (make build); installs cmake with apt when it is missing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/tests/install"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/Cargo.toml" | head -n 1)"
major="${version%%.*}"
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*" >&2; }
check() { # check "what" command...
    local what="$1"
    shift
    if "$@" >"$scratch/out" 2>&1; then ok "$what"; else fail "$what"; cat "$scratch/out" >&2; fi
}

if ! command -v cmake >/dev/null; then
    echo "== cmake is missing: apt-get install cmake"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake; } </dev/null >/dev/null
fi

echo "== make install PREFIX=$prefix"
make -C "$repo" --no-print-directory install PREFIX="$prefix" >/dev/null

lib="$prefix/lib"
check "libankita.so.$version is a file" test -f "$lib/libankita.so.$version" -a ! -L "$lib/libankita.so.$version"
check "libankita.so.$major -> libankita.so.$version" test "$(readlink "$lib/libankita.so.$major")" = "libankita.so.$version"
check "libankita.so -> libankita.so.$major" test "$(readlink "$lib/libankita.so")" = "libankita.so.$major"
check "SONAME libankita.so.$major" bash -c "readelf -d '$lib/libankita.so.$version' | grep -q 'Library soname: \[libankita.so.$major\]'"
check "the installed library is stripped" bash -c "! readelf -S '$lib/libankita.so.$version' | grep -q -e '\.debug_' -e '\.symtab'"
check "libankita.a" bash -c "ar t '$lib/libankita.a' | grep -q ."
for f in include/ankita.h include/ankita.hpp lib/pkgconfig/ankita.pc \
    lib/cmake/ankita/ankitaConfig.cmake lib/cmake/ankita/ankitaConfigVersion.cmake; do
    check "$f" test -s "$prefix/$f"
done

export PKG_CONFIG_PATH="$lib/pkgconfig"
check "pkg-config --modversion ankita = $version" test "$(pkg-config --modversion ankita)" = "$version"
strict=(-Wall -Wextra -pedantic -Werror)
printf '#include <ankita.h>\nint main(void) { ankita_string_free(0); return 0; }\n' >"$scratch/h.c"
printf '#include <ankita.hpp>\nint main() { return ankita::version().empty(); }\n' >"$scratch/hpp.cpp"
for std in c89 c99 c11; do
    check "ankita.h as $std" cc -std="$std" "${strict[@]}" $(pkg-config --cflags ankita) -c "$scratch/h.c" -o "$scratch/h.o"
done
check "ankita.h as c++17" c++ -x c++ -std=c++17 "${strict[@]}" $(pkg-config --cflags ankita) -c "$scratch/h.c" -o "$scratch/h.o"
for std in c++17 c++20; do
    check "ankita.hpp as $std" c++ -std="$std" "${strict[@]}" -Wshadow -Wconversion $(pkg-config --cflags ankita) -c "$scratch/hpp.cpp" -o "$scratch/hpp.o"
done

echo "== C with pkg-config"
for std in c89 c99 c11; do
    exe="$scratch/check_$std"
    check "check.c as $std, shared" cc -std="$std" "${strict[@]}" -DANKITA_TEST_VERSION="\"$version\"" \
        $(pkg-config --cflags ankita) "$here/check.c" -o "$exe" \
        $(pkg-config --libs ankita) -Wl,-rpath,"$(pkg-config --variable=libdir ankita)"
    check "check.c as $std runs" "$exe"
done
check "check_c99 loads libankita.so.$major from the prefix" bash -c "ldd '$scratch/check_c99' | grep -q 'libankita.so.$major => $lib/libankita.so.$major'"
check "check.c static" cc -std=c99 "${strict[@]}" -DANKITA_TEST_VERSION="\"$version\"" \
    $(pkg-config --cflags ankita) "$here/check.c" -o "$scratch/check_static" \
    "$lib/libankita.a" $(pkg-config --static --libs-only-l ankita | sed 's/-lankita//')
check "check.c static runs, without libankita.so" bash -c "'$scratch/check_static' && ! ldd '$scratch/check_static' | grep -q libankita"

echo "== C++ with CMake"
build="$scratch/cmake-build"
check "cmake configure (find_package(ankita 0.1))" cmake -S "$here/cmake" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
check "cmake build" cmake --build "$build" -j 2
valgrind=()
if command -v valgrind >/dev/null; then
    valgrind=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1)
fi
check "check.cpp, shared" "${valgrind[@]}" "$build/check_shared"
check "check.cpp, static" "$build/check_static"
find_version() { # find_version VERSION: configures a project that asks for that version
    local dir="$scratch/find-${1// /-}"
    mkdir -p "$dir"
    printf 'cmake_minimum_required(VERSION 3.16)\nproject(v LANGUAGES C)\nfind_package(ankita %s REQUIRED)\n' "$1" >"$dir/CMakeLists.txt"
    cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix"
}
check "find_package(ankita) without a version" find_version ""
check "find_package(ankita $version EXACT)" find_version "$version EXACT"
refused() { ! find_version "$1"; }
check "find_package(ankita $((major + 1)).0) is refused" refused "$((major + 1)).0"
if [ "$major" = 0 ]; then
    minor="$(echo "$version" | cut -d. -f2)"
    check "find_package(ankita 0.$((minor + 1))) is refused (0.x: minors are incompatible)" refused "0.$((minor + 1))"
fi

# The command lines of the docs run with every other block in tests/docs/run_blocks.py.
echo "== docs/c-api.md's C, C++ and CMake examples, against this install"
check "docs/c-api.md: the Install and build section" python3 "$here/readme_examples.py" c-api "$repo/docs/c-api.md" "$scratch/readme"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
