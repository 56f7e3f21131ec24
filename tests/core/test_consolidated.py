"""Consolidated metadata (v2 .zmetadata, v3 consolidated_metadata): written, read, and
used to open a hierarchy without listing the store; interop with zarr-python 3."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import MetadataError
from zarrhpc.storage import LocalStore


class NoListStore(LocalStore):
    """A LocalStore whose listing fails loudly, and which counts reads."""

    def __init__(self, root):
        super().__init__(root, read_only=True)
        self.gets = []

    def _list(self):
        raise AssertionError("the store was listed")

    def _list_prefix(self, prefix):
        raise AssertionError(f"the store was listed under {prefix!r}")

    def _list_dir(self, prefix):
        raise AssertionError(f"the store was listed under {prefix!r}")

    def _get(self, key):
        self.gets.append(key)
        return super()._get(key)


def build(path, zarr_format):
    root = zarrhpc.create_group(path, zarr_format=zarr_format, attributes={"title": "t"})
    sub = root.create_group("sub", attributes={"k": 2})
    x = sub.create_array("x", shape=(4,), chunks=(2,), dtype="i2")
    x[...] = np.arange(4)
    root.create_array("y", shape=(2, 3), chunks=(1, 3), dtype="f4", fill_value=1.5)
    return root


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_consolidate_then_open_without_listing(tmp_path, zarr_format):
    build(tmp_path / "h.zarr", zarr_format)
    g = zarrhpc.consolidate_metadata(tmp_path / "h.zarr")
    assert g.zarr_format == zarr_format
    store = NoListStore(tmp_path / "h.zarr")
    c = zarrhpc.open_consolidated(store)
    names = [n for n, _ in c.members(max_depth=None)]
    assert names == ["sub", "sub/x", "y"]
    assert c["sub"].attrs["k"] == 2 and c.attrs["title"] == "t"
    store.gets.clear()
    np.testing.assert_array_equal(c["sub/x"][...], np.arange(4))
    # members came from the consolidated document: only chunks were read
    assert all(k.startswith("sub/x/") and not k.endswith((".zarray", "zarr.json"))
               for k in store.gets), store.gets
    # open_group uses it by default too
    assert list(zarrhpc.open_group(store)) == ["sub", "y"]
    with pytest.raises(AssertionError, match="listed"):
        list(zarrhpc.open_group(store, use_consolidated=False))


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_python_reads_our_consolidated_and_we_read_theirs(tmp_path, zarr_format):
    zarr = pytest.importorskip("zarr")
    build(tmp_path / "ours.zarr", zarr_format)
    zarrhpc.consolidate_metadata(tmp_path / "ours.zarr")
    z = zarr.open_consolidated(str(tmp_path / "ours.zarr"), zarr_format=zarr_format)
    assert sorted(k for k, _ in z.members(max_depth=None)) == ["sub", "sub/x", "y"]
    np.testing.assert_array_equal(z["sub/x"][...], np.arange(4))
    zg = zarr.create_group(str(tmp_path / "theirs.zarr"), zarr_format=zarr_format)
    zg.create_group("a").create_array("b", shape=(3,), dtype="u1", fill_value=4)
    zarr.consolidate_metadata(str(tmp_path / "theirs.zarr"))
    c = zarrhpc.open_consolidated(NoListStore(tmp_path / "theirs.zarr"))
    assert [n for n, _ in c.members(max_depth=None)] == ["a", "a/b"]
    np.testing.assert_array_equal(c["a/b"][...], [4, 4, 4])


def test_v3_document_shape(tmp_path):
    build(tmp_path / "h.zarr", 3)
    zarrhpc.consolidate_metadata(tmp_path / "h.zarr")
    doc = json.loads((tmp_path / "h.zarr" / "zarr.json").read_text())
    cm = doc["consolidated_metadata"]
    assert cm["kind"] == "inline" and cm["must_understand"] is False
    assert list(cm["metadata"]) == ["sub", "y", "sub/x"]
    assert cm["metadata"]["sub"]["consolidated_metadata"]["metadata"] == {}
    assert list(doc) == ["attributes", "zarr_format", "consolidated_metadata", "node_type"]


def test_stale_view_is_dropped_when_a_member_is_created(tmp_path):
    build(tmp_path / "h.zarr", 2)
    g = zarrhpc.consolidate_metadata(tmp_path / "h.zarr")
    g.create_array("new", shape=(1,), dtype="u1")
    assert "new" in list(g)  # listed from the store again


def test_open_consolidated_without_metadata_fails(tmp_path):
    build(tmp_path / "h.zarr", 2)
    with pytest.raises(MetadataError, match="Consolidated metadata requested with .use_consolidated=True. but not found"):
        zarrhpc.open_consolidated(tmp_path / "h.zarr")


def test_consolidating_a_2022_draft_store_is_refused_by_name(tmp_path):
    """The draft layout is read and converted, never written: consolidate_metadata says so
    (it raised a bare AttributeError) and leaves the store as it was."""
    from zarrhpc.errors import UnsupportedError
    from zarrhpc.testing.draft_stores import zarr_python2_draft_hierarchy

    zarr_python2_draft_hierarchy(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(UnsupportedError, match="2022 draft.*convert"):
        zarrhpc.consolidate_metadata(str(tmp_path))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
