"""The node-aggregated writer's arena encoder (mpi/aggregate.py `_BloscInto`) writes the
same inner-chunk bytes as the codec chain (and so the engine and a serial write) for every
blosc configuration: it once handed the own writer's negative block size to c-blosc1,
which made chunks of one huge split block at a third of the speed."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.mpi.aggregate import _BloscInto


@pytest.mark.parametrize("cname", ["lz4", "lz4hc", "zstd", "blosclz"])
@pytest.mark.parametrize("shuffle", ["shuffle", "bitshuffle", "noshuffle"])
@pytest.mark.parametrize("dtype", ["f8", "i2"])
def test_arena_encoder_writes_the_codecs_bytes(tmp_path, cname, shuffle, dtype):
    comp = {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle}}
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(32, 32, 32), chunks=(16, 16, 16),
                             shards=(32, 32, 32), dtype=dtype, compressors=comp)
    layout = a._sharding
    enc = _BloscInto.make(layout, 2)
    assert enc is not None
    rng = np.random.default_rng(0)
    chunk = (np.cumsum(rng.integers(-3, 4, (16, 16, 16)), axis=2)).astype(dtype)
    got = bytes(enc.encode(chunk, 1, "a"))
    want = bytes(layout.inner.encode(chunk, "a"))
    assert got == want
    import numcodecs

    assert np.array_equal(np.frombuffer(numcodecs.Blosc().decode(got), dtype), chunk.ravel())
