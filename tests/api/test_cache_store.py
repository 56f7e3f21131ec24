"""zarrhpc's CacheStore against zarr-python's ``zarr.experimental.cache_store.CacheStore``
on the same random operation sequences (hypothesis): whole and ranged reads, writes,
deletes, writes to the source behind the cache's back, the clock moving past
``max_age_seconds``, ``clear_cache``. Without a size limit every value returned and every
field of ``cache_info()`` and ``cache_stats()`` must agree after every step (where
zarr-python's own bookkeeping is off, as noted below, with what it should have been). With a size
limit, where the two classes part on purpose (see zarrhpc/storage/cache.py: a value larger
than the cache, a rewrite under eviction pressure), the values read must still agree with
the source and the bookkeeping must add up."""

from __future__ import annotations

import asyncio
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.experimental.cache_store import CacheStore
from zarrhpc.storage import MemoryStore
from zarrhpc.storage import cache as cache_mod
from zarrhpc.testing.store import expected_range

zarr = pytest.importorskip("zarr")
zcache = pytest.importorskip("zarr.experimental.cache_store")

pytestmark = pytest.mark.interop

from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.buffer.cpu import Buffer  # noqa: E402

KEYS = ["a", "c/0", "c/1"]
values = st.binary(max_size=24)
ranges = st.one_of(
    st.tuples(st.just("range"), st.integers(0, 8), st.integers(0, 8)),  # start, length
    st.tuples(st.just("offset"), st.integers(0, 8), st.just(None)),
    st.tuples(st.just("suffix"), st.integers(1, 8), st.just(None)),
)
keys = st.sampled_from(KEYS)
ops = st.one_of(
    st.tuples(st.just("set"), keys, values),
    st.tuples(st.just("get"), keys),
    st.tuples(st.just("get"), keys),
    st.tuples(st.just("get_range"), keys, ranges),
    st.tuples(st.just("delete"), keys),
    st.tuples(st.just("source_set"), keys, values),
    st.tuples(st.just("tick"), st.sampled_from([2.5, 5.0, 10.0])),  # ages on the boundary
    st.tuples(st.just("clear")),
)


class _Clock:
    def __init__(self):
        self.now = 1e6  # far from 0: an unrecorded key is stale in both implementations

    def monotonic(self):
        return self.now


def _ours_range(kind, a, b):
    return {"range": (a, b), "offset": (a, None), "suffix": (-a, None)}[kind]


def _theirs_range(kind, a, b):
    if kind == "range":
        return RangeByteRequest(a, a + b)
    return OffsetByteRequest(a) if kind == "offset" else SuffixByteRequest(a)


def _bytes(buf):
    return None if buf is None else bytes(buf.to_bytes() if hasattr(buf, "to_bytes") else buf)


