"""What xarray's own zarr tests (tests/xarray/xarray_suite) found missing, each checked
against xarray's engine="zarr" / Dataset.to_zarr on the same data: zarr-python store
objects given to engine="zarrhpc" and zarrhpc.xarray.to_zarr, DataTrees (open_datatree,
open_groups, datatree_to_zarr), and to_zarr's safe_chunks / align_chunks."""

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
pytest.importorskip("dask")

import zarrhpc.xarray  # noqa: E402

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")]


def _ds():
    rng = np.random.default_rng(1)
    return xr.Dataset(
        {"t": (("time", "x"), rng.standard_normal((6, 5))), "n": ("x", np.arange(5))},
        coords={"time": np.arange(6) * 10, "x": list("abcde")},
        attrs={"title": "t"})


def _stores(kind, tmp_path):
    if kind == "memory":
        return zarr.storage.MemoryStore({}, read_only=False)
    return zarr.storage.LocalStore(tmp_path / "s.zarr")


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_python_stores_written_and_read(tmp_path, kind, zarr_format):
    ds = _ds()
    ours = _stores(kind, tmp_path / "ours")
    zarrhpc.xarray.to_zarr(ds, ours, zarr_format=zarr_format)
    # zarr-python sees what zarrhpc wrote into its own store object
    assert zarr.open_group(ours, mode="r")["t"].shape == (6, 5)
    with xr.open_zarr(ours) as ref, xr.open_dataset(ours, engine="zarrhpc") as got:
        xr.testing.assert_identical(ref.load(), got.load())
    # and zarrhpc reads what xarray (zarr-python) wrote there
    theirs = _stores(kind, tmp_path / "theirs")
    ds.to_zarr(theirs, zarr_format=zarr_format)
    with xr.open_zarr(theirs) as ref, \
            xr.open_dataset(theirs, engine="zarrhpc", chunks={}) as got:
        xr.testing.assert_identical(ref.load(), got.load())


def test_zarr_python_store_append_and_read_only(tmp_path):
    ds = _ds()
    store = zarr.storage.MemoryStore({}, read_only=False)
    zarrhpc.xarray.to_zarr(ds, store)
    zarrhpc.xarray.to_zarr(ds.assign_coords(time=ds.time + 60), store, append_dim="time")
    with xr.open_zarr(store) as got:
        assert got.sizes["time"] == 12
        np.testing.assert_array_equal(got["t"].values[6:], ds["t"].values)
    with pytest.raises(Exception, match="read-only|read_only"):
        zarrhpc.xarray.to_zarr(ds, store.with_read_only(True), mode="w")


def _tree():
    return xr.DataTree.from_dict({
        "/": xr.Dataset({"a": ("x", np.arange(3))}, attrs={"root": 1}),
        "/g1": xr.Dataset({"b": (("y", "x"), np.ones((2, 3)))}),
        "/g1/g2": xr.Dataset(attrs={"k": "v"}),
        "/h": xr.Dataset({"c": ("z", np.array([1.5, np.nan]))}),
    })


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_datatree_open_same_as_zarr_engine(tmp_path, zarr_format):
    path = tmp_path / "t.zarr"
    _tree().to_zarr(path, zarr_format=zarr_format)
    ref = xr.open_datatree(path, engine="zarr")
    got = xr.open_datatree(path, engine="zarrhpc")
    xr.testing.assert_identical(ref, got)
    xr.testing.assert_identical(xr.open_datatree(path, engine="zarr", group="g1"),
                                xr.open_datatree(path, engine="zarrhpc", group="g1"))
    assert (list(xr.open_groups(path, engine="zarr"))
            == list(xr.open_groups(path, engine="zarrhpc")))


@pytest.mark.parametrize("compute", [True, False])
def test_datatree_written_as_xarray_writes_it(tmp_path, compute):
    tree = _tree()
    tree.to_zarr(tmp_path / "ref.zarr")
    written = zarrhpc.xarray.datatree_to_zarr(tree.chunk(), tmp_path / "ours.zarr",
                                              compute=compute)
    if not compute:
        written.compute()
    ref = xr.open_datatree(tmp_path / "ref.zarr", engine="zarr")
    got = xr.open_datatree(tmp_path / "ours.zarr", engine="zarr")
    xr.testing.assert_identical(ref, got)
    # consolidated once at the end: zarr-python's consolidated view lists every node
    meta = zarr.open_group(tmp_path / "ours.zarr", mode="r").metadata.consolidated_metadata
    assert {"a", "g1", "g1/b", "g1/g2", "h", "h/c"} <= set(meta.flattened_metadata)


