"""zarr-extensions ``struct`` (field objects, object fill values), read as ``structured``."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import MetadataError
from zarrhpc.metadata import fill_value_to_json, parse_data_type, parse_fill_value

POINT = {"name": "struct", "configuration": {"fields": [
    {"name": "x", "data_type": "float32"},
    {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int8"}]}}},
    {"name": "t", "data_type": {"name": "numpy.datetime64",
                                "configuration": {"unit": "s", "scale_factor": 1}}}]}}


def test_struct_type_and_fill():
    dt = parse_data_type(POINT, "z")
    assert dt.dtype == np.dtype([("x", "<f4"), ("p", [("a", "i1")]), ("t", "<M8[s]")])
    fill = parse_fill_value(dt, {"x": 1.5, "p": {"a": -3}, "t": "NaT"}, "z")
    assert fill["x"] == 1.5 and fill["p"]["a"] == -3 and np.isnat(fill["t"])
    # written as zarr-python's "structured" (same bytes), fill as base64
    assert parse_fill_value(dt, fill_value_to_json(dt, fill), "z").tobytes() == fill.tobytes()


@pytest.mark.parametrize(
    ("fill", "needle"),
    [({"x": 1.5, "p": {"a": 1}}, "one value per field"),
     ({"x": 1.5, "p": {"a": 1}, "t": 0, "q": 1}, "one value per field"),
     ({"x": "no", "p": {"a": 1}, "t": 0}, "fill_value")],
)
def test_struct_bad_fill(fill, needle):
    with pytest.raises(MetadataError, match=needle):
        parse_fill_value(parse_data_type(POINT, "z"), fill, "a/zarr.json")


def test_struct_variable_length_field_refused():
    bad = {"name": "struct", "configuration": {"fields": [{"name": "s", "data_type": "string"}]}}
    with pytest.raises(MetadataError, match="variable-length"):
        parse_data_type(bad, "z")


def test_struct_store_reads(tmp_path):
    dt = np.dtype([("id", "<i4"), ("flags", "u1"), ("value", "<f8")])  # packed, 13 bytes
    data = np.array([(1, 2, 0.5), (-7, 255, 1e300), (3, 0, -2.0)], dtype=dt)
    (tmp_path / "s.zarr/c").mkdir(parents=True)
    (tmp_path / "s.zarr/zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [4],
        "data_type": {"name": "struct", "configuration": {"fields": [
            {"name": "id", "data_type": "int32"}, {"name": "flags", "data_type": "uint8"},
            {"name": "value", "data_type": "float64"}]}},
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": {"id": 9, "flags": 1, "value": 0.25},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
    (tmp_path / "s.zarr/c/0").write_bytes(data.tobytes())
    got = zarrhpc.open_array(tmp_path / "s.zarr")[...]
    assert got.dtype.itemsize == 13
    assert got[:3].tolist() == data.tolist()
    assert got[3].tolist() == (9, 1, 0.25)
