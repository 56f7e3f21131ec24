"""What downstream libraries' own tests (``upstream.py``, README.md) found they use, checked
side by side with zarr-python, and the downstream runner's switch itself on a small
library of our own."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

import zarrhpc  # noqa: E402

HERE = pathlib.Path(__file__).parent

ARRAY_FIELDS = ("_type", "_zarr_format", "_fill_value", "_shape", "_shard_shape",
                "_chunk_shape", "_order", "_read_only", "_store_type", "_count_bytes",
                "_count_bytes_stored", "_count_chunks_initialized")
GROUP_FIELDS = ("_name", "_type", "_zarr_format", "_read_only", "_store_type",
                "_count_members", "_count_arrays", "_count_groups")


def _pair(lib, zarr_format, shards):
    g = lib.open_group(lib.storage.MemoryStore(), mode="w", zarr_format=zarr_format)
    sub = g.create_group("sub")
    a = sub.create_array("a", shape=(8, 6), chunks=(2, 3), shards=shards, dtype="i4",
                         fill_value=0)
    a[:4] = np.arange(24).reshape(4, 6)
    return g, sub, a


@pytest.mark.parametrize("zarr_format,shards", [(2, None), (3, None), (3, (4, 6))])
def test_info_fields_as_zarr_python(zarr_format, shards):
    # ome-zarr reads ``group.info._zarr_format`` to choose the OME-NGFF version it writes
    theirs, ours = _pair(zarr, zarr_format, shards), _pair(zarrhpc, zarr_format, shards)
    for t, o in zip(theirs, ours):
        fields = ARRAY_FIELDS if t.info._type == "Array" else GROUP_FIELDS
        for info_t, info_o in ((t.info, o.info), (t.info_complete(), o.info_complete())):
            for name in fields:
                assert getattr(info_o, name) == getattr(info_t, name), (name, type(t))
            assert repr(info_o) == repr(info_t)
        if t.info._type == "Array":
            assert repr(o.info._data_type) == repr(t.info._data_type)  # the data type object
            assert len(o.info._compressors) == len(t.info._compressors)


@pytest.mark.parametrize("names", [[], ()])
def test_empty_dimension_names_are_none_as_zarr_python(names):
    # ome-zarr passes ``dimension_names=[]`` for arrays it has no axes for
    t = zarr.create_array({}, shape=(2, 3), dtype="i4", dimension_names=names)
    o = zarrhpc.create_array({}, shape=(2, 3), dtype="i4", dimension_names=names)
    assert o.metadata.dimension_names is t.metadata.dimension_names is None
    assert "dimension_names" not in o.metadata.to_dict()
    with pytest.raises(ValueError, match="dimension"):
        zarrhpc.create_array({}, shape=(2, 3), dtype="i4", dimension_names=["a"])


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_changed_attribute_values_stay_with_their_node(tmp_path, zarr_format):
    # silent wrong attributes found by ome-zarr's tests: zarrhpc shares the parsed document
    # between opens of the same bytes, and a caller's change to a value it read
    # (ome-zarr: ``group.attrs["ome"]["labels"].append(name)`` before writing) showed in
    # every later open of any node with those bytes, though nothing was written
    for lib in (zarr, zarrhpc):
        path = str(tmp_path / lib.__name__)
        g = lib.open_group(path, mode="w", zarr_format=zarr_format)
        g.attrs["ome"] = {"labels": ["a"]}
        g.create_array("x", shape=(2,), dtype="i4").attrs["names"] = ["t"]
        g1 = lib.open_group(path, mode="r")
        g1.attrs["ome"]["labels"].append("b")
        g1["x"].attrs["names"].append("u")
        assert g1.attrs["ome"] == {"labels": ["a", "b"]}  # the node's own view changed
        again = lib.open_group(path, mode="r")
        assert again.attrs["ome"] == {"labels": ["a"]}, lib.__name__
        assert again["x"].attrs["names"] == ["t"], lib.__name__
        assert again.metadata.attributes == {"ome": {"labels": ["a"]}}, lib.__name__
        assert dict(lib.open_array(path + "/x", mode="r").attrs) == {"names": ["t"]}


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_empty_member_name_is_the_group_as_zarr_python(zarr_format):
    # anndata's dask writes address the group's own element as key ""
    for lib in (zarr, zarrhpc):
        g = lib.group(zarr_format=zarr_format, attributes={"k": 1})
        g.create_array("a", shape=(2,), dtype="i4")
        assert "" in g, lib.__name__
        same = g[""]
        assert isinstance(same, lib.Group) and same.path == g.path, lib.__name__
        assert dict(same.attrs) == {"k": 1} and sorted(same.array_keys()) == ["a"]
        assert "b" not in g and g.get("b") is None

    # del g[""]: the group and everything below it, at the root the whole store
    for lib in (zarr, zarrhpc):
        store = lib.storage.MemoryStore()
        root = lib.open_group(store, mode="w", zarr_format=zarr_format)
        sub = root.create_group("g", attributes={"k": 1})
        sub.create_array("a", shape=(2,), dtype="i4")
        root.create_array("x", shape=(2,), dtype="i4")
        del sub[""]
        assert sorted(root.keys()) == ["x"], lib.__name__
        # require_group("") after that: the group again, empty (anndata's write_elem)
        again = sub.require_group("")
        assert again.path == sub.path and again.nmembers() == 0, lib.__name__
        with pytest.raises(lib.errors.ContainsGroupError):
            root.create_array("", shape=(2,), dtype="i4")
        del root[""]
        assert lib.open_group(store, mode="a").nmembers() == 0


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_store_clear_as_zarr_python(tmp_path, kind):
    # anndata clears the store before writing a root element: ``store.clear()``
    import asyncio

    def fill(lib):
        store = (lib.storage.MemoryStore() if kind == "memory"
                 else lib.storage.LocalStore(str(tmp_path / lib.__name__)))
        g = lib.open_group(store, mode="w")
        g.create_array("a/b", shape=(4,), chunks=(2,), dtype="i4")[:] = 1
        return store

    async def keys(store):
        return sorted([k async for k in store.list()])

    theirs, ours = fill(zarr), fill(zarrhpc)
    assert sorted(ours.list()) == asyncio.run(keys(theirs)) != []
    asyncio.run(theirs.clear())
    assert ours.clear() is None
    assert sorted(ours.list()) == asyncio.run(keys(theirs)) == []
    with pytest.raises(zarrhpc.errors.ReadOnlyError):
        fill(zarrhpc).with_read_only(True).clear()


LIBRARY = '''
import zarr


def make(path):
    return zarr.create_array(path, shape=(4,), dtype="i4", fill_value=1)


def uses_internal():
    from zarr.core.buffer import default_buffer_prototype
    return default_buffer_prototype()
'''

LIBRARY_TESTS = '''
import numpy as np
import zarr

import minilib


def test_library_makes_zarrhpc_arrays(tmp_path):
    a = minilib.make(str(tmp_path / "a.zarr"))
    assert type(a).__module__.startswith("zarrhpc")
    assert isinstance(a, zarr.Array)
    assert a[:].tolist() == [1, 1, 1, 1]
    # zarrhpc's version, which names the zarr-python API it follows first (libraries
    # branch on its major)
    import zarrhpc
    assert zarr.__version__ == zarrhpc.__version__
    assert zarr.__version__.split(".")[0] == "3"


def test_others_see_zarr_python():
    import importlib
    import sys

    import numcodecs.zarr3  # imports zarr itself

    assert sys.modules["zarr"] is importlib.import_module("zarr")
    assert sys.modules["zarr"].Array.__module__ == "zarr.core.array"
    assert numcodecs.zarr3.Blosc.__module__.startswith(("numcodecs.", "zarr."))
    assert zarr.Array.__module__.startswith("zarrhpc")


def test_internal():
    minilib.uses_internal()


def test_async_store_subclass():
    # a test helper counting reads the zarr-python way (anndata's AccessTrackingStore)
    class Counting(zarr.storage.MemoryStore):
        seen = []

        async def get(self, key, prototype=None, byte_range=None):
            self.seen.append(key)
            return await super().get(key, prototype=prototype, byte_range=byte_range)

    store = Counting()
    zarr.create_array(store, shape=(2,), dtype="i4", chunks=(1,))[:] = [3, 4]
    assert list(zarr.open_array(store, mode="r")[:]) == [3, 4]
    assert {"c/0", "c/1"} <= set(Counting.seen)  # every read through the override


def test_plain_failure():
    assert zarr.zeros((2,)).shape == (3,)
'''


def test_downstream_switch_on_a_small_library(tmp_path):
    pytest.importorskip("xarray")
    lib = tmp_path / "site" / "minilib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(textwrap.dedent(LIBRARY))
    tests = tmp_path / "src" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_minilib.py").write_text(textwrap.dedent(LIBRARY_TESTS))
    out = {}
    for lib_name in ("zarrhpc", "zarr"):
        path = tmp_path / f"{lib_name}.json"
        env = dict(os.environ, DS_LIB=lib_name, DS_OUT=str(path),
                   DS_ROOTS=os.pathsep.join([str(lib), str(tests)]),
                   PYTHONPATH=os.pathsep.join([str(HERE), str(tmp_path / "site")]))
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "ds_plugin", "-p",
                        "no:cacheprovider", "-W", "ignore::DeprecationWarning", "--rootdir",
                        str(tmp_path / "src"), str(tests)], cwd=tmp_path / "src", env=env,
                       capture_output=True, timeout=600)
        out[lib_name] = {k.rsplit("::", 1)[1]: v
                         for k, v in json.loads(path.read_text()).items()}
    ours = out["zarrhpc"]
    assert ours["test_library_makes_zarrhpc_arrays"][0] == "passed"
    assert ours["test_others_see_zarr_python"][0] == "passed"
    assert ours["test_internal"] == ["skipped",
                                     "internal: zarr.core.buffer.default_buffer_prototype"]
    # honoured since zarrhpc/storage/zarr_python.py (AsyncGetStore)
    assert ours["test_async_store_subclass"][0] == "passed"
    assert ours["test_plain_failure"][0] == "failed"
    # the baseline: zarr-python everywhere (its arrays are not zarrhpc's)
    assert out["zarr"]["test_library_makes_zarrhpc_arrays"][0] == "failed"
    assert out["zarr"]["test_internal"][0] == "passed"


def test_dtype_common_names_downstream_imports():
    """anndata imports UnstableSpecificationWarning from zarr.core.dtype.common."""
    import zarr.core.dtype.common as theirs

    from zarrhpc.core.dtype import common as ours

    for name in ours.__all__:
        assert getattr(theirs, name).__name__ == getattr(ours, name).__name__
    assert issubclass(ours.UnstableSpecificationWarning, FutureWarning)
    assert issubclass(ours.DataTypeValidationError, ValueError)
