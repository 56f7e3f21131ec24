"""LocalStore: the shared conformance suite plus file-system specifics.

Atomicity (a failed write leaves the old value and no temporary file), the large-file
read path (pread, no mmap), refusal of keys that would leave the root, durable writes,
temporary files hidden from listings, and listings that follow the directory structure.
"""

from __future__ import annotations

import errno
import os
import pathlib
import pickle
import stat

import pytest

import zarrhpc.storage.local as local_mod
from zarrhpc.errors import InvalidKeyError, ReadOnlyError, StoreError
from zarrhpc.storage import LocalStore
from zarrhpc.testing.store import StoreTests

TEMP = ".zhtmp-0123456789abcdef.partial"


class TestLocalStore(StoreTests):
    def make_store(self, tmp_path):
        return LocalStore(tmp_path / "store")


class TestLocalStoreMmapEverything(StoreTests):
    """The whole suite again with a tiny threshold: most reads take the huge-page path."""

    def make_store(self, tmp_path):
        store = LocalStore(str(tmp_path / "store"))
        store.mmap_threshold = 3
        return store


class TestLocalStoreDurable(StoreTests):
    concurrent_threads = 4

    def make_store(self, tmp_path):
        return LocalStore(tmp_path / "store", durable=True)


@pytest.fixture
def root(tmp_path):
    return tmp_path / "store"


@pytest.fixture
def store(root):
    with LocalStore(root) as s:
        yield s


def all_files(path):
    return sorted(
        str(p.relative_to(path)) for p in pathlib.Path(path).rglob("*") if not p.is_dir()
    )


# -- construction, identity ------------------------------------------------------------


def test_root_is_created_lazily(tmp_path):
    root = tmp_path / "a" / "b" / "store"
    store = LocalStore(root)
    assert not root.exists()
    assert store.get("zarr.json") is None
    assert list(store.list()) == []
    assert store.list_dir("") == []
    assert store.get_partial_values([("k", 0, None)]) == [None]
    store.erase("k")
    store.erase_prefix("")
    assert not root.exists()
    store.set("zarr.json", b"{}")
    assert (root / "zarr.json").read_bytes() == b"{}"


def test_read_only_store_on_missing_root(root):
    store = LocalStore(root, read_only=True)
    assert store.get("k") is None
    assert list(store.list()) == []
    with pytest.raises(ReadOnlyError, match="'k'"):
        store.set("k", b"x")
    assert not root.exists()


def test_root_accepts_str_and_pathlike(tmp_path):
    a = LocalStore(str(tmp_path / "s"))
    b = LocalStore(tmp_path / "s")
    c = LocalStore(tmp_path / "x" / ".." / "s")
    assert a == b == c
    assert hash(a) == hash(b)
    assert a.root == tmp_path / "s"
    assert isinstance(a.root, pathlib.Path)
    assert a != LocalStore(tmp_path / "s", read_only=True)
    assert a != LocalStore(tmp_path / "t")
    assert a == LocalStore(tmp_path / "s", durable=True)  # same data, same mode
    with pytest.raises(TypeError, match="path-like"):
        LocalStore(42)


def test_relative_root_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = LocalStore("rel")
    assert store.root == tmp_path / "rel"
    store.set("k", b"v")
    monkeypatch.chdir("/")
    assert store.get("k") == b"v"


def test_repr_and_pickle(root):
    store = LocalStore(root, durable=True)
    assert repr(store) == f"LocalStore('file://{root}')" and str(store) == f"file://{root}"
    zarr = pytest.importorskip("zarr")  # printed as zarr-python prints its own
    assert repr(store) == repr(zarr.storage.LocalStore(root))
    clone = pickle.loads(pickle.dumps(store))
    assert clone == store and clone.durable
    store.set("k", b"v")
    assert clone.get("k") == b"v"


def test_with_read_only_keeps_settings(root):
    store = LocalStore(root, durable=True)
    store.mmap_threshold = 10
    reader = store.with_read_only()
    assert reader.read_only and reader.durable and reader.mmap_threshold == 10
    assert reader.root == store.root


def test_root_is_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_bytes(b"")
    store = LocalStore(path)
    assert store.get("k") is None
    assert list(store.list()) == []
    with pytest.raises(StoreError, match="'k'"):
        store.set("k", b"x")


# -- layout ----------------------------------------------------------------------------


def test_keys_are_files_and_prefixes_directories(store, root):
    store.set("a/b/c/0.0", b"chunk")
    assert (root / "a" / "b" / "c" / "0.0").read_bytes() == b"chunk"
    assert all_files(root) == ["a/b/c/0.0"]


