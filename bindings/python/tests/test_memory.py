"""Repeated calls do not leak: results, errors and stand-ins are all released."""

from __future__ import annotations

import gc
from pathlib import Path

import ankita
import pytest
from helpers import SCREENSHOT, openai_session

STATM = Path("/proc/self/statm")


def resident_kib() -> int:
    return int(STATM.read_text().split()[1]) * 4


@pytest.mark.skipif(not STATM.exists(), reason="reads /proc/self/statm")
def test_memory_does_not_grow_over_repeated_calls() -> None:
    messages = openai_session()
    big = [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": SCREENSHOT * 8}}]}
    ]

    def calls() -> None:
        ankita.trim(messages, max_bytes=3500)
        ankita.trim(big, max_bytes=600)
        ankita.sanitize(messages)
        ankita.probe_image(SCREENSHOT)
        ankita.trim_json('{"messages": []}')
        try:
            ankita.trim(messages, max_bytes=10)
        except ankita.AnkitaError:
            pass

    for _ in range(500):
        calls()
    gc.collect()
    before = resident_kib()
    for _ in range(5000):
        calls()
    gc.collect()
    assert resident_kib() - before < 4096, "resident memory grew by more than 4 MiB"