async def _run(sequence, *, max_age, max_size, cache_set_data, compare_stats):
    clock = _Clock()
    saved = cache_mod.time, zcache.time
    cache_mod.time = zcache.time = types.SimpleNamespace(monotonic=clock.monotonic)
    try:
        src, zsrc = MemoryStore(), zarr.storage.MemoryStore()
        ours = CacheStore(src, cache_store=MemoryStore(), max_age_seconds=max_age,
                          max_size=max_size, cache_set_data=cache_set_data)
        theirs = zcache.CacheStore(zsrc, cache_store=zarr.storage.MemoryStore(),
                                   max_age_seconds=max_age, max_size=max_size,
                                   cache_set_data=cache_set_data)
        proto = default_buffer_prototype()
        for step, op in enumerate(sequence):
            kind = op[0]
            got = want = None
            if kind == "set":
                ours.set(op[1], op[2])
                await theirs.set(op[1], Buffer.from_bytes(op[2]))
            elif kind == "source_set":
                src.set(op[1], op[2])
                await zsrc.set(op[1], Buffer.from_bytes(op[2]))
            elif kind == "delete":
                ours.erase(op[1])
                await theirs.delete(op[1])
            elif kind == "get":
                got = _bytes(ours.get(op[1]))
                want = _bytes(await theirs.get(op[1], proto))
                truth = _bytes(src.get(op[1]))
            elif kind == "get_range":
                rk, a, b = op[2]
                whole = _bytes(src.get(op[1]))
                if rk == "suffix" and whole is not None:
                    # a suffix longer than the value: zarr-python's MemoryStore returns
                    # its last len % a bytes (a negative start), the spec and zarrhpc the
                    # whole value; not a cache matter, so not asked
                    a = min(a, max(len(whole), 1))
                (got,) = ours.get_partial_values([(op[1], *_ours_range(rk, a, b))])
                got = _bytes(got)
                want = _bytes(await theirs.get(op[1], proto, _theirs_range(rk, a, b)))
                truth = None if whole is None else expected_range(whole, *_ours_range(rk, a, b))
            elif kind == "tick":
                clock.now += op[1]
            else:
                await ours.clear_cache()
                await theirs.clear_cache()
            where = f"step {step} {op!r} of {sequence!r}"
            if kind in ("get", "get_range"):
                if compare_stats:
                    assert got == want, where
                else:  # no write behind the cache: every read is the source's value
                    assert got == truth == want, where
            if compare_stats:
                info, their_info = ours.cache_info(), theirs.cache_info()
                # zarr-python forgets an entry dropped by a write (cache_set_data=False) or
                # found missing without subtracting its size, so its current_size drifts
                # up: compare with what its own entries add up to
                their_info["current_size"] = sum(theirs._state.key_sizes.values())
                assert info == their_info, where
                assert ours.cache_stats() == theirs.cache_stats(), where
            else:
                info = ours.cache_info()
                assert info["current_size"] <= max_size, where
                state = ours._state
                assert info["current_size"] == sum(state.sizes.values()), where
                for entry, size in state.sizes.items():
                    if isinstance(entry, str):
                        assert len(ours._cache.get(entry)) == size, where
    finally:
        cache_mod.time, zcache.time = saved


@settings(max_examples=200, deadline=None)
@given(sequence=st.lists(ops, max_size=40),
       max_age=st.sampled_from(["infinity", 5, 10]), cache_set_data=st.booleans())
def test_same_as_zarr_python_without_size_limit(sequence, max_age, cache_set_data):
    asyncio.run(_run(sequence, max_age=max_age, max_size=None, cache_set_data=cache_set_data,
                     compare_stats=True))


@settings(max_examples=200, deadline=None)
@given(sequence=st.lists(ops.filter(lambda op: op[0] != "source_set"), max_size=40),
       max_age=st.sampled_from(["infinity", 5]), max_size=st.integers(0, 60),
       cache_set_data=st.booleans())
def test_same_values_as_zarr_python_with_size_limit(sequence, max_age, max_size,
                                                    cache_set_data):
    asyncio.run(_run(sequence, max_age=max_age, max_size=max_size,
                     cache_set_data=cache_set_data, compare_stats=False))


def test_same_info_as_zarr_python_on_the_guide_example(tmp_path):
    """The guide's example: an array written and read through a CacheStore over a
    LocalStore, with a MemoryStore cache; ``cache_info()`` as zarr-python reports it."""
    import numpy as np

    import zarrhpc

    infos = []
    for lib, root in ((zarr, tmp_path / "z"), (zarrhpc, tmp_path / "h")):
        mod = zcache if lib is zarr else cache_mod
        store = mod.CacheStore(lib.storage.LocalStore(str(root)),
                               cache_store=lib.storage.MemoryStore(), max_size=256 << 20)
        a = lib.zeros((100, 100), chunks=(10, 10), dtype="f8", store=store, mode="w")
        a[:] = np.arange(10000.0).reshape(100, 100)
        want = np.arange(10000.0).reshape(100, 100)
        np.testing.assert_array_equal(a[0:50, 0:50], want[:50, :50])
        # (hits and misses are not compared: creating an array asks the store for
        # different keys in the two libraries)
        infos.append(store.cache_info())
        assert store.cache_stats()["hits"] >= 25  # the 25 chunks read back were cached
    assert infos[0] == infos[1]
