#!/usr/bin/env python3
"""Checks a built artifact's size against the figure docs/performance.md gives for it.

    tests/docs/sizes.py "the wheel" target/wheels/ankita_context-….whl

The row of the "Sizes" table whose first cell is the name holds the size in MB (10^6 bytes);
the file must be within 10% of it. Run by tests/install/packages.sh for what it builds.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "performance.md"
TOLERANCE = 0.10


def documented(name: str) -> float:
    """The size in MB the Sizes table gives for an artifact."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("\n## Sizes\n") :]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] == name:
            match = re.fullmatch(r"([\d.]+) MB", cells[1])
            if match:
                return float(match.group(1))
    raise SystemExit(f"{DOC}: no size for {name!r} in the Sizes table")


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    name, path = sys.argv[1], sys.argv[2]
    expected = documented(name)
    actual = os.path.getsize(path) / 1e6
    print(f"{name}: {actual:.2f} MB built, {expected} MB in docs/performance.md")
    if abs(actual - expected) > TOLERANCE * expected:
        print(
            f"update docs/performance.md's Sizes table: {name} is {actual:.2f} MB", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
