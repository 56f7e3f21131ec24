"""ObjectStore (zarr-python's ``zarr.storage.ObjectStore``) over obstore's memory and
local-file stores (no network): the shared conformance suite, arrays written by one
library read by the other through the same obstore store, zarr-python's repr, pickling and
the refusals."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ReadOnlyError
from zarrhpc.storage import ObjectStore
from zarrhpc.testing.store import StoreTests

obs = pytest.importorskip("obstore.store")


class _ObjectSuite(StoreTests):
    # as every remote store: a reader refuses bytes of a replaced object (ETag)
    replaced_error = r"object_store://.*/k: the object was replaced"


class TestObjectStoreMemory(_ObjectSuite):
    def make_store(self, tmp_path):
        return ObjectStore(obs.MemoryStore())


class TestObjectStoreLocal(_ObjectSuite):
    def make_store(self, tmp_path):
        (tmp_path / "root").mkdir()
        return ObjectStore(obs.LocalStore(str(tmp_path / "root"), mkdir=True))


def test_is_zarr_storage_objectstore_and_prints_as_zarr_python(tmp_path):
    import zarrhpc.storage

    assert zarrhpc.storage.ObjectStore is ObjectStore
    inner = obs.LocalStore(str(tmp_path))
    store = ObjectStore(inner)
    assert store.store is inner and not store.read_only
    assert repr(store) == f"ObjectStore(object_store://{inner})" and str(store) == store.url
    zarr = pytest.importorskip("zarr")
    assert repr(store) == repr(zarr.storage.ObjectStore(inner))
    a = zarrhpc.create_array(store, shape=(2,), dtype="float64")
    assert repr(a) == repr(zarr.open_array(zarr.storage.ObjectStore(inner)))


def test_arrays_cross_read_with_zarr_python(tmp_path):
    zarr = pytest.importorskip("zarr")
    inner = obs.LocalStore(str(tmp_path), mkdir=True)
    data = np.arange(300, dtype="i4").reshape(20, 15)
    ours = zarrhpc.create_array(ObjectStore(inner), name="x", shape=data.shape, chunks=(7, 4),
                                dtype="i4", shards=(14, 8))
    ours[:] = data
    np.testing.assert_array_equal(zarr.open_array(zarr.storage.ObjectStore(inner), path="x")[:],
                                  data)
    theirs = zarr.create_array(zarr.storage.ObjectStore(inner), name="y", shape=data.shape,
                               chunks=(6, 5), dtype="i4")
    theirs[:] = data * 2
    back = zarrhpc.open_array(ObjectStore(inner, read_only=True), path="y")
    np.testing.assert_array_equal(back[:], data * 2)
    np.testing.assert_array_equal(back.oindex[[0, 19], [1, 14]], (data * 2)[np.ix_([0, 19], [1, 14])])


def test_read_only_pickle_and_refusals(tmp_path):
    inner = obs.LocalStore(str(tmp_path))
    store = ObjectStore(inner)
    store.set("k", b"v")
    view = ObjectStore(inner, read_only=True)
    with pytest.raises(ReadOnlyError, match="'k'"):
        view.set("k", b"w")
    assert store.with_read_only().read_only and store == ObjectStore(inner)
    assert store != view
    clone = pickle.loads(pickle.dumps(store))
    assert bytes(clone.get("k")) == b"v"
    http = ObjectStore(obs.HTTPStore.from_url("http://127.0.0.1:9/"))
    assert http.read_only
    with pytest.raises(ReadOnlyError, match="HTTP"):
        http.set("k", b"v")
    with pytest.raises(TypeError, match="obstore store"):
        ObjectStore({})
