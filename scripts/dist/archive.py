#!/usr/bin/env python3
"""Packs the C/C++ release archive of one target from target/dist/lib/<triple>/.

    scripts/dist/archive.py TRIPLE

Writes target/dist/archives/ankita-<version>-<triple>.tar.gz (.zip for Windows):

    ankita-<version>-<triple>/
      include/ankita.h, include/ankita.hpp
      lib/libankita.so.<version> (+ libankita.so.<major>, libankita.so)   Linux
      lib/libankita.dylib                                                 macOS
      bin/ankita.dll, lib/libankita.dll.a (the import library)            Windows
      lib/libankita.a (without debug information)                         Linux and macOS
      lib/pkgconfig/ankita.pc, lib/cmake/ankita/ankitaConfig*.cmake       relocatable
      LICENSE-MIT, LICENSE-APACHE

The pkg-config file is cmake/ankita.pc.in with prefix=${pcfiledir}/../..; the CMake package is
cmake/ankitaConfig.dist.cmake.in (found from wherever the archive is unpacked) and
cmake/ankitaConfigVersion.cmake.in.
"""

from __future__ import annotations

import io
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "target" / "dist"
# The tree the libraries were built from (scripts/dist/snapshot.sh), for the headers, licenses
# and templates; the working tree with DIST_TREE=1.
SRC = ROOT if os.environ.get("DIST_TREE") == "1" else DIST / "src"

# What a static link needs besides the archive (rustc --print native-static-libs).
STATIC_LIBS = {
    "linux-gnu": "-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc",
    "linux-musl": "-lgcc_s -lc",
    "darwin": "-liconv -lSystem -lc -lm",
}


def version() -> str:
    text = (SRC / "Cargo.toml").read_text()
    found = re.search(r'^version = "(.*)"', text, re.M)
    assert found, "Cargo.toml has a version"
    return found.group(1)


def layout(triple: str, ver: str) -> tuple[dict[str, bytes | str], dict[str, str]]:
    """Returns the files ({archive path: contents or source path}) and the template values."""
    major = ver.split(".")[0]
    built = DIST / "lib" / triple
    files: dict[str, bytes | str] = {}
    values = {"IMPLIB": "", "SONAME": "", "STATIC_LIBS": ""}
    if "windows" in triple:
        files["bin/ankita.dll"] = str(built / "ankita.dll")
        files["lib/libankita.dll.a"] = str(built / "libankita.dll.a")
        values.update(SHARED="bin/ankita.dll", IMPLIB="lib/libankita.dll.a")
    elif "darwin" in triple:
        files["lib/libankita.dylib"] = str(built / "libankita.dylib")
        values.update(SHARED="lib/libankita.dylib", STATIC_LIBS=STATIC_LIBS["darwin"])
    else:
        files[f"lib/libankita.so.{ver}"] = str(built / "libankita.so")
        # Symbolic links, written as such by the tar writer below.
        files[f"lib/libankita.so.{major}"] = f"->libankita.so.{ver}"
        files["lib/libankita.so"] = f"->libankita.so.{major}"
        libc = "linux-musl" if triple.endswith("musl") else "linux-gnu"
        values.update(
            SHARED=f"lib/libankita.so.{ver}",
            SONAME=f"libankita.so.{major}",
            STATIC_LIBS=STATIC_LIBS[libc],
        )
    if "windows" not in triple and (built / "libankita.a").exists():
        # Without debug information, as make install lays it out, and without the LLVM bitcode
        # the release profile's LTO leaves in every object (.llvmbc in ELF, __LLVM,__bitcode in
        # Mach-O), which no C or C++ link reads (make dist: Linux x86-64's libankita.a
        # 63.5 -> 24.2 MB, macOS arm64's 57.8 -> 17.3 MB).
        with tempfile.TemporaryDirectory() as tmp:
            stripped = pathlib.Path(tmp) / "libankita.a"
            sections = [".llvmbc", ".llvmcmd", "__LLVM,__bitcode", "__LLVM,__cmdline"]
            removed = [f"--remove-section={name}" for name in sections]
            subprocess.run(
                ["llvm-strip", "--strip-debug", *removed, str(built / "libankita.a")]
                + ["-o", str(stripped)],
                check=True,
            )
            files["lib/libankita.a"] = stripped.read_bytes()
    files["include/ankita.h"] = str(SRC / "include" / "ankita.h")
    files["include/ankita.hpp"] = str(SRC / "include" / "ankita.hpp")
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        files[name] = str(SRC / name)
    values.update(
        TARGET=triple,
        VERSION=ver,
        SOMAJOR=major,
        MINOR=ver.split(".")[1],
        PREFIX="${pcfiledir}/../..",
        LIBDIR="${prefix}/lib",
        INCLUDEDIR="${prefix}/include",
        STATIC_CMAKE_LIBS=";".join(
            f for f in values["STATIC_LIBS"].replace("-l", "").split() if f not in ("c", "gcc_s")
        ),
    )
    if not values["STATIC_LIBS"]:
        values["STATIC_LIBS"] = ""
    templates = {
        "lib/pkgconfig/ankita.pc": "ankita.pc.in",
        "lib/cmake/ankita/ankitaConfig.cmake": "ankitaConfig.dist.cmake.in",
        "lib/cmake/ankita/ankitaConfigVersion.cmake": "ankitaConfigVersion.cmake.in",
    }
    for path, template in templates.items():
        text = (SRC / "cmake" / template).read_text()
        text = re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], text)
        if path.endswith(".pc") and "windows" in triple:
            # The import library is what -lankita finds; no static archive is shipped.
            text = re.sub(r"^Libs\.private:.*\n", "", text, flags=re.M)
        files[path] = text.encode()
    return files, values


def main() -> None:
    triple = sys.argv[1]
    ver = version()
    files, _ = layout(triple, ver)
    top = f"ankita-{ver}-{triple}"
    out_dir = DIST / "archives"
    out_dir.mkdir(parents=True, exist_ok=True)
    if "windows" in triple:
        out = out_dir / f"{top}.zip"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for path, content in sorted(files.items()):
                data = content if isinstance(content, bytes) else pathlib.Path(content).read_bytes()
                info = zipfile.ZipInfo(f"{top}/{path}", date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if path.endswith(".dll") else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    else:
        out = out_dir / f"{top}.tar.gz"
        with tarfile.open(out, "w:gz", compresslevel=9) as tar:
            for path, content in sorted(files.items()):
                info = tarfile.TarInfo(f"{top}/{path}")
                info.mtime = 1577836800
                if isinstance(content, str) and content.startswith("->"):
                    info.type = tarfile.SYMTYPE
                    info.linkname = content[2:]
                    tar.addfile(info)
                    continue
                data = content if isinstance(content, bytes) else pathlib.Path(content).read_bytes()
                info.size = len(data)
                info.mode = 0o755 if ".so" in path or path.endswith(".dylib") else 0o644
                tar.addfile(info, io.BytesIO(data))
    print(f"{out.relative_to(ROOT)}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
