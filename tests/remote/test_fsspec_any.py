"""FsspecStore over a file system that is not S3 or HTTP (fsspec's memory file system):
the conformance suite, and open_url's routing of other protocols."""

from __future__ import annotations

import uuid

import pytest

from zarrhpc.errors import StoreError, UnsupportedError
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


class TestFsspecFileSystemObject(StoreTests):
    """The conformance suite on ``FsspecStore(fs, path=...)``, zarr-python's form, with
    an async file system made as zarr-python makes them (``asynchronous=True``)."""

    concurrent_threads = 4
    replaced_error = r"memory://.*/k: the object was replaced"

    def make_store(self, tmp_path):
        from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper

        fs = AsyncFileSystemWrapper(fsspec.filesystem("memory"))
        return FsspecStore(fs, path=f"/zarrhpc-{uuid.uuid4().hex}")


def test_file_system_object_store_pickles_and_keeps_its_root():
    import pickle

    import numpy as np

    import zarrhpc

    fs = fsspec.filesystem("memory")
    root = f"/zarrhpc-{uuid.uuid4().hex}"
    store = FsspecStore(fs, path=root)
    assert store.path == root and store.url == f"memory://{root}"
    a = zarrhpc.create_array(store, shape=(5,), dtype="i2")
    a[...] = np.arange(5)
    assert fs.exists(f"{root}/zarr.json")  # under the root, in the caller's file system
    clone = pickle.loads(pickle.dumps(store))
    assert clone == store
    np.testing.assert_array_equal(zarrhpc.open_array(clone, mode="r")[...], np.arange(5))
    with pytest.raises(TypeError, match="storage_options are for a URL"):
        FsspecStore(fs, path=root, storage_options={"x": 1})


def test_allowed_exceptions_read_as_missing():
    """zarr-python's ``allowed_exceptions``: errors of the file system read as a missing
    key; others are errors naming the key."""
    class Flaky(fsspec.implementations.memory.MemoryFileSystem):
        def cat_file(self, path, start=None, end=None, **kwargs):
            if path.endswith("odd"):
                raise LookupError(path)
            return super().cat_file(path, start=start, end=end, **kwargs)

    fs = Flaky(skip_instance_cache=True)
    root = f"/zarrhpc-{uuid.uuid4().hex}"
    fs.pipe_file(f"{root}/odd", b"x")
    strict = FsspecStore(fs, path=root, retry_timeout=0)
    with pytest.raises(StoreError, match="odd"):
        strict.get("odd")
    lenient = FsspecStore(fs, path=root, allowed_exceptions=(FileNotFoundError, LookupError))
    assert lenient.get("odd") is None


def test_from_url_takes_a_local_path_as_zarr_python(tmp_path):
    """``FsspecStore.from_url(pathlib.Path)`` (dask's sharding tests call it so): fsspec's
    local file system at that directory, in the files zarr-python's store writes. As
    zarr-python's, it makes no directories (fsspec's auto_mkdir is off): the root exists
    and the keys are flat here (v2 keys)."""
    import numpy as np

    import zarrhpc

    zarr = pytest.importorskip("zarr")
    (tmp_path / "ours").mkdir()
    ours = FsspecStore.from_url(tmp_path / "ours")
    assert ours.url == (tmp_path / "ours").as_uri()
    a = zarrhpc.create_array(ours, shape=(6,), chunks=(4,), dtype="i4", zarr_format=2)
    a[...] = np.arange(6)
    assert (tmp_path / "ours" / ".zarray").is_file() and (tmp_path / "ours" / "1").is_file()
    theirs = zarr.storage.FsspecStore.from_url(str(tmp_path / "ours"), read_only=True)
    np.testing.assert_array_equal(zarr.open_array(theirs, mode="r")[...], np.arange(6))
