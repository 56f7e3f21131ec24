"""Tests for zarrhpc.metadata.v3: zarr.json of arrays and groups (v3.0 core + ZEP 9)."""

from __future__ import annotations

import copy
import dataclasses
import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings

from zarrhpc.errors import MetadataError
from zarrhpc.metadata import (
    ArrayMetadataV3,
    ChunkKeyEncoding,
    GroupMetadataV3,
    is_valid_extension_name,
    parse_data_type,
    parse_extension_entry,
    parse_metadata_v3,
)
from zarrhpc.testing.strategies_metadata import array_metadata, group_attributes

DOC = "a/b/zarr.json"
DELETE = object()


def array_doc(**changes) -> dict:
    """A minimal valid array document, with members replaced or deleted."""
    d = {
        "shape": [10, 20],
        "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 5]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": "NaN",
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {"units": "K"},
        "zarr_format": 3,
        "node_type": "array",
        "storage_transformers": [],
    }
    for key, value in changes.items():
        if value is DELETE:
            d.pop(key, None)
        else:
            d[key] = value
    return d


def enc(d: dict) -> bytes:
    return json.dumps(d, indent=2).encode()


# ---------------------------------------------------------------------------------------
# chunk key encoding
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cke", "coords", "key"),
    [
        (ChunkKeyEncoding(), (1, 2), "c/1/2"),
        (ChunkKeyEncoding(), (), "c"),
        (ChunkKeyEncoding("default", "."), (1, 2, 30), "c.1.2.30"),
        (ChunkKeyEncoding("default", "."), (), "c"),
        (ChunkKeyEncoding("v2"), (1, 2), "1.2"),
        (ChunkKeyEncoding("v2"), (), "0"),
        (ChunkKeyEncoding("v2", "/"), (1, 2), "1/2"),
        (ChunkKeyEncoding("v2", "/"), (7,), "7"),
        (ChunkKeyEncoding(), (np.int64(3),), "c/3"),
    ],
)
def test_chunk_key_encode(cke, coords, key):
    assert cke.encode(coords) == key


@pytest.mark.parametrize(
    ("obj", "name", "sep"),
    [
        ("default", "default", "/"),
        ("v2", "v2", "."),
        ({"name": "default"}, "default", "/"),
        ({"name": "v2"}, "v2", "."),
        ({"name": "default", "configuration": {"separator": "."}}, "default", "."),
        ({"name": "v2", "configuration": {"separator": "/"}}, "v2", "/"),
        ({"name": "v2", "configuration": {}}, "v2", "."),
    ],
)
def test_chunk_key_encoding_from_json(obj, name, sep):
    cke = ChunkKeyEncoding.from_json(obj, DOC)
    assert (cke.name, cke.separator) == (name, sep)
    assert cke.to_json() == {"name": name, "configuration": {"separator": sep}}


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ("nested", "unknown chunk key encoding 'nested'"),
        (
            {"name": "default", "configuration": {"separator": "-"}},
            "separator: expected '/' or '.'",
        ),
        ({"name": "default", "configuration": {"sep": "/"}}, "unexpected member 'sep'"),
        ({"name": "default", "must_understand": False}, "must_understand"),
        (3, "expected an extension name"),
    ],
)
def test_chunk_key_encoding_rejects(obj, needle):
    with pytest.raises(MetadataError) as info:
        ChunkKeyEncoding.from_json(obj, DOC)
    assert str(info.value).startswith(f"{DOC}: chunk_key_encoding")
    assert needle in str(info.value)


def test_chunk_key_encoding_constructor_checks():
    with pytest.raises(MetadataError):
        ChunkKeyEncoding("v3")
    with pytest.raises(MetadataError):
        ChunkKeyEncoding("default", "_")


# ---------------------------------------------------------------------------------------
# parsing arrays
# ---------------------------------------------------------------------------------------


