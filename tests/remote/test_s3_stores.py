"""Both remote backends against a real S3 server on loopback: the store conformance suite,
plus what is particular to object stores (pickling, options, read-only refusal, missing
keys, errors naming the URL and key, the changed-object guard of the shard reader)."""

from __future__ import annotations

import pickle
import re
import uuid

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ReadOnlyError, StoreError
from zarrhpc.storage.remote import FsspecStore, ObstoreStore, open_url
from zarrhpc.testing.store import StoreTests

from .conftest import BUCKET


class _S3Suite(StoreTests):
    backend = ""
    concurrent_threads = 4

    @pytest.fixture(autouse=True)
    def _endpoint(self, s3, proxy):
        self._options = dict(s3.storage_options(proxy.endpoint), backend=self.backend)

    def make_store(self, tmp_path):
        return open_url(f"s3://{BUCKET}/{uuid.uuid4().hex}", storage_options=self._options)


class TestObstoreS3(_S3Suite):
    backend = "obstore"

    def test_open_reader(self, store, large_size):
        # A remote reader cannot keep the version it opened; instead of mixing two
        # versions it refuses to read bytes of the replaced object (If-Match -> 412).
        data = self.random_bytes(large_size)
        store.set("k", data)
        assert store.open_reader("missing") is None
        with store.open_reader("k") as reader:
            assert reader.size == large_size
            assert bytes(reader.read(3, 10)) == data[3:13]
            assert bytes(reader.read(-7, None)) == data[-7:]
            assert bytes(reader.read(large_size - 2, 10)) == data[-2:]
            assert bytes(reader.read(large_size + 5, 10)) == b""
            store.set("k", b"new")
            with pytest.raises(StoreError, match=r"s3://.*/k: the object was replaced"):
                reader.read(0, 3)
        with store.open_reader("k") as reader:  # reopened: the new value
            assert reader.size == 3 and bytes(reader.read(0, 3)) == b"new"


class TestFsspecS3(_S3Suite):
    backend = "fsspec"
    replaced_error = r"s3://.*/k: the object was replaced"  # If-Match, as obstore's


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_open_url_picks_backend_and_pickles(s3_url, s3_options, backend):
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend, concurrency=3))
    assert isinstance(store, ObstoreStore if backend == "obstore" else FsspecStore)
    assert store.settings["concurrency"] == 3
    store.set("x/y", b"payload")
    clone = pickle.loads(pickle.dumps(store))
    assert clone == store and clone is not store
    assert clone.settings["concurrency"] == 3
    assert bytes(clone.get("x/y")) == b"payload"
    clone.close()
    store.close()


@pytest.mark.parametrize(("forced", "expected"), [
    (None, "unsigned"),  # the server is on loopback: nothing can change the body
    (True, "unsigned"),
    (False, "sha256"),
])
def test_payload_signing_on_loopback(s3_url, s3_options, proxy, forced, expected):
    """What the server sees in x-amz-content-sha256 of every chunk PUT, by default (the
    endpoint is loopback) and forced either way; the data reads back either way."""
    options = dict(s3_options) if forced is None else dict(s3_options, unsigned_payload=forced)
    data = np.arange(1000, dtype="f8").reshape(10, 100)
    a = zarrhpc.create_array(s3_url, storage_options=options, shape=data.shape, dtype="f8",
                             chunks=(4, 40))
    proxy.reset()
    a[...] = data
    assert proxy.payloads == {expected: 9}  # 3 x 3 chunks, every one signed the same way
    np.testing.assert_array_equal(zarrhpc.open_array(open_url(
        s3_url, storage_options=s3_options), mode="r")[...], data)


def test_default_backend_is_obstore(s3_url, s3_options):
    assert isinstance(open_url(s3_url, storage_options=s3_options), ObstoreStore)


def test_open_url_bad_input(s3_url, s3_options):
    with pytest.raises(ValueError, match="backend must be one of"):
        open_url(s3_url, storage_options=dict(s3_options, backend="nope"))
    with pytest.raises(ValueError, match="not a URL"):
        open_url("bucket/path")
    with pytest.raises(ValueError, match="concurrency"):
        open_url(s3_url, storage_options=dict(s3_options, concurrency=0))


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_read_only_names_url_and_key(s3_url, s3_options, backend):
    opts = dict(s3_options, backend=backend)
    open_url(s3_url, storage_options=opts).set("a/b", b"1")
    store = open_url(s3_url, storage_options=opts, read_only=True)
    with pytest.raises(ReadOnlyError, match=re.escape("'a/b'") + ".*" + re.escape(s3_url)):
        store.set("a/b", b"2")
    with pytest.raises(ReadOnlyError, match=re.escape(s3_url)):
        store.erase_prefix("")
    assert bytes(store.get("a/b")) == b"1"


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_errors_name_url_and_key(s3, proxy, backend):
    # a bucket that does not exist: not a missing key but an error, naming URL and key
    url = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/root"
    opts = dict(s3.storage_options(proxy.endpoint), backend=backend, retry_timeout=0)
    store = open_url(url, storage_options=opts)
    with pytest.raises(StoreError, match=re.escape(f"{url}/c/0")):
        store.set("c/0", b"x")
