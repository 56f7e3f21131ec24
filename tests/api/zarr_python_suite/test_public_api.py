"""Behaviours zarr-python's own test suite found different (``upstream.py``), each checked
here side by side: the same call on ``zarr`` and on ``zarrhpc`` gives the same result,
warning or error. Modelled on the zarr-python tests named in each docstring (tests/ of
zarr-python 3.1.6); nothing of theirs is run here."""

import re
import sys
import warnings

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

pytestmark = pytest.mark.interop

LIBS = [zarr, zarrhpc]


def _ids(text: str) -> str:
    return re.sub(r"memory://\d+", "memory://<id>", text)


def test_api_synchronous_module():
    """test_api.py imports ``zarr.api.synchronous`` (``from zarr.api.synchronous import
    open_group``...): the same names, each zarrhpc's top-level function."""
    from zarrhpc.api import synchronous

    assert synchronous.__all__ == zarr.api.synchronous.__all__
    for name in synchronous.__all__:
        assert getattr(synchronous, name) is getattr(zarrhpc, name), name
    with pytest.raises(NotImplementedError):
        zarrhpc.copy_store()


def test_config_reset():
    """Every zarr-python test starts with ``zarr.config.reset()`` (its conftest)."""
    for lib in LIBS:
        default = lib.config.get("array.order")
        lib.config.set({"array.order": "F" if default == "C" else "C"})
        assert lib.config.get("array.order") != default
        lib.config.reset()
        assert lib.config.get("array.order") == default
    threads = zarrhpc.config.get("threads")
    zarrhpc.config.set(threads=1)
    zarrhpc.config.refresh()
    assert zarrhpc.config.get("threads") == threads


def _hierarchy(lib):
    from zarr.core.group import GroupMetadata

    root = lib.create_group(store={})
    sub = root.create_group("sub")
    array_md = zarr.create_array(store={}, shape=(4,), dtype="i4").metadata
    made = sorted((k, type(v).__name__, v.path) for k, v in
                  sub.create_hierarchy({"a/b/c": GroupMetadata(), "/x/arr": array_md}))
    members = sorted(k for k, _ in root.members(max_depth=None))
    errs = []
    for nodes in ({"": GroupMetadata()}, {"a/b/c": GroupMetadata()}):
        with pytest.raises(Exception) as info:
            list(sub.create_hierarchy(nodes))
        errs.append(type(info.value).__name__)
    return made, members, errs, sub["x/arr"].shape


def test_group_create_hierarchy():
    """test_group.py: ``Group.create_hierarchy`` yields every node made below the group,
    implicit ancestors included, paths relative to the group; a node at '' is a
    ValueError, an existing one ContainsGroupError."""
    assert _hierarchy(zarrhpc) == _hierarchy(zarr)


def _tree(lib, kwargs):
    g = lib.group(path="root")
    a, b = g.create_group("A"), g.create_group("B")
    c = b.create_group("C")
    c.create_group("C").create_array(name="x", shape=(0,), dtype="float64")
    a.create_array(name="x", shape=(2,), dtype="float64")
    a.create_array(name="y<b>", shape=(0,), dtype="int8")
    b.create_array(name="x", shape=(0,), dtype="float64")
    tree = g.tree(**kwargs)
    return repr(tree), str(tree), tree._repr_mimebundle_()


@pytest.mark.parametrize("kwargs", [{}, {"level": 0}, {"level": 1}, {"plain": True},
                                    {"max_nodes": 20}])
@pytest.mark.parametrize("atty", [False, True])
def test_group_tree(monkeypatch, kwargs, atty):
    """test_tree.py: the text (bold names on a terminal unless ``plain``), ``level``
    counted as ``members(max_depth=)``, and the HTML form Jupyter shows."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: atty)
    assert _tree(zarrhpc, kwargs) == _tree(zarr, kwargs)


def test_group_tree_truncation_and_expand():
    """test_tree.py: ``max_nodes`` cuts the listing with zarr-python's note (which nodes
    are kept follows each library's member order); ``expand`` is NotImplementedError."""
    for lib in LIBS:
        g = lib.group()
        for name in "abcde":
            g.create_group(name)
        text = repr(g.tree(max_nodes=3, plain=True))
        assert text.startswith("Truncated at max_nodes=3, some nodes and their children "
                               "may be missing\n/\n")
        assert sum("──" in line for line in text.splitlines()) == 3
        assert "Truncated" not in repr(g.tree(max_nodes=5))
        with pytest.raises(NotImplementedError):
            g.tree(expand=True)