def test_parse_minimal_array():
    m = ArrayMetadataV3.from_json(enc(array_doc()), DOC)
    assert m.shape == (10, 20)
    assert m.data_type == parse_data_type("float32", DOC)
    assert m.dtype == np.dtype("f4")
    assert m.chunk_shape == (5, 5)
    assert m.chunk_grid_shape == (2, 4)
    assert m.chunk_key_encoding == ChunkKeyEncoding("default", "/")
    assert m.fill_value.dtype == np.dtype("f4") and m.fill_value.shape == ()
    assert m.fill_value.tobytes() == np.array(0x7FC00000, "u4").tobytes()
    assert m.codecs == [{"name": "bytes", "configuration": {"endian": "little"}}]
    assert m.attributes == {"units": "K"}
    assert m.dimension_names is None
    assert m.storage_transformers == []
    assert m.extra == {}
    assert m.encode_chunk_key((1, 3)) == "c/1/3"
    assert (m.zarr_format, m.node_type, m.ndim) == (3, "array", 2)


def test_parse_accepts_str_dict_bytearray_memoryview():
    d = array_doc()
    ref = ArrayMetadataV3.from_json(d, DOC)
    for data in (json.dumps(d), bytearray(enc(d)), memoryview(enc(d))):
        assert ArrayMetadataV3.from_json(data, DOC) == ref


def test_parse_from_dict_does_not_alias_input():
    d = array_doc(attributes={"x": [1]})
    m = ArrayMetadataV3.from_json(d, DOC)
    d["attributes"]["x"].append(2)
    d["codecs"][0]["configuration"]["endian"] = "big"
    assert m.attributes == {"x": [1]}
    assert m.codecs[0]["configuration"]["endian"] == "little"


def test_optional_members_absent():
    m = ArrayMetadataV3.from_json(array_doc(attributes=DELETE, storage_transformers=DELETE), DOC)
    assert m.attributes == {} and m.storage_transformers == []
    # left out when written back (as the document had them); written out on a new node,
    # as zarr-python does
    out = json.loads(m.to_bytes())
    assert "attributes" not in out and "storage_transformers" not in out
    out = json.loads(dataclasses.replace(m, source=None).to_bytes())
    assert out["attributes"] == {} and out["storage_transformers"] == []
    out = json.loads(m.with_attributes({"a": 1}).to_bytes())  # changed: written
    assert out["attributes"] == {"a": 1} and "storage_transformers" not in out


def test_zero_dim_and_zero_length():
    m = ArrayMetadataV3.from_json(
        array_doc(shape=[], chunk_grid={"name": "regular", "configuration": {"chunk_shape": []}}),
        DOC,
    )
    assert m.shape == () and m.chunk_shape == () and m.encode_chunk_key(()) == "c"
    m = ArrayMetadataV3.from_json(array_doc(shape=[0, 5]), DOC)
    assert m.shape == (0, 5) and m.chunk_grid_shape == (0, 1)


def test_dimension_names():
    m = ArrayMetadataV3.from_json(array_doc(dimension_names=["x", None]), DOC)
    assert m.dimension_names == ("x", None)
    assert json.loads(m.to_bytes())["dimension_names"] == ["x", None]


def test_short_hand_extension_names_kept_as_given():
    codecs = ["bytes", {"name": "crc32c"}, {"name": "https://example.com/zarr/my-codec"}]
    m = ArrayMetadataV3.from_json(
        array_doc(
            data_type={"name": "int16"}, fill_value=3, codecs=codecs, chunk_key_encoding="v2"
        ),
        DOC,
    )
    assert m.codecs == codecs
    out = json.loads(m.to_bytes())
    assert out["codecs"] == codecs
    assert out["data_type"] == {"name": "int16"} and out["chunk_key_encoding"] == "v2"
    out = json.loads(dataclasses.replace(m, source=None).to_bytes())  # created here
    assert out["codecs"] == codecs
    assert out["data_type"] == "int16"  # core data types are written as plain strings
    assert out["chunk_key_encoding"] == {"name": "v2", "configuration": {"separator": "."}}


