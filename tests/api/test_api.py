"""zarrhpc's zarr-python 3 API against zarr-python itself, side by side: the same calls on
both libraries give the same shapes, chunks, dtypes, fill values, data, attributes, members
and error types, and each reads what the other wrote."""

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc import errors

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

pytestmark = pytest.mark.interop

TOP_LEVEL = ["array", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
             "full_like", "empty_like", "open_like", "from_array", "open", "open_array",
             "open_group", "open_consolidated", "consolidate_metadata", "create",
             "create_array", "create_group", "create_hierarchy", "group", "save",
             "save_array", "save_group", "load", "copy", "copy_all", "tree"]


def _same_array(ours, theirs):
    assert ours.shape == theirs.shape
    assert ours.chunks == theirs.chunks
    assert ours.shards == theirs.shards
    assert ours.dtype == theirs.dtype
    np.testing.assert_equal(ours.fill_value, theirs.fill_value)
    assert ours.zarr_format == theirs.metadata.zarr_format
    np.testing.assert_array_equal(ours[...], theirs[...])


def test_top_level_names_and_submodules():
    for name in TOP_LEVEL:
        assert callable(getattr(zarrhpc, name)), name
    for name in ("BloscCodec", "ZstdCodec", "GzipCodec", "BytesCodec", "TransposeCodec",
                 "Crc32cCodec", "ShardingCodec"):
        assert hasattr(zarrhpc.codecs, name), name
    for name in ("LocalStore", "MemoryStore", "ZipStore", "StorePath"):
        assert hasattr(zarrhpc.storage, name), name
    for name in zarr.errors.__all__:
        assert hasattr(zarrhpc.errors, name), name
    # the same bases where code catches them
    assert issubclass(errors.ContainsArrayError, ValueError)
    assert issubclass(errors.NodeNotFoundError, FileNotFoundError)
    assert issubclass(errors.NodeTypeValidationError, ValueError)


@pytest.mark.parametrize("func,args", [
    ("zeros", ((10000, 10000),)), ("ones", ((100, 3000),)), ("empty", ((7, 9, 11),)),
    ("full", ((50, 60), 3.5)), ("zeros", ((1_000_000,),)),
])
def test_convenience_creation_matches(func, args):
    ours = getattr(zarrhpc, func)(*args)
    theirs = getattr(zarr, func)(*args)
    assert isinstance(ours.store, zarrhpc.MemoryStore)
    if func != "empty":
        _same_array(ours, theirs)
    else:
        assert (ours.shape, ours.chunks, ours.dtype) == (theirs.shape, theirs.chunks,
                                                         theirs.dtype)


def test_like_functions_and_array():
    src = np.arange(120, dtype="i2").reshape(10, 12)
    for lib in (zarrhpc, zarr):
        a = lib.array(src, chunks=(5, 4))
        assert a.chunks == (5, 4)
        np.testing.assert_array_equal(a[...], src)
        z = lib.zeros_like(a)
        o = lib.ones_like(a)
        f = lib.full_like(a, fill_value=7)
        e = lib.empty_like(src)
        assert z.chunks == o.chunks == f.chunks == (5, 4) and e.shape == src.shape
        assert (z[...] == 0).all() and (o[...] == 1).all() and (f[...] == 7).all()
        assert z.dtype == o.dtype == f.dtype == np.dtype("i2")


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_create_array_with_data_and_codec_objects(tmp_path, zarr_format):
    data = np.arange(2000, dtype="f4").reshape(40, 50)
    if zarr_format == 3:
        kinds = [zarr.codecs.BloscCodec(cname="lz4", clevel=3, shuffle="bitshuffle"),
                 zarr.codecs.ZstdCodec(level=2), zarr.codecs.GzipCodec(level=4),
                 {"name": "zstd", "configuration": {"level": 1}},
                 zarrhpc.codecs.GzipCodec(level=2), numcodecs.Zstd(level=3),
                 {"id": "zlib", "level": 2}]
    else:
        kinds = [numcodecs.Blosc(cname="zstd", clevel=2), numcodecs.Zlib(level=1),
                 {"id": "gzip", "level": 3}]
        # a v3 codec object is refused for v2, as zarr-python refuses it
        with pytest.raises(ValueError, match="Invalid compressor"):
            zarrhpc.create_array({}, data=data, compressors=zarrhpc.codecs.ZstdCodec(level=1),
                                 zarr_format=2)
    for i, comp in enumerate(kinds):
        path = tmp_path / f"c{i}.zarr"
        a = zarrhpc.create_array(path, data=data, chunks=(16, 20), compressors=comp,
                                 zarr_format=zarr_format)
        assert a.shape == data.shape and a.dtype == data.dtype
        # zarr-python reads it back, the same values
        b = zarr.open_array(path, mode="r")
        np.testing.assert_array_equal(b[...], data)
        assert len(b.compressors) == 1
    with pytest.raises(ValueError, match="shape"):
        zarrhpc.create_array({}, data=data, shape=data.shape)


