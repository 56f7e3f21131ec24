"""The engine opens a store's root once per call and shares it among the call's chunks
(csrc/zh_job.c, job_root): nothing stays open after a call (no descriptor leaks, no
file system held busy) and a store removed, replaced or renamed away between calls is
never read from."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import zarrhpc

CODECS = [None, [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle"}}]]


def _write(path, data, compressors):
    a = zarrhpc.create_array(str(path), shape=data.shape, chunks=(8, 8, 8), dtype=data.dtype,
                             compressors=compressors, fill_value=-1, overwrite=True)
    a[...] = data
    return a


def _reads(a, data):
    """Every engine read path: a small box, a slice, points, orthogonal, one element."""
    np.testing.assert_array_equal(a[3:9, 2:7, 5:13], data[3:9, 2:7, 5:13])
    np.testing.assert_array_equal(a[...], data)
    idx = (np.array([0, 5, 17, 9]), np.array([1, 8, 3, 15]), np.array([2, 2, 14, 0]))
    np.testing.assert_array_equal(a.vindex[idx], data[idx])
    np.testing.assert_array_equal(a.oindex[[1, 9], :, [0, 15]], data[np.ix_([1, 9], range(16),
                                                                            [0, 15])])
    assert a[4, 9, 11] == data[4, 9, 11]


@pytest.mark.parametrize("compressors", CODECS, ids=["none", "blosc"])
@pytest.mark.parametrize("how", ["rmtree", "rename"])
def test_replaced_store_reads_the_new_data(tmp_path, compressors, how):
    path = tmp_path / "store"
    old = np.arange(18 * 16 * 16, dtype="f4").reshape(18, 16, 16)
    new = -old - 5
    _reads(_write(path, old, compressors), old)
    if how == "rmtree":
        shutil.rmtree(path)
    else:
        os.rename(path, tmp_path / "old")
    a = _write(path, new, compressors)
    _reads(a, new)
    _reads(zarrhpc.open_array(str(path), mode="r"), new)


def test_store_renamed_away_with_a_missing_chunk(tmp_path):
    """The new store holds a chunk the kept (renamed) directory lacks, and the other way
    round: each read answers from the directory at the path."""
    path = tmp_path / "store"
    data = np.arange(16 * 16 * 16, dtype="f4").reshape(16, 16, 16)
    a = _write(path, data, None)
    a[0:8, 0:8, 0:8] = -1  # the fill value: this chunk is erased
    want_old = data.copy()
    want_old[0:8, 0:8, 0:8] = -1
    np.testing.assert_array_equal(a[0:8, 0:8, 0:8], want_old[0:8, 0:8, 0:8])
    np.testing.assert_array_equal(a[8:16, 8:16, 8:16], want_old[8:16, 8:16, 8:16])
    os.rename(path, tmp_path / "old")
    b = _write(path, data + 1, None)
    b[8:16, 8:16, 8:16] = -1
    want_new = data + 1
    want_new[8:16, 8:16, 8:16] = -1
    np.testing.assert_array_equal(zarrhpc.open_array(str(path), mode="r")[...], want_new)
    np.testing.assert_array_equal(a[0:8, 0:8, 0:8], want_new[0:8, 0:8, 0:8])
    np.testing.assert_array_equal(a[8:16, 8:16, 8:16], want_new[8:16, 8:16, 8:16])


def test_more_stores_than_kept_roots(tmp_path):
    """Many stores read in turn: each call opens its own root, data stays right."""
    arrays = []
    for i in range(40):
        data = np.full((16, 16, 16), i, dtype="i4") + np.arange(16, dtype="i4")
        arrays.append((_write(tmp_path / f"s{i}", data, CODECS[i % 2]), data))
    for _ in range(2):
        for a, data in arrays[::-1] + arrays:
            np.testing.assert_array_equal(a[2:10, 3:12, 1:9], data[2:10, 3:12, 1:9])


def test_no_descriptor_stays_open(tmp_path):
    data = np.arange(18 * 16 * 16, dtype="f4").reshape(18, 16, 16)
    for i, comp in enumerate(CODECS):
        a = _write(tmp_path / f"s{i}", data, comp)
        _reads(a, data)
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(20):
            _reads(a, data)
            np.testing.assert_array_equal(a.vindex[data > 2000], data[data > 2000])
        assert len(os.listdir("/proc/self/fd")) == before