def test_extra_must_understand_false_is_kept_and_written_back():
    stats = {"must_understand": False, "min": 0, "max": 3}
    other = {"must_understand": False, "x": [1, 2]}
    d = array_doc()
    d["zz_stats"] = stats
    d["https://example.com/other"] = other
    m = ArrayMetadataV3.from_json(enc(d), DOC)
    assert m.extra == {"zz_stats": stats, "https://example.com/other": other}
    out = json.loads(m.to_bytes())
    assert list(out)[-2:] == ["zz_stats", "https://example.com/other"]  # document order, at the end
    assert out["zz_stats"] == stats


def test_extensions_member_all_optional():
    exts = [
        {
            "name": "https://example.com/zarr/array-statistics",
            "configuration": {"min": 5},
            "must_understand": False,
        },
        {"name": "consolidated-stuff", "must_understand": False},
    ]
    m = ArrayMetadataV3.from_json(enc(array_doc(extensions=exts)), DOC)
    assert m.extra == {"extensions": exts}
    assert json.loads(m.to_bytes())["extensions"] == exts
    g = GroupMetadataV3.from_json({"zarr_format": 3, "node_type": "group", "extensions": exts}, DOC)
    assert g.extra == {"extensions": exts}


def test_storage_transformers_must_understand_false_kept():
    st_ = [{"name": "https://example.com/cache", "must_understand": False}]
    m = ArrayMetadataV3.from_json(enc(array_doc(storage_transformers=st_)), DOC)
    assert m.storage_transformers == st_
    assert json.loads(m.to_bytes())["storage_transformers"] == st_


def test_nan_literal_in_attributes_read_but_not_written():
    text = enc(array_doc()).replace(b'"units": "K"', b'"units": NaN')
    m = ArrayMetadataV3.from_json(text, DOC)
    assert np.isnan(m.attributes["units"])
    with pytest.raises(MetadataError) as info:
        m.to_bytes(DOC)
    assert str(info.value).startswith(f"{DOC}: attributes: ")


def test_non_json_attributes_fail_on_write():
    m = ArrayMetadataV3.from_json(array_doc(), DOC).with_attributes({"x": np.int64(1)})
    with pytest.raises(MetadataError, match=r"^zarr.json: attributes: cannot be written"):
        m.to_bytes()


# ---------------------------------------------------------------------------------------
# bad documents
# ---------------------------------------------------------------------------------------

