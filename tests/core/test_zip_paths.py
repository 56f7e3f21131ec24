"""Paths ending in .zip open as ZipStores with the meaning of each open mode."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ContainsArrayError, ReadOnlyError, StoreError
from zarrhpc.storage import ZipStore


def test_create_and_open_by_path(tmp_path):
    path = tmp_path / "run.ZIP"  # the suffix is matched without regard to case
    a = zarrhpc.create_array(str(path), name="t", shape=(6, 4), chunks=(4, 4), dtype="f8")
    a[...] = np.arange(24).reshape(6, 4)
    assert isinstance(a.store, ZipStore) and not a.store.read_only
    # opened again in the same process: sees the writes before any close
    r = zarrhpc.open(path, path="t", mode="r")
    assert isinstance(r.store, ZipStore) and r.read_only
    assert np.array_equal(r[...], np.arange(24).reshape(6, 4))
    with pytest.raises(ReadOnlyError):
        r[0, 0] = 1
    a.store.close()
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["t/c/0/0", "t/c/1/0", "t/zarr.json", "zarr.json"]


def test_modes_never_truncate_the_file(tmp_path):
    path = tmp_path / "h.zip"
    zarrhpc.create_array(path, name="keep", shape=(2,), dtype="i1")[...] = [1, 2]
    # mode "w" replaces the node at the path, not the whole zip
    g = zarrhpc.open_group(path, path="other", mode="w")
    g.store.close()
    root = zarrhpc.open_group(path)
    assert sorted(name for name, _ in root.members()) == ["keep", "other"]
    assert zarrhpc.open_array(path, path="keep")[...].tolist() == [1, 2]
    with pytest.raises(ContainsArrayError):
        zarrhpc.create_array(path, name="keep", shape=(2,), dtype="i1")
    b = zarrhpc.create_array(path, name="keep", shape=(3,), dtype="i1", overwrite=True)
    assert b[...].tolist() == [0, 0, 0]


def test_missing_zip_is_not_created_by_reading(tmp_path):
    path = tmp_path / "missing.zip"
    for mode in ("r", "r+"):
        with pytest.raises(StoreError, match="missing.zip"):
            zarrhpc.open(path, mode=mode)
    assert not path.exists()
    zarrhpc.open_group(path, mode="a").store.close()
    assert zipfile.ZipFile(path).namelist() == ["zarr.json"]
