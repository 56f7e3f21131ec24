"""Reads that decode part of a blosc chunk (blosc's item-range decode) return the values
a whole decode gives.

c-blosc2's ``blosc2_getitem_ctx`` decodes a block straight into the start of the
destination when the block begins at or after the request's start and its size equals the
request's byte count.  That is right for a request of exactly one whole block; a request
that starts inside a block and is as long as a block (or as the chunk's leftover block)
got the next block's bytes over its first ones: silently wrong values (found by the MPI
engineer: an orthogonal read of a transposed f8 array whose blosc blocks are 128 bytes).
"""

import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc

# 8 KiB blocks: our own c-blosc1 writer (blocksize 0); 128 B: numcodecs' smallest
CASES = [(0, "<f4", 16384), (0, "<f8", 8192 + 512), (128, "<f8", 60), (256, "<u2", 1000)]


def _array(store, blocksize, dtype, n, shuffle="shuffle"):
    a = zarrhpc.create_array(store, shape=(3 * n,), chunks=(n,), dtype=dtype,
                             compressors={"name": "blosc", "configuration": {
                                 "cname": "lz4", "clevel": 5, "shuffle": shuffle,
                                 "blocksize": blocksize}}, fill_value=0)
    data = np.arange(3 * n).astype(dtype)
    a[...] = data
    return a, data




def test_request_as_long_as_a_block_starting_inside_one():
    for blocksize, dtype, n in CASES:
        for store in (zarrhpc.MemoryStore(), tempfile.mkdtemp()):
            a, data = _array(store, blocksize, dtype, n)
            ts = np.dtype(dtype).itemsize
            bs = 8192 if blocksize == 0 else blocksize
            items = bs // ts
            left = (n * ts) % bs // ts
            for lo in (1, 3, items // 2, items - 1):
                for length in {items, left} - {0}:
                    s = slice(n + lo, n + lo + length)  # inside chunk 1
                    np.testing.assert_array_equal(a[s], data[s], err_msg=f"{dtype} {bs} {s}")
                    idx = np.arange(s.start, s.stop)
                    np.testing.assert_array_equal(a.oindex[idx], data[idx])
            # the request ending in the leftover block, as long as it
            if left:
                s = slice(2 * n - left - 1, 2 * n - 1)
                np.testing.assert_array_equal(a[s], data[s])


def test_box_of_rows_as_long_as_a_block():
    """A 64^3 float32 chunk in our own writer's 8 KiB blocks: 32 rows starting one row in."""
    for store in (zarrhpc.MemoryStore(), tempfile.mkdtemp()):
        a = zarrhpc.create_array(store, shape=(64, 64, 64), chunks=(64, 64, 64), dtype="<f4",
                                 compressors={"name": "blosc", "configuration": {
                                     "cname": "lz4", "clevel": 5, "shuffle": "shuffle"}})
        data = np.random.default_rng(0).random((64, 64, 64)).astype("<f4")
        a[...] = data
        np.testing.assert_array_equal(a[0, 1:33, :], data[0, 1:33, :])
        np.testing.assert_array_equal(a[7, 9:41, :], data[7, 9:41, :])


def test_transposed_orthogonal_read():
    """The MPI engineer's case: (7, 1, 6) f8, chunks (3, 5, 4), transpose [2, 1, 0]."""
    a = zarrhpc.create_array(zarrhpc.MemoryStore(), shape=(7, 1, 6), chunks=(3, 5, 4),
                             dtype="<f8", fill_value=7,
                             filters=[{"name": "transpose", "configuration": {"order": [2, 1, 0]}}],
                             compressors={"name": "blosc", "configuration": {
                                 "cname": "lz4", "clevel": 5, "shuffle": "noshuffle",
                                 "blocksize": 64}})
    data = np.arange(42, dtype="<f8").reshape(7, 1, 6)
    a[...] = data
    sel = (np.array([5, 6]), np.array([0]), np.arange(6))
    np.testing.assert_array_equal(a.oindex[sel], data[np.ix_(*sel)])


@settings(max_examples=60, deadline=None)
@given(ts=st.sampled_from([1, 2, 4, 8]), blocks=st.sampled_from([128, 256, 512]),
       n=st.integers(64, 700), lo=st.integers(0, 699),
       length=st.one_of(st.integers(1, 700), st.just("block")),
       shuffle=st.sampled_from(["noshuffle", "shuffle", "bitshuffle"]),
       local=st.booleans())
def test_any_item_range_matches_numpy(ts, blocks, n, lo, length, shuffle, local):
    dtype = {1: "u1", 2: "<u2", 4: "<f4", 8: "<f8"}[ts]
    store = tempfile.mkdtemp() if local else zarrhpc.MemoryStore()
    a, data = _array(store, blocks, dtype, n, shuffle)
    lo = n + lo % n
    if length == "block":
        length = blocks // ts
    s = slice(lo, min(lo + length, 2 * n))
    np.testing.assert_array_equal(a[s], data[s])