def test_new_files_respect_umask(store, root):
    old = os.umask(0o022)
    try:
        store.set("k", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "k").stat().st_mode) == 0o644


def test_listings_follow_the_directory_structure(store, root):
    (root / "x" / "y").mkdir(parents=True)
    (root / "x" / "y" / "z").write_bytes(b"external")
    (root / "top").write_bytes(b"t")
    assert store.list_dir("") == ["top", "x"]
    assert store.list_dir("x") == ["y"]
    assert sorted(store.list()) == ["top", "x/y/z"]
    assert store.get("x/y/z") == b"external"


def test_key_that_is_a_directory_is_not_a_value(store, root):
    store.set("a/b", b"1")
    assert store.get("a") is None
    assert store.exists("a") is False
    assert store.get_partial_values([("a", 0, None)]) == [None]
    store.erase("a")  # a prefix, not a key: nothing happens
    assert store.get("a/b") == b"1"


def test_key_cannot_also_be_a_prefix(store, root):
    store.set("a", b"value")
    with pytest.raises(StoreError, match="'a/b'.*'a' is a value"):
        store.set("a/b", b"x")
    with pytest.raises(StoreError, match="'a/b/c'.*'a' is a value"):
        store.set("a/b/c", b"x")
    store.set("p/q", b"x")
    with pytest.raises(StoreError, match="'p'.*prefix"):
        store.set("p", b"y")
    assert store.get("a") == b"value"
    assert store.get("p/q") == b"x"
    assert all_files(root) == ["a", "p/q"]


# -- keys that would leave the root ----------------------------------------------------


@pytest.mark.parametrize("key", ["..", "../x", "../store2/k", "a/../../x", "/etc/passwd", "a/.."])
def test_keys_leaving_the_root_are_refused(tmp_path, store, key):
    with pytest.raises(InvalidKeyError, match="invalid store key"):
        store.set(key, b"x")
    with pytest.raises(InvalidKeyError):
        store.get(key)
    with pytest.raises(InvalidKeyError):
        store.erase(key)
    assert all_files(tmp_path) == []


@pytest.mark.parametrize("prefix", ["..", "../", "a/../..", "/tmp"])
def test_prefixes_leaving_the_root_are_refused(store, prefix):
    with pytest.raises(InvalidKeyError):
        store.erase_prefix(prefix)
    with pytest.raises(InvalidKeyError):
        store.list_dir(prefix)


def test_temporary_file_names_are_reserved(store):
    for key in [TEMP, f"a/{TEMP}", f"{TEMP}/b"]:
        with pytest.raises(InvalidKeyError, match="reserved"):
            store.set(key, b"x")
    store.set(".zhtmp-not-a-temp", b"x")  # only the full pattern is reserved
    store.set("x.partial", b"x")
    assert sorted(store.list()) == [".zhtmp-not-a-temp", "x.partial"]


# -- temporary files -------------------------------------------------------------------


def test_listings_never_show_temporary_files(store, root):
    store.set("a/b", b"1")
    (root / TEMP).write_bytes(b"left by a crash")
    (root / "a" / TEMP).write_bytes(b"left by a crash")
    assert sorted(store.list()) == ["a/b"]
    assert list(store.list_prefix("a/")) == ["a/b"]
    assert store.list_dir("") == ["a"]
    assert store.list_dir("a") == ["b"]


def test_set_leaves_no_temporary_file(store, root):
    store.set("a/k", b"1")
    store.set("a/k", b"2" * 10000)
    store.set_partial_values([("a/k", 3, b"x")])
    assert all_files(root) == ["a/k"]


# -- atomicity -------------------------------------------------------------------------


def _fail(*args, **kwargs):
    raise OSError(errno.EIO, "injected failure")


def test_failed_rename_keeps_old_value(store, root, monkeypatch):
    store.set("a/k", b"old")
    monkeypatch.setattr(local_mod.os, "replace", _fail)
    with pytest.raises(StoreError, match="'a/k'.*injected failure") as info:
        store.set("a/k", b"new")
    assert isinstance(info.value, OSError) and info.value.errno == errno.EIO
    monkeypatch.undo()
    assert store.get("a/k") == b"old"
    assert all_files(root) == ["a/k"]


