"""Stores that implement zarr-python's Store API and nothing of zarrhpc's, given to
zarrhpc and to engine="zarrhpc" (zarrhpc/storage/zarr_python.py): a user's subclass of
zarr-python's MemoryStore, icechunk's session store (commit, reopen, read through zarrhpc
and xarray, compared with zarr-python on the same session), virtualizarr's ManifestStore."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
pytest.importorskip("dask")

import zarrhpc  # noqa: E402
import zarrhpc.xarray  # noqa: E402
from zarrhpc.storage.zarr_python import ZarrPythonStore, adapt  # noqa: E402

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*not safe for concurrent commits")]


def _ds():
    rng = np.random.default_rng(3)
    time = np.datetime64("2020-01-01") + np.arange(8).astype("timedelta64[D]")
    t = rng.standard_normal((8, 4, 5)).astype("f4")
    t[0, 0, 0] = np.nan
    return xr.Dataset(
        {"t": (("time", "y", "x"), t, {"units": "K"}),
         "q": (("y", "x"), rng.integers(0, 100, (4, 5)).astype("i2"))},
        coords={"time": time, "y": np.arange(4) * 0.5, "x": np.arange(5)},
        attrs={"title": "zarr-python stores"})


class Counting(zarr.storage.MemoryStore):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gets: Counter[str] = Counter()

    async def get(self, key, prototype, byte_range=None):
        self.gets[key] += 1
        return await super().get(key, prototype, byte_range)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_subclass_store_both_engines(zarr_format):
    ds = _ds()
    store = Counting()
    zarrhpc.xarray.to_zarr(ds, store, zarr_format=zarr_format,
                           encoding={"t": {"chunks": (2, 4, 5)}})
    assert store.gets  # the adapter was used, the store's own get called
    with xr.open_dataset(store, engine="zarr") as ref, \
            xr.open_dataset(store, engine="zarrhpc") as got:
        xr.testing.assert_identical(ref.load(), got.load())
    ds.to_zarr(theirs := Counting(), zarr_format=zarr_format)
    store.gets.clear()
    with xr.open_dataset(theirs, engine="zarrhpc", chunks={}) as got:
        xr.testing.assert_identical(ds, got.load())



def _repo(tmp_path):
    ic = pytest.importorskip("icechunk")
    return ic.Repository.create(ic.local_filesystem_storage(str(tmp_path / "repo")))


def test_icechunk_session_written_by_zarrhpc(tmp_path):
    repo = _repo(tmp_path)
    ds = _ds()
    session = repo.writable_session("main")
    assert type(adapt(session.store)) is ZarrPythonStore
    zarrhpc.xarray.to_zarr(ds, session.store, consolidated=False,
                           encoding={"t": {"chunks": (3, 2, 5)}})
    data = np.arange(60 * 40, dtype="u2").reshape(60, 40)
    a = zarrhpc.create_array(session.store, name="sub/sharded", shape=data.shape,
                             dtype=data.dtype, chunks=(10, 10), shards=(30, 40))
    a[...] = data
    session.commit("zarrhpc wrote this")
    readonly = repo.readonly_session(branch="main")
    assert adapt(readonly.store).read_only
    with xr.open_dataset(readonly.store, engine="zarr", consolidated=False) as ref, \
            xr.open_dataset(readonly.store, engine="zarrhpc", consolidated=False) as got:
        xr.testing.assert_identical(ref.load(), got.load())
        xr.testing.assert_identical(ds, got.load())
    np.testing.assert_array_equal(
        zarr.open_array(readonly.store, path="sub/sharded", mode="r")[...], data)
    b = zarrhpc.open_array(readonly.store, path="sub/sharded", mode="r")
    np.testing.assert_array_equal(b[5:55, 3:37], data[5:55, 3:37])
    with pytest.raises(Exception, match="read-only|read_only"):
        b[0, 0] = 1


def test_icechunk_session_written_by_zarr_python_and_updated(tmp_path):
    repo = _repo(tmp_path)
    ds = _ds()
    session = repo.writable_session("main")
    ds.to_zarr(session.store, consolidated=False)
    first = session.commit("xarray wrote this")
    # an update through zarrhpc, on a new session: the old snapshot keeps the old values
    session = repo.writable_session("main")
    t = zarrhpc.open_array(session.store, path="t", mode="r+")
    t[0] = 7.5
    session.commit("zarrhpc updated t[0]")
    new = repo.readonly_session(branch="main").store
    old = repo.readonly_session(snapshot_id=first).store
    for store, expected in ((old, ds), (new, ds.copy(deep=True))):
        if store is new:
            expected["t"][0] = 7.5
        with xr.open_dataset(store, engine="zarrhpc", consolidated=False) as got, \
                xr.open_dataset(store, engine="zarr", consolidated=False) as ref:
            xr.testing.assert_identical(ref.load(), got.load())
            xr.testing.assert_identical(expected, got.load())


def test_virtualizarr_manifest_store(tmp_path):
    """A ManifestStore (chunk references into a file) read through zarrhpc, compared
    with zarr-python on the same store."""
    pytest.importorskip("virtualizarr")
    manifests = pytest.importorskip("virtualizarr.manifests")
    obstore = pytest.importorskip("obstore")
    from obspec_utils.registry import ObjectStoreRegistry

    data = np.arange(6 * 8, dtype="<i4").reshape(6, 8)
    raw = tmp_path / "raw.bin"
    raw.write_bytes(data.tobytes())
    chunk = data.nbytes // 2  # two chunks of 3 rows each, uncompressed, one file
    entries = {"0.0": {"path": f"file://{raw}", "offset": 0, "length": chunk},
               "1.0": {"path": f"file://{raw}", "offset": chunk, "length": chunk}}
    manifest = manifests.ChunkManifest(entries=entries)
    from virtualizarr.manifests.utils import create_v3_array_metadata

    meta = create_v3_array_metadata(
        shape=data.shape, data_type=data.dtype, chunk_shape=(3, 8), fill_value=0,
        codecs=[{"name": "bytes", "configuration": {"endian": "little"}}],
        dimension_names=["y", "x"])
    marr = manifests.ManifestArray(metadata=meta, chunkmanifest=manifest)
    group = manifests.ManifestGroup(arrays={"a": marr}, attributes={})
    registry = ObjectStoreRegistry({"file://": obstore.store.LocalStore()})
    store = manifests.ManifestStore(group=group, registry=registry)
    np.testing.assert_array_equal(zarr.open_array(store, path="a", mode="r")[...], data)
    got = zarrhpc.open_array(store, path="a", mode="r")
    np.testing.assert_array_equal(got[...], data)
    np.testing.assert_array_equal(got[2:5, 1:7], data[2:5, 1:7])
    with xr.open_dataset(store, engine="zarr", consolidated=False) as ref, \
            xr.open_dataset(store, engine="zarrhpc", consolidated=False) as ours:
        xr.testing.assert_identical(ref.load(), ours.load())