def test_sharding_codec_object_and_shards_auto(tmp_path):
    with pytest.warns(UserWarning, match="Automatic shard shape inference is experimental"):
        ours = zarrhpc.create_array({}, shape=(10000, 1000), dtype="f4", shards="auto")
    with pytest.warns(UserWarning):
        theirs = zarr.create_array({}, shape=(10000, 1000), dtype="f4", shards="auto")
    assert (ours.chunks, ours.shards) == (theirs.chunks, theirs.shards)
    data = np.arange(64, dtype="u2").reshape(8, 8)
    store = tmp_path / "s.zarr"
    a = zarrhpc.create_array(store, data=data, chunks=(4, 4), shards=(8, 8),
                             compressors=zarr.codecs.ZstdCodec(level=1))
    b = zarr.open_array(store, mode="r")
    assert b.shards == (8, 8) and b.chunks == (4, 4)
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(a[...], data)


@pytest.mark.parametrize("cke", [
    {"name": "default", "separator": "."},
    {"name": "default", "configuration": {"separator": "."}},
    ("default", "."),
    {"name": "v2", "separator": "/"},
])
def test_chunk_key_encoding_forms(cke):
    store_ours, store_theirs = {}, {}
    data = np.arange(12).reshape(3, 4)
    zarrhpc.create_array(store_ours, data=data, chunks=(2, 2), chunk_key_encoding=cke,
                         compressors=None)
    if isinstance(cke, tuple):
        cke = {"name": cke[0], "separator": cke[1]}
    zarr.create_array(store_theirs, data=data, chunks=(2, 2), chunk_key_encoding=cke,
                      compressors=None)
    assert sorted(store_ours) == sorted(store_theirs)


def test_chunk_key_encoding_object_from_zarr():
    from zarr.core.chunk_key_encodings import DefaultChunkKeyEncoding

    store = {}
    zarrhpc.create_array(store, data=np.arange(4), chunks=(2,),
                         chunk_key_encoding=DefaultChunkKeyEncoding(separator="."))
    assert "c.0" in store and "c.1" in store
    store = {}
    zarrhpc.create_array(store, data=np.arange(4), chunks=(2,), chunk_key_encoding="v2")
    assert "0" in store and "1" in store


def test_open_default_modes(tmp_path):
    # open and open_group default to "a": a missing path becomes a group, as zarr-python
    g = zarrhpc.open(tmp_path / "new.zarr")
    assert isinstance(g, zarrhpc.Group) and not g.read_only
    g2 = zarrhpc.open_group(tmp_path / "new2.zarr")
    assert isinstance(g2, zarrhpc.Group)
    a = zarrhpc.open(tmp_path / "arr.zarr", shape=(3,), dtype="i4")
    assert isinstance(a, zarrhpc.Array) and a.shape == (3,)
    assert isinstance(zarrhpc.open(tmp_path / "arr.zarr"), zarrhpc.Array)
    # open_array: existing arrays, writable unless mode="r"
    b = zarrhpc.open_array(tmp_path / "arr.zarr")
    b[0] = 5
    assert zarrhpc.open_array(tmp_path / "arr.zarr", mode="r")[0] == 5
    with pytest.raises(errors.ArrayNotFoundError, match="missing"):
        zarrhpc.open_array(tmp_path / "missing")
    assert not os.path.exists(tmp_path / "missing")
    with pytest.raises(errors.GroupNotFoundError):
        zarrhpc.open(tmp_path / "nothing.zarr", mode="r")
    for lib in (zarr, zarrhpc):
        with pytest.raises(FileNotFoundError):
            lib.open(tmp_path / "nothing.zarr", mode="r")
        with pytest.raises(lib.errors.ContainsArrayError):
            lib.open_group(tmp_path / "arr.zarr")
        with pytest.raises(lib.errors.NodeTypeValidationError):
            lib.open_array(tmp_path / "new.zarr")


