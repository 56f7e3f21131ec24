"""Zarr v2 documents: dtypes, fill values, the v3-shaped codec chain, errors."""

import dataclasses
import json
import math

import numpy as np
import pytest

from zarrhpc.errors import MetadataError, UnsupportedError
from zarrhpc.metadata.v2 import (
    ArrayMetadataV2,
    GroupMetadataV2,
    dtype_from_json_v2,
    dtype_to_json_v2,
    normalize_path_v2,
)

DOC = "a/b/.zarray"


def zarray(**over):
    d = {"zarr_format": 2, "shape": [10, 20], "chunks": [3, 4], "dtype": "<f8",
         "compressor": None, "fill_value": 0.0, "order": "C", "filters": None}
    d.update(over)
    return d


def test_spec_example_parses_and_round_trips():
    d = zarray(shape=[10000, 10000], chunks=[1000, 1000], fill_value="NaN",
               compressor={"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
               filters=[{"id": "delta", "dtype": "<f8", "astype": "<f4"}])
    md = ArrayMetadataV2.from_json(json.dumps(d).encode(), None, DOC)
    assert md.shape == (10000, 10000) and md.chunks == (1000, 1000)
    assert np.isnan(md.fill_value) and md.dimension_separator == "."
    back = json.loads(md.to_bytes())
    assert back["fill_value"] == "NaN" and back["dtype"] == "<f8"
    assert back["filters"] == d["filters"] and back["compressor"] == d["compressor"]
    # written back as read (members, order, the absent separator), see as_written
    assert back == d and list(back) == list(d)
    # created here: zarr-python's members and order
    back = json.loads(dataclasses.replace(md, source=None).to_bytes())
    assert list(back) == ["shape", "chunks", "dtype", "fill_value", "order", "filters",
                          "dimension_separator", "compressor", "zarr_format"]
    # the equivalent v3 chain: the filter, bytes in the filter's output order, blosc with
    # the typesize of the filter's output (f4)
    assert md.codecs_v3() == [
        {"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f4"}},
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                            "typesize": 4, "blocksize": 0}},
    ]


