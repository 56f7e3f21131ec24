"""A 206 answer without Content-Range from an S3 endpoint (a proxy or gateway dropping the
header): the fsspec store took it for the whole object and cut the range out of it again
-- ``get_partial_values`` answered other bytes or b"" with no error. It is refused now
(obstore refuses it too); reads through an honest endpoint are unchanged."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.remote import open_url
from zarrhpc.testing import servers

BLOB = bytes(range(256)) * 8
DATA = np.arange(64 * 64, dtype="i4").reshape(64, 64) + 1


class _Stripping(servers._ProxyHandler):
    def send_header(self, name, value):
        if self.owner.strip and name.lower() == "content-range":
            return
        super().send_header(name, value)


class _Proxy(servers.CountingProxy):
    handler = _Stripping
    strip = False


@pytest.fixture(scope="module")
def endpoint():
    with servers.S3Server() as s3:
        s3.create_bucket("hunt")
        with _Proxy(s3.endpoint) as proxy:
            yield proxy, s3.storage_options(proxy.endpoint)


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_partial_answer_without_content_range_is_refused(endpoint, backend):
    proxy, opts = endpoint
    url = f"s3://hunt/{backend}"
    store = open_url(url, storage_options=dict(opts, backend=backend))
    zarrhpc.create_array(store, name="s", shape=DATA.shape, dtype="i4", chunks=(4, 4),
                         shards=(32, 32), compressors=None)[...] = DATA
    store.set("blob", BLOB)
    fresh = open_url(url, storage_options=dict(opts, backend=backend, retry_timeout=0.3))
    proxy.strip = True
    try:
        for ranges in ([("blob", 100, 50)], [("blob", -20, None)], [("blob", 1000, None)]):
            try:
                got = fresh.get_partial_values(ranges)
            except StoreError as exc:
                assert "blob" in str(exc)
                continue
            key, offset, length = ranges[0]
            stop = None if length is None else offset + length
            assert bytes(got[0]) == BLOB[offset:stop], ranges
        a = zarrhpc.open_array(open_url(url, storage_options=dict(
            opts, backend=backend, retry_timeout=0.3)), path="s")
        for sel in (np.s_[0:2, 0:2], np.s_[5, 9], np.s_[33:40, 1:60]):
            try:
                got = a[sel]
            except StoreError:
                continue
            np.testing.assert_array_equal(got, DATA[sel])
    finally:
        proxy.strip = False
    assert [bytes(v) for v in fresh.get_partial_values([("blob", 100, 50)])] == [BLOB[100:150]]


@pytest.mark.parametrize("rng, content_range, n, ok", [
    ("bytes=10-19", "bytes 10-19/100", 10, True),
    ("bytes=90-199", "bytes 90-99/100", 10, True),     # past the end: cut by the server
    ("bytes=-20", "bytes 80-99/100", 20, True),
    ("bytes=-200", "bytes 0-99/100", 100, True),
    ("bytes=40-", "bytes 40-99/100", 60, True),
    ("bytes=10-19", "bytes 0-9/100", 10, False),       # another part
    ("bytes=10-19", "bytes 10-19/100", 5, False),      # a body shorter than it names
    ("bytes=10-19", "bytes 10-14/100", 5, False),      # less than asked, not at the end
    ("bytes=-20", "bytes 70-89/100", 20, False),
    ("bytes=40-", "bytes 40-79/100", 40, False),
    (None, "bytes 0-9/100", 10, False),                # a part for a whole GET
    (None, "bytes 0-99/100", 100, True),               # the whole, named as a part
])
def test_a_partial_answer_must_be_the_range_asked(rng, content_range, n, ok):
    from zarrhpc.storage._fsspec import _check_part

    if ok:
        _check_part(rng, content_range, n)
    else:
        with pytest.raises(ValueError):
            _check_part(rng, content_range, n)
