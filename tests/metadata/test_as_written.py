"""Metadata read from a store is written back as its writer spelled it, changed only where
an operation changes it (zarrhpc/metadata/as_written.py); the whole-corpus check is
tests/conformance/test_writer_stores.py::test_rewrites_keep_what_the_writer_wrote."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import UnsupportedError
from zarrhpc.metadata.as_written import as_written

V3 = {"zarr_format": 3, "node_type": "array", "shape": [8, 6], "data_type": "float32",
      "chunk_grid": {"name": "zarrs.regular_bounded", "configuration": {"chunk_shape": [4, 3]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
      "attributes": {"z": 1, "a": {"k": [1, 2]}}, "dimension_names": None,
      "x_writer": {"must_understand": False, "v": 1}}


def _store(tmp_path, doc, name="zarr.json"):
    (tmp_path / name).write_text(json.dumps(doc))
    return str(tmp_path)


def _doc(tmp_path, name="zarr.json"):
    return json.loads((tmp_path / name).read_text())


def _same(a, b):
    return json.dumps(a) == json.dumps(b)


def test_attribute_update_changes_only_attributes(tmp_path):
    a = zarrhpc.open_array(_store(tmp_path, V3), mode="r+")
    a.attrs["new"] = True
    assert _same(_doc(tmp_path), {**V3, "attributes": {**V3["attributes"], "new": True}})


def test_a_value_that_changes_type_is_written(tmp_path):
    """1 -> True compares equal in Python, not as JSON: the new value is written."""
    a = zarrhpc.open_array(_store(tmp_path, V3), mode="r+")
    a.attrs["z"] = True
    assert _doc(tmp_path)["attributes"]["z"] is True


def test_regular_bounded_grid_stays_bounded_and_cuts_its_new_edge(tmp_path):
    """Growing 8 -> 10 rows: the name stays, and the new edge chunk is stored with its cut
    shape (2 rows), as zarrs reads it: a full 4-row chunk there would be misread."""
    a = zarrhpc.open_array(_store(tmp_path, V3), mode="r+")
    a.resize((10, 6))
    assert _same(_doc(tmp_path), {**V3, "shape": [10, 6]})
    b = zarrhpc.open_array(str(tmp_path), mode="r+")
    values = np.arange(60, dtype="f4").reshape(10, 6)
    b[...] = values
    assert (tmp_path / "c" / "2" / "0").stat().st_size == 2 * 3 * 4  # cut: 2 x 3 float32
    assert (tmp_path / "c" / "1" / "0").stat().st_size == 4 * 3 * 4
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path))[...], values)
    with pytest.raises(UnsupportedError, match="cut edge"):
        b.resize((12, 6))  # the stored cut chunk would have to grow


def test_append_changes_only_the_shape(tmp_path):
    doc = {**V3, "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 3]}}}
    a = zarrhpc.open_array(_store(tmp_path, doc), mode="r+")
    a.append(np.ones((3, 6), "f4"))
    assert _same(_doc(tmp_path), {**doc, "shape": [11, 6]})


V2 = {"zarr_format": 2, "shape": [6, 4], "chunks": [4, 4], "dtype": "<f8", "fill_value": "NaN",
      "order": "C", "filters": [], "compressor": {"id": "zlib", "level": 1},
      "writer_note": "kept"}


def test_v2_resize_changes_only_the_shape(tmp_path):
    """``filters: []``, no ``dimension_separator``, an unknown member and the member order
    stay; ``.zattrs`` is untouched by a resize and keeps its order on an update."""
    _store(tmp_path, V2, ".zarray")
    _store(tmp_path, {"b": 1, "a": 2}, ".zattrs")
    a = zarrhpc.open_array(str(tmp_path), mode="r+")
    a.resize((9, 4))
    assert _same(_doc(tmp_path, ".zarray"), {**V2, "shape": [9, 4]})
    a.attrs["c"] = 3
    assert _same(_doc(tmp_path, ".zattrs"), {"b": 1, "a": 2, "c": 3})
    assert np.isnan(zarrhpc.open_array(str(tmp_path))[...]).all()


def test_consolidation_keeps_each_node_document(tmp_path):
    g = zarrhpc.open_group(str(tmp_path), mode="w", zarr_format=2)
    g.create_array("x", shape=(2,), dtype="i2")
    _store(tmp_path / "x", V2, ".zarray")
    zarrhpc.consolidate_metadata(str(tmp_path))
    entry = json.loads((tmp_path / ".zmetadata").read_text())["metadata"]["x/.zarray"]
    assert entry == V2


def test_absent_members_stay_absent_until_they_change():
    source = {"a": 1}
    canon = {"a": 1, "b": []}
    assert as_written({"a": 1, "b": []}, source, canon) == {"a": 1}
    assert as_written({"a": 1, "b": [1]}, source, canon) == {"a": 1, "b": [1]}
    assert as_written({"a": 2, "b": []}, {"a": 1.0, "q": 5}, {"a": 1, "b": []}) == {
        "a": 2, "q": 5}
    assert as_written({"a": 1}, None, None) == {"a": 1}


@pytest.mark.parametrize(("spec", "after"), [
    ([4, 3], [4, 3]),                                   # integers reach any shape: kept
    ([[4, 4, 4], [3, 3, 3]], [[4, 4, 4], [3, 3, 3]]),  # listed edges still reach it: kept
    ([[[4, 2]], 3], [[[4, 3]], [[3, 3]]]),              # they do not: edges that do
])
def test_regular_rectilinear_grid_after_growth_still_covers_the_shape(tmp_path, spec, after):
    """A regular grid written as rectilinear edges is kept as written while it reaches the
    new shape; edges that stop short would make the document invalid, so they grow."""
    doc = {**V3, "chunk_grid": {"name": "rectilinear", "configuration": {
        "kind": "inline", "chunk_shapes": spec}}, "shape": [8, 6]}
    a = zarrhpc.open_array(_store(tmp_path, doc), mode="r+")
    a[...] = np.arange(48, dtype="f4").reshape(8, 6)
    a.resize((10, 7))
    assert _doc(tmp_path)["chunk_grid"]["configuration"]["chunk_shapes"] == after
    b = zarrhpc.open_array(str(tmp_path), mode="r+")
    b[8:, :] = 7
    want = np.zeros((10, 7), "f4")
    want[:8, :6] = np.arange(48).reshape(8, 6)
    want[8:] = 7
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path))[...], want)


def test_a_new_member_takes_its_canonical_place():
    """consolidated_metadata goes between zarr_format and node_type, as zarr-python puts it,
    also into a document written in another order (then after its canonical predecessor)."""
    canon = {"attributes": {}, "zarr_format": 3, "consolidated_metadata": {"k": 1},
             "node_type": "group"}
    before = {"attributes": {}, "zarr_format": 3, "node_type": "group"}
    assert list(as_written(canon, before, before)) == list(canon)
    other = {"node_type": "group", "zarr_format": 3}
    assert list(as_written(canon, other, before)) == ["node_type", "zarr_format",
                                                      "consolidated_metadata"]
