"""Writes of plain values into a nested ``optional`` array (zarrs' Option<Option<T>>).

Found by the hunt (wave 9): ``from_masked`` assigned plain numbers to the inner record
with numpy's cast, which sets every field of the record to the number: a written 0 was
stored as an inner null (``Some(None)``), any other value as present -- with no error.
Plain values are present at every level; records written as records keep their inner
validity.
"""

import json

import numpy as np
import pytest

import zarrhpc

PACK = {"name": "packbits"}
BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def _nested(tmp_path, inner="uint8", shape=(6,), chunks=(4,)):
    path = tmp_path / "n"
    path.mkdir()
    meta = {"zarr_format": 3, "node_type": "array", "shape": list(shape),
            "data_type": {"name": "optional", "configuration": {
                "name": "optional", "configuration": {"name": inner, "configuration": {}}}},
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": None, "attributes": {},
            "codecs": [{"name": "optional", "configuration": {
                "mask_codecs": [PACK], "data_codecs": [{"name": "optional", "configuration": {
                    "mask_codecs": [PACK], "data_codecs": [BYTES]}}]}}]}
    (path / "zarr.json").write_text(json.dumps(meta))
    return zarrhpc.open_array(str(path), mode="r+")


def _levels(got):
    """(outer present, inner present, value) per element of a read."""
    m = np.ma.getmaskarray(got)
    if m.dtype.names:  # a record's mask: the element is missing when every field is
        m = np.logical_and.reduce([m[n] for n in m.dtype.names])
    outer = ~m
    rec = np.ma.getdata(got)
    return outer, rec["valid"], rec["value"]


@pytest.mark.parametrize("inner,values", [("uint8", [0, 1, 2, 0, 255, 0]),
                                          ("float32", [0.0, -0.0, 1.5, 0.0, 2.0, 3.0]),
                                          ("bool", [False, True, False, True, False, False])])
def test_plain_values_are_present_at_every_level(tmp_path, inner, values):
    a = _nested(tmp_path, inner)
    mask = [False, False, True, False, False, False]
    a[...] = np.ma.MaskedArray(np.array(values), mask=mask)
    outer, inner_valid, value = _levels(zarrhpc.open_array(a.store, path=a.path)[...])
    assert outer.tolist() == [not m for m in mask]
    assert inner_valid[outer].all()  # no written value became an inner null
    assert value[outer].tolist() == np.array(values, dtype=value.dtype)[outer].tolist()
    a[1] = 0  # a scalar
    a[3:5] = np.zeros(2, dtype=value.dtype)  # plain array
    outer, inner_valid, value = _levels(a[...])
    assert outer[[1, 3, 4]].all() and inner_valid[[1, 3, 4]].all()
    assert value[[1, 3, 4]].tolist() == [0, 0, 0]


def test_records_keep_their_inner_validity(tmp_path):
    a = _nested(tmp_path)
    rec = np.zeros(2, dtype=[("value", "u1"), ("valid", "?")])
    rec["value"] = [0, 9]
    rec["valid"] = [False, True]  # Some(None), Some(Some(9))
    a[0:2] = rec
    outer, inner_valid, value = _levels(a[0:2])
    assert outer.tolist() == [True, True]
    assert inner_valid.tolist() == [False, True] and value[1] == 9
