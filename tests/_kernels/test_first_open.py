"""The first chunk file of an engine call is opened by its full path when no symbolic
link lies on it (csrc/zh_job.c, open_no_links), the others through the store root's
descriptor.  Every read that opens exactly one chunk takes that first way, so each is
checked here against links: out of the root refused, inside the root followed, a linked
root read, and a missing chunk filled."""

from __future__ import annotations

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ZarrhpcError

CODECS = [None, [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle"}}]]


def _one_chunk_reads(a):
    """Reads of chunk (1, 0) only, through every engine path: a small box, a slice, one
    element, points, orthogonal indices and a mask."""
    mask = np.zeros(a.shape, dtype=bool)
    mask[9, 3] = mask[12, 7] = True
    return {
        "box": a[9:12, 2:5],
        "slice": a[8:16, :8],
        "element": a[10, 4],
        "points": a.vindex[[9, 15], [0, 7]],
        "oindex": a.oindex[[8, 13], [1, 6]],
        "mask": a.vindex[mask],
    }


def _expected(data):
    mask = np.zeros(data.shape, dtype=bool)
    mask[9, 3] = mask[12, 7] = True
    return {
        "box": data[9:12, 2:5],
        "slice": data[8:16, :8],
        "element": data[10, 4],
        "points": data[[9, 15], [0, 7]],
        "oindex": data[np.ix_([8, 13], [1, 6])],
        "mask": data[mask],
    }


def _make(path, compressors, scale=1):
    a = zarrhpc.create_array(str(path), shape=(16, 16), chunks=(8, 8), dtype="f4",
                             compressors=compressors, fill_value=-1, overwrite=True)
    data = np.arange(256, dtype="f4").reshape(16, 16) * scale
    a[...] = data
    return a, data


@pytest.mark.parametrize("compressors", CODECS, ids=["none", "blosc"])
@pytest.mark.parametrize("what", ["chunk", "chunk_dir"])
@pytest.mark.parametrize("read", ["box", "slice", "element", "points", "oindex", "mask"])
def test_a_link_out_of_the_root_is_refused(tmp_path, compressors, what, read):
    root, evil = tmp_path / "store", tmp_path / "evil"
    _make(root, compressors)
    _make(evil, compressors, scale=100)
    if what == "chunk":
        os.unlink(root / "c" / "1" / "0")
        os.symlink(evil / "c" / "1" / "0", root / "c" / "1" / "0")
    else:
        os.rename(root / "c" / "1", tmp_path / "moved")
        os.symlink(evil / "c" / "1", root / "c" / "1")
    a = zarrhpc.open_array(str(root), mode="r")
    with pytest.raises(ZarrhpcError, match="symbolic link"):
        _one_chunk_reads_one(a, read)


def _one_chunk_reads_one(a, read):
    return _one_chunk_reads(a)[read] if read != "element" else a[10, 4]


@pytest.mark.parametrize("compressors", CODECS, ids=["none", "blosc"])
@pytest.mark.parametrize("what", ["chunk", "chunk_dir", "root"])
def test_links_inside_the_root_and_a_linked_root_are_read(tmp_path, compressors, what):
    root = tmp_path / "store"
    _, data = _make(root, compressors)
    path = root
    if what == "chunk":
        os.rename(root / "c" / "1" / "0", root / "c" / "1" / "real")
        os.symlink("real", root / "c" / "1" / "0")  # (the engine refuses absolute links)
    elif what == "chunk_dir":
        os.rename(root / "c" / "1", root / "c" / "one")
        os.symlink("one", root / "c" / "1")  # relative, inside the root
    else:
        path = tmp_path / "alias"
        os.symlink(root, path)
    a = zarrhpc.open_array(str(path), mode="r")
    got, want = _one_chunk_reads(a), _expected(data)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("compressors", CODECS, ids=["none", "blosc"])
def test_a_missing_chunk_reads_the_fill_value(tmp_path, compressors):
    root = tmp_path / "store"
    _, data = _make(root, compressors)
    os.unlink(root / "c" / "1" / "0")
    data[8:16, :8] = -1
    a = zarrhpc.open_array(str(root), mode="r")
    got, want = _one_chunk_reads(a), _expected(data)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("compressors", CODECS, ids=["none", "blosc"])
def test_a_file_where_a_directory_is_expected_reads_missing(tmp_path, compressors):
    """ENOTDIR on the first way is "missing" there and on the root's way alike."""
    root = tmp_path / "store"
    _, data = _make(root, compressors)
    os.rename(root / "c" / "1", tmp_path / "moved")
    (root / "c" / "1").write_bytes(b"not a directory")
    a = zarrhpc.open_array(str(root), mode="r")
    np.testing.assert_array_equal(a[9:12, 2:5], np.full((3, 3), -1, dtype="f4"))
    assert a[10, 4] == -1
    np.testing.assert_array_equal(a[0:3, 0:3], data[0:3, 0:3])
