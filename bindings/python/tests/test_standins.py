"""Large screenshots are read as their header only; the answer must be the one the JSON
contract gives for the whole messages, and the caller gets the whole URLs back."""

from __future__ import annotations

import base64
import json
import random
import struct
from typing import Any

import ankita
import pytest
from conftest import IMAGES

RNG = random.Random(11)


def noise(n: int) -> bytes:
    return RNG.getrandbits(8 * n).to_bytes(n, "little")


def data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(raw).decode("ascii")


def png(size: int) -> bytes:
    header = (IMAGES / "png" / "rgb_1700x2200.png").read_bytes()[:33]
    return header + noise(size)


def jpeg_with_metadata(segments: int) -> bytes:
    """A real JPEG with `segments` 64 KB APP1 segments before its frame header, and 200 KB of
    trailing bytes (so that its data URL is longer than every prefix tried)."""
    jpeg = (IMAGES / "jpeg" / "baseline_500x375.jpg").read_bytes()
    app = b"".join(b"\xff\xe1" + struct.pack(">H", 65535) + noise(65533) for _ in range(segments))
    return jpeg[:2] + app + jpeg[2:] + noise(200_000)


def image(url: str, *, bare: bool = False, type_last: bool = False) -> dict[str, Any]:
    value: Any = url if bare else {"url": url, "detail": "high"}
    if type_last:
        return {"image_url": value, "type": "image_url"}
    return {"type": "image_url", "image_url": value}


def user(*parts: dict[str, Any], text: str = "look") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}, *parts]}


IMAGES_OF_EVERY_KIND = {
    "png": data_url(png(300_000)),
    "png, bare URL string": data_url(png(200_000)),
    "jpeg, 128 KB of metadata first": data_url(jpeg_with_metadata(2), "image/jpeg"),
    "jpeg, 256 KB of metadata first": data_url(jpeg_with_metadata(4), "image/jpeg"),
    "undecodable": "data:image/png;base64," + "QUJD" * 40_000,
    "not ASCII at the end": data_url(png(100_000)) + "é",
    "whitespace and line breaks": "data:image/png;base64,\n"
    + "\n".join(base64.b64encode(png(90_000)).decode()[i : i + 76] for i in range(0, 120_000, 76)),
}


def session() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for i, (name, url) in enumerate(IMAGES_OF_EVERY_KIND.items()):
        messages.append(user(image(url, bare="bare" in name, type_last=i % 2 == 1), text=name))
        messages.append({"role": "assistant", "content": f"Seen: {name}."})
    # A large data URL that is not an image part costs its JSON bytes: it must be read whole.
    other = {"type": "file", "file": {"url": IMAGES_OF_EVERY_KIND["png"], "name": "a.png"}}
    messages.append(user(other, text="and this file"))
    messages.append({"role": "assistant", "content": "Noted."})
    messages.append(user(image(IMAGES_OF_EVERY_KIND["png"]), text="what now?"))
    return messages


@pytest.mark.parametrize("max_bytes", [None, 2_000_000, 700_000, 20_000, 6_000])
@pytest.mark.parametrize("on_image_overflow", ["placeholder", "drop"])
def test_same_answer_as_the_json_contract(max_bytes: int | None, on_image_overflow: str) -> None:
    messages = session()
    options: dict[str, Any] = {"max_bytes": max_bytes, "on_image_overflow": on_image_overflow}
    native = ankita.trim(messages, **options)
    answer = json.loads(ankita.trim_json(json.dumps({"messages": messages, **options})))
    assert answer["ok"], answer
    assert native.report == answer["report"]
    assert native.messages == answer["messages"]


def test_the_caller_gets_the_whole_urls_back() -> None:
    messages = session()
    result = ankita.trim(messages, max_bytes=2_000_000)
    assert result.report["dropped_images"] == []
    assert all(out is given for out, given in zip(result.messages, messages))
    last = result.messages[-1]["content"][1]["image_url"]["url"]
    assert last is IMAGES_OF_EVERY_KIND["png"]


def test_images_are_priced_as_the_probe_prices_them() -> None:
    for name, url in IMAGES_OF_EVERY_KIND.items():
        info = ankita.probe_image(url)
        result = ankita.trim([user(image(url))], max_bytes=10_000_000)
        cost = result.report["cost_bytes"]
        assert cost is not None
        content_bytes = cost - len('{"role":"user"}') - len("look")
        if name == "undecodable":
            assert info is None
            assert content_bytes == len(url)
        else:
            assert info is not None, name
            assert content_bytes == info.budget_bytes, name


def test_a_lone_surrogate_far_into_a_large_url_is_still_reported() -> None:
    url = data_url(png(100_000)) + "\ud800"
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([user(image(url))])
    assert info.value.path == "messages[0].content[1].image_url.url"