_BAD = [
    # (id, document, field named, words in the message)
    ("missing shape", array_doc(shape=DELETE), "shape", "missing required member"),
    ("missing data_type", array_doc(data_type=DELETE), "data_type", "missing"),
    ("missing chunk_grid", array_doc(chunk_grid=DELETE), "chunk_grid", "missing"),
    ("missing cke", array_doc(chunk_key_encoding=DELETE), "chunk_key_encoding", "missing"),
    ("missing fill_value", array_doc(fill_value=DELETE), "fill_value", "missing"),
    ("missing codecs", array_doc(codecs=DELETE), "codecs", "missing"),
    ("missing zarr_format", array_doc(zarr_format=DELETE), "zarr_format", "missing"),
    ("missing node_type", array_doc(node_type=DELETE), "node_type", "missing"),
    ("zarr_format 2", array_doc(zarr_format=2), "zarr_format", "expected 3, got 2"),
    ("zarr_format str", array_doc(zarr_format="3"), "zarr_format", "expected 3"),
    ("zarr_format 3.0", array_doc(zarr_format=3.0), "zarr_format", "expected 3"),
    (
        "zarr_format draft",
        array_doc(zarr_format="https://purl.org/zarr/spec/protocol/core/3.0"),
        "zarr_format",
        "2022 draft",
    ),
    ("node_type bad", array_doc(node_type="dataset"), "node_type", "'array' or 'group'"),
    ("shape not list", array_doc(shape=10), "shape", "non-negative integers"),
    ("shape negative", array_doc(shape=[10, -1]), "shape", "non-negative"),
    ("shape float", array_doc(shape=[10.0, 20]), "shape", "integers"),
    ("shape bool", array_doc(shape=[True, 20]), "shape", "integers"),
    ("unknown data type", array_doc(data_type="float8"), "data_type", "unknown data type"),
    ("data type number", array_doc(data_type=4), "data_type", "expected a data type name"),
    (
        "data type must_understand false",
        array_doc(data_type={"name": "float32", "must_understand": False}),
        "data_type",
        "must_understand",
    ),
    (
        "unknown chunk grid",
        array_doc(
            chunk_grid={"name": "hexagonal", "configuration": {"chunk_shapes": [[5], [5]]}}
        ),
        "chunk_grid",
        "unknown chunk grid 'hexagonal'",
    ),
    (
        "chunk grid short-hand",
        array_doc(chunk_grid="regular"),
        "chunk_grid.configuration.chunk_shape",
        "missing",
    ),
    ("chunk grid list", array_doc(chunk_grid=[5, 5]), "chunk_grid", "expected an extension name"),
    (
        "chunk grid must_understand false",
        array_doc(
            chunk_grid={
                "name": "regular",
                "configuration": {"chunk_shape": [5, 5]},
                "must_understand": False,
            }
        ),
        "chunk_grid",
        "must_understand",
    ),
    (
        "chunk shape length",
        array_doc(chunk_grid={"name": "regular", "configuration": {"chunk_shape": [5]}}),
        "chunk_grid.configuration.chunk_shape",
        "2 positive integers",
    ),
    (
        "chunk shape zero",
        array_doc(chunk_grid={"name": "regular", "configuration": {"chunk_shape": [5, 0]}}),
        "chunk_grid.configuration.chunk_shape",
        "positive",
    ),
    (
        "chunk grid extra conf",
        array_doc(chunk_grid={"name": "regular", "configuration": {"chunk_shape": [5, 5], "x": 1}}),
        "chunk_grid.configuration",
        "unexpected member 'x'",
    ),
    (
        "cke must_understand false",
        array_doc(chunk_key_encoding={"name": "default", "must_understand": False}),
        "chunk_key_encoding",
        "must_understand",
    ),
    (
        "cke unknown",
        array_doc(chunk_key_encoding={"name": "nested"}),
        "chunk_key_encoding",
        "unknown",
    ),
    (
        "fill out of range int",
        array_doc(data_type="uint8", fill_value=256),
        "fill_value",
        "[0, 255]",
    ),
    (
        "fill wrong hex length",
        array_doc(fill_value="0x7ff8000000"),
        "fill_value",
        "8 hex digits",
    ),
    ("fill bad string", array_doc(fill_value="nan!"), "fill_value", "'NaN'"),
    ("fill null", array_doc(fill_value=None), "fill_value", "for float32"),
    ("codecs empty", array_doc(codecs=[]), "codecs", "non-empty array"),
    ("codecs not list", array_doc(codecs={"name": "bytes"}), "codecs", "non-empty array"),
    ("codec number", array_doc(codecs=[1]), "codecs[0]", "extension name"),
    (
        "codec no name",
        array_doc(codecs=[{"configuration": {}}]),
        "codecs[0]",
        "missing member 'name'",
    ),
    ("codec name not str", array_doc(codecs=[{"name": 1}]), "codecs[0].name", "expected a string"),
    (
        "codec bad name",
        array_doc(codecs=[{"name": "Bytes"}]),
        "codecs[0]",
        "neither a registered name",
    ),
    ("codec bad name slash", array_doc(codecs=["foo/bar"]), "codecs[0]", "neither"),
    (
        "codec conf not object",
        array_doc(codecs=[{"name": "bytes", "configuration": []}]),
        "codecs[0].configuration",
        "object",
    ),
    (
        "codec must_understand str",
        array_doc(codecs=[{"name": "bytes", "must_understand": "no"}]),
        "codecs[0].must_understand",
        "true or false",
    ),
    (
        "codec extra member",
        array_doc(codecs=[{"name": "bytes", "id": "x"}]),
        "codecs[0]",
        "unexpected member 'id'",
    ),
    ("attributes list", array_doc(attributes=[1]), "attributes", "expected an object"),
    (
        "dimension_names length",
        array_doc(dimension_names=["x"]),
        "dimension_names",
        "2 strings or nulls",
    ),
    (
        "dimension_names type",
        array_doc(dimension_names=["x", 1]),
        "dimension_names",
        "strings or nulls",
    ),
    (
        "storage transformer",
        array_doc(storage_transformers=[{"name": "sharding_indexed", "configuration": {}}]),
        "storage_transformers[0]",
        "'sharding_indexed' is not supported",
    ),
    (
        "storage transformer short-hand",
        array_doc(storage_transformers=["https://example.com/st"]),
        "storage_transformers[0]",
        "not supported",
    ),
    (
        "storage transformers object",
        array_doc(storage_transformers={"name": "x"}),
        "storage_transformers",
        "expected an array",
    ),
    ("unknown member", array_doc(foo=1), "foo", "unknown member"),
    ("unknown member object", array_doc(foo={"a": 1}), "foo", "unknown member"),
    (
        "unknown member must_understand true",
        array_doc(foo={"must_understand": True}),
        "foo",
        "unknown member",
    ),
    (
        "unknown member must_understand str",
        array_doc(foo={"must_understand": "false"}),
        "foo",
        "unknown member",
    ),
    (
        "extensions must understand",
        array_doc(
            extensions=[{"name": "https://example.com/zarr/offset", "configuration": {"o": 1}}]
        ),
        "extensions[0]",
        "'https://example.com/zarr/offset' is not supported",
    ),
    (
        "extensions mixed",
        array_doc(extensions=[{"name": "a-b", "must_understand": False}, "other-ext"]),
        "extensions[1]",
        "'other-ext' is not supported",
    ),
    ("extensions empty", array_doc(extensions=[]), "extensions", "non-empty array"),
    (
        "extensions object",
        array_doc(extensions={"must_understand": False}),
        "extensions",
        "non-empty array",
    ),
]


