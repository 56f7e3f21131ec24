"""Request counts of writes to S3, counted by the proxy (every request, HEAD and LIST too).

A write sends exactly one PUT per stored chunk and nothing else for a chunk it covers whole
(no existence check, no listing); a partly covered chunk costs one GET more (its old
bytes); chunks equal to the fill value are erased with batched deletes, never one request
each; the PUTs of a request are in flight together.
"""

from __future__ import annotations

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.remote import open_url

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                            "shuffle": "shuffle", "typesize": 4}}


def _array(s3_url, s3_options, **kw):
    store = open_url(s3_url, storage_options=s3_options)
    args = dict(name="w", shape=(64, 64), chunks=(8, 8), dtype="f4", fill_value=0,
                compressors=BLOSC)
    args.update(kw)
    return zarrhpc.create_array(store, **args)


def _chunk_puts(proxy):
    return sorted(path.rsplit("/w/", 1)[1] for kind, path, _ in proxy.log
                  if kind == "PUT" and "/w/c/" in path)


def test_full_write_one_put_per_chunk_nothing_else(s3_url, s3_options, proxy):
    a = _array(s3_url, s3_options)
    data = np.random.default_rng(0).random((64, 64), dtype="f4") + 1
    proxy.delay = 0.02  # uploads overlap only when they are sent together
    proxy.reset()
    a[...] = data
    assert proxy.total == 64, proxy.log
    assert _chunk_puts(proxy) == sorted(f"c/{i}/{j}" for i in range(8) for j in range(8))
    assert proxy.max_in_flight >= 4, proxy.max_in_flight
    proxy.delay = 0.0
    np.testing.assert_array_equal(zarrhpc.open_array(
        open_url(s3_url, storage_options=s3_options), path="w", mode="r")[...], data)


def test_all_puts_of_a_write_in_flight_together(s3_url, s3_options, proxy):
    """64 chunks, default concurrency: every PUT is in flight at once (with a per-request
    latency a write then costs about one round trip, not 64 / concurrency of them)."""
    a = _array(s3_url, s3_options)
    assert a.store.concurrency >= 64
    data = np.random.default_rng(3).random((64, 64), dtype="f4") + 1
    proxy.delay = 0.25  # far longer than encoding 64 small chunks takes
    proxy.reset()
    a[...] = data
    proxy.delay = 0.0
    assert proxy.total == proxy.counts["PUT"] == 64, proxy.log
    assert proxy.max_in_flight >= 56, proxy.max_in_flight
    np.testing.assert_array_equal(a[...], data)


def test_empty_chunks_erased_in_batches(s3_url, s3_options, proxy):
    a = _array(s3_url, s3_options)
    a[...] = 1.0
    data = np.zeros((64, 64), dtype="f4")
    data[:8] = 2.0  # one row of 8 chunks stays non-empty, 56 chunks become empty
    proxy.reset()
    a[...] = data
    assert proxy.counts["PUT"] == 8, proxy.log
    assert proxy.counts["HEAD"] == proxy.counts["LIST"] == proxy.counts["GET"] == 0
    deletes = proxy.counts["POST"] + proxy.counts["DELETE"]
    assert 1 <= deletes <= 16, proxy.log  # batched: a handful for 56 chunks
    store = open_url(s3_url, storage_options=s3_options)
    assert sorted(store.list_prefix("w/c")) == [f"w/c/0/{j}" for j in range(8)]
    np.testing.assert_array_equal(zarrhpc.open_array(store, path="w", mode="r")[...], data)


def test_partial_write_reads_each_partly_covered_chunk_once(s3_url, s3_options, proxy):
    a = _array(s3_url, s3_options)
    base = np.arange(64 * 64, dtype="f4").reshape(64, 64) + 1
    a[...] = base
    proxy.reset()
    a[4:20, 8:24] = -1.0  # rows 4..19: chunk rows 0 and 2 partly, row 1 wholly covered
    expect = base.copy()
    expect[4:20, 8:24] = -1.0
    assert proxy.counts["PUT"] == 6, proxy.log  # chunks (0..2) x (1, 2)
    assert proxy.counts["GET"] == 4, proxy.log  # only the 4 partly covered chunks
    assert proxy.total == 10, proxy.log
    np.testing.assert_array_equal(a[...], expect)


