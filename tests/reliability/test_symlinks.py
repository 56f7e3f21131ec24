"""A LocalStore never follows a symbolic link out of its root, and refuses escaping keys.

Both read paths are covered: the Python one (`LocalStore.get`, metadata, shards) and the
native engine's (chunk reads of plain arrays open files themselves).
"""

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import InvalidKeyError, StoreError, ZarrhpcError
from zarrhpc.storage import LocalStore


@pytest.fixture
def outside(tmp_path):
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret").write_bytes(b"top secret" * 1000)
    return d


def test_link_to_a_file_outside_is_refused(tmp_path, outside):
    root = tmp_path / "store"
    store = LocalStore(root)
    store.set("a/x", b"1")
    os.symlink(outside / "secret", root / "a" / "link")
    with pytest.raises(StoreError, match="symbolic link"):
        store.get("a/link")
    with pytest.raises(StoreError, match="symbolic link"):
        store.get_partial_values([("a/link", 0, 4)])
    with pytest.raises(StoreError, match="symbolic link"):
        store.exists("a/link")
    assert bytes(store.get("a/x")) == b"1"


def test_link_at_the_root_to_a_file_outside_is_refused(tmp_path, outside):
    """Keys in the root's own directory skip the directory check (the root is inside by
    definition): the key's last part must still never be followed out."""
    root = tmp_path / "store"
    store = LocalStore(root)
    store.set("x", b"1")
    os.symlink(outside / "secret", root / "link")
    with pytest.raises(StoreError, match="symbolic link"):
        store.get("link")
    with pytest.raises(StoreError, match="symbolic link"):
        store.get_partial_values([("link", 0, 4)])
    with pytest.raises(StoreError, match="symbolic link"):
        store.exists("link")
    store.set("link", b"new")  # replaces the link, never writes through it
    assert (outside / "secret").read_bytes() == b"top secret" * 1000
    assert bytes(store.get("link")) == b"new"


def test_link_to_a_directory_outside_is_refused(tmp_path, outside):
    root = tmp_path / "store"
    store = LocalStore(root)
    store.set("a/x", b"1")
    os.symlink(outside, root / "d")
    with pytest.raises(StoreError, match="symbolic link"):
        store.get("d/secret")
    with pytest.raises(StoreError, match="symbolic link"):
        store.set("d/new", b"x")
    assert not (outside / "new").exists()


def test_links_inside_the_root_are_followed(tmp_path):
    root = tmp_path / "store"
    store = LocalStore(root)
    store.set("a/x", b"inside")
    os.symlink(root / "a" / "x", root / "a" / "y")
    os.symlink(root / "a", root / "b")
    assert bytes(store.get("a/y")) == b"inside"
    assert bytes(store.get("b/x")) == b"inside"


def test_a_linked_root_works(tmp_path):
    real = tmp_path / "real"
    LocalStore(real).set("k", b"v")
    os.symlink(real, tmp_path / "alias")
    assert bytes(LocalStore(tmp_path / "alias").get("k")) == b"v"


@pytest.mark.parametrize("key", ["../x", "a/../../x", "/etc/passwd", "a/./b", "a//b"])
def test_escaping_keys_are_refused(tmp_path, key):
    store = LocalStore(tmp_path)
    with pytest.raises(InvalidKeyError):
        store.get(key)
    with pytest.raises(InvalidKeyError):
        store.set(key, b"x")


@pytest.mark.parametrize("what", ["chunk", "chunk_dir", "metadata"])
def test_array_reads_never_follow_links_out(tmp_path, what):
    """Chunks (read by the native engine) and metadata (read in Python)."""
    root = tmp_path / "store"
    a = zarrhpc.create_array(str(root), shape=(8,), chunks=(4,), dtype="i4", fill_value=0)
    a[:] = np.arange(8)
    evil = tmp_path / "evil"
    b = zarrhpc.create_array(str(evil), shape=(8,), chunks=(4,), dtype="i4", fill_value=0)
    b[:] = np.arange(8) * 100
    if what == "chunk":
        os.unlink(root / "c" / "1")
        os.symlink(evil / "c" / "1", root / "c" / "1")
    elif what == "chunk_dir":
        os.rename(root / "c", tmp_path / "moved")
        os.symlink(evil / "c", root / "c")
    else:
        os.unlink(root / "zarr.json")
        os.symlink(evil / "zarr.json", root / "zarr.json")
    with pytest.raises(ZarrhpcError, match="symbolic link"):
        arr = zarrhpc.open_array(str(root))
        arr[:]