@pytest.mark.parametrize(
    ("doc_obj", "field", "needle"), [b[1:] for b in _BAD], ids=[b[0] for b in _BAD]
)
def test_bad_array_documents(doc_obj, field, needle):
    for parse in (ArrayMetadataV3.from_json, parse_metadata_v3):
        with pytest.raises(MetadataError) as info:
            parse(enc(doc_obj), DOC)
        msg = str(info.value)
        assert msg.startswith(f"{DOC}: {field}: "), msg
        assert needle in msg, msg


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b'{"zarr_format": 3,', "not valid JSON"),
        (b"", "not valid JSON"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
        (b'"x"', "expected a JSON object"),
        (
            b'{"zarr_format": 3, "zarr_format": 3, "node_type": "group"}',
            "'zarr_format' appears twice",
        ),
    ],
)
def test_invalid_json(data, needle):
    with pytest.raises(MetadataError) as info:
        parse_metadata_v3(data, DOC)
    assert str(info.value).startswith(f"{DOC}: ")
    assert needle in str(info.value)


def test_node_type_mismatch():
    with pytest.raises(
        MetadataError, match=r"^a/b/zarr.json: node_type: expected 'array', got \"group\""
    ):
        ArrayMetadataV3.from_json(b'{"zarr_format": 3, "node_type": "group"}', DOC)
    with pytest.raises(MetadataError, match=r"^a/b/zarr.json: node_type: expected 'group'"):
        GroupMetadataV3.from_json(enc(array_doc()), DOC)


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------


def test_group_parse_and_write():
    g = GroupMetadataV3.from_json(b'{"zarr_format": 3, "node_type": "group"}', DOC)
    assert g.attributes == {} and g.extra == {}
    assert g.to_bytes() == b'{\n  "zarr_format": 3,\n  "node_type": "group"\n}'  # as read
    assert GroupMetadataV3().to_bytes() == (
        b'{\n  "attributes": {},\n  "zarr_format": 3,\n  "node_type": "group"\n}')
    assert isinstance(parse_metadata_v3(g.to_bytes(), DOC), GroupMetadataV3)