def test_failed_write_midway_keeps_old_value(store, root, monkeypatch, large_size=3 << 20):
    old = b"o" * large_size
    store.set("k", old)
    real_write = os.write
    calls = []

    def write_then_fail(fd, buffers):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        first = memoryview(buffers[0])
        return real_write(fd, first[: len(first) // 3])  # a short write

    monkeypatch.setattr(local_mod.os, "writev", write_then_fail)
    with pytest.raises(StoreError, match="'k'.*No space"):
        store.set("k", b"n" * large_size)
    monkeypatch.undo()
    value = store.get("k")
    assert bytes(value) == old
    del value
    assert all_files(root) == ["k"]


def test_failed_write_of_new_nested_key_leaves_nothing(store, root, monkeypatch):
    store.set("keep", b"1")
    monkeypatch.setattr(local_mod.os, "writev", _fail)
    with pytest.raises(StoreError, match="'a/b/c'"):
        store.set("a/b/c", b"new")
    monkeypatch.undo()
    assert store.get("a/b/c") is None
    assert sorted(os.listdir(root)) == ["keep"]  # no temp file, no empty directories


def test_interrupt_midway_removes_temporary(store, root, monkeypatch):
    store.set("k", b"old")

    def interrupt(fd, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(local_mod.os, "writev", interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.set("k", b"new")
    monkeypatch.undo()
    assert store.get("k") == b"old"
    assert all_files(root) == ["k"]


def test_failed_partial_write_keeps_old_value(store, root, monkeypatch):
    store.set("k", b"0123456789")
    monkeypatch.setattr(local_mod.os, "replace", _fail)
    with pytest.raises(StoreError, match="'k'"):
        store.set_partial_values([("k", 2, b"xx")])
    monkeypatch.undo()
    assert store.get("k") == b"0123456789"
    assert all_files(root) == ["k"]


def test_failed_fsync_keeps_old_value(root, monkeypatch):
    store = LocalStore(root, durable=True)
    store.set("k", b"old")
    monkeypatch.setattr(local_mod.os, "fsync", _fail)
    with pytest.raises(StoreError, match="'k'"):
        store.set("k", b"new")
    monkeypatch.undo()
    assert store.get("k") == b"old"
    assert all_files(root) == ["k"]


# -- durable ---------------------------------------------------------------------------


def test_durable_flushes_file_and_directory(root, monkeypatch):
    store = LocalStore(root, durable=True)
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(local_mod.os, "fsync", fsync)
    store.set("a/b/k", b"data")
    assert synced[0] is False  # the file first, before the rename
    assert synced.count(False) == 1 and synced.count(True) >= 2  # then directories
    synced.clear()
    store.set("a/b/k", b"again")
    assert synced == [False, True]
    synced.clear()
    store.erase("a/b/k")
    assert synced == [True]
    monkeypatch.undo()
    assert list(store.list()) == []


def test_not_durable_does_not_fsync(store, monkeypatch):
    monkeypatch.setattr(local_mod.os, "fsync", _fail)
    store.set("a/k", b"x")
    store.erase("a/k")


# -- reads: pread into bytes or huge-page blocks ----------------------------------------


def test_small_files_are_read_into_bytes(store):
    store.set("k", b"x" * 1000)
    assert type(store.get("k")) is bytes


def test_threshold_is_a_class_attribute(store):
    assert LocalStore.mmap_threshold == 1 << 20
    store.set("k", b"x" * (1 << 20))
    value = store.get("k")
    assert isinstance(value, memoryview)
    value.release()
    store.set("k", b"x" * ((1 << 20) - 1))
    assert type(store.get("k")) is bytes


def test_large_files_are_read_into_read_only_views(store):
    store.mmap_threshold = 100
    data = bytes(range(256)) * 4
    store.set("c/0", data)
    view = store.get("c/0")
    assert isinstance(view, memoryview)
    assert view.readonly
    assert bytes(view) == data
    with pytest.raises(TypeError):
        view[0] = 1
    view.release()


def test_large_value_survives_replace_and_erase(store, root):
    store.mmap_threshold = 100
    old = b"a" * 5000
    store.set("c/0", old)
    view = store.get("c/0")
    store.set("c/0", b"b" * 6000)  # renamed over: the value read is a copy
    assert bytes(view) == old
    new = store.get("c/0")
    assert bytes(new) == b"b" * 6000
    store.erase("c/0")
    assert bytes(view) == old
    assert bytes(new) == b"b" * 6000
    sliced = view[10:20]
    view.release()  # a slice keeps the mapping alive
    assert bytes(sliced) == b"a" * 10
    sliced.release()
    new.release()
    assert all_files(root) == []


def test_partial_reads_do_not_read_whole_files(store, monkeypatch):
    store.set("shard", bytes(range(200)) * 10000)
    sizes = []
    real_pread = os.pread

    def pread(fd, n, offset):
        sizes.append(n)
        return real_pread(fd, n, offset)

    monkeypatch.setattr(local_mod.os, "pread", pread)
    got = store.get_partial_values([("shard", -16, None), ("shard", 1000, 8), ("shard", 0, 0)])
    assert got == [(bytes(range(200)) * 10000)[-16:], bytes(range(200))[0:8], b""]
    assert sizes == [16, 8]


def test_partial_reads_open_each_file_once(store, monkeypatch):
    store.set("a", b"0123456789")
    store.set("b", b"abcdefghij")
    opened = []
    real_open = os.open

    def spy_open(path, flags, *args):
        opened.append(os.path.basename(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(local_mod.os, "open", spy_open)
    got = store.get_partial_values([("a", 0, 2), ("b", 0, 2), ("a", -2, None), ("b", 5, 1)])
    assert got == [b"01", b"ab", b"89", b"f"]
    assert sorted(opened) == ["a", "b"]


# -- erase -----------------------------------------------------------------------------


def test_erase_removes_empty_directories_but_not_root(store, root):
    store.set("a/b/c/d", b"1")
    store.set("a/x", b"2")
    store.erase("a/b/c/d")
    assert sorted(os.listdir(root / "a")) == ["x"]
    store.erase("a/x")
    assert root.is_dir() and os.listdir(root) == []


def test_erase_prefix_removes_directories(store, root):
    for key in ["g/a/c/0", "g/a/c/1", "g/a/zarr.json", "g/b/zarr.json", "g/zarr.json"]:
        store.set(key, b"x")
    store.erase_prefix("g/a")
    assert all_files(root) == ["g/b/zarr.json", "g/zarr.json"]
    assert not (root / "g" / "a").exists()
    store.erase_prefix("g/b/")
    assert os.listdir(root / "g") == ["zarr.json"]
    store.erase_prefix("")
    assert root.is_dir() and os.listdir(root) == []


def test_erase_prefix_removes_leftover_temporary_files(store, root):
    store.set("a/k", b"1")
    (root / "a" / TEMP).write_bytes(b"crash")
    store.erase_prefix("a/")
    assert os.listdir(root) == []


def test_erase_prefix_does_not_follow_symlinks(tmp_path, store, root):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_bytes(b"keep me")
    store.set("a/k", b"1")
    os.symlink(outside, root / "a" / "link")
    store.erase_prefix("a")
    assert (outside / "precious").read_bytes() == b"keep me"
    assert os.listdir(root) == []


def test_set_vectored_writes_the_pieces_in_order(store, root, monkeypatch):
    pieces = [b"a" * 5, b"", bytearray(b"bc"), memoryview(b"d" * 3000)[1000:], b"e"]
    real = os.writev
    seen = []

    def short_writev(fd, buffers):  # at most 7 bytes per call: every resume path is taken
        seen.append(len(buffers))
        return real(fd, [memoryview(buffers[0])[:7]])

    monkeypatch.setattr(local_mod.os, "writev", short_writev)
    store.set_vectored("a/k", pieces)
    monkeypatch.undo()
    assert bytes(store.get("a/k")) == b"".join(bytes(p) for p in pieces)
    assert len(seen) > 1 and all_files(root) == ["a/k"]


def test_set_vectored_goes_through_a_subclass_set_hook(root):
    class Hooked(LocalStore):
        seen = []

        def _set(self, key, data):
            self.seen.append((key, bytes(data)))
            super()._set(key, data)

    s = Hooked(root)
    s.set_vectored("k", [b"ab", b"cd"])
    assert Hooked.seen == [("k", b"abcd")] and bytes(s.get("k")) == b"abcd"


@pytest.mark.parametrize("exists", [True, False])
def test_lock_serializes_read_modify_write_across_replacements(tmp_path, exists):
    """LocalStore.lock: every set replaces the file (a new inode), so a waiter must lock
    the file that is there when it gets the lock; threads incrementing one value under
    the lock lose no increment, from a key that exists or not yet."""
    import threading

    store = LocalStore(str(tmp_path / "s"))
    if exists:
        store.set("c/0", b"0")

    def bump(n):
        for _ in range(n):
            with store.lock("c/0"):
                old = store.get("c/0")
                store.set("c/0", str(int(bytes(old)) + 1 if old is not None else 1).encode())

    threads = [threading.Thread(target=bump, args=(60,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(bytes(store.get("c/0"))) == 240
    assert sorted(store.list()) == ["c/0"]  # no lock file left in the store


def test_lock_names_the_key_when_it_cannot_open(tmp_path):
    store = LocalStore(str(tmp_path / "s"))
    store.set("a/b", b"x")
    with pytest.raises(InvalidKeyError):
        with store.lock("../b"):
            pass
