"""xarray + dask with the work in other processes, engine="zarrhpc" against engine="zarr"
doing the same steps: ``open_mfdataset(parallel=True)`` (each file opened in a worker and
the lazy Dataset pickled back), region writes made by ``dask.distributed`` worker
processes into a store whose metadata was written first (``compute=False``), with xarray's
``safe_chunks`` refusal, and ``to_zarr(compute=False)`` computed on the cluster. The
Datasets read back, their encodings and the stores' array metadata must be identical."""

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
distributed = pytest.importorskip("distributed")

import zarrhpc  # noqa: E402
import zarrhpc.xarray  # noqa: E402

pytestmark = pytest.mark.interop


def _dataset():
    rng = np.random.default_rng(1)
    ds = xr.Dataset(
        {"t2m": (("time", "y", "x"), rng.standard_normal((8, 6, 5)).astype("f4"),
                 {"units": "K"}),
         "pr": (("time", "y", "x"), rng.random((8, 6, 5))),
         "mask": (("y", "x"), np.arange(30).reshape(6, 5).astype("i2"))},
        coords={"time": np.arange(8).astype("datetime64[D]").astype("datetime64[ns]"),
                "y": np.linspace(0.0, 1.0, 6), "x": np.arange(5) * 2})
    ds["pr"][1, 2, 3] = np.nan
    ds["pr"].encoding.update(scale_factor=0.01, add_offset=1.0, dtype="i2", _FillValue=-9999)
    ds["time"].encoding.update(units="days since 2000-01-01")
    for name in ("t2m", "pr"):
        ds[name].encoding["chunks"] = (2, 6, 5)
    return ds


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as c:  # the default scheduler inside the tests
        yield c


def _assert_same_value(a, b, what):
    """Equal, NaN equal to NaN, and of the same type (a float32 NaN is not a float NaN)."""
    assert type(a) is type(b) and (a == b or (a != a and b != b)), (what, a, b)


def _assert_identical_stores(ref_path, our_path):
    """The Datasets, their encodings and each array's metadata (as zarr-python reads it)."""
    ref, ours = xr.open_zarr(ref_path), xr.open_zarr(our_path)
    xr.testing.assert_identical(ref.load(), ours.load())
    for name in ref.variables:
        for key in ("units", "scale_factor", "add_offset", "dtype", "_FillValue", "chunks"):
            _assert_same_value(ref[name].encoding.get(key), ours[name].encoding.get(key),
                               (name, key))
    a, b = zarr.open_group(ref_path, mode="r"), zarr.open_group(our_path, mode="r")
    assert sorted(a.array_keys()) == sorted(b.array_keys())
    for name in a.array_keys():
        ra, rb = a[name], b[name]
        dims = [getattr(r.metadata, "dimension_names", None) for r in (ra, rb)]
        assert (ra.shape, ra.chunks, ra.dtype, dims[0]) == \
            (rb.shape, rb.chunks, rb.dtype, dims[1]), name
        assert dict(ra.attrs) == dict(rb.attrs), name
        np.testing.assert_array_equal(ra[...], rb[...])


def _assert_written(path, ds):
    """Every value written (``pr`` to its packing's precision)."""
    back = xr.open_zarr(path).load()
    np.testing.assert_array_equal(back["t2m"].values, ds["t2m"].values)
    np.testing.assert_allclose(back["pr"].values, ds["pr"].values, atol=0.006)
    assert np.isnan(back["pr"].values[1, 2, 3])


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_open_mfdataset_parallel_same_as_engine_zarr(tmp_path, client, zarr_format):
    ds = _dataset()
    paths = []
    for i in range(4):
        path = tmp_path / f"part{i}.zarr"
        ds.isel(time=slice(2 * i, 2 * i + 2)).to_zarr(path, zarr_format=zarr_format)
        paths.append(path)
    kw = dict(combine="by_coords", parallel=True, chunks={}, data_vars="minimal",
              coords="minimal", compat="override", join="exact")
    ours = xr.open_mfdataset(paths, engine="zarrhpc", **kw)
    ref = xr.open_mfdataset(paths, engine="zarr", **kw)
    # lazy: each variable one dask chunk per file and Zarr chunk, read in the workers
    assert ours["t2m"].chunks == ref["t2m"].chunks == ((2, 2, 2, 2), (6,), (5,))
    xr.testing.assert_identical(ours, ref)
    xr.testing.assert_identical(ours.compute(), ref.compute())
    np.testing.assert_array_equal(ours["t2m"].values, ds["t2m"].values)
    for name in ("t2m", "pr"):
        for key in ("units", "scale_factor", "add_offset", "dtype", "_FillValue"):
            _assert_same_value(ref[name].encoding.get(key), ours[name].encoding.get(key),
                               (name, key))


