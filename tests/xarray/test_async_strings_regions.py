"""What the rest of xarray's own zarr tests (tests/xarray/xarray_suite) found, each checked
against xarray's engine="zarr" on the same store: ``load_async`` (awaited reads, each
indexing kind, several objects at once), variable-length strings read as engine="zarr"
reads them (numpy's StringDType), an empty string array written as Zarr v2, a region
write whose slice does not fit the data refused with xarray's message, store calls no more
than xarray + zarr-python's (a region write lists nothing, yet reads each array's own
metadata, not a stale consolidated view), and DataArrays and None-named variables written
under xarray's reserved-prefix names as zarr-python writes them."""

import asyncio

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

import zarrhpc  # noqa: E402
import zarrhpc.xarray  # noqa: E402
from zarrhpc.xarray.backend import ZarrhpcBackendArray  # noqa: E402

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")]


def _ds():
    rng = np.random.default_rng(2)
    return xr.Dataset(
        {"a": (("t", "x"), rng.standard_normal((8, 6)), {"units": "m"}),
         "b": (("t", "x"), rng.integers(0, 100, (8, 6)).astype("i4")),
         "c": ("x", rng.random(6).astype("f4"))},
        coords={"t": np.arange(8) * 1.5, "x": np.arange(6)})


def _both(path):
    return (xr.open_dataset(path, engine="zarr", consolidated=False, chunks=None),
            xr.open_dataset(path, engine="zarrhpc", consolidated=False, chunks=None))


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_load_async_same_as_zarr_engine(tmp_path, zarr_format):
    path = tmp_path / "a.zarr"
    _ds().chunk({"t": 3}).to_zarr(path, zarr_format=zarr_format, consolidated=False)
    ref, ours = _both(path)
    expected = ref.load()

    async def main():
        whole = await ours.load_async()
        one = await ours["a"].load_async()
        var = await ours["b"].variable.load_async()
        return whole, one, var

    whole, one, var = asyncio.run(main())
    xr.testing.assert_identical(whole, expected)
    xr.testing.assert_identical(one, expected["a"])
    xr.testing.assert_identical(var, expected["b"].variable)
    assert all(v._in_memory for v in whole.variables.values())


@pytest.mark.parametrize("indexer", [
    {"t": 2}, {"t": slice(1, 7, 2)}, {"t": [0, 5, 2], "x": [4, 1]},  # basic, outer
    {"t": xr.Variable("p", [1, 6, 3]), "x": xr.Variable("p", [0, 5, 2])},  # vectorized
])
def test_load_async_each_indexing_kind(tmp_path, indexer, monkeypatch):
    path = tmp_path / "i.zarr"
    _ds().to_zarr(path, zarr_format=3, consolidated=False)
    ref, ours = _both(path)
    expected = ref.isel(indexer).load()
    awaited = []
    for name in ("_async_getitem", "_async_oindex", "_async_vindex"):
        original = getattr(ZarrhpcBackendArray, name)

        async def counted(self, key, _name=name, _original=original):
            awaited.append(_name)
            return await _original(self, key)

        monkeypatch.setattr(ZarrhpcBackendArray, name, counted)
    result = asyncio.run(ours.isel(indexer).load_async())
    xr.testing.assert_identical(result, expected)
    kinds = {"basic": "_async_getitem", "outer": "_async_oindex",
             "vectorized": "_async_vindex"}
    kind = ("vectorized" if any(isinstance(v, xr.Variable) for v in indexer.values())
            else "outer" if any(isinstance(v, list) for v in indexer.values()) else "basic")
    # one awaited read of the indexing kind per lazy variable (a, b, c; c lacks "t")
    assert awaited.count(kinds[kind]) >= 2 and len(awaited) == 3, awaited