def test_safe_chunks_refused_as_xarray(tmp_path):
    ds = _ds().chunk(time=(2, 3, 1))  # 3-wide dask chunk over Zarr chunks of 2
    enc = {"t": {"chunks": (2, 5)}}
    with pytest.raises(ValueError, match="would overlap multiple Dask chunks"):
        ds.to_zarr(tmp_path / "ref.zarr", encoding=enc)
    with pytest.raises(ValueError, match="would overlap multiple Dask chunks"):
        zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", encoding=enc)
    # safe_chunks=False writes anyway (one task at a time here: two tasks writing one
    # chunk at once lose one's part, in xarray's writer as in any); align_chunks=True
    # rechunks: the same stores as xarray's
    import dask

    for kw in ({"safe_chunks": False}, {"align_chunks": True}):
        with dask.config.set(scheduler="synchronous"):
            ds.to_zarr(tmp_path / "ref2.zarr", encoding=enc, mode="w", **kw)
            zarrhpc.xarray.to_zarr(ds, tmp_path / "ours2.zarr", encoding=enc, mode="w",
                                   **kw)
        with xr.open_zarr(tmp_path / "ref2.zarr") as ref, \
                xr.open_zarr(tmp_path / "ours2.zarr") as got:
            xr.testing.assert_identical(ref.load(), got.load())


def test_safe_chunks_on_append_as_xarray(tmp_path):
    ds = _ds()
    enc = {"t": {"chunks": (4, 5)}}
    more = ds.assign_coords(time=ds.time + 60).chunk(time=(3, 3))
    # the stored 6 rows end inside a chunk of 4: the first appended dask chunk (3) shares
    # that chunk with the second
    ds.to_zarr(tmp_path / "ref.zarr", encoding=enc)
    with pytest.raises(ValueError, match="would overlap multiple Dask chunks"):
        more.to_zarr(tmp_path / "ref.zarr", append_dim="time")
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", encoding=enc)
    with pytest.raises(ValueError, match="would overlap multiple Dask chunks"):
        zarrhpc.xarray.to_zarr(more, tmp_path / "ours.zarr", append_dim="time")
    with xr.open_zarr(tmp_path / "ours.zarr") as got:  # nothing appended (xarray has
        assert got.sizes["time"] == 6                    # resized its `time` by then)
    ds.to_zarr(tmp_path / "ref2.zarr", encoding=enc)
    more.to_zarr(tmp_path / "ref2.zarr", append_dim="time", align_chunks=True)
    zarrhpc.xarray.to_zarr(more, tmp_path / "ours.zarr", append_dim="time",
                           align_chunks=True)
    with xr.open_zarr(tmp_path / "ref2.zarr") as ref, \
            xr.open_zarr(tmp_path / "ours.zarr") as got:
        xr.testing.assert_identical(ref.load(), got.load())


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_empty_strings_survive_as_with_xarray(tmp_path, zarr_format):
    # v2 string arrays were written with fill value "" instead of null: xarray then
    # masked every real "" as missing (NaN) on reading, whichever engine read it
    ds = xr.Dataset({"s": ("x", np.array(["a", "", "ccc", ""], dtype=object)),
                     "n": ("x", np.array(["ab", "cdef", np.nan, ""], dtype=object))})
    ds.to_zarr(tmp_path / "ref.zarr", zarr_format=zarr_format)
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", zarr_format=zarr_format)
    for engine in ("zarr", "zarrhpc"):
        with xr.open_dataset(tmp_path / "ref.zarr", engine=engine) as ref, \
                xr.open_dataset(tmp_path / "ours.zarr", engine=engine) as got:
            xr.testing.assert_identical(ref.load(), got.load())
            assert got["s"].values.tolist() == ["a", "", "ccc", ""]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_opened_with_zarrhpc_written_by_xarray(tmp_path, zarr_format):
    # engine="zarrhpc" reports codecs as engine="zarr" does, so xarray's own to_zarr
    # (zarr-python) takes the encoding of a Dataset opened here
    ds = _ds()
    ds.to_zarr(tmp_path / "a.zarr", zarr_format=zarr_format,
               encoding={"t": {"chunks": (3, 5)}})
    with xr.open_dataset(tmp_path / "a.zarr", engine="zarrhpc") as opened, \
            xr.open_dataset(tmp_path / "a.zarr", engine="zarr") as ref:
        for name in opened.variables:
            for key in ("compressors", "filters", "serializer"):
                a = opened[name].encoding.get(key)
                b = ref[name].encoding.get(key)
                assert type(a) is type(b) and a == b, (name, key)
        opened.to_zarr(tmp_path / "b.zarr", zarr_format=zarr_format)
    with xr.open_zarr(tmp_path / "b.zarr") as back:
        xr.testing.assert_identical(back.load(), ds)
        assert back["t"].encoding["chunks"] == (3, 5)


