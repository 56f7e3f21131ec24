"""zarrhpc.xarray.to_zarr with append_dim, region (slices and "auto"), mode "a" over
existing variables and compute=False, against xarray's own ``Dataset.to_zarr`` doing the
same steps: the stores read back by ``xr.open_zarr`` are identical (values, attrs and CF
encoding of the appended/overwritten parts)."""

import importlib.util
import pathlib

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

import zarrhpc  # noqa: E402
import zarrhpc.xarray  # noqa: E402

pytestmark = pytest.mark.interop

_spec = importlib.util.spec_from_file_location(
    "_zarrhpc_xr_backend_tests", pathlib.Path(__file__).with_name("test_backend.py"))
_backend = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_backend)
_dataset = _backend._dataset


def _both(tmp_path, steps):
    """Run ``steps(write)`` with xarray's writer and with ours; the two stores read back."""
    ref, ours = tmp_path / "ref.zarr", tmp_path / "ours.zarr"
    steps(lambda ds, **kw: ds.to_zarr(ref, **kw))
    steps(lambda ds, **kw: zarrhpc.xarray.to_zarr(ds, ours, **kw))
    return xr.open_zarr(ref), xr.open_zarr(ours)


def _assert_same(ref, ours):
    xr.testing.assert_identical(ref, ours)
    xr.testing.assert_identical(ref.load(), ours.load())
    for name in ref.variables:
        for key in ("units", "calendar", "scale_factor", "add_offset", "dtype", "chunks"):
            assert ref[name].encoding.get(key) == ours[name].encoding.get(key), (name, key)


def _maybe_chunk(ds, dask_data):
    if dask_data:
        pytest.importorskip("dask")
        return ds.chunk({"time": 2})
    return ds


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dask_data", [False, True])
def test_append_dim_same_as_xarray(tmp_path, zarr_format, dask_data):
    ds = _dataset()
    first, second = ds.isel(time=slice(0, 3)), ds.isel(time=slice(3, 5))
    second = second.assign(t2m=second["t2m"] + 100)  # appended values differ from the first

    def steps(write):
        write(_maybe_chunk(first, dask_data), zarr_format=zarr_format, mode="w")
        write(_maybe_chunk(second.drop_vars(["mask"]), dask_data), append_dim="time")
        write(_maybe_chunk(second.drop_vars(["mask"]), dask_data), append_dim="time")

    ref, ours = _both(tmp_path, steps)
    assert ours.sizes["time"] == 7
    _assert_same(ref, ours)
    # the appended times were encoded with the stored units, not new ones
    raw = zarrhpc.open_array(tmp_path / "ours.zarr", path="time", mode="r")[:]
    assert raw.tolist() == [0, 6, 12, 18, 24, 18, 24]


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dask_data", [False, True])
def test_region_slices_same_as_xarray(tmp_path, zarr_format, dask_data):
    ds = _dataset()
    # time 2:4 is whole Zarr chunks of t2m (2, 4, 5), as xarray's safe_chunks asks with dask
    part = (ds.isel(time=slice(2, 4)) * 2).drop_vars(["mask", "count", "x", "y"])
    part.attrs = {}

    def steps(write):
        write(_maybe_chunk(ds, dask_data), zarr_format=zarr_format, mode="w")
        write(_maybe_chunk(part.drop_vars("time"), dask_data),
              region={"time": slice(2, 4)})

    ref, ours = _both(tmp_path, steps)
    _assert_same(ref, ours)
    np.testing.assert_allclose(ours["t2m"].values[2:4], ds["t2m"].values[2:4] * 2)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_region_auto_same_as_xarray(tmp_path, zarr_format):
    ds = _dataset()
    part = ds.isel(time=slice(2, 4), x=slice(3, 6))[["t2m", "pr"]]
    part = part.assign(t2m=part["t2m"] - 50)

    def steps(write):
        write(ds, zarr_format=zarr_format, mode="w")
        write(part.drop_vars("y"), region="auto")

    ref, ours = _both(tmp_path, steps)
    _assert_same(ref, ours)
    np.testing.assert_allclose(ours["t2m"].values[2:4, :, 3:6],
                               ds["t2m"].values[2:4, :, 3:6] - 50)


def test_region_errors_as_xarray(tmp_path):
    ds = _dataset()
    path = tmp_path / "e.zarr"
    zarrhpc.xarray.to_zarr(ds, path)
    with pytest.raises(ValueError, match="at least one dimension in common"):
        zarrhpc.xarray.to_zarr(ds.isel(time=slice(0, 2)), path, region={"time": slice(0, 2)})
    with pytest.raises(KeyError, match="Not all values of coordinate"):
        shifted = ds.isel(time=slice(0, 2))[["t2m"]].drop_vars(["x", "y"])
        zarrhpc.xarray.to_zarr(shifted.assign_coords(time=shifted.time + np.timedelta64(1, "D")),
                               path, region="auto")
    with pytest.raises(ValueError, match="in both ``append_dim`` and ``region``"):
        zarrhpc.xarray.to_zarr(ds, path, append_dim="time", region="auto")
    with pytest.raises(ValueError, match="does not match any existing dataset dimensions"):
        zarrhpc.xarray.to_zarr(ds, path, append_dim="level")


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_mode_a_overwrites_existing_variables_as_xarray(tmp_path, zarr_format):
    ds = _dataset()

    def steps(write):
        write(ds, zarr_format=zarr_format, mode="w")
        write((ds[["t2m", "pr"]] + 1).assign(extra=ds["mask"] * 3), mode="a")

    _assert_same(*_both(tmp_path, steps))


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_compute_false_returns_delayed_write(tmp_path, zarr_format):
    pytest.importorskip("dask")
    from dask.delayed import Delayed

    ds = _dataset().chunk({"time": 2})
    ref_path, our_path = tmp_path / "ref.zarr", tmp_path / "ours.zarr"
    ds.to_zarr(ref_path, zarr_format=zarr_format)
    delayed = zarrhpc.xarray.to_zarr(ds, our_path, zarr_format=zarr_format, compute=False)
    assert isinstance(delayed, Delayed)
    # metadata is there, the dask data not yet (reads give the fill value)
    not_yet = zarrhpc.open_group(our_path, mode="r", use_consolidated=False)
    assert not_yet["t2m"].shape == ds["t2m"].shape and not_yet["t2m"].nchunks_initialized == 0
    delayed.compute()
    _assert_same(xr.open_zarr(ref_path), xr.open_zarr(our_path))
