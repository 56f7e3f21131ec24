"""Tests of zarrhpc/codecs/registry.py."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from zarrhpc.codecs import (
    BloscCodec,
    BytesCodec,
    BytesToBytesCodec,
    ChunkSpec,
    CodecPipeline,
    Crc32cCodec,
    GzipCodec,
    TransposeCodec,
    ZstdCodec,
    get_codec_class,
    parse_codec,
    register_codec,
    registered_names,
)
from zarrhpc.errors import CodecError
from zarrhpc.testing.codec_helpers import field_re


def test_core_names_registered():
    assert get_codec_class("bytes") is BytesCodec
    assert get_codec_class("endian") is BytesCodec
    assert get_codec_class("transpose") is TransposeCodec
    assert get_codec_class("gzip") is GzipCodec
    assert get_codec_class("zstd") is ZstdCodec
    assert get_codec_class("blosc") is BloscCodec
    assert get_codec_class("crc32c") is Crc32cCodec
    assert get_codec_class("nope") is None
    assert {"bytes", "blosc", "crc32c", "gzip", "transpose", "zstd"} <= set(registered_names())


def test_short_hand_and_object_forms():
    assert parse_codec("crc32c") == Crc32cCodec()
    assert parse_codec({"name": "crc32c"}) == Crc32cCodec()
    assert parse_codec({"name": "crc32c", "must_understand": True}) == Crc32cCodec()
    assert parse_codec(
        {"name": "gzip", "configuration": {"level": 1}, "must_understand": False}
    ) == GzipCodec(1)


def test_unknown_codec_named():
    with pytest.raises(CodecError, match=r"a/zarr.json: codecs\[2\].name: unknown codec 'lzma'"):
        parse_codec({"name": "lzma"}, "a/zarr.json", "codecs[2]")
    with pytest.raises(CodecError, match="unknown codec 'https://example.com/c'"):
        parse_codec("https://example.com/c", "zarr.json", "codecs[0]")


def test_unknown_codec_may_be_ignored_only_when_declared():
    assert parse_codec({"name": "x.hint", "must_understand": False}) is None
    with pytest.raises(CodecError):
        parse_codec({"name": "x.hint", "must_understand": True})


@pytest.mark.parametrize(
    "entry, where",
    [
        (3, "codecs[0]"),
        (None, "codecs[0]"),
        ({}, "codecs[0]"),
        ({"name": 3}, "codecs[0].name"),
        ({"name": ""}, "codecs[0].name"),
        ({"name": "gzip", "configuration": [1]}, "codecs[0].configuration"),
        ({"name": "crc32c", "must_understand": "no"}, "codecs[0].must_understand"),
        ({"name": "crc32c", "id": "crc32c"}, "codecs[0]"),
    ],
)
def test_malformed_entries(entry, where):
    with pytest.raises(CodecError, match=field_re("zarr.json", where)):
        parse_codec(entry, "zarr.json", "codecs[0]")


def test_new_codec_plugs_in_without_touching_the_pipeline():
    @register_codec
    class XorCodec(BytesToBytesCodec):
        name: ClassVar[str] = "test.xor"

        def __init__(self, key: int = 0) -> None:
            self.key = key

        @classmethod
        def from_config(cls, configuration, doc="", field="codec"):
            return cls((configuration or {}).get("key", 0))

        def to_json(self):
            return {"name": self.name, "configuration": {"key": self.key}}

        def encoded_size(self, decoded_size):
            return decoded_size

        def encode(self, buf):
            return (np.frombuffer(buf, np.uint8) ^ self.key).tobytes()

        def decode(self, buf, spec, decoded_size=None):
            return self.encode(buf)

    entries = ["bytes", {"name": "test.xor", "configuration": {"key": 7}}, "crc32c"]
    p = CodecPipeline.from_json(entries, ChunkSpec((5,), np.dtype("u1")), "zarr.json")
    a = np.arange(5, dtype="u1")
    enc = bytes(p.encode(a, "k"))
    assert enc[:5] == bytes(a ^ 7)
    assert np.array_equal(p.decode(enc, "k"), a)
    assert p.to_json()[1] == {"name": "test.xor", "configuration": {"key": 7}}
    with pytest.raises(ValueError, match="already registered"):
        register_codec(type("Other", (XorCodec,), {}))


def test_register_refuses_non_codecs():
    with pytest.raises(ValueError):
        register_codec(int)  # type: ignore[arg-type]
