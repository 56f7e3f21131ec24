"""zarr-extensions ``struct`` (field objects, object fill values): read (also as the legacy
``structured``) and written, fields in the bytes codec's endian."""

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
    # written back as struct: one JSON value per field
    assert fill_value_to_json(dt, fill) == {"x": 1.5, "p": {"a": -3}, "t": -(2**63)}
    assert dt.to_json() == POINT
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


def _struct_store(root, endian, fields, fill, chunk=2, shape=3):
    (root / "c").mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [shape],
        "data_type": {"name": "struct", "configuration": {"fields": fields}},
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [{"name": "bytes", "configuration": {"endian": endian}}]}))


@pytest.mark.parametrize("endian", ["big", "little"])
def test_struct_fields_follow_the_bytes_endian(tmp_path, endian):
    """zarr-extensions struct: "All multi-byte fields MUST use the byte order specified by
    the endian parameter". Regression: a big-endian struct was read without the swap
    (silent wrong values) and written little-endian."""
    fields = [{"name": "a", "data_type": "int16"}, {"name": "b", "data_type": "float32"},
              {"name": "c", "data_type": "uint8"}]
    root = tmp_path / "s.zarr"
    _struct_store(root, endian, fields, {"a": 7, "b": 0.5, "c": 1})
    o = ">" if endian == "big" else "<"
    stored = np.dtype([("a", f"{o}i2"), ("b", f"{o}f4"), ("c", "u1")])
    (root / "c" / "0").write_bytes(np.array([(1, 1.5, 2), (258, -2.0, 3)], stored).tobytes())
    a = zarrhpc.open_array(root, mode="r+")
    got = a[...]
    assert got["a"].tolist() == [1, 258, 7] and got["b"].tolist() == [1.5, -2.0, 0.5]
    assert got["c"].tolist() == [2, 3, 1] and a[1:2]["a"].tolist() == [258]
    a[2:] = np.array([(3, 4.0, 9)], dtype=a.dtype)
    expect = np.array([(3, 4.0, 9), (7, 0.5, 1)], stored).tobytes()
    assert (root / "c" / "1").read_bytes() == expect


def test_struct_written_as_the_extension_says(tmp_path):
    """``create_array`` with ``zarrhpc.dtype.Struct`` writes zarr-extensions struct: field
    objects, one fill value per field, the bytes codec's endian named (multi-byte fields);
    a struct of 1-byte fields needs no endian."""
    import zarrhpc.dtype

    dt = np.dtype([("a", "<i2"), ("b", [("x", "u1"), ("t", "<M8[s]")])])
    zarrhpc.create_array(str(tmp_path / "a.zarr"), shape=(2,), compressors=None,
                         dtype=zarrhpc.dtype.Struct.from_native_dtype(dt),
                         fill_value=np.array((5, (2, "NaT")), dtype=dt))
    doc = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    assert doc["data_type"] == {"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "int16"},
        {"name": "b", "data_type": {"name": "struct", "configuration": {"fields": [
            {"name": "x", "data_type": "uint8"},
            {"name": "t", "data_type": {"name": "numpy.datetime64",
                                        "configuration": {"unit": "s", "scale_factor": 1}}}]}}}]}}
    assert doc["fill_value"] == {"a": 5, "b": {"x": 2, "t": -(2**63)}}
    assert doc["codecs"] == [{"name": "bytes", "configuration": {"endian": "little"}}]
    zarrhpc.create_array(str(tmp_path / "b.zarr"), shape=(2,), dtype=[("x", "u1"), ("y", "i1")],
                         compressors=None)
    doc = json.loads((tmp_path / "b.zarr" / "zarr.json").read_text())
    assert doc["codecs"] == [{"name": "bytes"}]


# -- struct vs structured: the decision of metadata/dtypes_ext.py ---------------------------

PAIR = np.dtype([("a", "<i4"), ("b", "<f8")])


