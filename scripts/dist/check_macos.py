#!/usr/bin/env python3
"""Structural checks of the macOS builds of make dist (nothing runs macOS binaries here; the
release workflow runs the tests on a macOS runner). With LLVM's tools:

- each libankita.dylib (arm64, x86_64, universal2): its architectures (llvm-lipo), its install
  name @rpath/libankita.dylib (LC_ID_DYLIB), its minimum macOS (LC_BUILD_VERSION's minos, or
  LC_VERSION_MIN_MACOSX) at most 11.0 on arm64 and 10.13 on x86_64, no library loaded but
  /usr/lib/libSystem.B.dylib (LC_LOAD_DYLIB), and its exports those of the Linux library and
  the functions of include/ankita.h (check_exports.py);
- each macOS wheel: its tags (packaging), the same in the file name and in WHEEL, the
  extension's architectures and minimum macOS those of its platform tag, libSystem alone
  loaded (Python's own symbols are looked up at load time, -undefined dynamic_lookup), and
  PyInit__ankita exported.

    scripts/dist/check_macos.py     (prints "N passed, N failed")
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

from packaging.utils import parse_wheel_filename

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_exports import DIST, SRC, exports, header_functions  # noqa: E402

LIBSYSTEM = "/usr/lib/libSystem.B.dylib"
# The newest minimum macOS allowed for each architecture.
MAX_MINOS = {"arm64": (11, 0), "x86_64": (10, 13)}
results = {"passed": 0, "failed": 0}


def check(ok: bool, what: str) -> None:
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {what}")


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def load_commands(path: pathlib.Path, arch: str) -> list[dict[str, str]]:
    """The load commands of one architecture, each as {field: value}."""
    out = run("llvm-objdump", "--macho", "--private-headers", f"--arch={arch}", str(path))
    commands: list[dict[str, str]] = []
    for line in out.splitlines():
        if line.startswith("Load command"):
            commands.append({})
            continue
        parts = line.split(None, 1)
        if commands and len(parts) == 2:
            commands[-1].setdefault(parts[0], parts[1])
    return commands


def facts(path: pathlib.Path, arch: str) -> dict[str, object]:
    commands = load_commands(path, arch)
    minos = None
    for c in commands:
        if c.get("cmd") == "LC_BUILD_VERSION":
            minos = c.get("minos")
        elif c.get("cmd") == "LC_VERSION_MIN_MACOSX":
            minos = c.get("version")
    name = lambda c: c["name"].split(" (offset")[0]  # noqa: E731
    return {
        "id": [name(c) for c in commands if c.get("cmd") == "LC_ID_DYLIB"],
        "loads": sorted(name(c) for c in commands if c.get("cmd") == "LC_LOAD_DYLIB"),
        "minos": tuple(int(x) for x in minos.split(".")[:2]) if minos else None,
    }


def check_dylib(path: pathlib.Path, archs: list[str], linux: set[str], declared: set[str]) -> None:
    rel = path.relative_to(DIST)
    found = run("llvm-lipo", "-archs", str(path)).split()
    check(sorted(found) == sorted(archs), f"{rel}: architectures {found}")
    names = exports(path)
    for arch in found:
        f = facts(path, arch)
        check(f["id"] == ["@rpath/libankita.dylib"], f"{rel} {arch}: install name {f['id']}")
        minos = f["minos"]
        check(
            minos is not None and minos <= MAX_MINOS[arch],
            f"{rel} {arch}: minimum macOS {'.'.join(map(str, minos or ()))} "
            f"(at most {'.'.join(map(str, MAX_MINOS[arch]))})",
        )
        check(f["loads"] == [LIBSYSTEM], f"{rel} {arch}: loads {f['loads']}")
        check(
            names[arch] == linux == declared,
            f"{rel} {arch}: exports the {len(names[arch])} functions of the Linux library and "
            "of ankita.h",
        )


def check_wheel(path: pathlib.Path) -> None:
    _, _, _, tags = parse_wheel_filename(path.name)
    with zipfile.ZipFile(path) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        listed = set(re.findall(r"^Tag: (\S+)$", z.read(meta).decode(), re.M))
        ext = next(n for n in z.namelist() if re.search(r"_ankita.*\.so$", n))
        with tempfile.TemporaryDirectory() as tmp:
            so = pathlib.Path(z.extract(ext, tmp))
            check(
                listed == {str(t) for t in tags},
                f"{path.name}: WHEEL's tags {sorted(listed)} are the file name's",
            )
            check(
                all(t.interpreter == "cp39" and t.abi == "abi3" for t in tags),
                f"{path.name}: abi3 for CPython 3.9+",
            )
            for tag in tags:
                found = re.match(r"macosx_(\d+)_(\d+)_(\w+)$", tag.platform)
                check(found is not None, f"{path.name}: a macOS platform tag {tag.platform}")
                if not found:
                    continue
                tag_min = (int(found.group(1)), int(found.group(2)))
                arch = found.group(3)
                archs = ["arm64", "x86_64"] if arch == "universal2" else [arch]
                have = run("llvm-lipo", "-archs", str(so)).split()
                check(sorted(have) == sorted(archs), f"{path.name}: {ext} is {have}")
                for a in have:
                    f = facts(so, a)
                    check(
                        f["minos"] is not None and f["minos"] <= tag_min,
                        f"{path.name} {a}: minimum macOS {f['minos']} within the tag's {tag_min}",
                    )
                    check(f["loads"] == [LIBSYSTEM], f"{path.name} {a}: loads {f['loads']}")
                    symbols = run("llvm-nm", "-g", "--defined-only", f"--arch={a}", str(so))
                    check("_PyInit__ankita" in symbols.split(), f"{path.name} {a}: PyInit__ankita")


def main() -> None:
    declared = header_functions(SRC / "include" / "ankita.h")
    linux = exports(DIST / "lib" / "x86_64-unknown-linux-gnu" / "libankita.so")[""]
    for triple, archs in (
        ("aarch64-apple-darwin", ["arm64"]),
        ("x86_64-apple-darwin", ["x86_64"]),
        ("universal2-apple-darwin", ["arm64", "x86_64"]),
    ):
        path = DIST / "lib" / triple / "libankita.dylib"
        if not path.exists():
            check(False, f"{path.relative_to(DIST)} is missing")
            continue
        check_dylib(path, archs, linux, declared)
    wheels = sorted((DIST / "wheels").glob("*macosx*.whl"))
    check(bool(wheels), f"{len(wheels)} macOS wheels")
    for wheel in wheels:
        check_wheel(wheel)
    print(f"macOS: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