def test_object_strings_and_unnamed_checks_as_xarray(tmp_path):
    ds = xr.Dataset({"s": ("x", np.array(["a", "bb"], dtype=object))})
    zarrhpc.xarray.to_zarr(ds, tmp_path / "o.zarr")
    with xr.open_zarr(tmp_path / "o.zarr") as got:
        xr.testing.assert_identical(got.load(), ds)
    bad = xr.Dataset({0: ("x", [1, 2])})
    with pytest.raises(TypeError, match="Invalid name 0"):
        zarrhpc.xarray.to_zarr(bad, tmp_path / "b.zarr")
    with pytest.raises(TypeError, match="Invalid attribute in Dataset.attrs"):
        zarrhpc.xarray.to_zarr(ds.assign_attrs(bad=xr.DataArray()), tmp_path / "c.zarr")
    with pytest.raises(ValueError, match="cannot set append_dim unless"):
        zarrhpc.xarray.to_zarr(ds, tmp_path / "o.zarr", mode="w", append_dim="x")


def _files(path):
    import os

    return sorted(os.path.relpath(os.path.join(d, f), path)
                  for d, _, fs in os.walk(path) for f in fs)


@pytest.mark.parametrize("write_empty", [True, False])
def test_append_write_empty_chunks_as_xarray(tmp_path, write_empty):
    # an append writes with the call's write_empty_chunks, not the stored default
    ds = xr.Dataset({"t": (("z", "y"), np.array([[np.nan, 1.0]]))})
    for name, write in (("ref", lambda d, p, **k: d.to_zarr(p, **k)),
                        ("ours", lambda d, p, **k: zarrhpc.xarray.to_zarr(d, p, **k))):
        write(ds, tmp_path / f"{name}.zarr", mode="w", encoding={"t": {"chunks": (1, 1)}},
              write_empty_chunks=write_empty)
        write(ds, tmp_path / f"{name}.zarr", mode="a", append_dim="z",
              write_empty_chunks=write_empty)
    assert _files(tmp_path / "ours.zarr" / "t") == _files(tmp_path / "ref.zarr" / "t")
    assert ("c/1/0" in _files(tmp_path / "ours.zarr" / "t")) == write_empty


def test_group_written_below_root_in_root_consolidated_view(tmp_path):
    path = tmp_path / "g.zarr"
    zarrhpc.xarray.to_zarr(_ds(), path)
    zarrhpc.xarray.to_zarr(_ds(), path, group="sub", mode="a")
    with xr.open_dataset(path, engine="zarr", group="sub", consolidated=True) as ref, \
            xr.open_dataset(path, engine="zarrhpc", group="sub") as got:
        xr.testing.assert_identical(ref.load(), got.load())
    assert "sub/t" in zarr.open_consolidated(path).metadata.consolidated_metadata \
        .flattened_metadata


@pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")  # zarr-python's ZipStore
def test_zarr_python_zip_store(tmp_path):                         # appends rewritten keys
    ds = _ds()
    with zarr.storage.ZipStore(tmp_path / "a.zip", mode="w") as store:
        zarrhpc.xarray.to_zarr(ds, store)
    with zarr.storage.ZipStore(tmp_path / "a.zip", mode="r") as store:
        with xr.open_zarr(store) as ref, xr.open_dataset(store, engine="zarrhpc") as got:
            xr.testing.assert_identical(ref.load(), got.load())
            xr.testing.assert_identical(got.load(), ds)