@pytest.mark.parametrize(
    ("doc_obj", "field", "needle"),
    [
        (
            {"zarr_format": 3, "node_type": "group", "attributes": 1},
            "attributes",
            "expected an object",
        ),
        ({"zarr_format": 3, "node_type": "group", "shape": [1]}, "shape", "unknown member"),
        ({"zarr_format": 2, "node_type": "group"}, "zarr_format", "expected 3"),
        (
            {"zarr_format": 3, "node_type": "group", "consolidated_metadata": 1},
            "consolidated_metadata",
            "unknown member",
        ),
    ],
)
def test_bad_group_documents(doc_obj, field, needle):
    with pytest.raises(MetadataError) as info:
        GroupMetadataV3.from_json(enc(doc_obj), DOC)
    assert str(info.value).startswith(f"{DOC}: {field}: ")
    assert needle in str(info.value)


def test_group_consolidated_metadata_order():
    cm = {"kind": "inline", "must_understand": False, "metadata": {}}
    g = GroupMetadataV3(
        attributes={"a": 1},
        extra={"other": {"must_understand": False}, "consolidated_metadata": cm},
    )
    assert list(g.to_dict()) == [
        "attributes",
        "zarr_format",
        "consolidated_metadata",
        "node_type",
        "other",
    ]


# ---------------------------------------------------------------------------------------
# serialisation
# ---------------------------------------------------------------------------------------


def test_member_order_and_format():
    m = ArrayMetadataV3.from_json(enc(array_doc(dimension_names=["y", "x"])), DOC)
    assert list(json.loads(m.to_bytes())) == list(array_doc(dimension_names=["y", "x"]))
    out = dataclasses.replace(m, source=None).to_bytes()  # a node created here
    assert list(json.loads(out)) == [
        "shape",
        "data_type",
        "chunk_grid",
        "chunk_key_encoding",
        "fill_value",
        "codecs",
        "attributes",
        "dimension_names",
        "zarr_format",
        "node_type",
        "storage_transformers",
    ]
    assert out.startswith(b'{\n  "shape": [\n    10,\n    20\n  ],\n  "data_type": "float32",')
    assert b'"fill_value": "NaN"' in out
    assert not out.endswith(b"\n")


def test_constructor_defaults_and_coercion():
    m = ArrayMetadataV3(
        shape=[4, np.int64(6)], data_type="<f8", chunk_shape=(2, 3), codecs=["bytes"]
    )
    assert m.shape == (4, 6) and m.data_type.name == "float64"
    assert m.fill_value.dtype == np.dtype("f8") and m.fill_value[()] == 0.0
    assert m.chunk_key_encoding == ChunkKeyEncoding("default", "/")
    d = json.loads(m.to_bytes())
    assert d["fill_value"] == 0.0 and isinstance(d["fill_value"], float)
    assert ArrayMetadataV3.from_json(m.to_bytes(), DOC) == m


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (dict(chunk_shape=(2,)), "chunk_shape"),
        (dict(codecs=[]), "codecs"),
        (dict(dimension_names=("x",)), "dimension_names"),
        (dict(fill_value="abc"), "fill_value"),
        (dict(storage_transformers=[{"name": "x"}]), "storage_transformers[0]"),
        (dict(extra={"foo": 1}), "foo"),
        (dict(extra={"shape": {"must_understand": False}}), "shape"),
    ],
)
def test_constructor_validates(kwargs, needle):
    base = dict(shape=(4, 6), data_type="f4", chunk_shape=(2, 3), codecs=["bytes"])
    base.update(kwargs)
    with pytest.raises(MetadataError) as info:
        ArrayMetadataV3(**base)
    assert str(info.value).startswith(f"ArrayMetadataV3: {needle}")


def test_fill_value_is_a_read_only_copy():
    src = np.array(1.5, "f8")
    m = ArrayMetadataV3(
        shape=(2,), data_type="f8", chunk_shape=(1,), codecs=["bytes"], fill_value=src
    )
    src[()] = 2.5
    assert m.fill_value[()] == 1.5
    with pytest.raises(ValueError):
        m.fill_value[()] = 3.0
    assert src.flags.writeable  # the caller's array is untouched


