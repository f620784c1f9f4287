#!/usr/bin/env bash
# The C/C++ release archives of make dist used as a user would, unpacked in a scratch directory:
#   - Linux glibc: tests/install/check.c built with the archive's pkg-config file (shared, with
#     an rpath, and static), tests/install/cmake (C++17, ankita.hpp) configured with
#     find_package(ankita) from the archive (shared and static); each run;
#   - Windows: check.c built with mingw-w64 and pkg-config against the import library, run
#     under Wine with bin/ankita.dll;
#   - every archive: the headers, the licenses, ankita.pc and the CMake package are there.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$src/Cargo.toml" | head -n 1)
here=$src/tests/install
strict=(-Wall -Wextra -pedantic -Werror)

for archive in "$dist"/archives/*; do
    name=$(basename "$archive")
    mkdir -p "$work/x"
    case "$archive" in
        *.zip) python3 -m zipfile -e "$archive" "$work/x" ;;
        *) tar xzf "$archive" -C "$work/x" ;;
    esac
    top=$work/x/${name%%.tar.gz}
    top=${top%%.zip}
    for f in include/ankita.h include/ankita.hpp lib/pkgconfig/ankita.pc \
        lib/cmake/ankita/ankitaConfig.cmake lib/cmake/ankita/ankitaConfigVersion.cmake LICENSE-MIT LICENSE-APACHE; do
        [ -s "$top/$f" ] || { fail "$name: $f"; continue 2; }
    done
    ok "$name: headers, licenses, ankita.pc, CMake package"
done

# Linux glibc.
mkdir -p "$work/linux"
tar xzf "$dist"/archives/ankita-"$version"-x86_64-unknown-linux-gnu.tar.gz -C "$work/linux"
prefix=$work/linux/ankita-$version-x86_64-unknown-linux-gnu
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check "pkg-config --modversion ankita = $version" test "$(pkg-config --modversion ankita)" = "$version"
check "check.c with pkg-config, shared" cc -std=c99 "${strict[@]}" -DANKITA_TEST_VERSION="\"$version\"" \
    $(pkg-config --cflags ankita) "$here/check.c" -o "$work/check" $(pkg-config --libs ankita) \
    -Wl,-rpath,"$(pkg-config --variable=libdir ankita)"
check "check.c runs against the archive's libankita.so.0" bash -c \
    "'$work/check' && ldd '$work/check' | grep -q 'libankita.so.0 => $prefix/'"
check "check.c with pkg-config, static" cc -std=c99 "${strict[@]}" -DANKITA_TEST_VERSION="\"$version\"" \
    $(pkg-config --cflags ankita) "$here/check.c" -o "$work/check_static" \
    "$prefix/lib/libankita.a" $(pkg-config --static --libs-only-l ankita | sed 's/-lankita//')
check "check.c static runs" "$work/check_static"
if ! command -v cmake >/dev/null; then
    echo "== cmake is missing: apt-get install cmake"
    { apt-get update -qq -o DPkg::Lock::Timeout=600 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 cmake; } </dev/null >/dev/null
fi
check "cmake: find_package(ankita 0.1) in the archive" cmake -S "$here/cmake" -B "$work/cmake" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
check "cmake build, shared and static" cmake --build "$work/cmake" -j 2
check "check.cpp, shared" "$work/cmake/check_shared"
check "check.cpp, static" "$work/cmake/check_static"

# Windows.
mkdir -p "$work/windows"
python3 -m zipfile -e "$dist"/archives/ankita-"$version"-x86_64-pc-windows-gnu.zip "$work/windows"
prefix=$work/windows/ankita-$version-x86_64-pc-windows-gnu
check "check.c with mingw-w64 and the archive's ankita.pc (import library)" \
    x86_64-w64-mingw32-gcc -std=c99 "${strict[@]}" -DANKITA_TEST_VERSION="\"$version\"" \
    $(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig pkg-config --cflags ankita) \
    "$here/check.c" -o "$prefix/bin/check.exe" \
    $(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig pkg-config --libs ankita)
x86_64-w64-mingw32-gcc -O2 -shared "$root/scripts/dist/windows/bcryptprimitives.c" \
    -o "$prefix/bin/bcryptprimitives.dll" -ladvapi32
check "check.exe runs under Wine with the archive's bin/ankita.dll" "$wine" "$prefix/bin/check.exe"
finish "archives"
