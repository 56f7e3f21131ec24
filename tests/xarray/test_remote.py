"""xarray on an S3 store, as xarray users reach one: ``xr.open_dataset(url,
engine="zarrhpc", storage_options=...)`` (or ``backend_kwargs=``),
``zarrhpc.xarray.open_zarr(url, storage_options=...)`` in place of ``xr.open_zarr``, and
``zarrhpc.xarray.to_zarr(ds, url, storage_options=...)``, each compared with xarray's own
``engine="zarr"`` (zarr-python over s3fs) on the same bucket of a loopback moto server
(zarrhpc.testing.servers): identical Datasets, values and encodings, whichever library
wrote. Then dask.distributed worker processes compute from, and write to, a remote-backed
Dataset: each task unpickles the store by reference (URL and options) and reopens it.
"""

import pickle
import uuid

import numpy as np
import pandas as pd
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
pytest.importorskip("moto.server")
pytest.importorskip("s3fs")

import zarrhpc  # noqa: E402
import zarrhpc.xarray  # noqa: E402
from zarrhpc.testing.servers import S3Server  # noqa: E402

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")]

BUCKET = "xarray-remote"
BACKENDS = ["obstore", "fsspec"]


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        server.create_bucket(BUCKET)
        yield server


@pytest.fixture
def url():
    """A fresh root in the bucket."""
    return f"s3://{BUCKET}/{uuid.uuid4().hex}/data.zarr"


def _options(s3) -> dict:
    """storage_options as an xarray user writes them for s3fs (engine="zarr")."""
    return {"endpoint_url": s3.endpoint, "key": s3.access_key, "secret": s3.secret_key,
            "client_kwargs": {"region_name": s3.region}}


def _ours(s3, backend) -> dict:
    """The same options for zarrhpc, with its backend chosen."""
    return dict(_options(s3), backend=backend)


def _dataset() -> "xr.Dataset":
    """Several dimensions, CF-encoded times, scale_factor/_FillValue, strings."""
    rng = np.random.default_rng(7)
    ds = xr.Dataset(
        {"t2m": (("time", "y", "x"), rng.standard_normal((6, 5, 8)).astype("f4"),
                 {"units": "K"}),
         "pr": (("time", "y", "x"), rng.random((6, 5, 8))),
         "mask": (("y", "x"), np.arange(40).reshape(5, 8).astype("i2"))},
        coords={"time": pd.date_range("2001-01-01", periods=6, freq="D"),
                "y": np.linspace(0.0, 1.0, 5), "x": np.arange(8),
                "station": ("x", np.array(list("abcdefgh")))},
        attrs={"title": "remote"})
    ds["pr"][1, 2, 3] = np.nan
    ds["pr"].encoding.update(scale_factor=0.01, dtype="i2", _FillValue=-1)
    ds["t2m"].encoding.update(chunks=(2, 5, 4))
    ds["time"].encoding.update(units="days since 2001-01-01")
    return ds


def _codecs(enc) -> dict:
    """An encoding with its codecs as JSON (zarr-python and zarrhpc objects compare)."""
    out = {}
    for key, value in enc.items():
        if key in ("compressors", "filters"):
            value = [c.to_dict() if hasattr(c, "to_dict") else c.get_config()
                     for c in value or ()]
        elif key == "serializer" and value is not None:
            value = value.to_dict()
        out[key] = value
    return out


def _assert_same(ref, ours) -> None:
    xr.testing.assert_identical(ref, ours)
    for name in ref.variables:
        a = _codecs(ref[name].encoding)
        b = _codecs(ours[name].encoding)
        a.pop("source", None)
        b.pop("source", None)
        assert a.keys() == b.keys(), name
        for key in a:
            np.testing.assert_equal(a[key], b[key], err_msg=f"{name}: {key}")
    xr.testing.assert_identical(ref.load(), ours.load())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("consolidated", [True, False])
def test_open_remote_same_as_engine_zarr(s3, url, backend, zarr_format, consolidated):
    _dataset().to_zarr(url, storage_options=_options(s3), zarr_format=zarr_format,
                       consolidated=consolidated)
    ref = xr.open_dataset(url, engine="zarr", storage_options=_options(s3),
                          consolidated=consolidated)
    ours = xr.open_dataset(url, engine="zarrhpc", storage_options=_ours(s3, backend),
                           consolidated=consolidated)
    assert not isinstance(ours["t2m"].variable._data, np.ndarray)  # lazy until asked
    _assert_same(ref, ours)
    # backend_kwargs, as xarray documents for any engine
    kw = xr.open_dataset(url, engine="zarrhpc", consolidated=consolidated,
                         backend_kwargs={"storage_options": _ours(s3, backend)})
    xr.testing.assert_identical(kw.load(), ref.load())
    # selections reach the remote store through the backend array
    xr.testing.assert_identical(ref.isel(time=[0, 4], x=slice(1, 7, 2)).load(),
                                ours.isel(time=[0, 4], x=slice(1, 7, 2)).load())


@pytest.mark.parametrize("backend", BACKENDS)
def test_open_zarr_remote_same_as_xr_open_zarr(s3, url, backend):
    pytest.importorskip("dask")
    _dataset().to_zarr(url, storage_options=_options(s3))
    ref = xr.open_zarr(url, storage_options=_options(s3))
    ours = zarrhpc.xarray.open_zarr(url, storage_options=_ours(s3, backend))
    assert ours["t2m"].data.chunks == ref["t2m"].data.chunks == ((2, 2, 2), (5,), (4, 4))
    _assert_same(ref, ours)
    assert zarrhpc.xarray.open_zarr(url, storage_options=_ours(s3, backend),
                                    chunks=None)["t2m"].chunks is None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dask_data", [False, True])
