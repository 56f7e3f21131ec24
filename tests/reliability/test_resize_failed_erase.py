"""A shrink whose erase of the chunks past the new end fails after the metadata is stored.

Found by the hunt's fault programs (zarrhpc.testing.differential_faults) on S3 with failing
DELETEs: ``resize`` stores the new (smaller) shape first, then erases; when the erase
failed, the handle kept its old shape while the store had the new one. Growing through
that handle then erased only the chunks past its (old) shape, so the chunks left past the
new end came back with their old values where zarr-python shows the fill value.

Now the handle takes the stored metadata as soon as it is written; the error still
propagates. Expected values: zarr-python's, for the same shrink and grow without faults.
"""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.memory import MemoryStore

zarr = pytest.importorskip("zarr")


class FailingErase(MemoryStore):
    fail = False

    def _erase_values(self, keys):
        if self.fail:
            raise StoreError(f"{keys[0]}: erase failed (injected)")
        super()._erase_values(keys)

    def _erase(self, key):
        if self.fail:
            raise StoreError(f"{key}: erase failed (injected)")
        super()._erase(key)


@pytest.mark.parametrize("shards", [None, (4, 4)])
@pytest.mark.parametrize(("small", "big"), [((5, 3), (11, 7)), ((2, 7), (11, 9)), ((9, 1), (9, 7))])
def test_failed_erase_after_shrink_then_grow(shards, small, big):
    values = np.arange(1, 11 * 7 + 1, dtype="i4").reshape(11, 7)
    store = FailingErase()
    a = zarrhpc.create_array(store, shape=values.shape, chunks=(2, 2), shards=shards,
                             dtype="i4", fill_value=0)
    a[...] = values
    store.fail = True
    with pytest.raises(StoreError, match="erase failed"):
        a.resize(small)
    store.fail = False
    assert a.shape == small == zarrhpc.open_array(store).shape
    a.resize(big)
    z = zarr.create_array(zarr.storage.MemoryStore(), shape=values.shape, chunks=(2, 2),
                          shards=shards, dtype="i4", fill_value=0)
    z[...] = values
    z.resize(small)
    z.resize(big)
    np.testing.assert_array_equal(zarrhpc.open_array(store)[...], z[...])
    np.testing.assert_array_equal(a[...], z[...])
