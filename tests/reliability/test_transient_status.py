"""HTTP failures through the fsspec store: never a missing key, never retried for a URL.

fsspec's HTTP ``info`` (the HEAD a shard read or ranged read starts with) raises
`FileNotFoundError` for *any* failure -- a 503, a 403, a dropped connection -- with the
failure as its cause: the store took it for a missing object, and a partial read of a
shard returned fill values with no error. Only a 404/410 (or no cause) is missing now; the
rest is retried or raised as `StoreError`.

A failure that will not pass is not retried because its URL holds "503":

The fsspec store's `is_transient` read the status numbers 500/502/503/504 from the words
of the error message, which names the URL (aiohttp: ``url='http://host:PORT/path'``): a
root or key holding "503" -- or a port such as 45031 -- retried a 400 or 403 until
``retry_timeout``. The status now comes only from what the library recorded (aiohttp's
``status``, botocore's ``response``); words only from the message with URLs removed.
"""

from __future__ import annotations

import os

import aiohttp
import numpy as np
import pytest
from botocore.exceptions import ClientError

import zarrhpc
from zarrhpc.errors import StoreError, StorePermissionError
from zarrhpc.storage import LocalStore
from zarrhpc.storage._fsspec import is_transient
from zarrhpc.storage.remote import open_url
from zarrhpc.testing.servers import CountingProxy, HTTPRangeServer

PAYLOAD = bytes(range(256)) * 4


DATA = np.arange(32 * 32, dtype="i4").reshape(32, 32) + 1


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    zarrhpc.create_array(LocalStore(root), name="s", shape=DATA.shape, dtype="i4",
                         chunks=(4, 4), shards=(16, 16), fill_value=0)[...] = DATA
    for name in ("run-503", "plain", "InvalidRange"):
        os.makedirs(root / name)
        (root / name / "obj-504").write_bytes(PAYLOAD)
    with HTTPRangeServer(root) as server, CountingProxy(server.endpoint) as proxy:
        yield proxy


def _store(proxy, root):
    return open_url(f"{proxy.endpoint}/{root}", storage_options={
        "backend": "fsspec", "retry_timeout": 3.0, "request_timeout": 2.0})


def _failing_read(proxy, store, fault, ranged):
    """A read of ``obj-504`` while every request fails with ``fault``: its StoreError."""
    proxy.fail_next(10**9, fault)
    try:
        with pytest.raises(StoreError) as info:
            if ranged:
                store.get_partial_values([("obj-504", 10, 20)])
            else:
                store.get("obj-504")
    finally:
        proxy.clear_faults()
    return info


@pytest.mark.parametrize("root", ["run-503", "plain"])
@pytest.mark.parametrize("status", [400, 403, 405, 409])
@pytest.mark.parametrize("ranged", [False, True], ids=["whole", "ranged"])
def test_permanent_failure_is_not_retried(served, root, status, ranged):
    proxy = served
    store = _store(proxy, root)
    proxy.reset()
    info = _failing_read(proxy, store, status, ranged)
    assert f"{root}/obj-504" in str(info.value)
    # one try: fsspec's `info` sends a GET after a failed HEAD itself (the old code: 6-8)
    assert proxy.total == (2 if ranged else 1), (proxy.total, str(info.value))
    assert isinstance(info.value, StorePermissionError) == (status == 403)


@pytest.mark.parametrize("root", ["run-503", "plain"])
@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_transient_burst_is_still_retried(served, root, status):
    proxy = served
    store = _store(proxy, root)
    proxy.reset()
    proxy.fail_next(2, status)
    try:
        assert bytes(store.get("obj-504")) == PAYLOAD
    finally:
        proxy.clear_faults()
    assert proxy.total == 3


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("fault", [503, 500, 403, 400, "reset"], ids=str)
@pytest.mark.parametrize("sel", [np.s_[0:2, 0:2], np.s_[5, 5], np.s_[...], np.s_[[1, 30], 3]],
                         ids=["box", "element", "all", "fancy"])
def test_failing_server_is_never_a_missing_shard(served, backend, fault, sel):
    """A server failing for good: the read raises StoreError naming the shard, never
    returns fill values (fsspec, old code: zeros for the box and the element)."""
    proxy = served
    a = zarrhpc.open_array(open_url(proxy.endpoint, storage_options={
        "backend": backend, "retry_timeout": 0.5, "request_timeout": 2.0}), path="s")
    proxy.fail_next(10**9, fault)
    try:
        with pytest.raises(StoreError) as info:
            a[sel]
    finally:
        proxy.clear_faults()
    assert "/s/c/" in str(info.value)
    np.testing.assert_array_equal(a[sel], DATA[sel])  # and reads again once it works


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("fault", [503, "reset"], ids=str)
def test_failing_burst_reads_the_data(served, backend, fault):
    proxy = served
    a = zarrhpc.open_array(open_url(proxy.endpoint, storage_options={
        "backend": backend, "retry_timeout": 30, "request_timeout": 2.0}), path="s")
    proxy.fail_next(2, fault)  # the HEAD and fsspec's own GET after it
    try:
        np.testing.assert_array_equal(a[0:2, 0:2], DATA[0:2, 0:2])
    finally:
        proxy.clear_faults()


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("fault", [500, 403])
@pytest.mark.parametrize("ranged", [False, True], ids=["whole", "ranged"])
def test_a_key_named_invalidrange_is_not_a_refused_range(served, backend, fault, ranged):
    """obstore took "InvalidRange" anywhere in its error -- the URL too -- for S3's refusal
    of a range past the end: every failed GET of such a key answered b"" (old code)."""
    proxy = served
    store = open_url(f"{proxy.endpoint}/InvalidRange", storage_options={
        "backend": backend, "retry_timeout": 0.3, "request_timeout": 2.0})
    _failing_read(proxy, store, fault, ranged)
    assert bytes(store.get("obj-504")) == PAYLOAD
    assert [bytes(v) for v in store.get_partial_values([("obj-504", 2000, 5)])] == [b""]


def _aiohttp_error(status, url):
    from yarl import URL
    info = aiohttp.RequestInfo(URL(url), "GET", {}, URL(url))
    return aiohttp.ClientResponseError(info, (), status=status, message="x")


def _boto_error(status, code):
    return ClientError({"Error": {"Code": code, "Message": "m"},
                        "ResponseMetadata": {"HTTPStatusCode": status}}, "GetObject")


def _s3fs_error(status, code):
    exc = OSError(5, "An error occurred (x) when calling GetObject on bucket/run-503/k")
    exc.__cause__ = _boto_error(status, code)
    return exc


@pytest.mark.parametrize("exc, expected", [
    (_aiohttp_error(403, "http://h:45031/run-503/k"), False),
    (_aiohttp_error(400, "http://h/a/500/502/504"), False),
    (_aiohttp_error(404, "http://h/Timeout/SlowDown"), False),
    (_aiohttp_error(503, "http://h/a"), True),
    (_aiohttp_error(500, "http://h/a"), True),
    (_boto_error(403, "AccessDenied"), False),
    (_boto_error(503, "SlowDown"), True),
    (_boto_error(400, "RequestTimeout"), True),
    (_s3fs_error(400, "InvalidArgument"), False),
    (_s3fs_error(500, "InternalError"), True),
    (OSError("Cannot read http://h/503/timed out/k: not allowed"), False),
    (aiohttp.ClientPayloadError("Response payload is not completed"), True),
    (aiohttp.ServerDisconnectedError(), True),
    (RuntimeError("Connection reset by peer"), True),
], ids=repr)
def test_is_transient_reads_the_recorded_status(exc, expected):
    assert is_transient(exc) is expected
