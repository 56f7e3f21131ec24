"""A blosc chunk whose header says "memcpyed" when its size says otherwise.

Found by the blosc frame differential programs (zarrhpc/testing/differential_blosc.py,
wave 9): a compressed c-blosc1 chunk whose flags byte was damaged to claim "memcpyed"
(the data follows the header as it is) is refused whole by c-blosc1 and c-blosc2 (a
memcpyed chunk is exactly its bytes plus the 16-byte header), and by zarrhpc's whole-chunk
read; but ``a[i]`` and small ``a[slices]`` went to c-blosc2's item-range decode, which
does not check that, and returned the compressed stream's bytes as values, with no
error.  Every read path must refuse such a chunk as the whole decode does.
"""

import numpy as np
import pytest
from numcodecs.blosc import compress

import zarrhpc
from zarrhpc.errors import CorruptChunkError
from zarrhpc.storage import MemoryStore

N, CHUNK = 1000, 500


def _lying(frame: bytes, flag: int) -> bytes:
    b = bytearray(frame)
    b[2] |= flag
    return bytes(b)


@pytest.mark.parametrize("where", ["local", "memory"])
@pytest.mark.parametrize("typesize", [1, 8])
@pytest.mark.parametrize("cname", ["lz4", "zstd", "blosclz"])
def test_memcpyed_flag_on_a_compressed_chunk_is_refused_by_every_read(tmp_path, where, typesize,
                                                                      cname):
    x = (np.arange(N, dtype="<i8") % 7)
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=(N,), chunks=(CHUNK,), dtype="<i8", zarr_format=2,
                             compressors={"id": "blosc", "cname": cname, "clevel": 5,
                                          "shuffle": 1, "blocksize": 128})
    a[...] = x
    raw = x[:CHUNK].view("u1") if typesize == 1 else x[:CHUNK]
    frame = bytes(compress(raw, cname.encode(), 5, 1, 128))
    assert len(frame) < CHUNK * 8 + 16 and not frame[2] & 0x02  # compressed
    bad = _lying(frame, 0x02)
    (tmp_path / "a" / "0").write_bytes(bad)
    if where == "memory":
        store = MemoryStore({k: (tmp_path / "a" / k).read_bytes() for k in (".zarray", "0", "1")})
        a = zarrhpc.open_array(store, mode="r")
    else:
        a = zarrhpc.open_array(path, mode="r")
    # the second chunk is untouched
    np.testing.assert_array_equal(a[CHUNK:], x[CHUNK:])
    for sel in [Ellipsis, slice(0, CHUNK), 3, 29, 499, slice(5, 9), slice(100, 140),
                slice(490, 510)]:
        with pytest.raises(CorruptChunkError):
            a[sel]
    with pytest.raises(CorruptChunkError):
        a.oindex[[1, 7, 300]]
    with pytest.raises(CorruptChunkError):
        a.vindex[[1, 7, 300]]