def test_concurrent_load_async_of_several_objects(tmp_path):
    path = tmp_path / "c.zarr"
    _ds().to_zarr(path, zarr_format=3, consolidated=False)
    ref, ours = _both(path)
    expected = ref.load()

    async def main():
        return await asyncio.gather(*(ours.load_async() for _ in range(5)),
                                    *(ours["a"].load_async() for _ in range(3)))

    results = asyncio.run(main())
    for r in results[:5]:
        xr.testing.assert_identical(r, expected)
    for r in results[5:]:
        xr.testing.assert_identical(r, expected["a"])


def test_async_read_leaves_the_event_loop_free(tmp_path):
    # the read runs in a worker thread: while it waits for a coroutine scheduled alongside,
    # that coroutine runs (a read blocking the loop would wait in vain, then time out)
    import threading

    path = tmp_path / "f.zarr"
    zarrhpc.create_array(path, shape=(64, 64), chunks=(8, 8), dtype="f8")[...] = 1.0
    backend = ZarrhpcBackendArray(zarrhpc.open_array(path, mode="r"))
    started, ticked, seen = threading.Event(), threading.Event(), []
    cls = type(backend._array)

    class Waiting(cls):
        def __getitem__(self, key):
            started.set()
            seen.append(ticked.wait(timeout=5))
            return cls.__getitem__(self, key)

    backend._array.__class__ = Waiting

    async def ticker():
        while not started.is_set():
            await asyncio.sleep(0.001)
        ticked.set()

    async def main():
        from xarray.core import indexing

        key = indexing.BasicIndexer((slice(None), slice(None)))
        return await asyncio.gather(backend.async_getitem(key), ticker())

    value, _ = asyncio.run(main())
    np.testing.assert_array_equal(value, np.ones((64, 64)))
    assert seen == [True]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_vlen_strings_read_as_zarr_engine_reads_them(tmp_path, zarr_format):
    strings = np.array(["a", "bb", "", "dddd"], dtype=object)
    ds = xr.Dataset({"s": ("x", strings), "one": ((), np.array("zz", dtype=object))},
                    coords={"x": np.arange(4), "lab": ("x", strings)})
    path = tmp_path / "s.zarr"
    ds.to_zarr(path, zarr_format=zarr_format, consolidated=False)
    ref, ours = _both(path)
    for name in ("s", "one", "lab"):
        assert ours[name].dtype == ref[name].dtype, name
        assert ours[name].encoding.get("dtype") == ref[name].encoding.get("dtype"), name
    xr.testing.assert_identical(ref.load(), ours.load())
    assert type(ours["one"].values) is type(ref["one"].values)


def test_stringdtype_written_and_read_as_xarray(tmp_path):
    dtype = np.dtypes.StringDType()
    data = np.array(["a", "bb", "ccc"], dtype=dtype)
    ds = xr.Dataset({"d": ("x", data.copy()), "one": np.array("a", dtype=dtype)},
                    coords={"x": ("x", data.copy())})
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", zarr_format=3, consolidated=False)
    ds.to_zarr(tmp_path / "ref.zarr", zarr_format=3, consolidated=False)
    for path in (tmp_path / "ours.zarr", tmp_path / "ref.zarr"):
        ref, ours = _both(path)
        for name in ds.variables:
            assert ours[name].dtype == ref[name].dtype == dtype, (path, name)
        xr.testing.assert_identical(ours.load(), ref.load())
        xr.testing.assert_identical(ours.load(), ds)


def test_empty_vlen_string_array_v2(tmp_path):
    from xarray.coding.strings import create_vlen_dtype

    ds = xr.Dataset({"a": np.array([], dtype=create_vlen_dtype(str))})
    ds.to_zarr(tmp_path / "ref.zarr", zarr_format=2, consolidated=False)
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", zarr_format=2, consolidated=False)
    theirs = zarr.open_array(str(tmp_path / "ref.zarr" / "a"), mode="r")
    mine = zarr.open_array(str(tmp_path / "ours.zarr" / "a"), mode="r")
    assert mine.chunks == theirs.chunks == (1,)
    for path in (tmp_path / "ref.zarr", tmp_path / "ours.zarr"):
        ref, ours = _both(path)
        xr.testing.assert_identical(ref, ours)
        xr.testing.assert_identical(ours, ds)


