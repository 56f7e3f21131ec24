"""Fault injection through the proxy: 5xx answers, dropped connections, slow answers.

Transient errors are retried (within ``retry_timeout``) and the read or write succeeds;
a server that keeps failing gives a StoreError naming the URL and key; a failed upload
(single PUT or multipart) leaves the old value, never a partial object.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.remote import open_url

BACKENDS = ["obstore", "fsspec"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("status", [500, 503, 0], ids=["500", "503", "dropped"])
def test_transient_errors_are_retried(s3_url, s3_options, proxy, backend, status):
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    store.set("a/k", b"value")
    store.set_values([(f"c/{i}", bytes([i]) * 100) for i in range(6)])
    proxy.reset()
    proxy.fail_next(3, status)
    assert bytes(store.get("a/k")) == b"value"
    proxy.fail_next(4, status)
    got = store.get_values([f"c/{i}" for i in range(6)])
    assert [bytes(g) for g in got] == [bytes([i]) * 100 for i in range(6)]
    proxy.fail_next(2, status)
    assert [bytes(g) for g in store.get_partial_values([("a/k", 1, 3), ("a/k", -2, None)])] \
        == [b"alu", b"ue"]
    proxy.fail_next(2, status, when=lambda kind, path: kind == "PUT")
    store.set("a/k", b"new value")
    assert bytes(store.get("a/k")) == b"new value"
    assert proxy.total > 10  # the failures were seen and retried


@pytest.mark.parametrize("backend", BACKENDS)
def test_persistent_errors_name_url_and_key(s3_url, s3_options, proxy, backend):
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend,
                                                  retry_timeout=2.0))
    store.set("a/k", b"old")
    proxy.fail_next(10**6, 500)
    try:
        with pytest.raises(StoreError, match=re.escape(f"{s3_url}/a/k")):
            store.get("a/k")
        with pytest.raises(StoreError, match=re.escape(f"{s3_url}/a/k")):
            store.set("a/k", b"new")
    finally:
        proxy.clear_faults()
    assert bytes(store.get("a/k")) == b"old"  # the failed PUT changed nothing


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_failed_multipart_upload_leaves_no_partial_object(s3_url, s3_options, proxy,
                                                          monkeypatch, backend):
    # values up to SINGLE_PUT_MAX (4 GiB) are one PUT: lowered so 12 MiB is multipart
    monkeypatch.setattr("zarrhpc.storage._obstore.SINGLE_PUT_MAX", 1 << 20)
    monkeypatch.setattr("zarrhpc.storage._fsspec.SINGLE_PUT_MAX", 1 << 20)
    monkeypatch.setattr("zarrhpc.storage._fsspec.PART_BYTES", 5 << 20)
    store = open_url(s3_url, storage_options=dict(s3_options, retry_timeout=2.0,
                                                  backend=backend))
    big = np.random.default_rng(0).integers(0, 256, 12 << 20, dtype=np.uint8)  # > 1 part
    store.set("big", b"old")
    proxy.reset()
    proxy.fail_next(10**6, 500, when=lambda kind, path: "partNumber=2" in path)
    try:
        with pytest.raises(StoreError, match=re.escape(f"{s3_url}/big")):
            store.set("big", big)
    finally:
        proxy.clear_faults()
    assert any("uploads" in path for _, path, _ in proxy.log)  # it was a multipart upload
    assert bytes(store.get("big")) == b"old"
    assert set(store.list()) == {"big"}
    store.set("big", big)  # and it works once the server does
    assert bytes(store.get("big")) == big.tobytes()


def test_slow_answers_still_read_correctly(s3_url, s3_options, proxy):
    data = np.arange(24 * 24, dtype="i4").reshape(24, 24)
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, name="a", shape=data.shape, dtype="i4", chunks=(8, 8))
    a[...] = data
    proxy.delay = 0.05
    b = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="a")
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(b[3:20, 5:7], data[3:20, 5:7])


def test_missing_chunks_are_fill_not_errors(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, name="a", shape=(20,), dtype="f8", chunks=(5,),
                             fill_value=-2.5)
    a[5:10] = 1.0
    expected = np.full(20, -2.5)
    expected[5:10] = 1.0
    np.testing.assert_array_equal(zarrhpc.open_array(store, path="a")[...], expected)


def test_proxy_process_counts_and_delays(s3):
    import time

    from zarrhpc.testing.servers import ProxyProcess

    from .conftest import BUCKET

    with ProxyProcess(s3.endpoint, delay=0.05) as proxy:
        store = open_url(f"s3://{BUCKET}/proxyproc", storage_options=s3.storage_options(
            proxy.endpoint))
        store.set("a", b"1")
        assert proxy.total == 1
        proxy.reset()
        t0 = time.perf_counter()
        assert bytes(store.get("a")) == b"1" and store.get("b") is None
        assert time.perf_counter() - t0 >= 0.1  # each request waited in the child
        assert proxy.total == 2


def test_multi_object_delete_501_falls_back_503_retries(s3, s3_url):
    """moto serves multi-object delete; answered 501 NotImplemented once it is taken as
    unsupported at once (one DELETE per key after it, no retries of the POST); a 503 on
    the first try of a server is retried as any transient error (with obstore's retries)."""
    from zarrhpc.testing.servers import CountingProxy

    for status, expected in ((501, {"POST": 1, "DELETE": 4}), (503, {"POST": 2})):
        with CountingProxy(s3.endpoint) as proxy:  # a new endpoint: a server not tried yet
            store = open_url(s3_url, storage_options=s3.storage_options(proxy.endpoint))
            keys = [f"{status}/k{i}" for i in range(4)]
            store.set_values([(k, memoryview(b"x")) for k in keys])
            proxy.reset()
            proxy.fail_next(1, status, when=lambda kind, path: kind == "POST")
            store.erase_values(keys)
            assert dict(proxy.counts) == expected, proxy.log
            assert all(store.get(k) is None for k in keys)


def test_delete_fallback_goes_through_the_clients_proxy(s3, s3_url):
    """The one-DELETE-per-key fallback (a server refusing multi-object delete) is sent as
    the obstore client sends its own requests: through its ``proxy_url``. Chain: client
    -> forward proxy -> the endpoint (refusing POST ?delete with 501) -> moto."""
    from zarrhpc.testing.servers import CountingProxy

    with CountingProxy(s3.endpoint) as endpoint, CountingProxy(endpoint.endpoint) as forward:
        options = dict(s3.storage_options(endpoint.endpoint),
                       client_options={"proxy_url": forward.endpoint})
        store = open_url(s3_url, storage_options=options)
        keys = [f"viaproxy/k{i}" for i in range(3)]
        store.set_values([(k, memoryview(b"x")) for k in keys])
        assert forward.forwarded == 3  # the client's PUTs came through the proxy
        endpoint.fail_next(10**6, 501, when=lambda kind, path: kind == "POST")
        forward.reset()
        store.erase_values(keys)
        assert forward.counts["DELETE"] == 3 and forward.forwarded == forward.total, \
            forward.log
        assert endpoint.counts["DELETE"] == 3
        assert all(store.get(k) is None for k in keys)