def test_numpy_structured_types_are_written_as_zarr_python_3_1_writes(tmp_path):
    """The default is zarr-python 3.1's ``structured`` (pairs, base64 fill), byte for byte
    its document, and zarr-python 3.1 reads the values."""
    import warnings

    import zarr

    fill = np.array((1, 2.5), PAIR)
    data = np.array([(i, i / 3) for i in range(5)], PAIR)
    a = zarrhpc.create_array(str(tmp_path / "h"), shape=(5,), chunks=(2,), dtype=PAIR,
                             fill_value=fill, compressors=None)
    a[:4] = data[:4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(str(tmp_path / "z"), shape=(5,), chunks=(2,), dtype=PAIR,
                              fill_value=fill[()], compressors=None)
        got = zarr.open_array(str(tmp_path / "h"), mode="r")[...]
    ours = json.loads((tmp_path / "h" / "zarr.json").read_text())
    theirs = json.loads((tmp_path / "z" / "zarr.json").read_text())
    assert ours["data_type"] == theirs["data_type"] == {
        "name": "structured", "configuration": {"fields": [["a", "int32"], ["b", "float64"]]}}
    assert ours["fill_value"] == theirs["fill_value"] == "AQAAAAAAAAAAAARA"
    assert got.tobytes() == np.concatenate([data[:4], fill[None]]).tobytes()
    del z


@pytest.mark.parametrize("name", ["struct", "structured"])
@pytest.mark.parametrize("fill_form", ["fields", "base64"])
def test_both_names_read_with_either_fill_form_and_keep_their_name(tmp_path, name, fill_form):
    """Either name, either fill form (zarr-python 3.2 reads base64 for struct too) reads to
    the same type and fill; an attribute update and a resize keep the name and the form."""
    fields = ([{"name": "a", "data_type": "int32"}, {"name": "b", "data_type": "float64"}]
              if name == "struct" else [["a", "int32"], ["b", "float64"]])
    fill = {"a": 1, "b": 2.5} if fill_form == "fields" else "AQAAAAAAAAAAAARA"
    doc = {"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": {
        "name": name, "configuration": {"fields": fields}},
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
    (tmp_path / "zarr.json").write_text(json.dumps(doc))
    a = zarrhpc.open_array(str(tmp_path), mode="r+")
    assert a.dtype == PAIR and a[...].tobytes() == np.array([(1, 2.5)] * 3, PAIR).tobytes()
    a.attrs["k"] = 1
    a.resize((4,))
    after = json.loads((tmp_path / "zarr.json").read_text())
    assert after["data_type"] == doc["data_type"] and after["fill_value"] == fill
    assert after["shape"] == [4] and after["attributes"] == {"k": 1}


def test_struct_on_request_and_kept(tmp_path):
    """``zarrhpc.dtype.Struct`` writes ``struct`` (values per field); zarrhpc reads it back
    as a Struct and keeps it through a rewrite; zarr-python 3.1 refuses it, later releases
    read it (checked where installed)."""
    import warnings

    import zarr

    import zarrhpc.dtype
    from zarrhpc.testing.corpus import zarr_python_reads_struct

    data = np.array([(i, -i / 4) for i in range(4)], PAIR)
    a = zarrhpc.create_array(str(tmp_path), shape=(4,), chunks=(3,),
                             dtype=zarrhpc.dtype.Struct.from_native_dtype(PAIR),
                             fill_value=np.array((7, 0.5), PAIR))
    a[...] = data
    doc = json.loads((tmp_path / "zarr.json").read_text())
    assert doc["data_type"]["name"] == "struct" and doc["fill_value"] == {"a": 7, "b": 0.5}
    b = zarrhpc.open_array(str(tmp_path), mode="r+")
    assert type(b.metadata.data_type).__name__ == "Struct"
    b.attrs["x"] = 1
    assert json.loads((tmp_path / "zarr.json").read_text())["data_type"] == doc["data_type"]
    assert zarrhpc.open_array(str(tmp_path))[...].tobytes() == data.tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if zarr_python_reads_struct():
            assert zarr.open_array(str(tmp_path), mode="r")[...].tobytes() == data.tobytes()
        else:
            with pytest.raises(ValueError, match="struct"):
                zarr.open_array(str(tmp_path), mode="r")