@pytest.mark.parametrize(
    ("dtype", "order", "compressor", "chain"),
    [
        (">i2", "F", None, [{"name": "transpose", "configuration": {"order": [1, 0]}},
                            {"name": "bytes", "configuration": {"endian": "big"}}]),
        ("|u1", "C", {"id": "zlib", "level": 3},
         [{"name": "bytes"}, {"name": "numcodecs.zlib", "configuration": {"level": 3}}]),
        ("<U2", "C", {"id": "gzip", "level": 1},
         [{"name": "bytes", "configuration": {"endian": "little"}},
          {"name": "gzip", "configuration": {"level": 1}}]),
        ("|S4", "C", {"id": "zstd", "level": 2},
         [{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 2, "checksum": False}}]),
        ("|b1", "C", {"id": "blosc", "cname": "zstd", "clevel": 1, "shuffle": -1},
         [{"name": "bytes"}, {"name": "blosc", "configuration": {
             "cname": "zstd", "clevel": 1, "shuffle": "bitshuffle", "typesize": 1,
             "blocksize": 0}}]),
        ("<f4", "C", {"id": "lz4", "acceleration": 1},
         [{"name": "bytes", "configuration": {"endian": "little"}},
          {"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}]),
    ],
)
def test_codec_chain(dtype, order, compressor, chain):
    md = ArrayMetadataV2.from_json(zarray(dtype=dtype, order=order, compressor=compressor,
                                          fill_value=None))
    assert md.codecs_v3() == chain
    spec = md.to_spec()
    assert spec.chunk_key_encoding.encode((2, 3)) == "2.3"
    assert spec.data_type.dtype.isnative or spec.data_type.kind in ("bytes",)
    assert spec.fill_value.tobytes() == bytes(np.dtype(dtype).itemsize)  # null reads as zero


def test_order_f_on_one_dimension_needs_no_transpose():
    md = ArrayMetadataV2.from_json(zarray(shape=[5], chunks=[2], order="F"))
    assert md.codecs_v3()[0]["name"] == "bytes"


@pytest.mark.parametrize(
    ("text", "numpy"),
    [("|b1", "?"), ("<i8", "<i8"), (">u2", ">u2"), (">c16", ">c16"), ("<f2", "<f2"),
     ("|S12", "S12"), ("<U4", "<U4"), ("|V8", "V8"), ("<M8[ns]", "<M8[ns]"),
     (">m8[10s]", ">m8[10s]")],
)
def test_simple_dtypes_round_trip(text, numpy):
    dt = dtype_from_json_v2(text, DOC)
    assert dt == np.dtype(numpy)
    assert dtype_to_json_v2(dt) == (text if text != "|b1" else "|b1")


def test_structured_dtypes_from_the_spec():
    rgb = [["r", "|u1"], ["g", "|u1"], ["b", "|u1"]]
    assert dtype_from_json_v2(rgb, DOC) == np.dtype([("r", "u1"), ("g", "u1"), ("b", "u1")])
    sub = [["x", "<f4"], ["y", "<f4"], ["z", "<f4", [2, 2]]]
    dt = dtype_from_json_v2(sub, DOC)
    assert dt["z"].shape == (2, 2) and dtype_to_json_v2(dt) == sub
    nested = [["foo", "<f4"], ["bar", [["baz", "<f4"], ["qux", "<i4"]]]]
    dt = dtype_from_json_v2(nested, DOC)
    assert dt["bar"]["qux"] == np.dtype("<i4") and dtype_to_json_v2(dt) == nested


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ("f8", "with its byte order"),
        ("|f8", "has a byte order"),
        ("<M8", "M8[unit]"),
        ("<M8[xs]", "M8[unit]"),
        ("<i4[s]", "only M8/m8"),
        ("|Q8", "with its byte order"),
        ([["a"]], "[name, type]"),
        ([["a", "<i4"], ["a", "<i2"]], "appears twice"),
        ([["a", "<i4", [0]]], "positive integers"),
        (5, "expected a type string"),
    ],
)
def test_bad_dtypes(obj, needle):
    with pytest.raises(MetadataError) as info:
        dtype_from_json_v2(obj, DOC)
    assert str(info.value).startswith(f"{DOC}: dtype") and needle in str(info.value)


def test_unsupported_dtypes():
    with pytest.raises(UnsupportedError):
        dtype_from_json_v2("<f16", DOC)


@pytest.mark.parametrize(
    ("dtype", "json_value", "expected"),
    [
        ("<f8", "NaN", np.nan),
        ("<f4", "Infinity", np.inf),
        (">f8", "-Infinity", -np.inf),
        ("<f8", 1.5, 1.5),
        ("<i4", 7, 7),
        ("<i4", 7.0, 7),  # some writers put integral floats here
        ("|b1", True, True),
        ("<c8", [1.0, "NaN"], complex(1, math.nan)),
        ("<M8[s]", -(2**63), np.datetime64("NaT")),
        ("<U3", "xy", "xy"),
        ("|S5", "YWI=", b"ab"),
        ("|V2", "AQI=", b"\x01\x02"),
    ],
)
def test_fill_values(dtype, json_value, expected):
    md = ArrayMetadataV2.from_json(zarray(dtype=dtype, fill_value=json_value))
    got = md.fill_value[()]
    if isinstance(expected, float) and np.isnan(expected):
        assert np.isnan(got)
    elif isinstance(expected, complex):
        assert got.real == 1 and np.isnan(got.imag)
    elif isinstance(expected, np.datetime64):
        assert np.isnat(got)
    elif dtype == "|V2":
        assert got.tobytes() == expected
    else:
        assert got == expected
    assert json.loads(md.to_bytes())["fill_value"] == json_value if dtype != "<i4" or \
        isinstance(json_value, int) else True