def _warned(lib, func, **kwargs):
    kwargs = {k: {} if k == "store" else v for k, v in kwargs.items()}  # a fresh store each
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        arr = getattr(lib, func)(**kwargs)
    ours = [(w.category.__name__, str(w.message)) for w in seen
            if w.category.__module__.startswith(lib.__name__)]
    return ours, arr.order


@pytest.mark.parametrize("func,kwargs", [
    ("create", {"shape": (4,), "write_empty_chunks": True}),
    ("array", {"data": np.arange(4), "write_empty_chunks": False}),
    ("create", {"shape": (4,), "synchronizer": 1}),
    ("create", {"shape": (4,), "chunk_store": 1, "cache_attrs": 1, "meta_array": 1}),
    ("create", {"shape": (4,), "cache_metadata": 1}),
    ("ones", {"shape": (2, 2), "order": "F", "zarr_format": 3}),
    ("ones", {"shape": (2, 2), "order": "C", "zarr_format": 3, "config": {"order": "F"}}),
    ("ones", {"shape": (2, 2), "order": "F", "zarr_format": 2}),
    ("ones", {"shape": (2, 2), "zarr_format": 2, "config": {"order": "F"}}),
    ("create_array", {"store": {}, "shape": (2, 2), "dtype": "i4", "order": "F"}),
    ("create_array", {"store": {}, "shape": (2, 2), "dtype": "i4", "zarr_format": 2,
                      "config": {"order": "F"}}),
])
def test_keyword_warnings_and_order(func, kwargs):
    """test_api.py (test_write_empty_chunks_warns, test_unimplemented_kwarg_warnings,
    test_array_order): zarr-python's RuntimeWarnings word for word, ``order`` ignored for
    v3 arrays (config decides), and ``create``'s v2 arrays take their order from config."""
    assert _warned(zarrhpc, func, **kwargs) == _warned(zarr, func, **kwargs)


def test_tree_function_deprecated():
    """test_api.py::test_tree: ``zarr.tree(g)`` warns ZarrDeprecationWarning."""
    for lib in LIBS:
        g = lib.group()
        g.create_group("foo")
        with pytest.warns(lib.errors.ZarrDeprecationWarning, match=r"Group\.tree instead\."):
            assert repr(lib.tree(g)) == repr(g.tree())


@pytest.mark.parametrize("name,args", [
    ("GroupNotFoundError", ("store", "path")), ("ArrayNotFoundError", ("store", "path")),
    ("ContainsGroupError", ("store", "path")), ("ContainsArrayError", ("store", "path")),
    ("ContainsArrayAndGroupError", ("store", "path")),
    ("MetadataValidationError", ("a", "b", "c")), ("NodeTypeValidationError", ("a", "b", "c")),
    ("GroupNotFoundError", ("one message",)),
])
def test_error_messages_from_arguments(name, args):
    """test_errors.py: several arguments fill zarr-python's message template."""
    ours, theirs = getattr(zarrhpc.errors, name)(*args), getattr(zarr.errors, name)(*args)
    assert str(ours) == str(theirs)
    for base in type(theirs).__mro__:  # the same bases, under zarr-python's names
        assert getattr(zarrhpc.errors, base.__name__, base) in type(ours).__mro__, base


def _open_calls(lib):
    out = []
    s = lib.storage.MemoryStore()
    for call in (lambda: lib.Group.open(s), lambda: lib.Array.open(s)):
        with pytest.raises(Exception) as info:
            call()
        out.append(type(info.value).__name__)
    g = lib.Group.from_store(s, attributes={"a": 1}, zarr_format=2)
    out.append((type(g).__name__, g.attrs.asdict(), g.metadata.zarr_format))
    with pytest.raises(FileNotFoundError):
        lib.Group.open(s)  # zarr_format=3 by default: the v2 group is not seen
    out.append(lib.Group.open(s, zarr_format=None).attrs.asdict())
    out.append(lib.Group.from_store(s, overwrite=True).metadata.zarr_format)
    with pytest.raises(Exception) as info:
        lib.Group.from_store(s)
    out.append(type(info.value).__name__)
    a = lib.create_array(s, name="x", shape=(3,), dtype="i4")
    a[:] = [1, 2, 3]
    b = lib.Array.open(lib.storage.StorePath(s, "x"))
    out.append((type(b).__name__, b[:].tolist(), _ids(str(b.store_path)), _ids(repr(a.store_path))))
    out.append(_ids(repr(lib.Group.open(s).store_path)))
    return out


