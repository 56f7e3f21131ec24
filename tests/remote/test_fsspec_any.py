"""FsspecStore over a file system that is not S3 or HTTP (fsspec's memory file system):
the conformance suite, and open_url's routing of other protocols."""

from __future__ import annotations

import uuid

import pytest

from zarrhpc.errors import UnsupportedError
from zarrhpc.storage.remote import FsspecStore, open_url
from zarrhpc.testing.store import StoreTests

fsspec = pytest.importorskip("fsspec")


class TestFsspecMemory(StoreTests):
    concurrent_threads = 4
    # a reader's ranges are checked against the version it opened (the creation time)
    replaced_error = r"memory://.*/k: the object was replaced"

    def make_store(self, tmp_path):
        store = open_url(f"memory://zarrhpc-{uuid.uuid4().hex}")
        assert isinstance(store, FsspecStore)
        return store


def test_unknown_protocol_is_unsupported():
    with pytest.raises(UnsupportedError, match="nosuchproto://"):
        open_url("nosuchproto://bucket/x")


def test_obstore_backend_refuses_other_schemes():
    with pytest.raises(UnsupportedError, match="memory"):
        open_url("memory://x", storage_options={"backend": "obstore"})
