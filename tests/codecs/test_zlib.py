"""numcodecs.zlib: numcodecs' bytes both ways, corrupt input, GIL released."""

import numcodecs
import numpy as np
import pytest

from zarrhpc.codecs import ChunkSpec, ZlibCodec, parse_codec
from zarrhpc.errors import CodecError, CorruptChunkError
from zarrhpc.testing.codec_helpers import random_array
from zarrhpc.testing.gil import progress_during

SPEC = ChunkSpec((1000,), np.dtype("<i8"))


@pytest.mark.parametrize("level", [0, 1, 9])
def test_same_bytes_as_numcodecs(level):
    data = random_array((1000,), "int64", level).tobytes()
    ours = ZlibCodec(level).encode(data)
    assert ours == numcodecs.Zlib(level).encode(data)
    assert bytes(ZlibCodec(level).decode(numcodecs.Zlib(level).encode(data), SPEC, 8000)) == data


def test_config_and_errors():
    assert parse_codec({"name": "numcodecs.zlib", "configuration": {"level": 4}}).level == 4
    assert ZlibCodec.from_config(None).level == 1
    with pytest.raises(CodecError, match="level"):
        parse_codec({"name": "numcodecs.zlib", "configuration": {"level": 10}}, "a/zarr.json")
    good = ZlibCodec(1).encode(bytes(8000))
    with pytest.raises(CorruptChunkError, match="zlib"):
        ZlibCodec().decode(good[:-6], SPEC, 8000)
    with pytest.raises(CorruptChunkError, match="expected 8000"):
        ZlibCodec().decode(ZlibCodec(1).encode(bytes(10)), SPEC, 8000)
    with pytest.raises(CorruptChunkError):
        ZlibCodec().decode(b"not zlib", SPEC, 8000)


def test_releases_the_gil():
    data = random_array((1_000_000,), "int64", 0).tobytes()
    codec = ZlibCodec(1)
    encoded = codec.encode(data)
    assert progress_during(lambda: codec.encode(data), repeats=5) > 0
    assert progress_during(lambda: codec.decode(encoded, SPEC, len(data)), repeats=5) > 0