def test_sharded_write_one_put_per_shard(s3_url, s3_options, proxy):
    a = _array(s3_url, s3_options, shape=(64, 64), chunks=(8, 8), shards=(32, 32))
    data = np.random.default_rng(1).random((64, 64), dtype="f4") + 1
    proxy.delay = 0.02
    proxy.reset()
    a[...] = data
    assert proxy.total == 4, proxy.log  # 4 shards, covered whole: nothing read first
    assert proxy.counts["PUT"] == 4
    assert proxy.max_in_flight >= 3, proxy.max_in_flight  # uploaded together
    proxy.delay = 0.0
    np.testing.assert_array_equal(a[...], data)
    # a box across the 4 shards: each stored shard read once, rebuilt, stored once; a
    # shard left with only fill values is erased
    proxy.reset()
    a[24:40, 24:40] = 0.0
    a[0:32, 32:64] = 0.0  # shard (0, 1) now holds only the fill value
    expect = data.copy()
    expect[24:40, 24:40] = 0.0
    expect[0:32, 32:64] = 0.0
    assert proxy.counts["HEAD"] == proxy.counts["LIST"] == 0, proxy.log
    assert proxy.counts["GET"] == 4, proxy.log  # the first write: 4 shards merged
    assert proxy.counts["PUT"] == 4, proxy.log  # the second covers (0, 1) whole: no PUT
    assert proxy.counts["DELETE"] + proxy.counts["POST"] == 1, proxy.log
    np.testing.assert_array_equal(a[...], expect)
    store = open_url(s3_url, storage_options=s3_options)
    assert sorted(store.list_prefix("w/c")) == ["w/c/0/0", "w/c/1/0", "w/c/1/1"]


def test_failed_upload_names_the_key_and_leaves_no_partial_object(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=dict(s3_options, retry_timeout=0))
    a = zarrhpc.create_array(store, name="w", shape=(64,), chunks=(8,), dtype="f4",
                             fill_value=0)
    proxy.fail_next(1, 500, when=lambda kind, path: kind == "PUT" and path.endswith("/c/5"))
    with pytest.raises(StoreError, match="w/c/5"):
        a[...] = np.arange(1, 65, dtype="f4")
    got = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="w")[...]
    assert (got[40:48] == 0).all()  # never stored: reads as the fill value
    ok = [i for i in range(8) if i != 5 and (got[i * 8:i * 8 + 8] != 0).any()]
    for i in ok:  # whatever was stored is whole
        np.testing.assert_array_equal(got[i * 8:i * 8 + 8], np.arange(i * 8 + 1, i * 8 + 9))


@pytest.mark.parametrize("kind", ["memory", "s3"])
def test_set_values_checks_everything_first(kind, s3_url, s3_options, proxy):
    from zarrhpc.errors import InvalidKeyError, ReadOnlyError
    from zarrhpc.storage.memory import MemoryStore

    store = MemoryStore() if kind == "memory" else open_url(s3_url, storage_options=s3_options)
    store.set_values([("a/1", b"one"), ("a/2", memoryview(b"two")),
                      ("a/3", np.arange(3, dtype="u1"))])
    assert [bytes(store.get(f"a/{i}")) for i in (1, 2, 3)] == [b"one", b"two", b"\0\1\2"]
    proxy.reset()
    with pytest.raises(InvalidKeyError):
        store.set_values([("a/4", b"x"), ("a//bad", b"y")])
    with pytest.raises(TypeError, match="a/5"):
        store.set_values([("a/4", b"x"), ("a/5", 3.0)])
    with pytest.raises(ReadOnlyError, match="a/4"):
        store.with_read_only(True).set_values([("a/4", b"x")])
    assert store.get("a/4") is None and proxy.counts["PUT"] == 0


# -- creating and overwriting: every request counted, the reads of one step sent together --


