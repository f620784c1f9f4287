#!/usr/bin/env python3
"""Checks that every library of make dist exports exactly the functions of include/ankita.h.

    scripts/dist/check_exports.py [LIBRARY...]   (default: every file of target/dist/lib/)

Reads the exports with LLVM's tools, whatever the format: the dynamic symbol table of an ELF
library (llvm-nm -D), the exported symbols of each architecture of a Mach-O library
(llvm-nm -g, leading underscore removed), the export table of a DLL (llvm-readobj
--coff-exports). Prints "N passed, N failed".
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "target" / "dist"
SRC = ROOT if os.environ.get("DIST_TREE") == "1" else DIST / "src"


def header_functions(header: pathlib.Path) -> set[str]:
    """The functions declared in the header (comments removed first)."""
    text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return set(re.findall(r"\b(ankita_\w+)\s*\(", text))


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def exports(path: pathlib.Path) -> dict[str, set[str]]:
    """{architecture or "": exported functions} of a shared library."""
    magic = path.read_bytes()[:4]
    if magic == b"\x7fELF":
        out = run("llvm-nm", "-D", "--defined-only", str(path))
        return {"": {line.split()[-1] for line in out.splitlines() if " T " in line}}
    if magic[:2] == b"MZ":
        out = run("llvm-readobj", "--coff-exports", str(path))
        return {"": set(re.findall(r"^\s*Name: (\S+)$", out, re.M))}
    # Mach-O, thin or universal.
    archs = run("llvm-lipo", "-archs", str(path)).split()
    found = {}
    for arch in archs:
        out = run("llvm-nm", "-g", "--defined-only", f"--arch={arch}", str(path))
        found[arch] = {
            line.split()[-1].removeprefix("_") for line in out.splitlines() if " T " in line
        }
    return found


def main() -> None:
    declared = header_functions(SRC / "include" / "ankita.h")
    libs = [pathlib.Path(p) for p in sys.argv[1:]] or sorted(
        p
        for p in (DIST / "lib").glob("*/*")
        if p.name in ("ankita.dll", "libankita.dylib", "libankita.so")
    )
    passed = failed = 0
    for lib in libs:
        for arch, names in exports(lib).items():
            where = f"{lib.relative_to(DIST) if lib.is_relative_to(DIST) else lib}{' ' + arch if arch else ''}"
            if names == declared:
                passed += 1
                print(f"ok   {where}: the {len(names)} functions of ankita.h")
            else:
                failed += 1
                print(
                    f"FAIL {where}: exported but not declared {sorted(names - declared)}; "
                    f"declared but not exported {sorted(declared - names)}"
                )
    print(f"exports: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not libs else 0)


if __name__ == "__main__":
    main()
