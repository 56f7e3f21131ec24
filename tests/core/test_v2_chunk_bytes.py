"""Property: every v2 chunk zarrhpc writes is what the v2 spec says -- the chunk's
elements in the stored dtype and order, through the numcodecs filters and compressor --
so the translation to a v3-shaped chain changes nothing on disk."""

import numcodecs
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc

DTYPES = ["|u1", "<i2", ">i2", "<u4", ">f4", "<f8", ">c8", "|b1", "<M8[s]", ">U2", "|S3"]
COMPRESSORS = [None, {"id": "zlib", "level": 1}, {"id": "gzip", "level": 1},
               {"id": "bz2", "level": 1}, {"id": "lz4", "acceleration": 1},
               {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}]


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, n)) for n in shape)
    return (shape, chunks, draw(st.sampled_from(DTYPES)), draw(st.sampled_from(["C", "F"])),
            draw(st.sampled_from(COMPRESSORS)), draw(st.sampled_from([".", "/"])),
            draw(st.integers(0, 2**32 - 1)))


def _data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "U":
        return rng.choice(np.array(["", "a", "bc"], dtype=dt), shape)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    raw = rng.integers(1, 255, size=int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
    if dt.kind == "S":
        raw.reshape(-1, dt.itemsize)[:, -1] = 0
    return raw.view(dt).reshape(shape)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_chunk_bytes_follow_the_v2_spec(case):
    shape, chunks, dtype, order, compressor, sep, seed = case
    data = _data(dtype, shape, seed)
    store = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(store, shape=shape, chunks=chunks, dtype=dtype, zarr_format=2,
                             order=order, compressors=compressor, fill_value=None,
                             chunk_key_encoding={"name": "v2", "separator": sep},
                             write_empty_chunks=True)
    a[...] = data
    codec = None if compressor is None else numcodecs.get_codec(dict(compressor))
    grid = [-(-n // c) for n, c in zip(shape, chunks)]
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunks))
        # null fill: the overhang is zero, NaT for datetimes (as zarr-python 3 writes it)
        chunk = np.zeros(chunks, dtype=dtype)
        if chunk.dtype.kind in "mM":
            chunk[...] = np.datetime64("NaT")
        part = data[region]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        raw = chunk.astype(dtype).tobytes(order=order)
        stored = bytes(store.get(sep.join(map(str, coords))))
        if codec is None:
            assert stored == raw
        else:
            # decode with numcodecs (compressors may differ in bytes, e.g. gzip headers)
            assert bytes(codec.decode(stored)) == raw
            if compressor["id"] in ("zlib", "blosc", "lz4", "bz2"):
                assert stored == bytes(codec.encode(np.frombuffer(raw, dtype=dtype)
                                                    if compressor["id"] == "blosc" else raw))
    np.testing.assert_array_equal(a[...], data.astype(a.dtype))