def _write_region(writer, ds, path, start, stop):
    """A worker's task: its slice of ``ds`` into the store at ``path``."""
    part = ds.isel(time=slice(start, stop)).drop_vars(["mask", "y", "x"])
    if writer == "zarrhpc":
        zarrhpc.xarray.to_zarr(part, path, region={"time": slice(start, stop)})
    else:
        part.to_zarr(path, region={"time": slice(start, stop)})
    return start


def _template(writer, ds, path, zarr_format):
    if writer == "zarrhpc":
        zarrhpc.xarray.to_zarr(ds, path, compute=False, zarr_format=zarr_format)
    else:
        ds.to_zarr(path, compute=False, zarr_format=zarr_format)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_region_writes_from_workers_same_as_engine_zarr(tmp_path, client, zarr_format):
    ds = _dataset().chunk({"time": 2})
    paths = {}
    for writer in ("zarr", "zarrhpc"):
        path = paths[writer] = tmp_path / f"{writer}.zarr"
        _template(writer, ds, path, zarr_format)  # metadata, coordinates, no data
        assert zarr.open_group(path, mode="r")["t2m"].nchunks_initialized == 0
        # two regions per worker task, whole Zarr chunks each: no two tasks share a chunk
        futures = client.map(_write_region, [writer] * 2, [ds.compute()] * 2,
                             [str(path)] * 2, [0, 4], [4, 8])
        assert sorted(client.gather(futures)) == [0, 4]
    _assert_identical_stores(paths["zarr"], paths["zarrhpc"])
    _assert_written(paths["zarrhpc"], ds)


def test_region_safe_chunks_refused_as_engine_zarr(tmp_path, client):
    ds = _dataset().chunk({"time": 2})
    for writer in ("zarr", "zarrhpc"):
        path = tmp_path / f"{writer}.zarr"
        _template(writer, ds, path, 3)
        # dask chunks (1, 2) over Zarr chunks of 2 starting at 1: two tasks would share the
        # chunk 2..4 of the store; both writers refuse before writing
        part = ds.isel(time=slice(1, 4)).drop_vars(["mask", "y", "x"]).chunk({"time": (1, 2)})
        with pytest.raises(ValueError, match="safe_chunks"):
            if writer == "zarrhpc":
                zarrhpc.xarray.to_zarr(part, path, region={"time": slice(1, 4)})
            else:
                part.to_zarr(path, region={"time": slice(1, 4)})
        assert zarr.open_group(path, mode="r")["t2m"].nchunks_initialized == 0


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_compute_false_then_compute_on_cluster(tmp_path, client, zarr_format):
    ds = _dataset().chunk({"time": 2})
    ref, ours = tmp_path / "ref.zarr", tmp_path / "ours.zarr"
    ds.to_zarr(ref, compute=False, zarr_format=zarr_format).compute()
    delayed = zarrhpc.xarray.to_zarr(ds, ours, compute=False, zarr_format=zarr_format)
    assert zarrhpc.open_group(ours, mode="r")["t2m"].nchunks_initialized == 0
    delayed.compute()  # the chunk writes run in the worker processes
    _assert_identical_stores(ref, ours)
    _assert_written(ours, ds)
