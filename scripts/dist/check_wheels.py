#!/usr/bin/env python3
"""Checks the wheels of make dist (target/dist/wheels/): one for each platform built, each
abi3 for CPython 3.9+, its tags (parsed by packaging) the same in its file name and its WHEEL
file, and its extension module built for the platform its tag names:

- manylinux_2_17: an ELF of its architecture needing no glibc symbol newer than 2.17;
- musllinux_1_2: an ELF of its architecture needing musl's libc.so alone;
- win_amd64: an x86-64 DLL (.pyd) exporting PyInit__ankita and the core's C ABI alone;
- macosx_*: checked in depth by check_macos.py (architectures, minimum macOS, libSystem).

    scripts/dist/check_wheels.py     (prints "N passed, N failed")
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

from packaging.utils import parse_wheel_filename

ROOT = pathlib.Path(__file__).resolve().parents[2]
WHEELS = ROOT / "target" / "dist" / "wheels"
EXPECTED = {
    "manylinux_2_17_x86_64",
    "musllinux_1_2_x86_64",
    "macosx_11_0_arm64",
    "macosx_10_12_x86_64",
    "win_amd64",
}
results = {"passed": 0, "failed": 0}


def check(ok: bool, what: str) -> None:
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def needed(so: pathlib.Path) -> list[str]:
    return sorted(re.findall(r"\(NEEDED\).*\[(.*)\]", run("readelf", "-d", str(so))))


def main() -> None:
    wheels = sorted(WHEELS.glob("*.whl"))
    platforms: set[str] = set()
    for wheel in wheels:
        name, version, _, tags = parse_wheel_filename(wheel.name)
        platforms |= {t.platform for t in tags}
        with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
            meta = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
            listed = set(re.findall(r"^Tag: (\S+)$", z.read(meta).decode(), re.M))
            check(listed == {str(t) for t in tags}, f"{wheel.name}: WHEEL's tags are the name's")
            check(
                all(t.interpreter == "cp39" and t.abi == "abi3" for t in tags),
                f"{wheel.name}: abi3, CPython 3.9+ ({name} {version})",
            )
            ext_name = next(n for n in z.namelist() if re.search(r"ankita/_ankita[^/]*\.(so|pyd)$", n))
            ext = pathlib.Path(z.extract(ext_name, tmp))
            platform = next(iter(tags)).platform
            machine = "AArch64" if platform.endswith("aarch64") else "X86-64"
            if platform.startswith("manylinux"):
                versions = re.findall(r"GLIBC_(\d+)\.(\d+)", run("readelf", "-V", str(ext)))
                newest = max(((int(a), int(b)) for a, b in versions), default=(0, 0))
                check(newest <= (2, 17), f"{wheel.name}: needs glibc {newest[0]}.{newest[1]} at most")
                check(machine in run("readelf", "-h", str(ext)), f"{wheel.name}: {machine}")
            elif platform.startswith("musllinux"):
                check(needed(ext) == ["libc.so"], f"{wheel.name}: needs {needed(ext)}")
                check(machine in run("readelf", "-h", str(ext)), f"{wheel.name}: {machine}")
            elif platform == "win_amd64":
                exports = set(
                    re.findall(r"^\s*Name: (\S+)$", run("llvm-readobj", "--coff-exports", str(ext)), re.M)
                )
                # rustc exports the core's C ABI from a cdylib too (as on every platform).
                check(
                    "PyInit__ankita" in exports
                    and all(e == "PyInit__ankita" or e.startswith("ankita_") for e in exports),
                    f"{wheel.name}: {ext.name} exports PyInit__ankita and the C ABI alone "
                    f"({len(exports)} functions)",
                )
                check(
                    "COFF-x86-64" in run("llvm-readobj", "--file-headers", str(ext)),
                    f"{wheel.name}: x86-64",
                )
    expected = set(EXPECTED)
    # aarch64 Linux when make dist built its libraries.
    if (ROOT / "target" / "dist" / "lib" / "aarch64-unknown-linux-gnu").is_dir():
        expected.add("manylinux_2_17_aarch64")
    if (ROOT / "target" / "dist" / "lib" / "aarch64-unknown-linux-musl").is_dir():
        expected.add("musllinux_1_2_aarch64")
    missing = expected - platforms
    check(not missing, f"a wheel for every platform ({len(wheels)} wheels; missing: {sorted(missing)})")
    check(any(WHEELS.glob("ankita_context-*.tar.gz")), "the sdist")
    print(f"wheels: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