def test_errors_match_zarr_python():
    for lib in (zarr, zarrhpc):
        store = lib.storage.MemoryStore()
        root = lib.create_group(store)
        root.create_array("a", shape=(2,), dtype="i4")
        with pytest.raises(lib.errors.ContainsArrayError):
            lib.create_array(store, name="a", shape=(2,), dtype="i4")
        with pytest.raises(lib.errors.ContainsArrayError):
            lib.create_group(store, path="a")
        with pytest.raises(lib.errors.ContainsGroupError):
            lib.create_group(store)
        with pytest.raises(KeyError):
            root["zz"]
        ro = lib.open_array(store.with_read_only(True) if hasattr(store, "with_read_only")
                            else store, path="a")
        with pytest.raises(ValueError):  # zarr-python raises a ValueError
            ro[0] = 1


def test_missing_node_names_store_and_path(tmp_path):
    with pytest.raises(errors.ArrayNotFoundError) as info:
        zarrhpc.open_array(tmp_path, path="x/y", mode="r")
    assert "x/y" in str(info.value) and str(tmp_path) in str(info.value)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_group_helpers_match_zarr_python():
    results = []
    for lib in (zarr, zarrhpc):
        g = lib.group()
        g["x"] = np.arange(10)
        g.create_dataset("d", shape=(4, 5), dtype="f8")
        g.require_dataset("d", shape=(4, 5), dtype="f8")
        with pytest.raises(TypeError):
            g.require_dataset("d", shape=(4, 6), dtype="f8")
        g.require_array("r", shape=(3,), dtype="i2")
        g.require_groups("p", "q")
        g.require_group("p").zeros(name="z", shape=(2, 2))
        g.ones(name="o", shape=(3,))
        g.full(name="f", shape=(3,), fill_value=2.5)
        g.zeros_like(name="zl", data=np.arange(6, dtype="u1"))
        g.update_attributes({"k": 1})
        del g["o"]
        results.append((
            sorted(g.array_keys()), sorted(g.group_keys()), sorted(g), g.nmembers(),
            g.nmembers(max_depth=None), "x" in g, "o" in g, dict(g.attrs),
            g["x"][...].tolist(), g["p/z"][...].tolist(), g["f"][...].tolist(),
            g["zl"].dtype, sorted(n for n, _ in g.members(max_depth=None)),
        ))
        with pytest.raises(ValueError):
            g.members(max_depth=-1)
    assert results[0] == results[1]


def test_array_attributes_match_zarr_python():
    data = np.arange(600, dtype="<i4").reshape(20, 30)
    out = []
    for lib in (zarr, zarrhpc):
        a = lib.create_array({}, data=data, chunks=(10, 10), attributes={"a": 1})
        a.update_attributes({"b": [1, 2]})
        a[:10, :10] = 0  # a chunk equal to the fill value: not stored
        out.append((a.nchunks, a.nchunks_initialized, a.read_only, a.order, a.shape[0],
                    [row.tolist() for row in a][:2], np.asarray(a).sum(), dict(a.attrs),
                    a.nbytes_stored(), len(a.compressors), len(a.filters)))
    assert out[0] == out[1]
    # zarr-python 3's Array has no __len__; zarrhpc keeps it (issue 16), numpy's meaning
    with pytest.raises(TypeError, match="object of type 'Array' has no len()"):
        len(zarr.create_array({}, shape=(20,), dtype="i4"))
    assert len(zarrhpc.create_array({}, shape=(20,), dtype="i4")) == 20


def test_stores_as_zarr_python_takes_them(tmp_path):
    d = {}
    a = zarrhpc.create_array(d, data=np.arange(4, dtype="i1"), chunks=(2,))
    assert "zarr.json" in d and "c/0" in d  # the dict backs the store
    assert zarrhpc.open_array(d)[...].tolist() == [0, 1, 2, 3]
    assert isinstance(a.store, zarrhpc.MemoryStore)
    sp = zarrhpc.StorePath(zarrhpc.LocalStore(tmp_path / "s"), "deep/er")
    zarrhpc.create_array(sp, data=np.arange(3))
    assert zarrhpc.open_array(tmp_path / "s", path="deep/er")[...].tolist() == [0, 1, 2]
    assert (sp / "x").path == "deep/er/x"
    # file:// URLs are paths
    b = zarrhpc.open_array(f"file://{tmp_path}/s", path="deep/er", mode="r")
    assert b[...].tolist() == [0, 1, 2]
    # memory://name is the same store for the life of the process
    zarrhpc.create_array("memory://api-test", name="m", data=np.arange(5))
    assert zarrhpc.open_array("memory://api-test", path="m")[...].tolist() == [0, 1, 2, 3, 4]


