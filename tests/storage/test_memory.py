"""MemoryStore: the shared conformance suite plus what is particular to a dict store."""

from __future__ import annotations

import pickle
import threading

import pytest

from zarrhpc.errors import InvalidKeyError, ReadOnlyError
from zarrhpc.storage import MemoryStore
from zarrhpc.testing.store import StoreTests


class TestMemoryStore(StoreTests):
    def make_store(self, tmp_path):
        return MemoryStore()


def test_values_are_stored_as_immutable_bytes():
    store = MemoryStore()
    store.set("k", bytearray(b"abc"))
    value = store.get("k")
    assert isinstance(value, bytes) and value == b"abc"
    assert store.get("k") is value  # returned without copying


def test_values_answer_zarr_pythons_buffer_methods():
    # user code reads the dict backing a store as zarr-python's Buffers
    data = {}
    store = MemoryStore(data)
    store.set("k", memoryview(b"\x01\x02"))
    store.set_partial_values([("p", 1, b"\x07")])
    assert data["k"].to_bytes() == b"\x01\x02" and type(data["k"].to_bytes()) is bytes
    assert data["k"].as_numpy_array().tolist() == [1, 2]
    assert data["p"].to_bytes() == b"\x00\x07"
    # values given in the dict, zarr-python Buffers included, are taken by their bytes
    zarr = pytest.importorskip("zarr")
    from zarr.core.buffer.cpu import Buffer

    store = MemoryStore({"z": Buffer.from_bytes(b"xyz"), "b": bytearray(b"1")})
    assert store.get("z").to_bytes() == b"xyz" and store.get("b").to_bytes() == b"1"
    arr = zarr.create_array({}, shape=(1,), dtype="i8", zarr_format=2)
    theirs = arr.store._store_dict[".zarray"].to_bytes()
    import zarrhpc

    ours_dict = {}
    zarrhpc.create_array(ours_dict, shape=(1,), dtype="i8", zarr_format=2)
    assert ours_dict[".zarray"].to_bytes() == theirs


def test_initial_dict_backs_the_store_and_is_validated():
    # as zarr-python's MemoryStore(dict): the dict is the store's data
    buf = bytearray(b"1")
    source = {"a/b": buf, "c": memoryview(b"2")}
    store = MemoryStore(source)
    buf[:] = b"9"  # values were made immutable bytes (a copy of the caller's buffer)
    assert store.get("a/b") == b"1" and isinstance(source["a/b"], bytes)
    assert store.get("c") == b"2"
    store.set("d", b"3")
    assert source["d"] == b"3"
    with pytest.raises(InvalidKeyError, match="'../x'"):
        MemoryStore({"../x": b""})


def test_read_only_store_from_dict():
    store = MemoryStore({"k": b"v"}, read_only=True)
    assert store.get("k") == b"v"
    with pytest.raises(ReadOnlyError, match="'k'"):
        store.set("k", b"w")


def test_views_share_data_and_compare_equal():
    store = MemoryStore()
    reader = store.with_read_only()
    store.set("k", b"v")
    assert reader.get("k") == b"v"
    assert reader == store.with_read_only(True)
    assert hash(reader) == hash(store.with_read_only(True))
    assert reader != store
    assert store != MemoryStore()
    assert store.with_read_only(False) == store


def test_flat_mapping_allows_key_and_prefix():
    store = MemoryStore()
    store.set("a", b"1")
    store.set("a/b", b"2")
    assert store.list_dir("") == ["a"]
    assert store.list_dir("a") == ["b"]
    store.erase_prefix("a")
    assert list(store.list()) == ["a"]


def test_pickle_copies_the_data():
    store = MemoryStore({"k": b"v"})
    clone = pickle.loads(pickle.dumps(store))
    assert clone.get("k") == b"v"
    clone.set("k", b"w")
    assert store.get("k") == b"v"
    assert not clone.read_only


def test_concurrent_partial_writes_lose_nothing():
    store = MemoryStore()
    n = 8
    barrier = threading.Barrier(n)

    def run(i):
        barrier.wait()
        for j in range(50):
            store.set_partial_values([("k", (i * 50 + j), bytes([i + 1]))])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("k") == b"".join(bytes([i + 1]) * 50 for i in range(n))


def test_repr_is_zarr_pythons_url():
    data = {"a": b"", "b": b""}
    store = MemoryStore(data)
    # zarr-python's form: the URL memory://<id of the data dict>, shared by views
    assert repr(store) == f"MemoryStore('memory://{id(data)}')" == repr(store.with_read_only())
    assert str(store) == f"memory://{id(data)}" != str(MemoryStore())
    zarr = pytest.importorskip("zarr")
    theirs = zarr.storage.MemoryStore(data)
    assert repr(theirs) == repr(store)
