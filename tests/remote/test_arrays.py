"""Arrays and groups on S3 through both backends, compared with numpy; pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage.remote import open_url

BACKENDS = ["obstore", "fsspec"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", ["<f4", ">i2", "u1", "<c16"])
def test_roundtrip_selections(s3_url, s3_options, backend, zarr_format, dtype):
    rng = np.random.default_rng(4)
    data = (rng.random((23, 17, 5)) * 100).astype(dtype)
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    a = zarrhpc.create_array(store, name="v", shape=data.shape, dtype=dtype, chunks=(6, 5, 5),
                             zarr_format=zarr_format, fill_value=0)
    a[...] = data
    a[2:9, 3, :] = 7
    data[2:9, 3, :] = 7
    b = zarrhpc.open_array(open_url(s3_url, storage_options=dict(s3_options,
                                                                 backend=backend)), path="v")
    for sel in [np.s_[...], np.s_[1:22:3, ::-2, 4], np.s_[-1, -1, -1], np.s_[5:6, 0:17, 1:3]]:
        np.testing.assert_array_equal(b[sel], data[sel])


@pytest.mark.parametrize("backend", BACKENDS)
def test_sharded_roundtrip_and_partial_shard_writes(s3_url, s3_options, backend):
    data = np.arange(48 * 40, dtype="<i4").reshape(48, 40)
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    a = zarrhpc.create_array(store, name="s", shape=data.shape, dtype="i4", chunks=(4, 5),
                             shards=(16, 20))
    a[...] = data
    a[10:30, 3:33] = -data[10:30, 3:33]
    data[10:30, 3:33] *= -1
    b = zarrhpc.open_array(store, path="s")
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(b[13:14, 19:22], data[13:14, 19:22])


@pytest.mark.parametrize("backend", BACKENDS)
def test_store_pickles_by_reference(s3_url, s3_options, backend):
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    g = zarrhpc.create_group(store, attributes={"title": "t"})
    a = g.create_array("x", shape=(12,), dtype="f8", chunks=(5,))
    a[...] = np.linspace(0, 1, 12)
    blob = pickle.dumps(store)
    assert len(blob) < 4096  # by reference: no data inside
    clone = pickle.loads(blob)
    np.testing.assert_array_equal(zarrhpc.open_array(clone, path="x")[...],
                                  np.linspace(0, 1, 12))
    g2 = zarrhpc.open_group(clone)
    assert g2.attrs["title"] == "t"
    assert [name for name, _ in g2.members()] == ["x"]


def test_set_values_uploads_and_erase(s3_url, s3_options, proxy):
    store = open_url(s3_url, storage_options=dict(s3_options, concurrency=8))
    items = [(f"d/{i}", np.full(1000, i, dtype="u1")) for i in range(30)]
    proxy.reset()
    store.set_values(items)
    assert proxy.counts["PUT"] == 30
    assert sorted(store.list_prefix("d")) == sorted(k for k, _ in items)
    store.erase_values([f"d/{i}" for i in range(0, 30, 2)])
    assert len(list(store.list_prefix("d/"))) == 15
    store.erase_prefix("d")
    assert list(store.list()) == []
