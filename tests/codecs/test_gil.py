"""The codecs' library calls release the GIL (STYLE.md lesson 13), proved by progress.

See zarrhpc.testing.gil: a worker runs the codec call while the main thread counts; with
forced GIL switches pushed out to 100 s, a call holding the GIL gives exactly 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from zarrhpc.codecs import BloscCodec, ChunkSpec, Crc32cCodec, GzipCodec, ZstdCodec
from zarrhpc.testing.codec_helpers import random_array
from zarrhpc.testing.gil import progress_during

N = 8_000_000
SPEC = ChunkSpec((N,), np.dtype("u1"))
CODECS = {
    "gzip": GzipCodec(1),
    "zstd": ZstdCodec(3),
    "blosc": BloscCodec("zstd", 5, "shuffle", 8),
    "crc32c": Crc32cCodec(),
}


@pytest.fixture(scope="module")
def data():
    return random_array((N // 8,), "int64", 0).tobytes()


def _progressed(call) -> bool:
    # a fast call (crc32c: ~1 ms for 8 MB) can miss the scheduler on a loaded machine;
    # try a few rounds. A call that holds the GIL gives exactly 0 in every round.
    return any(progress_during(call, repeats=5) > 0 for _ in range(10))


@pytest.mark.parametrize("name", sorted(CODECS))
def test_encode_releases_the_gil(name, data):
    codec = CODECS[name]
    assert _progressed(lambda: codec.encode(data))


@pytest.mark.parametrize("name", ["blosc", "gzip", "zstd"])
def test_decode_releases_the_gil(name, data):
    codec = CODECS[name]
    encoded = codec.encode(data)
    assert _progressed(lambda: codec.decode(encoded, SPEC, N))