def test_empty_and_long_string_chunks_as_zarr_python():
    # a variable-length type counts 1 byte per element in the automatic chunk shape
    for shape in [(0,), (3, 0), (10**7,)]:
        assert (zarrhpc.create_array({}, shape=shape, dtype=str, zarr_format=2).chunks
                == zarr.create_array({}, shape=shape, dtype=str, zarr_format=2).chunks)


def test_region_longer_than_data_refused_with_xarrays_message(tmp_path):
    ds = xr.Dataset({"u": ("x", np.arange(5.0))}, coords={"x": np.arange(5)})
    small = xr.Dataset({"u": ("x", [1.0, 2.0])})
    for name, write in (("ref", lambda d, p, **k: d.to_zarr(p, **k)),
                        ("ours", zarrhpc.xarray.to_zarr)):
        path = tmp_path / f"{name}.zarr"
        write(ds, path)
        with pytest.raises(ValueError, match=r"variable 'u' already exists with different "
                                             r"dimension sizes: \{'x': 3\} != \{'x': 2\}"):
            write(small, path, region={"x": slice(3)})
        # nothing was written
        np.testing.assert_array_equal(xr.open_zarr(path)["u"].values, np.arange(5.0))


def test_store_requests_no_more_than_xarray_with_zarr_python():
    # each store call is a request on an object store: a new write (mode "w-") and an
    # append make no more get/list_dir calls than xarray + zarr-python on the same store
    first = xr.Dataset({"foo": ("x", [1])}, coords={"x": [0]})
    more = xr.Dataset({"foo": ("x", [2])}, coords={"x": [1]})
    counts = {}
    for name, write in (("ref", lambda d, s, **k: d.to_zarr(s, **k)),
                        ("ours", zarrhpc.xarray.to_zarr)):
        store, steps = _counting_store(), []
        for ds, kwargs in ((first, {}), (more, {"mode": "a", "append_dim": "x"})):
            type(store).calls.clear()
            write(ds, store, zarr_format=3, consolidated=False, **kwargs)
            steps.append(dict(type(store).calls))
        counts[name] = steps
        xr.testing.assert_identical(xr.open_zarr(store, consolidated=False).load(),
                                    xr.concat([first, more], dim="x"))
    for ours, ref in zip(counts["ours"], counts["ref"]):
        for method in ("get", "list_dir"):
            assert ours.get(method, 0) <= ref.get(method, 0), (method, counts)


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("name", [None, "x", "plain"])
def test_dataarray_to_zarr_names_as_xarray(tmp_path, zarr_format, name):
    # an unnamed DataArray is written as "__xarray_dataarray_variable__" (one named after
    # its dimension too, its name kept in an attribute), as DataArray.to_zarr writes it
    # with zarr-python, reserved "__" prefix and all: the same nodes, read back the same
    da = xr.DataArray(np.arange(4.0), dims="x", coords={"x": [1, 2, 3, 4]}, name=name,
                      attrs={"units": "m"})
    zarrhpc.xarray.to_zarr(da, tmp_path / "ours.zarr", zarr_format=zarr_format)
    da.to_zarr(tmp_path / "ref.zarr", zarr_format=zarr_format)
    ref = zarr.open_group(tmp_path / "ref.zarr", mode="r")
    ours = zarr.open_group(tmp_path / "ours.zarr", mode="r")
    assert sorted(ours.array_keys()) == sorted(ref.array_keys())
    assert dict(ours.attrs) == dict(ref.attrs)
    for engine in ("zarr", "zarrhpc"):
        got = xr.open_dataarray(tmp_path / "ours.zarr", engine=engine).load()
        xr.testing.assert_identical(got, xr.open_dataarray(tmp_path / "ref.zarr",
                                                           engine="zarr").load())
        xr.testing.assert_identical(got, da)


