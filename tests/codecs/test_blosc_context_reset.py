"""Regression: a blosc chunk that fails to decode must not spoil the next ones.

c-blosc2 keeps state in a decoder context; after a corrupt chunk whose flags byte claims
the blosc2 extended header, a reused context decoded every later c-blosc1 chunk on that
thread to wrong bytes, without an error (silent wrong data, in any array and store).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import CorruptChunkError

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                            "shuffle": "shuffle", "typesize": 4,
                                            "blocksize": 0}}
N, C = 65536, 16384


def _pair(store):
    data = np.random.default_rng(0).integers(0, 100, N).astype("f4")
    arrays = []
    for name in ("a", "b"):
        arr = zarrhpc.create_array(store, name=name, shape=(N,), chunks=(C,), dtype="f4",
                                   compressors=BLOSC)
        arr[:] = data
        arrays.append(arr)
    return data, *arrays


def _corrupt(store, mutate):
    raw = bytearray(store.get("a/c/0"))
    mutate(raw)
    store.set("a/c/0", bytes(raw))


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    if request.param == "memory":
        return zarrhpc.MemoryStore()
    return zarrhpc.LocalStore(tmp_path / "s.zarr")


def _extended_header_flags(raw):
    raw[2] = 0x6F  # the flags byte claims the blosc2 extended header
    raw[30] = 120


def test_failed_chunk_then_good_chunks_read_right(store):
    with zarrhpc.config.set(threads=1):  # the same worker thread decodes everything
        data, a, b = _pair(store)
        _corrupt(store, _extended_header_flags)
        for _ in range(2):
            with pytest.raises(CorruptChunkError, match="a/c/0"):
                a[:C]
            np.testing.assert_array_equal(b[:], data)  # whole chunks
            np.testing.assert_array_equal(b[5:9], data[5:9])  # blosc's item-range decode
            np.testing.assert_array_equal(a[C:], data[C:])  # the same array's good chunks


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_header_damage_never_spoils_later_reads(seed):
    rng = random.Random(seed)
    store = zarrhpc.MemoryStore()
    with zarrhpc.config.set(threads=1):
        data, a, b = _pair(store)

        def mutate(raw):
            for _ in range(rng.choice([1, 2, 3])):
                raw[rng.choice([2, 3, rng.randrange(0, 48)])] = rng.randrange(256)

        _corrupt(store, mutate)
        try:
            a[:C]
        except CorruptChunkError:
            pass
        np.testing.assert_array_equal(b[:], data)
        np.testing.assert_array_equal(b[5:9], data[5:9])