def test_create_fresh_reads_the_node_documents_together(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    proxy.delay = 0.05  # sent one after another, they would never overlap
    proxy.reset()
    zarrhpc.create_array(store, shape=(8,), chunks=(4,), dtype="f4")
    proxy.delay = 0.0
    # is anything there (v3 or v2)? three GETs in one round trip, then the document
    assert proxy.counts["GET"] == 3 and proxy.counts["PUT"] == 1, proxy.log
    assert proxy.total == 4, proxy.log
    assert proxy.max_in_flight >= 3, proxy.max_in_flight
    assert sorted(p.rsplit("/", 1)[1] for k, p, _ in proxy.log if k == "GET") == \
        [".zarray", ".zgroup", "zarr.json"]
    assert zarrhpc.open_array(store, mode="r").shape == (8,)


def test_create_nested_batches_ancestors(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    proxy.delay = 0.05
    proxy.reset()
    zarrhpc.create_array(store, name="g/h/a", shape=(8,), chunks=(4,), dtype="f4")
    proxy.delay = 0.0
    # round 1: the node's 3 documents and the ancestors' zarr.json (3); round 2: the
    # ancestors' v2 documents (none had a zarr.json: 6); then the 3 groups in one
    # set_values and the array's document
    assert proxy.counts["GET"] == 12 and proxy.counts["PUT"] == 4, proxy.log
    assert proxy.total == 16
    assert proxy.max_in_flight >= 6, proxy.max_in_flight
    puts = [p.split("/", 3)[-1] for k, p, _ in proxy.log if k == "PUT"]
    assert puts[-1] == "g/h/a/zarr.json"  # the array after its groups
    assert sorted(puts[:3]) == ["g/h/zarr.json", "g/zarr.json", "zarr.json"]
    g = zarrhpc.open_group(store, mode="r")
    assert g["g/h/a"].shape == (8,)
    # inside the existing groups: their zarr.json and the node's 3 documents, one round
    proxy.reset()
    zarrhpc.create_array(store, name="g/h/b", shape=(8,), chunks=(4,), dtype="f4")
    assert proxy.counts["GET"] == 6 and proxy.counts["PUT"] == 1, proxy.log
    assert proxy.total == 7


def test_create_inside_an_array_is_refused_before_anything_is_erased(s3_url, s3_options,
                                                                     proxy):
    from zarrhpc.errors import ContainsArrayError

    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, name="a", shape=(8,), chunks=(4,), dtype="f4")
    a[...] = np.arange(8, dtype="f4")
    with pytest.raises(ContainsArrayError, match="a/zarr.json"):
        zarrhpc.create_array(store, name="a/b", shape=(8,), chunks=(4,), dtype="f4",
                             overwrite=True)
    np.testing.assert_array_equal(zarrhpc.open_array(store, path="a")[...], np.arange(8))


def test_overwrite_lists_deletes_puts_nothing_else(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, shape=(64,), chunks=(8,), dtype="f4", fill_value=0)
    a[...] = np.arange(1, 65, dtype="f4")  # 8 chunks stored
    proxy.reset()
    b = zarrhpc.create_array(store, shape=(32,), chunks=(16,), dtype="i2", fill_value=7,
                             overwrite=True)
    # no GET of what was there: the prefix is listed and what it holds deleted in one
    # batch, then the new document goes up
    assert [k for k, _, _ in proxy.log] == ["LIST", "POST", "PUT"], proxy.log
    assert sorted(store.list()) == ["zarr.json"]  # no chunk of the old array survives
    np.testing.assert_array_equal(b[...], np.full(32, 7, "i2"))
    proxy.reset()  # only the document is stored: still one LIST, one delete, one PUT
    zarrhpc.create_array(store, shape=(32,), chunks=(16,), dtype="i2", overwrite=True)
    assert [k for k, _, _ in proxy.log] == ["LIST", "POST", "PUT"], proxy.log


def test_overwrite_empty_prefix_lists_and_puts(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    proxy.reset()
    zarrhpc.create_array(store, shape=(32,), chunks=(16,), dtype="i2", overwrite=True)
    assert [k for k, _, _ in proxy.log] == ["LIST", "PUT"], proxy.log


def test_overwrite_then_write_as_the_benchmark(s3_url, s3_options, proxy):
    """The remote benchmark's write: create with overwrite, then every chunk covered."""
    store = open_url(s3_url, storage_options=s3_options)
    data = np.random.default_rng(2).random((32, 32, 32), dtype="f4") + 1
    for _ in range(2):  # the second round replaces the first
        proxy.reset()
        a = zarrhpc.create_array(store, shape=data.shape, dtype=data.dtype, chunks=(8,) * 3,
                                 compressors=BLOSC, overwrite=True)
        a[...] = data
    assert proxy.counts["LIST"] == 1 and proxy.counts["POST"] + proxy.counts["DELETE"] == 1
    assert proxy.counts["PUT"] == 65 and proxy.total == 67, proxy.log
    assert proxy.counts["GET"] == proxy.counts["HEAD"] == 0
    np.testing.assert_array_equal(zarrhpc.open_array(store, mode="r")[...], data)
