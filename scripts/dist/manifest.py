#!/usr/bin/env python3
"""Writes target/dist/manifest.json: every artifact under target/dist/, what a release job
uploads and a checker reads, and prints them with their sizes.

    scripts/dist/manifest.py [--since EPOCH_SECONDS]

An artifact is any file under one of the kind directories of target/dist/ (KINDS); whatever
adds artifacts only drops its files there (wasm/ for the WebAssembly build). Each entry:
path (relative to target/dist/), kind, target (a target triple, a wheel's tags, "source" for
the sdist, "node" for the npm tarball), size (bytes) and sha256.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "target" / "dist"

# The directory of target/dist/ -> the kind of every file under it.
KINDS = {
    "lib": "library",
    "archives": "archive",
    "wheels": "wheel",
    "npm": "npm",
    "wasm": "wasm",
}


def target_of(kind: str, path: pathlib.Path) -> str:
    rel = path.relative_to(DIST / {v: k for k, v in KINDS.items()}[kind])
    if kind == "library":
        return rel.parts[0]
    if kind == "archive":
        found = re.match(r"ankita-[^-]+-(.+?)\.(tar\.gz|zip)$", path.name)
        return found.group(1) if found else "unknown"
    if kind == "wheel":
        if path.name.endswith(".tar.gz"):
            return "source"
        # name-version-python-abi-platform.whl
        return "-".join(path.name[: -len(".whl")].split("-")[-3:])
    if kind == "npm":
        return "node"
    return "wasm32-unknown-unknown"


def npm_platforms(path: pathlib.Path) -> list[str]:
    with tarfile.open(path) as tar:
        names = {
            n.split("/")[2] for n in tar.getnames() if n.startswith("package/prebuilds/") and n.count("/") >= 3
        }
    return sorted(names)


def sha256(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> None:
    since = float(sys.argv[sys.argv.index("--since") + 1]) if "--since" in sys.argv else None
    text = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'^version = "(.*)"', text, re.M)
    artifacts = []
    for directory, kind in KINDS.items():
        base = DIST / directory
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink()):
            entry = {
                "path": path.relative_to(DIST).as_posix(),
                "kind": kind,
                "target": target_of(kind, path),
                "size": path.stat().st_size,
                "sha256": sha256(path),
            }
            if kind == "npm" and path.name.endswith(".tgz"):
                entry["platforms"] = npm_platforms(path)
            artifacts.append(entry)
    manifest = {
        "name": "ankita",
        "version": version.group(1) if version else None,
        "artifacts": artifacts,
    }
    (DIST / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    width = max((len(a["path"]) for a in artifacts), default=10)
    for a in artifacts:
        print(f"  {a['path']:<{width}}  {a['kind']:<8} {a['size']:>12,} B  {a['target']}")
    total = sum(a["size"] for a in artifacts)
    line = f"== target/dist/manifest.json: {len(artifacts)} artifacts, {total:,} bytes"
    if since is not None:
        line += f"; make dist took {time.time() - since:.0f} s"
    print(line)


if __name__ == "__main__":
    main()