def test_structured_fill_value_is_base64_of_the_stored_bytes():
    dt = [["a", "<i4"], ["b", ">f8"]]
    raw = np.array((1, 2.5), dtype=[("a", "<i4"), ("b", ">f8")]).tobytes()
    import base64

    text = base64.b64encode(raw).decode()
    md = ArrayMetadataV2.from_json(zarray(dtype=dt, fill_value=text))
    assert md.fill_value["a"] == 1 and md.fill_value["b"] == 2.5
    assert json.loads(md.to_bytes())["fill_value"] == text


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"zarr_format": 3}, "zarr_format: expected 2"),
        ({"order": "K"}, "order: expected 'C' or 'F'"),
        ({"chunks": [3]}, "chunks: expected 2 chunk lengths"),
        ({"chunks": [0, 1]}, "positive integers"),
        ({"shape": [-1, 2]}, "non-negative"),
        ({"dimension_separator": "-"}, "dimension_separator"),
        ({"fill_value": "abc"}, "fill_value"),
        ({"dtype": "<i2", "fill_value": 70000}, "fill_value: expected an integer"),
        ({"dtype": "|S2", "fill_value": "!!"}, "base64"),
        ({"compressor": {"level": 1}}, "compressor: expected an object with a string 'id'"),
        ({"filters": {"id": "delta"}}, "filters: expected a list"),
    ],
)
def test_bad_zarray(over, needle):
    with pytest.raises(MetadataError) as info:
        ArrayMetadataV2.from_json(json.dumps(zarray(**over)).encode(), None, DOC)
    assert str(info.value).startswith(DOC) and needle in str(info.value)


def test_missing_member_and_bad_json():
    d = zarray()
    del d["fill_value"]
    with pytest.raises(MetadataError, match="fill_value: missing required member"):
        ArrayMetadataV2.from_json(d, None, DOC)
    with pytest.raises(MetadataError, match=r"^a/b/.zarray: not valid JSON"):
        ArrayMetadataV2.from_json(b"{", None, DOC)
    with pytest.raises(MetadataError, match=r"^a/b/.zattrs: not valid JSON"):
        ArrayMetadataV2.from_json(zarray(), b"[", DOC)


def test_attributes_and_dimension_names():
    md = ArrayMetadataV2.from_json(zarray(), b'{"_ARRAY_DIMENSIONS": ["y", "x"], "u": 1}')
    assert md.dimension_names == ("y", "x") and md.to_spec().dimension_names == ("y", "x")
    assert md.documents()[".zattrs"] == json.dumps(md.attributes, indent=2).encode()
    wrong = ArrayMetadataV2.from_json(zarray(), b'{"_ARRAY_DIMENSIONS": ["y"]}')
    assert wrong.dimension_names is None  # not one name per dimension: not dimension names
    g = GroupMetadataV2.from_json(b'{"zarr_format": 2}', b'{"a": 1}')
    assert g.attributes == {"a": 1}
    assert set(g.documents()) == {".zgroup", ".zattrs"}
    assert g.attributes_documents() == {".zattrs": b'{\n  "a": 1\n}'}


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, ""), ("/", ""), ("a\\b", "a/b"), ("//a///b//", "a/b"), ("a/.b", "a/.b")],
)
def test_normalize_path_v2(given, expected):
    assert normalize_path_v2(given) == expected


@pytest.mark.parametrize("bad", ["a/./b", "../a", "a/.."])
def test_normalize_path_v2_refuses_dot_segments(bad):
    with pytest.raises(MetadataError, match="'.' or '..'"):
        normalize_path_v2(bad)


def test_read_liberally_as_zarr_python():
    # other keys ignored; compressor/filters may be absent; dimension_separator null is "."
    doc = {"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<i4", "fill_value": 0,
           "order": "C", "dimension_separator": None, "extra": {"writer": "x"}}
    md = ArrayMetadataV2.from_json(doc)
    assert md.compressor is None and md.filters is None and md.dimension_separator == "."
    # kept as read when written back (as_written); zarr-python's form drops them
    assert md.to_dict() == doc
    assert "extra" not in dataclasses.replace(md, source=None).to_dict()