def test_remote_scheme_never_makes_a_local_directory(tmp_path, monkeypatch):
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "zarrhpc.storage.remote", None)  # not installed
    with pytest.raises(errors.UnsupportedError, match="s3://.*zarrhpc\\[s3\\]"):
        zarrhpc.open("s3://bucket/x")
    with pytest.raises(errors.UnsupportedError, match="gs://"):
        zarrhpc.create_array("gs://bucket/y", shape=(2,), dtype="i1")
    assert os.listdir(tmp_path) == []


def test_config_keys():
    with zarrhpc.config.set({"array.order": "F"}):
        assert zarrhpc.config.get("array.order") == "F"
        assert zarrhpc.zeros((4, 4)).order == "F"
    assert zarrhpc.config.get("array.order") == "C"
    with zarrhpc.config.set({"async.concurrency": 1}):
        assert zarrhpc.config.get("threads") == 1
    a = zarrhpc.create_array({}, shape=(4,), dtype="i1", config={"write_empty_chunks": True})
    a[...] = 0
    assert a.nchunks_initialized == 1
    with zarrhpc.config.set({"array.write_empty_chunks": True}):
        b = zarrhpc.zeros((4,), chunks=(2,), dtype="i1")
        b[...] = 0
        assert b.nchunks_initialized == 2
    # zarr-python's pipeline knobs are kept (zarrs users set the path) and change nothing;
    # keys that would change results are refused
    with zarrhpc.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                             "codec_pipeline.batch_size": 4, "async.timeout": 5}):
        assert zarrhpc.config.get("codec_pipeline.path") == "zarrs.ZarrsCodecPipeline"
        assert zarrhpc.config.get("codec_pipeline") == {"path": "zarrs.ZarrsCodecPipeline",
                                                        "batch_size": 4}
        c = zarrhpc.create_array({}, shape=(3,), dtype="i2")
        c[:] = [1, 2, 3]
        assert c[:].tolist() == [1, 2, 3]
    assert zarrhpc.config.get("codec_pipeline.path") == (
        "zarr.core.codec_pipeline.BatchedCodecPipeline")
    for key in ("codecs.blosc", "buffer", "ndbuffer", "no.such.key"):
        with pytest.raises(KeyError, match=key):
            zarrhpc.config.set({key: "x"})


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_attributes_non_finite(zarr_format):
    g = zarrhpc.group(zarr_format=zarr_format)
    g.attrs.update(nan=float("nan"), inf=np.inf, ninf=-np.inf, n=np.float32(1.5),
                   arr=np.arange(3))
    assert dict(g.attrs) == {"nan": "NaN", "inf": "Infinity", "ninf": "-Infinity",
                             "n": 1.5, "arr": [0, 1, 2]}
    with pytest.raises(ValueError):
        g.attrs["bad"] = object()


def test_save_load_and_tree(tmp_path):
    for lib in (zarr, zarrhpc):
        p = tmp_path / f"{lib.__name__}.zarr"
        lib.save(p, np.arange(10))
        assert lib.load(p).tolist() == list(range(10))
        q = tmp_path / f"{lib.__name__}-g.zarr"
        lib.save(q, np.arange(3), b=np.ones(2))
        assert sorted(lib.open_group(q, mode="r").array_keys()) == ["arr_0", "b"]
        with pytest.raises(NotImplementedError):
            lib.copy()
    loaded = zarrhpc.load(tmp_path / "zarrhpc-g.zarr")  # zarr-python 3.1 cannot load groups
    assert sorted(loaded) == ["arr_0", "b"]
    assert loaded["b"].tolist() == [1.0, 1.0]
    g = zarrhpc.open_group(tmp_path / "zarrhpc-g.zarr", mode="r")
    assert "arr_0 (3,) int64" in str(g.tree())


def test_from_array_keeps_settings():
    src = zarrhpc.create_array({}, data=np.arange(100, dtype="i4").reshape(10, 10),
                               chunks=(5, 5), compressors=zarrhpc.codecs.GzipCodec(level=3),
                               attributes={"a": 1})
    copy = zarrhpc.from_array({}, data=src)
    assert copy.chunks == (5, 5) and dict(copy.attrs) == {"a": 1}
    assert copy.compressors == src.compressors
    np.testing.assert_array_equal(copy[...], src[...])