def test_to_zarr_remote_read_by_engine_zarr(s3, url, backend, zarr_format, dask_data):
    ds = _dataset()
    if dask_data:
        pytest.importorskip("dask")
        ds = ds.chunk({"time": 2, "x": 4})
    zarrhpc.xarray.to_zarr(ds, url, storage_options=_ours(s3, backend),
                           zarr_format=zarr_format)
    ref_url = url.replace("data.zarr", "ref.zarr")
    ds.to_zarr(ref_url, storage_options=_options(s3), zarr_format=zarr_format)
    ref = xr.open_zarr(ref_url, storage_options=_options(s3))
    ours = xr.open_zarr(url, storage_options=_options(s3))  # zarr-python reads ours
    _assert_same(ref, ours)
    # the values written: exact, but "pr" packed to 0.01 steps (scale_factor, int16)
    want = ds.compute()
    xr.testing.assert_identical(ours.drop_vars("pr").load(), want.drop_vars("pr"))
    np.testing.assert_allclose(ours["pr"].values, want["pr"].values, atol=0.005 + 1e-12)
    assert zarr.open_group(url, mode="r", storage_options=_options(s3)).metadata \
        .consolidated_metadata is not None or zarr_format == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_append_and_region_on_remote(s3, url, backend):
    # the same three writes by zarrhpc and by xarray with zarr-python, each on its root
    ds = _dataset()
    part = ds.isel(time=slice(2, 4)).drop_vars(["mask", "station"])
    part["t2m"] = part["t2m"] * 0 + 5
    ref_url = url.replace("data.zarr", "ref.zarr")
    for target, write, opts in ((url, zarrhpc.xarray.to_zarr, _ours(s3, backend)),
                                (ref_url, xr.Dataset.to_zarr, _options(s3))):
        write(ds.isel(time=slice(0, 4)), target, storage_options=opts)
        write(ds.isel(time=slice(4, None)), target, storage_options=opts,
              append_dim="time")
        write(part, target, storage_options=opts, region="auto")
    ref = xr.open_zarr(ref_url, storage_options=_options(s3))
    _assert_same(ref, xr.open_zarr(url, storage_options=_options(s3)))
    assert ref.sizes["time"] == 6 and (ref["t2m"][2:4] == 5).all()
    # mode "w" replaces the whole group: the other variables go
    for target, write, opts in ((url, zarrhpc.xarray.to_zarr, _ours(s3, backend)),
                                (ref_url, xr.Dataset.to_zarr, _options(s3))):
        write(ds[["mask"]] * 2, target, storage_options=opts, mode="w")
    ref = xr.open_zarr(ref_url, storage_options=_options(s3))
    assert list(ref.data_vars) == ["mask"]
    _assert_same(ref, xr.open_zarr(url, storage_options=_options(s3)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_remote_dataset_pickles_by_reference(s3, url, backend):
    ds = _dataset()
    zarrhpc.xarray.to_zarr(ds, url, storage_options=_options(s3))
    lazy = xr.open_dataset(url, engine="zarrhpc", storage_options=_ours(s3, backend))
    blob = pickle.dumps(lazy)
    assert len(blob) < 20_000  # the store's URL and options, not the values
    xr.testing.assert_identical(pickle.loads(blob).load(), lazy.load())


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as cluster, \
            distributed.Client(cluster, set_as_default=False) as c:
        yield c


@pytest.mark.parametrize("backend", BACKENDS)
def test_distributed_computes_from_and_writes_to_remote(s3, url, client, backend):
    ds = _dataset()
    opts = _ours(s3, backend)
    zarrhpc.xarray.to_zarr(ds, url, storage_options=opts)
    lazy = xr.open_dataset(url, engine="zarrhpc", storage_options=opts, chunks={})
    # the tasks run in the worker processes, each reopening the remote store
    mean = client.compute(lazy["t2m"].mean("time").data).result()
    np.testing.assert_allclose(mean, ds["t2m"].mean("time").values, rtol=1e-6)
    total = client.compute(lazy["pr"].sum().data).result()
    packed = xr.open_dataset(url, engine="zarrhpc", storage_options=opts).load()["pr"]
    np.testing.assert_allclose(total, float(packed.sum()), rtol=1e-12)
    # a write from the workers: the dask chunks go up from each worker, then the
    # metadata is consolidated here
    out = url.replace("data.zarr", "out.zarr")
    delayed = zarrhpc.xarray.to_zarr(lazy[["t2m"]] * 2, out, storage_options=opts,
                                     compute=False)
    client.compute(delayed).result()
    back = xr.open_zarr(out, storage_options=_options(s3))
    xr.testing.assert_identical(back.load(), ds[["t2m"]] * 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_datatree_on_remote_same_as_engine_zarr(s3, url, backend):
    tree = xr.DataTree.from_dict({"/": _dataset()[["mask"]],
                                  "/daily": _dataset()[["t2m"]],
                                  "/daily/deep": xr.Dataset({"z": ("k", np.arange(3.0))})})
    zarrhpc.xarray.datatree_to_zarr(tree, url, storage_options=_ours(s3, backend))
    ref = xr.open_datatree(url, engine="zarr", storage_options=_options(s3))
    ours = xr.open_datatree(url, engine="zarrhpc", storage_options=_ours(s3, backend))
    xr.testing.assert_identical(ref.load(), ours.load())
    xr.testing.assert_identical(ours.load(), tree)
