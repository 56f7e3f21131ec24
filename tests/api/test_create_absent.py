"""``overwrite=ABSENT`` (core/_create_args.py): ``to_zarr(mode="w-")`` lists the group's
prefix once (zarr-python's emptiness check for mode "w-") and then creates its variables
without a listing or look-up each; a prefix that holds anything keeps the full check and
erase, so nothing stale is read back as data."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.core._create_args import ABSENT
from zarrhpc.storage import MemoryStore

xr = pytest.importorskip("xarray")
zx = pytest.importorskip("zarrhpc.xarray")


class CountingStore(MemoryStore):
    """A MemoryStore that counts its listings and erases of a prefix."""

    def __init__(self):
        super().__init__()
        self.listed, self.erased = [], []

    def _list_prefix(self, prefix):
        self.listed.append(prefix)
        return super()._list_prefix(prefix)

    def _erase_prefix(self, prefix):
        self.erased.append(prefix)
        return super()._erase_prefix(prefix)


def _dataset():
    return xr.Dataset({"foo": ("x", np.array([1, 2, 3], "i4")),
                       "bar": ("x", np.array([4.5, 5.5, 6.5]))}, coords={"x": [0, 1, 2]})


def test_new_group_lists_its_prefix_once():
    store = CountingStore()
    zx.to_zarr(_dataset(), store, mode="w-", consolidated=False)
    assert store.listed == [""]  # the emptiness check; no listing per variable
    assert store.erased == []
    back = zarrhpc.open_group(store, mode="r")
    assert sorted(back.array_keys()) == ["bar", "foo", "x"]
    np.testing.assert_array_equal(back["foo"][:], [1, 2, 3])
    np.testing.assert_array_equal(back["bar"][:], [4.5, 5.5, 6.5])


def test_stray_chunks_below_a_new_group_are_erased():
    # chunks without any metadata document (left by an interrupted writer): the prefix is
    # not empty, so every variable is created with the full erase and reads its own data
    store = CountingStore()
    old = zarrhpc.create_array(store, name="foo", shape=(3,), chunks=(3,), dtype="i4",
                               compressors=None)
    old[:] = [7, 8, 9]
    store.erase_values(["foo/zarr.json", "zarr.json"])  # left: foo/c/0
    store.listed.clear()
    ds = _dataset()
    ds["foo"][:] = 0  # the fill value: no chunk is written for it
    zx.to_zarr(ds, store, mode="w-", consolidated=False)
    assert "foo/" in store.erased
    np.testing.assert_array_equal(zarrhpc.open_array(store, path="foo", mode="r")[:],
                                  [0, 0, 0])


def test_existing_group_still_refused():
    store = CountingStore()
    zx.to_zarr(_dataset(), store, mode="w-", consolidated=False)
    with pytest.raises(zarrhpc.errors.ContainsGroupError):
        zx.to_zarr(_dataset(), store, mode="w-", consolidated=False)


def test_absent_is_true_and_named():
    # code that only asks "overwrite?" treats ABSENT as overwrite=True
    assert bool(ABSENT) and repr(ABSENT) == "ABSENT"
    store = MemoryStore()
    g = zarrhpc.create_group(store)
    a = g.create_array("a", shape=(2,), dtype="i1", overwrite=ABSENT)
    a[:] = [1, 2]
    assert zarrhpc.open_array(store, path="a", mode="r")[:].tolist() == [1, 2]