def test_with_shape_and_equality():
    m = ArrayMetadataV3.from_json(enc(array_doc()), DOC)
    m2 = m.with_shape((30, 20))
    assert m2.shape == (30, 20) and m.shape == (10, 20)
    assert m2 != m and m2.with_shape((10, 20)) == m
    with pytest.raises(MetadataError):
        m.with_shape((10,))  # chunk_shape no longer matches


@settings(max_examples=150, deadline=None)
@given(array_metadata())
def test_round_trip_is_byte_stable(m):
    b1 = m.to_bytes()
    m2 = ArrayMetadataV3.from_json(b1, DOC)
    assert m2 == m
    assert m2.to_bytes() == b1
    assert m2.fill_value.tobytes() == m.fill_value.tobytes()
    assert b"NaN," not in b1.replace(b'"NaN"', b"")
    json.loads(b1, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


@settings(max_examples=50, deadline=None)
@given(group_attributes())
def test_group_round_trip(attrs):
    g = GroupMetadataV3(attributes=attrs)
    b = g.to_bytes()
    g2 = GroupMetadataV3.from_json(b, DOC)
    assert g2 == g and g2.to_bytes() == b


def test_extension_names():
    for good in [
        "zstd",
        "numcodecs.adler32",
        "sharding_indexed",
        "a-b",
        "r8",
        "https://example.com/zarr/offset",
        "urn:example:datetime",
    ]:
        assert is_valid_extension_name(good), good
    for bad in ["", "z", "Zstd", "foo/bar", "foo:", "1abc", "_x", "a b", "https://ex ample.com"]:
        assert not is_valid_extension_name(bad), bad
    e = parse_extension_entry({"name": "zstd", "configuration": {"level": 1}}, DOC, "codecs[0]")
    assert (e.name, e.configuration, e.must_understand) == ("zstd", {"level": 1}, True)
    e = parse_extension_entry("crc32c", DOC, "codecs[1]")
    assert (e.name, e.configuration, e.must_understand) == ("crc32c", None, True)


# ---------------------------------------------------------------------------------------
# documents written by zarr-python 3
# ---------------------------------------------------------------------------------------

zarr = pytest.importorskip("zarr")

ZARR_PYTHON_ARRAYS = {
    "f8-nan": dict(shape=(10,), chunks=(5,), dtype="f8", fill_value=np.nan),
    "f4-zero": dict(shape=(10, 3), chunks=(5, 3), dtype="f4", fill_value=0),
    "f4-default": dict(shape=(10,), chunks=(5,), dtype="f4"),
    "f4-0.1": dict(shape=(10,), chunks=(5,), dtype="f4", fill_value=0.1),
    "f2-neg-inf": dict(shape=(10,), chunks=(5,), dtype="f2", fill_value=-np.inf),
    "f8-inf": dict(shape=(10,), chunks=(5,), dtype="f8", fill_value=np.inf),
    "c8": dict(shape=(10,), chunks=(5,), dtype="c8", fill_value=1 + 2j),
    "c16-nan-inf": dict(shape=(10,), chunks=(5,), dtype="c16", fill_value=complex(np.nan, np.inf)),
    "i2-big-endian-dims": dict(
        shape=(10, 20), chunks=(5, 5), dtype=">i2", fill_value=-3, dimension_names=["x", None]
    ),
    "u8-max": dict(shape=(10,), chunks=(5,), dtype="u8", fill_value=2**64 - 1),
    "i8-min": dict(shape=(10,), chunks=(5,), dtype="i8", fill_value=-(2**63)),
    "bool-0d": dict(shape=(), chunks=(), dtype="bool", fill_value=True),
    "u1-v2-keys-attrs": dict(
        shape=(4,),
        chunks=(2,),
        dtype="u1",
        attributes={"a": [1, 2], "\u00e9": "\u00fc", "n": None, "f": 1.5},
        chunk_key_encoding={"name": "v2", "separator": "."},
    ),
    "default-dot": dict(
        shape=(4, 4),
        chunks=(2, 2),
        dtype="i4",
        chunk_key_encoding={"name": "default", "separator": "."},
    ),
    "sharded-zstd": dict(
        shape=(16, 16),
        chunks=(4, 4),
        shards=(8, 8),
        dtype="f8",
        compressors=[{"name": "zstd", "configuration": {"level": 3}}],
    ),
    "transpose-gzip": dict(
        shape=(16, 16),
        chunks=(4, 4),
        dtype="i4",
        filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
        compressors=[{"name": "gzip", "configuration": {"level": 5}}],
    ),
    "blosc": dict(
        shape=(16,),
        chunks=(4,),
        dtype="u2",
        compressors=[
            {
                "name": "blosc",
                "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "bitshuffle"},
            }
        ],
    ),
    "no-compressor-crc": dict(
        shape=(8,), chunks=(4,), dtype="f4", compressors=[{"name": "crc32c"}]
    ),
}


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.interop
@pytest.mark.parametrize("case", sorted(ZARR_PYTHON_ARRAYS))
def test_zarr_python_array_documents_round_trip(tmp_path, case):
    kwargs = copy.deepcopy(ZARR_PYTHON_ARRAYS[case])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arr = zarr.create_array(str(tmp_path / "x"), **kwargs)
    written = _read(tmp_path / "x" / "zarr.json")
    m = parse_metadata_v3(written, "x/zarr.json")
    assert isinstance(m, ArrayMetadataV3)
    assert m.to_bytes() == written
    # and the values mean what zarr-python meant
    assert m.shape == arr.shape
    assert m.dtype == arr.dtype.newbyteorder("=")
    expected_fill = np.array(arr.fill_value, dtype=m.dtype)
    if np.issubdtype(m.dtype, np.inexact) and np.isnan(expected_fill).any():
        assert np.array_equal(m.fill_value, expected_fill, equal_nan=True)
    else:
        assert m.fill_value.tobytes() == expected_fill.tobytes()


@pytest.mark.interop
def test_zarr_python_consolidated_group_round_trip(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = zarr.open_group(str(tmp_path / "g"), mode="w", attributes={"x": 1})
        g.create_array("a", shape=(2,), dtype="i1")
        g.create_group("sub")
        zarr.consolidate_metadata(str(tmp_path / "g"))
    written = _read(tmp_path / "g" / "zarr.json")
    m = parse_metadata_v3(written, "zarr.json")
    assert isinstance(m, GroupMetadataV3)
    assert "consolidated_metadata" in m.extra
    assert m.to_bytes() == written
    # the nested documents are themselves valid
    for name, sub in m.extra["consolidated_metadata"]["metadata"].items():
        parse_metadata_v3(json.dumps(sub).encode(), f"{name}/zarr.json")


@pytest.mark.interop
def test_zarr_python_reads_what_we_write(tmp_path):
    m = ArrayMetadataV3(
        shape=(6, 4),
        data_type="float32",
        chunk_shape=(3, 2),
        fill_value=np.array(0x7FC00001, "u4").view("f4").reshape(()),
        codecs=[{"name": "bytes", "configuration": {"endian": "big"}}],
        attributes={"units": "m"},
        dimension_names=("t", None),
        chunk_key_encoding=ChunkKeyEncoding("v2", "."),
    )
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "zarr.json").write_bytes(m.to_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arr = zarr.open_array(str(tmp_path / "y"), mode="r")
        data = arr[...]
    assert arr.shape == (6, 4) and arr.dtype == np.dtype("f4")
    assert np.isnan(data).all()
    assert arr.attrs["units"] == "m"
    assert tuple(arr.metadata.dimension_names) == ("t", None)


def test_null_dimension_names_and_consolidated_metadata_read_as_absent():
    # zarr-python accepts both; they are written back as read (as_written)
    md = ArrayMetadataV3.from_json(array_doc(dimension_names=None), "a/zarr.json")
    assert md.dimension_names is None and md.to_dict()["dimension_names"] is None
    assert "dimension_names" not in dataclasses.replace(md, source=None).to_dict()
    g = GroupMetadataV3.from_json(
        {"zarr_format": 3, "node_type": "group", "consolidated_metadata": None}, "zarr.json")
    assert g.to_dict()["consolidated_metadata"] is None