def test_group_and_array_classmethods():
    """test_api.py / test_group.py: ``Group.from_store``, ``Group.open``, ``Array.open``,
    ``.store_path`` (the errors are FileNotFoundErrors in both)."""
    ours, theirs = _open_calls(zarrhpc), _open_calls(zarr)
    assert ours[2:] == theirs[2:]
    assert ours[:2] == ["GroupNotFoundError", "ArrayNotFoundError"]
    assert theirs[1] == "ArrayNotFoundError"  # theirs[0] is a plain FileNotFoundError


def test_store_capabilities_and_store_path_text(tmp_path):
    """test_store/*: the ``supports_*`` flags and StorePath's str/repr. zarrhpc's ZipStore
    deletes (it rewrites the archive's directory), zarr-python's does not."""
    flags = ["supports_writes", "supports_deletes", "supports_partial_writes",
             "supports_listing", "supports_consolidated_metadata"]
    for name, args in [("LocalStore", (str(tmp_path / "d"),)), ("MemoryStore", ())]:
        ours = getattr(zarrhpc.storage, name)(*args)
        theirs = getattr(zarr.storage, name)(*args)
        assert [getattr(ours, f) for f in flags] == [getattr(theirs, f) for f in flags]
        for path in ("", "a/b"):
            p, q = zarrhpc.storage.StorePath(ours, path), zarr.storage.StorePath(theirs, path)
            assert (_ids(str(p)), _ids(repr(p))) == (_ids(str(q)), _ids(repr(q)))
    z = zarrhpc.storage.ZipStore(str(tmp_path / "a.zip"), mode="w")
    z.set("k", b"1")
    z.erase("k")
    assert z.supports_deletes and not z.exists("k")


def test_zdtype_subscriptable():
    """test_array.py annotates ``zdtype: ZDType[Any, Any]`` (evaluated at import)."""
    from zarrhpc.core.dtype import ZDType

    assert ZDType[np.dtype, int] is ZDType
    assert zarr.core.dtype.ZDType[np.dtype, int] is not None


@pytest.mark.parametrize("func,kwargs", [
    ("create", {"shape": (400.5, 100)}),
    ("create", {"shape": (400, 100), "chunks": (16, 16.5)}),
    ("create_array", {"store": {}, "shape": (4.5,), "dtype": "i4"}),
    ("create_array", {"store": {}, "shape": (4.5,), "chunks": (2,), "dtype": "i4",
                      "zarr_format": 2}),
    ("create_array", {"store": {}, "shape": (9,), "chunks": (2.0,), "dtype": "i4"}),
    ("create_array", {"store": {}, "shape": (9,), "chunks": (2,), "shards": (4.5,),
                      "dtype": "i4"}),
])
def test_float_shape_and_chunks_refused(func, kwargs):
    """test_api.py::test_create: a float shape or chunk length is a TypeError (zarrhpc
    truncated 400.5 to 400 and created the array)."""
    for lib in LIBS:
        args = {k: {} if k == "store" else v for k, v in kwargs.items()}
        with pytest.raises(TypeError):
            getattr(lib, func)(**args)


@pytest.mark.parametrize("call", ["create_dataset", "require_dataset", "array", "compressor"])
def test_deprecated_group_and_array_members(call):
    """test_group.py / test_array.py: h5py-style and zarr-python 2 names still work and
    warn ZarrDeprecationWarning with zarr-python's text; ``Group.array`` writes ``data``."""
    out = []
    for lib in LIBS:
        g = lib.group(zarr_format=2)
        with pytest.warns(lib.errors.ZarrDeprecationWarning) as seen:
            if call == "array":
                warnings.simplefilter("ignore", lib.errors.ZarrUserWarning)
                res = g.array("a", shape=(2, 3), dtype="f4",
                              data=np.arange(6).reshape(2, 3))[...].tolist()
            elif call == "compressor":
                res = type(g.create_array("a", shape=(2,), dtype="i4").compressor).__name__
            else:
                g.create_array("a", shape=(2,), dtype="i4")
                name = "a" if call == "require_dataset" else "b"
                res = getattr(g, call)(name, shape=(2,), dtype="i4").shape
        # zarr-python also warns from its AsyncArray/AsyncGroup underneath
        out.append((res, sorted({str(w.message) for w in seen
                                 if issubclass(w.category, DeprecationWarning)
                                 and "Async" not in str(w.message)})))
    assert out[0] == out[1]


