"""Opening bad metadata fails with a zarrhpc error naming the document and the field."""

import json

import pytest

import zarrhpc
from zarrhpc.errors import CodecError, MetadataError, ZarrhpcError

GOOD = {
    "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": 0.0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "attributes": {},
}


def without(key):
    return {k: v for k, v in GOOD.items() if k != key}


CASES = [
    ("missing shape", without("shape"), MetadataError, "shape"),
    ("missing fill_value", without("fill_value"), MetadataError, "fill_value"),
    ("shape wrong type", {**GOOD, "shape": "4"}, MetadataError, "shape"),
    ("unknown data type", {**GOOD, "data_type": "float128"}, MetadataError, "data_type"),
    ("bad fill value", {**GOOD, "fill_value": "nan-ish"}, MetadataError, "fill_value"),
    ("int fill out of range", {**GOOD, "data_type": "uint8", "fill_value": 256},
     MetadataError, "fill_value"),
    ("unknown codec", {**GOOD, "codecs": [*GOOD["codecs"], {"name": "lzma9"}]},
     CodecError, "codecs"),
    ("bad codec config", {**GOOD, "codecs": [*GOOD["codecs"],
                                             {"name": "gzip", "configuration": {"level": 99}}]},
     CodecError, "level"),
    ("no array->bytes codec", {**GOOD, "codecs": [{"name": "gzip", "configuration": {"level": 1}}]},
     CodecError, "codecs"),
    ("unknown must-understand key", {**GOOD, "future_feature": {"x": 1}},
     MetadataError, "future_feature"),
    ("unknown storage transformer", {**GOOD, "storage_transformers": [{"name": "magic"}]},
     MetadataError, "storage_transformers"),
    ("wrong zarr_format", {**GOOD, "zarr_format": 2}, MetadataError, "zarr_format"),
]


@pytest.mark.parametrize("doc,err,field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_array_metadata_is_refused(tmp_path, doc, err, field):
    path = tmp_path / "s.zarr" / "arr"
    path.mkdir(parents=True)
    (path / "zarr.json").write_text(json.dumps(doc))
    with pytest.raises(err) as info:
        zarrhpc.open_array(tmp_path / "s.zarr", path="arr")
    assert isinstance(info.value, ZarrhpcError)
    assert "arr/zarr.json" in str(info.value) and field in str(info.value)


def test_must_understand_false_is_ignored_and_kept(tmp_path):
    path = tmp_path / "s.zarr"
    path.mkdir()
    doc = {**GOOD, "future_feature": {"must_understand": False, "x": 1}}
    (path / "zarr.json").write_text(json.dumps(doc))
    a = zarrhpc.open_array(path, mode="r+")
    a[:] = 1.0
    a.attrs["k"] = 1  # rewrites the document: the unknown member survives
    assert json.loads((path / "zarr.json").read_text())["future_feature"] == doc["future_feature"]


def test_invalid_json_names_document(tmp_path):
    path = tmp_path / "s.zarr" / "g"
    path.mkdir(parents=True)
    (path / "zarr.json").write_text("{not json")
    with pytest.raises(MetadataError, match="g/zarr.json"):
        zarrhpc.open(tmp_path / "s.zarr", path="g")
