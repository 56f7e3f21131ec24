"""HTTP(S) stores (both backends) over a plain static file server with Range support:
read-only, unlisted, arrays read correctly, ranged reads, missing keys, sharded counts."""

from __future__ import annotations

import re

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ReadOnlyError, UnsupportedError
from zarrhpc.storage import LocalStore
from zarrhpc.storage.remote import FsspecStore, ObstoreStore, open_url
from zarrhpc.testing.servers import CountingProxy, HTTPRangeServer

BACKENDS = ["obstore", "fsspec"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    local = LocalStore(root)
    plain = np.arange(30 * 20, dtype="<f4").reshape(30, 20)
    zarrhpc.create_array(local, name="plain", shape=plain.shape, dtype="f4",
                         chunks=(7, 6), fill_value=0)[...] = plain
    sharded = np.random.default_rng(2).integers(0, 1000, (32, 32), dtype="i4")
    zarrhpc.create_array(local, name="sharded", shape=sharded.shape, dtype="i4",
                         chunks=(4, 4), shards=(32, 32))[...] = sharded
    local.set("blob", bytes(range(100)))
    with HTTPRangeServer(root) as server, CountingProxy(server.endpoint) as proxy:
        yield proxy, plain, sharded


@pytest.mark.parametrize("backend", BACKENDS)
def test_http_read_arrays(served, backend):
    proxy, plain, sharded = served
    store = open_url(proxy.endpoint, storage_options={"backend": backend})
    assert isinstance(store, ObstoreStore if backend == "obstore" else FsspecStore)
    assert store.read_only
    a = zarrhpc.open_array(store, path="plain")
    np.testing.assert_array_equal(a[...], plain)
    np.testing.assert_array_equal(a[5:23, 3:19:2], plain[5:23, 3:19:2])
    s = zarrhpc.open_array(store, path="sharded")
    np.testing.assert_array_equal(s[...], sharded)
    np.testing.assert_array_equal(s[3:9, 10:30], sharded[3:9, 10:30])
    assert s[31, 0] == sharded[31, 0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_http_ranges_and_missing(served, backend):
    proxy, _, _ = served
    store = open_url(proxy.endpoint + "/", storage_options={"backend": backend})
    data = bytes(range(100))
    got = store.get_partial_values([("blob", 10, 5), ("blob", -3, None), ("blob", 98, 10),
                                    ("blob", 150, 2), ("nope", 0, 1), ("blob", 40, None)])
    assert [None if g is None else bytes(g) for g in got] == \
        [data[10:15], data[-3:], data[98:], b"", None, data[40:]]
    assert store.get("nope/zarr.json") is None
    assert store.getsize("blob") == 100
    assert store.exists("blob") and not store.exists("nope")


@pytest.mark.parametrize("backend", BACKENDS)
def test_http_is_read_only_and_unlisted(served, backend):
    proxy, _, _ = served
    store = open_url(proxy.endpoint, storage_options={"backend": backend})
    with pytest.raises(ReadOnlyError, match=re.escape("'blob'") + ".*" +
                       re.escape(proxy.endpoint)):
        store.set("blob", b"x")
    with pytest.raises(ReadOnlyError, match=re.escape(proxy.endpoint)):
        store.erase("blob")
    with pytest.raises(UnsupportedError, match=re.escape(proxy.endpoint)):
        list(store.list())
    with pytest.raises(ReadOnlyError):
        store.with_read_only(False).set("k", b"v")


@pytest.mark.parametrize(("options", "first", "then"), [
    # the shard (4 KiB) is smaller than the tail read: size, index and inner chunks in one
    ({}, 1, 0),
    # a small tail: the index in the first request, the inner chunk in a second; then 1
    ({"tail_bytes": 1100}, 2, 1),
])
def test_http_sharded_element_counts(served, options, first, then):
    proxy, _, sharded = served
    s = zarrhpc.open_array(open_url(proxy.endpoint, storage_options=options), path="sharded")
    proxy.reset()
    assert s[5, 6] == sharded[5, 6]
    assert proxy.total == first, proxy.log
    proxy.reset()
    assert s[25, 30] == sharded[25, 30]
    assert proxy.total == then, proxy.log


def test_loopback_servers_send_small_answers_at_once():
    # headers and body are two writes: with Nagle's algorithm on, a small answer's body
    # waits for the client's delayed ACK (~40 ms a request through the counting proxy)
    from zarrhpc.testing.servers import _FileHandler, _ProxyHandler

    assert _FileHandler.disable_nagle_algorithm is True
    assert _ProxyHandler.disable_nagle_algorithm is True


@pytest.mark.parametrize("fault", [503, "reset", "truncate", "stall"], ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_http_faults_bounded_and_retried(served, backend, fault):
    """A plain web server's faults as S3's (tests/remote/test_fault_matrix.py): a burst
    is retried to the exact bytes; a fault that never ends gives a StoreError naming the
    URL within retry_timeout, its deadline (with margin), a cut body never data."""
    import time

    from zarrhpc.errors import StoreError

    proxy, _, _ = served
    data = bytes(range(100))
    store = open_url(proxy.endpoint + "/", storage_options={
        "backend": backend, "retry_timeout": 30, "request_timeout": 1.0})
    proxy.stall = 5.0
    proxy.fail_next(2, fault, when=lambda kind, path: kind == "GET")
    try:
        assert bytes(store.get("blob")) == data
        assert [bytes(b) for b in store.get_partial_values([("blob", 10, 5)])] == [data[10:15]]
    finally:
        proxy.clear_faults()
    store = open_url(proxy.endpoint + "/", storage_options={
        "backend": backend, "retry_timeout": 0.6, "request_timeout": 1.0})
    store.getsize("blob")  # the client's first connection made before the faults
    proxy.fail_next(10**9, fault, when=lambda kind, path: kind == "GET")
    t0 = time.monotonic()
    try:
        with pytest.raises(StoreError, match="blob"):
            got = store.get_partial_values([("blob", 10, 5)])
            pytest.fail(f"no error: {got!r}, {proxy.log[-4:]!r}, {proxy._faults!r}")
        with pytest.raises(StoreError, match=f"{proxy.endpoint}.*blob"):
            store.get("blob")
    finally:
        proxy.clear_faults()
    assert time.monotonic() - t0 < 2 * (0.6 + 3.0)  # two calls, each by its deadline