def test_variable_named_none_written_as_xarray(tmp_path):
    # a variable named None is written as "__values__" and read back as None
    ds = xr.Dataset({None: ("x", np.arange(3))})
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ours.zarr", zarr_format=3)
    ds.to_zarr(tmp_path / "ref.zarr", zarr_format=3)
    assert sorted(zarr.open_group(tmp_path / "ours.zarr").array_keys()) == ["__values__"]
    for engine in ("zarr", "zarrhpc"):
        xr.testing.assert_identical(
            xr.open_dataset(tmp_path / "ours.zarr", engine=engine).load(),
            xr.open_dataset(tmp_path / "ref.zarr", engine="zarr").load())


def _counting_store():
    from collections import Counter

    from zarr.storage import MemoryStore

    class Counting(MemoryStore):
        calls = Counter()

        async def get(self, key, *args, **kwargs):
            type(self).calls["get"] += 1
            return await super().get(key, *args, **kwargs)

        async def list_dir(self, prefix):
            type(self).calls["list_dir"] += 1
            async for k in super().list_dir(prefix):
                yield k

    return Counting({}, read_only=False)


@pytest.mark.parametrize("region", [{"t": slice(2, 4), "x": slice(None)}, "auto"])
def test_region_write_lists_nothing_as_zarr_python(region):
    # a region write into a consolidated group: the members come from the consolidated
    # metadata (no listing: on an object store a LIST and a request per member), as
    # xarray reads them with zarr-python; then one read of each array's own document
    # (zarr-python trusts the consolidated view: 2 reads fewer here)
    ds = _ds().chunk({"t": 2})
    part = (ds.isel(t=slice(2, 4)) * 10).drop_vars("c")
    counts = {}
    for name, write in (("ref", lambda d, s, **k: d.to_zarr(s, **k)),
                        ("ours", zarrhpc.xarray.to_zarr)):
        store = _counting_store()
        write(ds, store, zarr_format=3, mode="w")
        type(store).calls.clear()
        write(part, store, region=region)
        counts[name] = dict(type(store).calls)
        got = xr.open_zarr(store, consolidated=False).load()
        xr.testing.assert_identical(got.isel(t=slice(2, 4)).drop_vars("c"), part.compute())
        xr.testing.assert_identical(got.drop_isel(t=[2, 3]), ds.drop_isel(t=[2, 3]).compute())
    assert counts["ours"].get("list_dir", 0) == 0, counts
    coordinate_chunks = len(ds.indexes) if region == "auto" else 0  # found from these
    assert counts["ours"].get("get", 0) <= 1 + len(ds.variables) + coordinate_chunks, counts


def test_region_write_reads_each_array_fresh_not_a_stale_consolidated_view(tmp_path):
    # the consolidated metadata names the arrays, but each array's own document decides
    # the encoding: "a" replaced after consolidation (other codecs, not consolidated
    # again) is written with its new codecs, not the stale ones
    path = tmp_path / "s.zarr"
    ds = _ds()
    zarrhpc.xarray.to_zarr(ds, path, zarr_format=3)
    old = zarrhpc.open_array(path, path="a", mode="r")
    new = zarrhpc.create_array(path, name="a", shape=old.shape, chunks=old.chunks,
                               dtype=old.dtype, compressors=None, fill_value=np.nan,
                               attributes=dict(old.attrs), overwrite=True,
                               dimension_names=old.metadata.dimension_names)
    new[...] = ds["a"].values
    stale = zarrhpc.open_group(path, mode="r").metadata.consolidated_metadata
    assert stale is not None and "a" in str(stale)  # the view still names zstd for "a"
    part = ds.isel(t=slice(2, 4)).drop_vars("c") + 1
    zarrhpc.xarray.to_zarr(part, path, region="auto")
    got = xr.open_dataset(path, engine="zarr", consolidated=False).load()
    want = ds.copy(deep=True)
    want["a"][2:4] += 1
    want["b"][2:4] += 1
    xr.testing.assert_identical(got, want)
