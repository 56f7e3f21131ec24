"""Reads from stores that fetch (remote): chunks decoded as they arrive (core/_stream.py).

- a unit of the plan is decoded while later chunks are still to come;
- the units cover every task of the plan exactly once, each a product plan;
- `Store.iter_values` yields every key once, keeps at most ``concurrency`` requests in
  flight, and results match numpy for many selections on S3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.core._stream import _unit_plan, unit_size
from zarrhpc.indexing import normalize_basic_selection, plan_chunks
from zarrhpc.storage.memory import MemoryStore
from zarrhpc.storage.remote import open_url


class _SlowMemory(MemoryStore):
    """A MemoryStore that says it fetches concurrently and calls ``before_last`` before
    the last value of an `iter_values` (or range of an `iter_ranges`) batch arrives."""

    before_last = None

    @property
    def concurrency(self) -> int:
        return 4

    def _held_back(self, items):
        for i, item in enumerate(items):
            if i == len(items) - 1 and self.before_last is not None:
                self.before_last()
            yield item

    def _iter_values(self, keys):
        return self._held_back([(i, self._get(key)) for i, key in enumerate(keys)])

    def iter_ranges(self, requests):
        return self._held_back(list(super().iter_ranges(requests)))


def test_units_decoded_while_fetches_continue():
    store = _SlowMemory()
    data = np.arange(32 * 32 * 32, dtype="f4").reshape(32, 32, 32)
    a = zarrhpc.create_array(store, shape=data.shape, chunks=(8, 8, 8), dtype="f4",
                             compressors={"name": "zstd", "configuration": {"level": 1}})
    a[...] = data
    out = np.zeros_like(data)
    seen = {}
    store.before_last = lambda: seen.setdefault("partial", out.copy())
    a.get_basic_selection(..., out=out)
    np.testing.assert_array_equal(out, data)
    partial = seen["partial"]
    # units of 4 chunks (the last dimension's 4 pieces): 15 of 16 decoded before the end
    np.testing.assert_array_equal(partial[:24], data[:24])
    np.testing.assert_array_equal(partial[24:, :24], data[24:, :24])
    assert not partial[24:, 24:].any()  # the last unit waits for its last chunk


@given(dims=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 5)), min_size=1,
                    max_size=4))
@settings(max_examples=80, deadline=None)
def test_units_cover_the_plan_once(dims):
    shape = tuple(n for n, _ in dims)
    chunks = tuple(c for _, c in dims)
    sel = normalize_basic_selection(tuple(slice(None) for _ in shape), shape)
    plan = plan_chunks(sel, chunks)
    size = unit_size(plan)
    assert plan.ntasks % size == 0 and 1 <= size <= 8
    coords = []
    for first in range(0, plan.ntasks, size):
        sub = _unit_plan(plan, first, size)
        assert sub.ntasks == size == np.prod([len(p) for p in sub.per_dim])
        coords += list(sub.iter_coords())
    assert coords == list(plan.iter_coords())


def test_iter_values_each_once_and_bounded(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=dict(s3_options, concurrency=3))
    store.set_values([(f"k/{i}", bytes([i]) * 5) for i in range(10)])
    keys = [f"k/{i}" for i in range(10)] + ["k/missing"]
    proxy.delay = 0.03
    proxy.reset()
    got = dict(store.iter_values(keys))
    assert sorted(got) == list(range(11))
    assert [None if got[i] is None else bytes(got[i]) for i in range(11)] == \
        [bytes([i]) * 5 for i in range(10)] + [None]
    assert proxy.total == 11 and 2 <= proxy.max_in_flight <= 3
    # abandoning the iterator stops further requests
    proxy.reset()
    it = store.iter_values(keys)
    next(it)
    it.close()
    assert proxy.total <= 5, proxy.log  # the first 3, and at most 2 started meanwhile


@pytest.mark.parametrize("selection", [
    np.s_[...], np.s_[3:29, ::3, 5], np.s_[::-2, 1:30:4, :], np.s_[7, :, ::-1],
    np.s_[0:1, 0:1, 0:31],
])
def test_selections_match_numpy_on_s3(s3_url, s3_options, selection):
    data = np.random.default_rng(3).random((30, 31, 33), dtype="f4")
    store = open_url(s3_url, storage_options=dict(s3_options, concurrency=5))
    a = zarrhpc.create_array(store, name="s", shape=data.shape, chunks=(4, 8, 5),
                             dtype="f4")
    a[...] = data
    b = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="s")
    np.testing.assert_array_equal(b[selection], data[selection])
    for q in itertools.islice(np.ndindex(2, 2, 2), 3):
        assert b[q] == data[q]


def test_inner_chunks_decoded_while_fetches_continue():
    store = _SlowMemory()
    data = np.arange(32 * 32 * 32, dtype="f4").reshape(32, 32, 32)
    a = zarrhpc.create_array(store, shape=data.shape, chunks=(8, 8, 8), shards=(32, 32, 32),
                             dtype="f4")
    a[...] = data
    a[:, :, 24:] = 0  # the last inner chunk of every row is not stored: a fill
    data[:, :, 24:] = 0
    out = np.full((16, 16, 32), -1, dtype="f4")
    seen = {}
    store.before_last = lambda: seen.setdefault("partial", out.copy())
    # 2 x 2 x 4 of the shard's 64 inner chunks: read by ranges, not whole
    a.get_basic_selection(np.s_[:16, :16, :], out=out)
    np.testing.assert_array_equal(out, data[:16, :16])
    partial = seen["partial"]
    # units of 8 inner chunks (2 x 4, one shard row of the first dimension): the first
    # decoded before the last range arrives
    np.testing.assert_array_equal(partial[:8], data[:8, :16])
    assert (partial[8:] == -1).all()  # the last unit waits for its last chunk


def test_iter_ranges_each_once_as_requests_complete(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=dict(s3_options, coalesce_gap=4, concurrency=8,
                                                        tail_bytes=8, coalesce_rate=0))
    blobs = {f"o/{n}": bytes(range(256)) * (n + 1) for n in range(3)}
    store.set_values(blobs.items())
    readers = store.open_readers(list(blobs))
    ranges = [[(0, 10), (12, 5), (100, 50), (200, 0)], [(300, 40)], [(5, 600), (700, 68)]]
    proxy.reset()
    got = list(store.iter_ranges(list(zip(readers, ranges))))
    assert sorted((n, i) for n, i, _ in got) == [
        (n, i) for n in range(3) for i in range(len(ranges[n]))]
    for n, i, buf in got:
        off, length = ranges[n][i]
        assert bytes(buf) == blobs[f"o/{n}"][off:off + length]
    # coalesced: (0,10)+(12,5) one request, (100,50) one, (300,40) one, (5,600)+(700,68)
    # two (gap 95 > 4); the empty range none
    assert proxy.total == 5, proxy.log
    assert got[0][:2] == (0, 3)  # the empty range needs no request: yielded first
