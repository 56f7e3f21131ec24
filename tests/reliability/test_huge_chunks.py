"""A chunk shape from metadata anyone may have written can ask for more memory than the
machine has: reading then gives a zarrhpc error naming the key (a ``MemoryError`` when the
memory cannot be had, as ``OutOfMemoryError``), never a bare builtin exception.

Found by the fast fuzzer (metadata parser, 7 in 100,000 inputs): a chunk shape of
(2147483647, 8) int32 for a (16, 24) array asks the engine for a 64 GiB chunk buffer.
"""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import OutOfMemoryError, ZarrhpcError


def test_out_of_memory_error_is_both():
    assert issubclass(OutOfMemoryError, ZarrhpcError)
    assert issubclass(OutOfMemoryError, MemoryError)


@pytest.mark.parametrize("codec", [None, {"name": "blosc", "configuration": {
    "cname": "zstd", "clevel": 1, "shuffle": "bitshuffle", "blocksize": 64}}])
def test_chunk_larger_than_memory(tmp_path, codec):
    a = zarrhpc.create_array(str(tmp_path), shape=(16, 24), chunks=(2, 8), dtype="<i4",
                             compressors=codec)
    a[...] = np.arange(16 * 24, dtype="<i4").reshape(16, 24)
    meta = tmp_path / "zarr.json"
    doc = json.loads(meta.read_text())
    doc["chunk_grid"]["configuration"]["chunk_shape"] = [2**31 - 1, 8]
    meta.write_text(json.dumps(doc))
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    for sel in [(slice(None), slice(None)), (0, 0), (slice(0, 3), slice(1, 5))]:
        with pytest.raises(ZarrhpcError) as info:
            b[sel]
        assert "c/0/0" in str(info.value) or "c/0" in str(info.value)
