"""Request counts decided by the store layer, counted by the proxy (HEAD and LIST included).

- the shard index comes with the shard's size in one request, and stays cached while the
  store is open: a single element of a sharded array costs 2 requests, then 1;
- a write through the store drops the cached index (the next read sees the new shard);
- many inner-chunk ranges of one shard are coalesced into a handful of requests;
- a consolidated group and two of its arrays open with no LIST and at most 2 requests.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.remote import open_url


@pytest.fixture
def sharded(s3_url, s3_options):
    """A 64^3 float32 array with 8^3 inner chunks in one 64^3 shard (512 inner chunks)."""
    data = np.random.default_rng(1).random((64, 64, 64), dtype="f4")
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, name="sh", shape=data.shape, dtype="f4", chunks=(8, 8, 8),
                             shards=(64, 64, 64))
    a[...] = data
    store.close()
    return data


def _inner_ranges(store, layout_key="sh/c/0/0/0", n=512):
    with store.open_reader(layout_key) as reader:
        size = reader.size
        nidx = n * 16 + 4  # (offset, nbytes) uint64 per inner chunk + crc32c
        raw = bytes(reader.read(size - nidx, nidx))
    index = np.frombuffer(raw[:-4], dtype="<u8").reshape(8, 8, 8, 2)
    return size, index


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_single_element_two_requests_then_one(sharded, s3_url, s3_options, proxy, backend):
    # fsspec on s3fs: the shard opened with one suffix GET too (no HEAD), index cached
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    a = zarrhpc.open_array(store, path="sh")
    proxy.reset()
    assert a[1, 2, 3] == sharded[1, 2, 3]
    assert proxy.total == 2, proxy.log  # size + index (one suffix read), inner chunk
    proxy.reset()
    assert a[40, 50, 60] == sharded[40, 50, 60]
    assert proxy.total == 1, proxy.log  # the index is cached
    assert proxy.counts["HEAD"] == proxy.counts["LIST"] == 0


def test_write_through_store_invalidates_cached_index(sharded, s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.open_array(store, path="sh", mode="r+")
    assert a[0, 0, 0] == sharded[0, 0, 0]
    a[0:8, 0:8, 0:8] = -1.0  # rewrites the shard: the inner chunks move
    assert a[0, 0, 0] == -1.0
    assert a[63, 63, 63] == sharded[63, 63, 63]
    np.testing.assert_array_equal(a[0:9, 0, 0], [-1.0] * 8 + [sharded[8, 0, 0]])


def test_other_writer_never_mixes_versions(sharded, s3_url, s3_options):
    reader_store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.open_array(reader_store, path="sh")
    assert a[1, 1, 1] == sharded[1, 1, 1]  # index cached
    # another process rewrites the shard (a store object of this process would drop the
    # reader's cached entry: tests/reliability/test_remote_peer_caches.py)
    script = ("import sys, json, zarrhpc; from zarrhpc.storage.remote import open_url; "
              "w = zarrhpc.open_array(open_url(sys.argv[1], storage_options="
              "json.loads(sys.argv[2])), path='sh', mode='r+'); "
              "w[0:16, 0:16, 0:16] = 7.0")
    subprocess.run([sys.executable, "-c", script, s3_url, json.dumps(s3_options)],
                   check=True, timeout=120)
    # the cached index is stale: the reader refuses (the answer's ETag is not the one
    # the index was read with) instead of reading garbage
    with pytest.raises(StoreError, match="replaced by another writer"):
        a[20, 20, 20]
    assert a[1, 1, 1] == 7.0  # the entry was dropped: read again, the new data
    assert a[30, 30, 30] == sharded[30, 30, 30]


def test_inner_chunks_coalesced(sharded, s3_url, s3_options, proxy):
    # What the read path does for a 32^3 sub-volume (64 inner chunks) of one shard: open the
    # shard (size and index), then one get_partial_values for the 64 inner chunks.
    store = open_url(s3_url, storage_options=s3_options)
    proxy.reset()
    _, index = _inner_ranges(store)
    assert proxy.total == 1  # size and index: one suffix request
    wanted = [(i, j, k) for i in range(1, 5) for j in range(1, 5) for k in range(1, 5)]
    ranges = [("sh/c/0/0/0", int(index[c][0]), int(index[c][1])) for c in wanted]
    proxy.reset()
    got = store.get_partial_values(ranges)
    assert 1 <= proxy.total <= 4, proxy.log  # a handful, not 64
    whole = bytes(store.get("sh/c/0/0/0"))
    for (_, off, n), buf in zip(ranges, got):
        assert bytes(buf) == whole[off:off + n]
    # the same through the reader, and with coalescing off: one request per range
    with store.open_reader("sh/c/0/0/0") as reader:
        proxy.reset()
        assert [bytes(b) for b in reader.read_ranges([r[1:] for r in ranges])] == \
            [whole[o:o + n] for _, o, n in ranges]
        assert 1 <= proxy.total <= 4
    apart = open_url(s3_url, storage_options=dict(s3_options, coalesce_gap=0, coalesce_max=1))
    proxy.reset()
    apart.get_partial_values(ranges)
    assert proxy.total == 64


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_get_values_one_request_per_key(s3_url, s3_options, proxy, backend):
    # fsspec: s3fs's own whole-object read asks the size first (a HEAD per GET)
    store = open_url(s3_url, storage_options=dict(s3_options, concurrency=8,
                                                  backend=backend))
    store.set_values([(f"c/{i}", bytes([i]) * (i + 1)) for i in range(40)])
    proxy.reset()
    keys = [f"c/{i}" for i in range(40)] + ["c/missing"]
    got = store.get_values(keys)
    assert proxy.total == 41 and proxy.counts["GET"] == 41
    assert [None if g is None else bytes(g) for g in got] == \
        [bytes([i]) * (i + 1) for i in range(40)] + [None]


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_open_and_load_dataset_one_get_per_object(s3_url, s3_options, proxy, backend):
    """Opening a consolidated group and reading every chunk of its arrays: one GET per
    object (the metadata document, then each chunk; a missing chunk's GET answers 404,
    read as fill), no HEAD, no LIST -- on s3fs as with obstore."""
    store = open_url(s3_url, storage_options=s3_options)
    root = zarrhpc.open_group(store, mode="w")
    for name in ("u", "v"):
        a = root.create_array(name, shape=(20, 12), dtype="f8", chunks=(5, 6),
                              fill_value=-1.0)
        a[:15] = 1.5  # chunks of rows 15-19 stay missing: 6 written, 2 missing
    zarrhpc.consolidate_metadata(store)
    proxy.reset()
    g = zarrhpc.open_group(open_url(s3_url, storage_options=dict(s3_options,
                                                                 backend=backend)), mode="r")
    expected = np.full((20, 12), -1.0)
    expected[:15] = 1.5
    for name in ("u", "v"):
        np.testing.assert_array_equal(g[name][...], expected)
    assert dict(proxy.counts) == {"GET": 1 + 2 * 8}, proxy.log


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_consolidated_open_no_list_two_requests(s3_url, s3_options, proxy, zarr_format):
    store = open_url(s3_url, storage_options=s3_options)
    g = zarrhpc.create_group(store, path="g", zarr_format=zarr_format)
    x = g.create_array("x", shape=(10,), dtype="i4", chunks=(5,))
    y = g.create_array("y", shape=(6,), dtype="f8", chunks=(3,))
    x[...] = np.arange(10)
    y[...] = np.arange(6) / 2
    zarrhpc.consolidate_metadata(store, path="g")
    fresh = open_url(s3_url, storage_options=s3_options)
    proxy.reset()
    g2 = zarrhpc.open_group(fresh, path="g", mode="r")
    x2, y2 = g2["x"], g2["y"]
    assert proxy.counts["LIST"] == 0, proxy.log
    # v3: the group's zarr.json carries everything. v2: the format probe of the read path
    # (zarr.json, .zarray, .zgroup, .zattrs, then .zmetadata) costs 5, none per array.
    assert proxy.total <= (2 if zarr_format == 3 else 5), proxy.log
    assert x2.shape == (10,) and y2.dtype == np.float64
    np.testing.assert_array_equal(y2[...], np.arange(6) / 2)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_is_bounded(s3_url, s3_options, proxy, concurrency):
    store = open_url(s3_url, storage_options=dict(s3_options, concurrency=concurrency))
    store.set_values([(f"c/{i}", b"x" * 10) for i in range(12)])
    proxy.delay = 0.05  # requests overlap when the store sends them together
    proxy.reset()
    assert len(store.get_values([f"c/{i}" for i in range(12)])) == 12
    assert proxy.total == 12
    assert proxy.max_in_flight <= concurrency
    if concurrency > 1:
        assert proxy.max_in_flight >= 2  # and they were sent concurrently
    proxy.reset()
    ranges = [(f"c/{i}", 1, 2) for i in range(12)]
    assert [bytes(v) for v in store.get_partial_values(ranges)] == [b"xx"] * 12
    assert proxy.max_in_flight <= concurrency


def test_sub_volume_inside_one_shard_few_requests(sharded, s3_url, s3_options, proxy):
    # 64 inner chunks of one shard through the array: index + a handful (zarr-python: 65),
    # whichever way the read path asks (one batch, or inner chunk after inner chunk
    # through the shard reader, which then reads ahead)
    a = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="sh")
    proxy.reset()
    np.testing.assert_array_equal(a[8:40, 8:40, 8:40], sharded[8:40, 8:40, 8:40])
    assert proxy.total <= 5, proxy.log
    assert proxy.counts["HEAD"] == proxy.counts["LIST"] == 0


def test_reader_reads_ahead_only_when_reads_go_forward(sharded, s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    _, index = _inner_ranges(store)
    whole = bytes(store.get("sh/c/0/0/0"))
    wanted = [index[1, 1, k] for k in range(8)] + [index[1, 2, k] for k in range(8)]
    for readahead, most in [(4 << 20, 3), (0, 16)]:
        fresh = open_url(s3_url, storage_options=dict(s3_options, readahead=readahead))
        with fresh.open_reader("sh/c/0/0/0") as reader:
            proxy.reset()
            got = [bytes(reader.read(int(o), int(n))) for o, n in wanted]
            assert got == [whole[int(o):int(o) + int(n)] for o, n in wanted]
            assert proxy.total <= most, (readahead, proxy.log)
    # a lone read fetches only its range
    with open_url(s3_url, storage_options=s3_options).open_reader("sh/c/0/0/0") as reader:
        proxy.reset()
        o, n = (int(x) for x in index[3, 3, 3])
        assert bytes(reader.read(o, n)) == whole[o:o + n]
        assert proxy.log[-1][2] == f"bytes={o}-{o + n - 1}"


def test_sub_volume_across_shards_one_batch(s3_url, s3_options, proxy):
    # 8 shards of 16^3 (4^3 inner chunks each); a box touching a corner of each shard:
    # the 8 indexes are fetched together, then the inner chunks of all 8 shards together
    data = np.random.default_rng(2).random((32, 32, 32), dtype="f4")
    a = zarrhpc.create_array(open_url(s3_url, storage_options=s3_options), name="m",
                             shape=data.shape, dtype="f4", chunks=(4, 4, 4),
                             shards=(16, 16, 16))
    a[...] = data
    # the tail read holds the index (64 x 16 + 4 bytes), not the whole (small) shard
    b = zarrhpc.open_array(open_url(s3_url, storage_options=dict(s3_options, tail_bytes=1100)),
                           path="m")
    proxy.delay = 0.05  # requests sent together overlap
    proxy.reset()
    np.testing.assert_array_equal(b[12:20, 12:20, 12:20], data[12:20, 12:20, 12:20])
    assert proxy.total == 16, proxy.log  # 8 x (size + index), 8 x one inner chunk
    assert proxy.max_in_flight >= 8, proxy.max_in_flight
    kinds = [rng.startswith("bytes=-") for _, _, rng in proxy.log]
    assert kinds == [True] * 8 + [False] * 8  # every index before any inner chunk
    proxy.reset()
    np.testing.assert_array_equal(b[12:20, 12:20, 12:20], data[12:20, 12:20, 12:20])
    assert proxy.total == 8 and proxy.max_in_flight >= 8  # indexes cached


def test_version_checked_without_conditional_requests(sharded, s3_url, s3_options, proxy):
    # S3 names the served version in every answer: the reads of a cached shard compare
    # that ETag instead of sending If-Match (which costs some servers a checksum of the
    # whole object per request); a replaced object is still refused
    a = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="sh")
    assert a[1, 1, 1] == sharded[1, 1, 1]
    proxy.reset()
    np.testing.assert_array_equal(a[0:40, 0:3, 5], sharded[0:40, 0:3, 5])
    assert a[33, 2, 7] == sharded[33, 2, 7]
    assert proxy.total >= 2 and proxy.conditional == 0


def test_answer_without_etag_is_asked_again_with_if_match(s3_url, s3_options, proxy,
                                                         monkeypatch):
    import obstore

    store = open_url(s3_url, storage_options=dict(s3_options, tail_bytes=4))
    store.set("k", bytes(range(100)))
    reader = store.open_reader("k")
    real_get = obstore.get

    class NoTag:
        def __init__(self, result):
            self._result = result
            self.meta = {k: v for k, v in result.meta.items() if k != "e_tag"}

        def bytes(self):
            return self._result.bytes()

    def get(client, key, options=None):
        result = real_get(client, key, options=options)
        return result if options and "if_match" in options else NoTag(result)

    monkeypatch.setattr(obstore, "get", get)
    proxy.reset()
    assert bytes(reader.read(10, 5)) == bytes(range(10, 15))
    assert proxy.total == 2 and proxy.conditional == 1  # the second asked If-Match
    store.set("k", b"other")  # replaced: the conditional request is refused
    with pytest.raises(StoreError, match="replaced by another writer"):
        reader.read(1, 2)


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("rate", [0, 100 << 20])
def test_gap_grows_with_what_a_request_costs(sharded, s3_url, s3_options, proxy, rate,
                                             backend):
    # rows of 4 adjacent inner chunks, 4 chunks (~8 KiB) apart: a fixed 1000-byte gap
    # fetches each row alone (16 requests); a shard whose opening request took >= 50 ms
    # merges gaps up to 50 ms x 100 MiB/s (5 MiB): one request. On s3fs as with obstore
    # the shard opens with one suffix GET, timed, and its index stays cached
    store = open_url(s3_url, storage_options=dict(s3_options, coalesce_gap=1000,
                                                  coalesce_rate=rate, backend=backend))
    a = zarrhpc.open_array(store, path="sh")
    proxy.delay = 0.05
    assert a[0, 0, 0] == sharded[0, 0, 0]  # opens the shard: the probe
    proxy.reset()
    sel = np.s_[8:40, 8:40, 8:40]
    np.testing.assert_array_equal(a[sel], sharded[sel])
    assert proxy.total == (16 if rate == 0 else 1), proxy.log


def test_gap_of_a_timed_object_from_64_kib():
    """The gap merged over follows what a request to the object cost: from 64 KiB on a
    fast server (exact runs of inner chunks, not megabytes between them) to
    ``coalesce_max``; ``coalesce_gap`` where nothing was timed, and as the floor when it
    is below 64 KiB; ``coalesce_rate=0``: always ``coalesce_gap``."""
    store = open_url("s3://any-bucket/root", storage_options={
        "backend": "obstore", "endpoint_url": "http://127.0.0.1:9", "anon": True})
    assert store.coalesce_gap(None) == 1 << 20
    assert store.coalesce_gap(0.0002) == 64 << 10  # loopback: 0.2 ms
    assert store.coalesce_gap(0.005) == int(0.005 * (100 << 20))
    assert store.coalesce_gap(10.0) == 16 << 20
    small = open_url("s3://any-bucket/root", storage_options={
        "backend": "obstore", "endpoint_url": "http://127.0.0.1:9", "anon": True,
        "coalesce_gap": 1000})
    assert small.coalesce_gap(0.000001) == 1000
    assert small.coalesce_gap(0.0002) == int(0.0002 * (100 << 20))
    fixed = open_url("s3://any-bucket/root", storage_options={
        "backend": "obstore", "endpoint_url": "http://127.0.0.1:9", "anon": True,
        "coalesce_rate": 0})
    assert fixed.coalesce_gap(0.05) == 1 << 20
