"""Groups: explicit and implicit, nested paths, members, tree, attributes."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import (
    ContainsArrayError,
    ContainsGroupError,
    GroupNotFoundError,
    NodeNotFoundError,
)


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    if request.param == "memory":
        return zarrhpc.MemoryStore()
    return zarrhpc.LocalStore(tmp_path / "h.zarr")


def test_nested_creation_writes_explicit_parents(store):
    root = zarrhpc.create_group(store, attributes={"title": "run 1"})
    a = root.create_array("fields/t", shape=(4,), chunks=(2,), dtype="f8")
    a[:] = [1, 2, 3, 4]
    assert json.loads(bytes(store.get("fields/zarr.json")))["node_type"] == "group"
    assert isinstance(root["fields"], zarrhpc.Group)
    np.testing.assert_array_equal(root["fields/t"][...], [1, 2, 3, 4])
    np.testing.assert_array_equal(root["fields"]["t"][...], [1, 2, 3, 4])
    assert root.attrs["title"] == "run 1"


def test_members_and_tree(store):
    root = zarrhpc.create_group(store)
    root.create_group("b")
    root.create_array("a", shape=(3, 2), chunks=(3, 2), dtype="i2")
    root.create_array("b/c", shape=(5,), chunks=(5,), dtype="u1")
    names = [n for n, _ in root.members()]
    assert names == ["a", "b"]
    assert [n for n, _ in root.members(max_depth=None)] == ["a", "b", "b/c"]
    assert root.array_keys() == ("a",) and root.group_keys() == ("b",)
    assert "b/c" in root and "nope" not in root and len(root) == 2
    assert root.tree() == "/\n├── a (3, 2) int16\n└── b\n    └── c (5,) uint8\n"


def test_implicit_group_is_read(store):
    # a hierarchy written without parent metadata (as the drafts allowed)
    zarrhpc.create_array(store, name="x/y/arr", shape=(2,), chunks=(2,), dtype="i4")
    store.erase("x/zarr.json")
    store.erase("x/y/zarr.json")
    store.erase("zarr.json")
    g = zarrhpc.open_group(store, path="x")
    assert g.is_implicit and dict(g.attrs) == {}
    assert [n for n, _ in g.members()] == ["y"]
    assert isinstance(zarrhpc.open(store, path="x/y/arr"), zarrhpc.Array)
    assert [n for n, _ in zarrhpc.open_group(store).members()] == ["x"]


def test_missing_member_raises_keyerror(store):
    root = zarrhpc.create_group(store)
    with pytest.raises(KeyError, match="nope"):
        root["nope"]
    with pytest.raises(NodeNotFoundError):
        zarrhpc.open_group(store, path="nope", mode="r")
    root.create_array("arr", shape=(1,), chunks=(1,), dtype="i1")
    with pytest.raises(GroupNotFoundError):
        zarrhpc.open_group(store, path="arr")


def test_create_conflicts(store):
    root = zarrhpc.create_group(store)
    root.create_array("a", shape=(1,), chunks=(1,), dtype="i1")
    with pytest.raises(ContainsArrayError):
        root.create_group("a")
    with pytest.raises(ContainsArrayError, match="inside the array"):
        root.create_group("a/sub")
    root.create_group("g")
    with pytest.raises(ContainsGroupError):
        root.create_group("g")
    assert isinstance(root.require_group("g"), zarrhpc.Group)


@pytest.mark.parametrize("bad", ["", "..", "a/./b", "..."])
def test_bad_member_names_refused(store, bad):
    root = zarrhpc.create_group(store)
    with pytest.raises((ValueError, KeyError)):
        root.create_group(bad)


def test_delete_member(store):
    root = zarrhpc.create_group(store)
    a = root.create_array("a", shape=(2,), chunks=(1,), dtype="i1")
    a[:] = 1
    del root["a"]
    assert "a" not in root and not list(store.list_prefix("a/"))