def test_create_hierarchy():
    from zarr.core.group import GroupMetadata

    store = zarrhpc.MemoryStore()
    nodes = dict(zarrhpc.create_hierarchy(store=store, nodes={"a/b/c": GroupMetadata()}))
    theirs = dict(zarr.create_hierarchy(store=zarr.storage.MemoryStore(),
                                        nodes={"a/b/c": GroupMetadata()}))
    # the ancestors it creates are yielded too, as zarr-python yields them
    assert sorted(nodes) == sorted(theirs) == ["", "a", "a/b", "a/b/c"]
    assert all(isinstance(n, zarrhpc.Group) for n in nodes.values())
    assert isinstance(zarrhpc.open_group(store, path="a/b", mode="r"), zarrhpc.Group)
    # an existing ancestor is not created again, so not yielded
    more = dict(zarrhpc.create_hierarchy(store=store, nodes={"a/d": GroupMetadata()}))
    assert sorted(more) == ["a/d"]


@pytest.mark.parametrize("dtype", ["f8", "u1", "i2"])
def test_zarr_python_blosc_defaults_resolved_as_zarr_python(dtype):
    ours = zarrhpc.create_array({}, shape=(10,), dtype=dtype,
                                compressors=zarr.codecs.BloscCodec())
    theirs = zarr.create_array({}, shape=(10,), dtype=dtype,
                               compressors=zarr.codecs.BloscCodec())
    assert ours.compressors[0].to_json() == theirs.compressors[0].to_dict()


def test_open_mode_w_minus_refuses_existing_nodes(tmp_path):
    for lib in (zarr, zarrhpc):
        p = tmp_path / f"{lib.__name__}.zarr"
        lib.create_group(p)
        with pytest.raises(FileExistsError):  # zarr-python: the store refuses mode "w-"
            lib.open(p, mode="w-")
        lib.create_array(p, name="a", shape=(2,), dtype="i1")
        with pytest.raises(FileExistsError):
            lib.open(p, path="a", mode="w-", shape=(2,), dtype="i1")
    with pytest.raises(zarrhpc.errors.ContainsGroupError):
        zarrhpc.open(tmp_path / "zarrhpc.zarr", mode="w-")


@pytest.mark.parametrize("lib", [zarrhpc, zarr], ids=["zarrhpc", "zarr"])
def test_group_info_complete_counts_every_depth(lib):
    g = lib.group()
    g.create_group("a").create_group("b").create_array("c", shape=(1,), dtype="i1")
    assert str(g.info_complete()).splitlines()[-3:] == [
        "No. members : 3", "No. arrays  : 1", "No. groups  : 2"]
    assert str(g["a"].info).splitlines()[0] == "Name        : a"


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_array_config_and_with_config_as_zarr_python(zarr_format):
    from zarr.core.array_spec import ArrayConfig as TheirConfig

    from zarrhpc.core.array_spec import ArrayConfig

    results = []
    for lib, cls in ((zarr, TheirConfig), (zarrhpc, ArrayConfig)):
        arr = lib.create_array({}, shape=(4, 6), chunks=(2, 3), dtype="i4",
                               zarr_format=zarr_format, config={"write_empty_chunks": True})
        arr[:] = np.arange(24).reshape(4, 6)
        f = arr.with_config({"order": "F"})  # missing keys kept from the array
        g = f.with_config(cls(order="C", write_empty_chunks=False))  # replaced whole
        g[:2] = 0  # fill value: erased with write_empty_chunks=False
        # v2: zarr-python reads in the metadata's order whatever the config says
        layout = (f[:].flags.f_contiguous, arr[:].flags.c_contiguous) if zarr_format == 3 else ()
        results.append((repr(arr.config), repr(f.config), repr(g.config), layout,
                        f[:].tolist(), g.nchunks_initialized, arr.config == f.config))
    assert results[0] == results[1]
    assert results[1][:3] == ("ArrayConfig(order='C', write_empty_chunks=True)",
                              "ArrayConfig(order='F', write_empty_chunks=True)",
                              "ArrayConfig(order='C', write_empty_chunks=False)")
    with pytest.raises(ValueError):
        zarrhpc.create_array({}, shape=(2,), dtype="i1").with_config({"order": "K"})