def _messages(lib):
    from zarr.core.group import GroupMetadata

    s = lib.storage.MemoryStore()
    root = lib.Group.from_store(s)
    root.create_array("arr", shape=(2,), dtype="i4")
    calls = [lambda: root.create_group("arr/g/h"),
             lambda: root.create_array("arr/g/x", shape=(1,), dtype="i4"),
             lambda: lib.open_group(store=s, use_consolidated=True),
             lambda: list(root.create_hierarchy({"": GroupMetadata()}))]
    out = []
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        out.append(str(info.value))
    return out


def test_error_messages_carry_zarr_python_text():
    """test_group.py (test_create_with_parent_array, test_open_consolidated_raises,
    test_group_create_hierarchy_no_root) match these phrases of zarr-python's messages;
    zarrhpc's keep the key and path in front."""
    phrases = ["is an array - only groups may have child nodes.",
               "is an array - only groups may have child nodes.",
               "Consolidated metadata requested with 'use_consolidated=True' but not found",
               "It is an error to use this method to create a root node."]
    for lib in LIBS:
        for phrase, message in zip(phrases, _messages(lib)):
            assert phrase in message, (lib.__name__, message)


def test_create_dataset_with_data_and_shape():
    """test_group.py::test_create_dataset_with_data: ``data`` with its own ``shape``."""
    arr = np.random.default_rng(0).random((5, 5))
    for lib in LIBS:
        g = lib.group()
        with pytest.warns(lib.errors.ZarrDeprecationWarning):
            np.testing.assert_array_equal(g.create_dataset("r", data=arr, shape=arr.shape)[:],
                                          arr)


def test_missing_shape_or_dtype_is_value_error():
    """zarr-python's Group docstrings create arrays without a dtype: ValueError there."""
    out = []
    for lib in LIBS:
        for kwargs in ({"shape": (10,)}, {"dtype": "i4"}):
            with pytest.raises(ValueError) as info:
                lib.create_array({}, **kwargs)
            out.append(str(info.value).split(": ", 1)[-1] if lib is zarrhpc
                       else str(info.value).replace(".Either", ". Either"))
    assert out[:2] == out[2:]


def test_shards_auto_warns_and_codec_to_dict():
    """test_array.py (test_auto_partition_auto_shards, test_storage_transformers):
    ``shards="auto"`` warns zarr-python's ZarrUserWarning; codecs have ``to_dict()``."""
    for lib in LIBS:
        with pytest.warns(lib.errors.ZarrUserWarning, match="Automatic shard shape inference"):
            lib.create_array({}, shape=(100,), dtype="i4", shards="auto")
    for name in ("BytesCodec", "ZstdCodec", "GzipCodec", "Crc32cCodec"):
        assert (getattr(zarrhpc.codecs, name)().to_dict()
                == getattr(zarr.codecs, name)().to_dict()), name


def test_v2_shards_is_value_error():
    """test_array.py::test_chunk_grid_shape: shards on a v2 array is zarr-python's
    ValueError (zarrhpc raised NotImplementedError)."""
    for lib in LIBS:
        with pytest.raises(ValueError, match="can only be created with `shard_shape` set"):
            lib.create_array({}, dtype="uint8", shape=(10,), chunks=(1,), shards=(2,),
                             zarr_format=2)


@pytest.mark.parametrize("data", [
    {"attributes": {"key": "value"}, "_nczarr_superblock": {"version": "2.0.0"},
     "zarr_format": 2},
    {"attributes": {"a": [1, 2]}, "zarr_format": 3, "node_type": "group"},
    {"zarr_format": 2},
])
def test_group_metadata_from_dict(data):
    """test_group.py::TestGroupMetadata::test_from_dict_extra_fields."""
    from zarrhpc.core.metadata import GroupMetadata

    ours = GroupMetadata.from_dict(data)
    theirs = zarr.core.group.GroupMetadata.from_dict(data)
    assert (ours.attributes, ours.zarr_format) == (theirs.attributes, theirs.zarr_format)
    assert ours == GroupMetadata(attributes=theirs.attributes, zarr_format=theirs.zarr_format)


def test_print_debug_info(capsys):
    """zarr-python's ``print_debug_info`` (in ``zarr.__all__``): the same report layout,
    zarrhpc's version and dependencies."""
    for lib in LIBS:
        lib.print_debug_info()
        text = capsys.readouterr().out
        assert text.startswith("platform: ")
        assert f"{lib.__name__}: {lib.__version__}\n\n**Required dependencies:**\n" in text
        assert "numpy: " + np.__version__ in text
    # every name of zarr-python's top level is in zarrhpc's __all__ (the async classes
    # too); __version__ is a module attribute here, not listed
    assert set(zarr.__all__) - set(zarrhpc.__all__) == {"__version__"}
