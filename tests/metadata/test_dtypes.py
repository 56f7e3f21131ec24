"""Tests for zarrhpc.metadata.dtypes: v3 data types and fill values, bit-exact."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.errors import MetadataError, UnsupportedError
from zarrhpc.metadata import (
    CORE_DATA_TYPE_NAMES,
    DataType,
    data_type_from_numpy,
    fill_value_from_user,
    fill_value_to_json,
    parse_data_type,
    parse_fill_value,
)
from zarrhpc.testing.strategies_metadata import data_types, fill_values, float_bit_patterns

DOC = "grp/arr/zarr.json"


def dt(name: str) -> DataType:
    return parse_data_type(name, DOC)


def bits(a: np.ndarray) -> str:
    return a.tobytes().hex()


def f_bits(dtype: str, pattern: int) -> np.ndarray:
    d = np.dtype(dtype)
    return np.array(pattern, dtype=f"u{d.itemsize}").view(d).reshape(())


# ---------------------------------------------------------------------------------------
# data types
# ---------------------------------------------------------------------------------------

TYPES = [
    # name, numpy, itemsize, swap_size
    ("bool", "?", 1, 0),
    ("int8", "i1", 1, 0),
    ("int16", "i2", 2, 2),
    ("int32", "i4", 4, 4),
    ("int64", "i8", 8, 8),
    ("uint8", "u1", 1, 0),
    ("uint16", "u2", 2, 2),
    ("uint32", "u4", 4, 4),
    ("uint64", "u8", 8, 8),
    ("float16", "f2", 2, 2),
    ("float32", "f4", 4, 4),
    ("float64", "f8", 8, 8),
    ("complex64", "c8", 8, 4),
    ("complex128", "c16", 16, 8),
    ("r8", "V1", 1, 0),
    ("r16", "V2", 2, 0),
    ("r24", "V3", 3, 0),
    ("r64", "V8", 8, 0),
    ("r1024", "V128", 128, 0),
]


@pytest.mark.parametrize(("name", "code", "itemsize", "swap"), TYPES)
def test_parse_data_type_table(name, code, itemsize, swap):
    t = parse_data_type(name, DOC)
    assert t.name == name
    assert t.dtype == np.dtype(code)
    assert t.dtype.isnative or t.dtype.byteorder == "|"
    assert t.itemsize == itemsize
    assert t.swap_size == swap
    assert t.to_json() == name
    # the object form means the same
    assert parse_data_type({"name": name}, DOC) == t
    assert parse_data_type({"name": name, "must_understand": True}, DOC) == t


def test_core_names_complete():
    assert set(CORE_DATA_TYPE_NAMES) == {row[0] for row in TYPES if not row[0].startswith("r")}


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ("float128", "unknown data type 'float128'"),
        ("strings", "unknown data type 'strings'"),
        ("r12", "unknown data type 'r12'"),
        ("r0", "unknown data type 'r0'"),
        ("r08", "unknown data type 'r08'"),
        ("Float32", "unknown data type 'Float32'"),
        ("<f4", "unknown data type '<f4'"),
        (5, "expected a data type name"),
        (None, "expected a data type name"),
        (["float32"], "expected a data type name"),
        ({"configuration": {}}, "missing member 'name'"),
        ({"name": "float32", "must_understand": False}, "must_understand"),
        ({"name": "float32", "configuration": {"endian": "little"}}, "takes no configuration"),
        ({"name": "float32", "extra": 1}, "unexpected member 'extra'"),
        (
            {"name": "raw_bytes", "configuration": {"length_bytes": 0}},
            "length_bytes: expected a positive integer",
        ),
        ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}, "multiple of 4"),
        ({"name": "numpy.datetime64", "configuration": {"unit": "ns"}}, "scale_factor: missing"),
        ({"name": "structured", "configuration": {"fields": []}}, "non-empty array"),
    ],
)
def test_parse_data_type_rejects(obj, needle):
    with pytest.raises(MetadataError) as info:
        parse_data_type(obj, DOC)
    msg = str(info.value)
    assert msg.startswith(f"{DOC}: data_type")
    assert needle in msg


@pytest.mark.parametrize(
    ("given", "name"),
    [
        (np.dtype("f4"), "float32"),
        ("f4", "float32"),
        ("<f8", "float64"),
        (">f8", "float64"),
        (">i2", "int16"),
        ("float32", "float32"),
        ("float16", "float16"),
        ("e", "float16"),
        (np.float32, "float32"),
        (np.uint64, "uint64"),
        (float, "float64"),
        (complex, "complex128"),
        (bool, "bool"),
        ("bool", "bool"),
        ("?", "bool"),
        ("int8", "int8"),
        ("b", "int8"),
        ("B", "uint8"),
        (">c8", "complex64"),
        ("complex128", "complex128"),
        ("r16", "r16"),
        ("r24", "r24"),
        ("V2", "r16"),
        (np.dtype("V5"), "r40"),
        (dt("uint32"), "uint32"),
    ],
)
def test_data_type_from_numpy(given, name):
    assert data_type_from_numpy(given).name == name


@pytest.mark.parametrize(
    "given",
    [
        np.dtype(("i4", (2,))),
        np.longdouble,
        np.clongdouble,
    ],
)
def test_data_type_from_numpy_unsupported(given):
    with pytest.raises(UnsupportedError, match="has no Zarr v3 core data type"):
        data_type_from_numpy(given)


@pytest.mark.parametrize("given", [object, "O"])
def test_object_dtype_needs_to_say_what_it_holds(given):
    with pytest.raises(UnsupportedError, match="dtype=str"):
        data_type_from_numpy(given)


@pytest.mark.parametrize(
    ("given", "name", "kind"),
    [(str, "string", "T"), ("str", "string", "T"), (np.dtypes.StringDType(), "string", "T"),
     ("U", "string", "T"), (bytes, "variable_length_bytes", "O"),
     ("S", "variable_length_bytes", "O")],
)
def test_variable_length_types(given, name, kind):
    dt = data_type_from_numpy(given)
    # variable-length bytes are written under their registered zarr-extensions name
    written = {"variable_length_bytes": "bytes"}.get(name, name)
    assert dt.name == name and dt.dtype.kind == kind and dt.to_json() == written
    assert dt.swap_size == 0
    assert parse_data_type(name, "z").name == name
    alias = {"string": "variable_length_utf8", "variable_length_bytes": "bytes"}[name]
    assert parse_data_type(alias, "z") == dt
    fill = parse_fill_value(dt, "" if kind == "T" else "AAE=", "z")
    assert fill[()] == ("" if kind == "T" else b"\x00\x01")
    assert fill_value_to_json(dt, fill) == ("" if kind == "T" else "AAE=")


@pytest.mark.parametrize(
    ("given", "json"),
    [
        ("U5", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 20}}),
        (">U2", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}}),
        ("S3", {"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}}),
        ("M8[ns]", {"name": "numpy.datetime64",
                    "configuration": {"unit": "ns", "scale_factor": 1}}),
        (">m8[10s]", {"name": "numpy.timedelta64",
                      "configuration": {"unit": "s", "scale_factor": 10}}),
        (np.dtype([("a", ">i4"), ("b", "f8")]), {"name": "structured", "configuration": {
            "fields": [["a", "int32"], ["b", "float64"]]}}),
    ],
)
def test_data_type_from_numpy_extension_types(given, json):
    """Types beyond the core get zarr-python 3.1's names (structured types its legacy
    ``structured``, see dtypes_ext), and parse back to the same type."""
    t = data_type_from_numpy(given)
    assert t.to_json() == json
    assert parse_data_type(json, DOC) == t
    assert t.dtype.isnative or t.kind == "structured"


@pytest.mark.parametrize(
    "given",
    [np.dtype([("a", "i4", (2,))]), np.dtype({"names": ["a"], "formats": ["i4"], "offsets": [4]}),
     "M8"],
)
def test_data_type_from_numpy_structured_refused(given):
    with pytest.raises(UnsupportedError):
        data_type_from_numpy(given)


def test_data_type_from_numpy_ml_dtypes_is_not_raw():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    # bfloat16 is a numpy 'V'-kind dtype of size 2; it must not pass as r16.
    dt = data_type_from_numpy(ml_dtypes.bfloat16)
    assert dt.name == "bfloat16" and dt.kind == "float" and dt.swap_size == 2


@pytest.mark.parametrize("given", [None, "foo", "float33", 3.5, "r12"])
def test_data_type_from_numpy_not_a_type(given):
    # a name numpy does not know: numpy's TypeError and words, as zarr-python passes them
    # on ("data type 'foo' not understood"; a MetadataError and a TypeError here)
    numpy_words = r"^data type .* not understood$|^Cannot interpret"
    with pytest.raises(MetadataError, match=rf"^dtype: |{numpy_words}"):
        data_type_from_numpy(given)


# ---------------------------------------------------------------------------------------
# fill values: every type x every JSON form
# ---------------------------------------------------------------------------------------

GOOD_FILLS = [
    # type, JSON, expected exact value, canonical JSON written back
    ("bool", False, np.array(False), False),
    ("bool", True, np.array(True), True),
    ("int8", -128, np.array(-128, "i1"), -128),
    ("int8", 127, np.array(127, "i1"), 127),
    ("int16", -32768, np.array(-32768, "i2"), -32768),
    ("int32", 2**31 - 1, np.array(2**31 - 1, "i4"), 2**31 - 1),
    ("int64", -(2**63), np.array(-(2**63), "i8"), -(2**63)),
    ("int64", 2**63 - 1, np.array(2**63 - 1, "i8"), 2**63 - 1),
    ("uint8", 255, np.array(255, "u1"), 255),
    ("uint16", 0, np.array(0, "u2"), 0),
    ("uint32", 2**32 - 1, np.array(2**32 - 1, "u4"), 2**32 - 1),
    ("uint64", 2**64 - 1, np.array(2**64 - 1, "u8"), 2**64 - 1),
    # floats: numbers (rounded to nearest), the named strings, hex bit patterns
    ("float16", 0, np.array(0, "f2"), 0.0),
    ("float16", 0.1, np.array(0.1, "f2"), float(np.float16(0.1))),
    ("float16", 65504.0, np.array(65504, "f2"), 65504.0),
    ("float16", "NaN", f_bits("f2", 0x7E00), "NaN"),
    ("float16", "Infinity", np.array(np.inf, "f2"), "Infinity"),
    ("float16", "-Infinity", np.array(-np.inf, "f2"), "-Infinity"),
    ("float16", "0x7e00", f_bits("f2", 0x7E00), "NaN"),
    ("float16", "0x7c01", f_bits("f2", 0x7C01), "0x7c01"),  # signalling NaN
    ("float16", "0x3c00", np.array(1.0, "f2"), 1.0),
    ("float16", "0x0001", f_bits("f2", 0x0001), float(f_bits("f2", 1)[()])),  # subnormal
    ("float32", 1, np.array(1.0, "f4"), 1.0),
    ("float32", -0.0, np.array(-0.0, "f4"), -0.0),
    ("float32", 0.1, np.array(0.1, "f4"), 0.10000000149011612),
    ("float32", 1e-45, f_bits("f4", 1), float(f_bits("f4", 1)[()])),
    ("float32", "NaN", f_bits("f4", 0x7FC00000), "NaN"),
    ("float32", "0x7fc00000", f_bits("f4", 0x7FC00000), "NaN"),
    ("float32", "0x7FC00001", f_bits("f4", 0x7FC00001), "0x7fc00001"),
    ("float32", "0xffc00000", f_bits("f4", 0xFFC00000), "0xffc00000"),  # negative NaN
    ("float32", "0x7f800001", f_bits("f4", 0x7F800001), "0x7f800001"),  # signalling NaN
    ("float32", "0x3f800000", np.array(1.0, "f4"), 1.0),
    ("float32", "0x80000000", np.array(-0.0, "f4"), -0.0),
    ("float32", "Infinity", np.array(np.inf, "f4"), "Infinity"),
    ("float32", "-Infinity", np.array(-np.inf, "f4"), "-Infinity"),
    ("float32", 1e300, np.array(np.inf, "f4"), "Infinity"),  # rounds to nearest: overflow
    ("float32", 10**400, np.array(np.inf, "f4"), "Infinity"),
    ("float64", 0.1, np.array(0.1), 0.1),
    ("float64", -1.5e-300, np.array(-1.5e-300), -1.5e-300),
    (
        "float64",
        123456789012345678901234567890,
        np.array(1.2345678901234568e29),
        1.2345678901234568e29,
    ),
    ("float64", "NaN", f_bits("f8", 0x7FF8000000000000), "NaN"),
    ("float64", "0x7ff8000000000001", f_bits("f8", 0x7FF8000000000001), "0x7ff8000000000001"),
    ("float64", "0xfff8000000000000", f_bits("f8", 0xFFF8000000000000), "0xfff8000000000000"),
    ("float64", "0x0000000000000000", np.array(0.0), 0.0),
    ("float64", "Infinity", np.array(np.inf), "Infinity"),
    ("float64", "-Infinity", np.array(-np.inf), "-Infinity"),
    # complex: [re, im] with the float forms in each component
    ("complex64", [1, 2], np.array(1 + 2j, "c8"), [1.0, 2.0]),
    (
        "complex64",
        [0.1, -0.0],
        np.array(complex(np.float32(0.1), -0.0), "c8"),
        [0.10000000149011612, -0.0],
    ),
    (
        "complex64",
        ["NaN", "Infinity"],
        np.array(complex(np.nan, np.inf), "c8"),
        ["NaN", "Infinity"],
    ),
    (
        "complex64",
        ["0x7fc00001", "-Infinity"],
        np.array([0x7FC00001, 0xFF800000], "u4").view("c8").reshape(()),
        ["0x7fc00001", "-Infinity"],
    ),
    ("complex128", [1.5, "-Infinity"], np.array(complex(1.5, -np.inf)), [1.5, "-Infinity"]),
    ("complex128", ["0x7ff8000000000000", 0], np.array(complex(np.nan, 0.0)), ["NaN", 0.0]),
    # raw: a list of N/8 byte values
    ("r8", [255], np.frombuffer(b"\xff", "V1").reshape(()), [255]),
    ("r16", [0, 0], np.zeros((), "V2"), [0, 0]),
    ("r24", [1, 2, 3], np.frombuffer(b"\x01\x02\x03", "V3").reshape(()), [1, 2, 3]),
]


@pytest.mark.parametrize(("name", "obj", "expected", "canonical"), GOOD_FILLS)
def test_parse_fill_value_exact(name, obj, expected, canonical):
    t = dt(name)
    out = parse_fill_value(t, obj, DOC)
    assert isinstance(out, np.ndarray)
    assert out.shape == ()
    assert out.dtype == t.dtype
    assert bits(out) == bits(expected.astype(t.dtype))
    written = fill_value_to_json(t, out)
    assert written == canonical or (json.dumps(written) == json.dumps(canonical))
    assert json.dumps(written, allow_nan=False)  # never a bare NaN literal
    # integers stay ints, floats stay floats (zarr-python writes 0.0, not 0)
    if t.kind in ("int", "uint"):
        assert type(written) is int
    if t.kind == "float" and not isinstance(written, str):
        assert type(written) is float
    # the canonical form parses back to the same bits
    assert bits(parse_fill_value(t, written, DOC)) == bits(out)


def test_fill_signed_zero_written_as_negative_zero():
    assert json.dumps(fill_value_to_json(dt("float64"), np.array(-0.0))) == "-0.0"


def test_fill_other_json_types_read_as_zarr_python_reads_them():
    """0/1 for bool, true/false and integral floats for integers (other writers' forms)."""
    assert parse_fill_value(dt("bool"), 1, DOC)[()] is np.True_
    assert parse_fill_value(dt("int32"), 3.0, DOC)[()] == 3
    assert parse_fill_value(dt("uint8"), True, DOC)[()] == 1


BAD_FILLS = [
    ("bool", 2, "expected true or false"),
    ("bool", "true", "expected true or false"),
    ("bool", None, "expected true or false"),
    ("int8", 128, "[-128, 127]"),
    ("int8", -129, "[-128, 127]"),
    ("uint8", 256, "[0, 255]"),
    ("uint8", -1, "[0, 255]"),
    ("uint64", 2**64, "18446744073709551615"),
    ("int64", 2**63, "9223372036854775807"),
    ("int32", 1.5, "JSON integer"),
    ("int32", "1.5", "JSON integer"),
    ("int32", "x1", "JSON integer"),
    ("float32", "0x7fc000", "exactly 8 hex digits"),
    ("float32", "1.5x", 'got "1.5x"'),
    ("complex128", ["0x7fc000", 0], "fill_value[0]"),
    ("r16", "AAAA", "2 integers in [0, 255]"),
    ("r16", "!!", "2 integers in [0, 255]"),
    ("int32", None, "JSON integer"),
    ("float32", "abc", 'got "abc"'),
    ("float32", "0x7fc0000000", "exactly 8 hex digits"),
    ("float32", "0x7fc0000g", "exactly 8 hex digits"),
    ("float32", "0X7fc00000", "exactly 8 hex digits"),
    ("float32", "0x7f_c0000", "exactly 8 hex digits"),
    ("float32", None, "for float32"),
    ("float32", [1.0], "for float32"),
    ("complex64", 1.0, "two-element array"),
    ("complex64", [1.0], "two-element array"),
    ("complex64", [1.0, 2.0, 3.0], "two-element array"),
    ("complex64", [1.0, "abc"], "fill_value[1]"),
    ("r16", [0], "2 integers in [0, 255]"),
    ("r16", [0, 256], "2 integers in [0, 255]"),
    ("r16", [0, -1], "2 integers in [0, 255]"),
    ("r16", [0, True], "2 integers in [0, 255]"),
    ("r16", 0, "2 integers in [0, 255]"),
]


@pytest.mark.parametrize(("name", "obj", "needle"), BAD_FILLS)
def test_parse_fill_value_rejects(name, obj, needle):
    with pytest.raises(MetadataError) as info:
        parse_fill_value(dt(name), obj, DOC)
    msg = str(info.value)
    assert msg.startswith(f"{DOC}: fill_value")
    assert needle in msg


# ---------------------------------------------------------------------------------------
# property tests: random bit patterns round-trip exactly
# ---------------------------------------------------------------------------------------


@settings(max_examples=400)
@given(st.sampled_from(["f2", "f4", "f8", "c8", "c16"]).flatmap(float_bit_patterns))
def test_float_bits_round_trip(value):
    t = data_type_from_numpy(value.dtype)
    j = fill_value_to_json(t, value)
    text = json.dumps(j, allow_nan=False)
    back = parse_fill_value(t, json.loads(text), DOC)
    assert bits(back) == bits(value)
    # canonical form is a fixed point
    assert fill_value_to_json(t, back) == j or json.dumps(fill_value_to_json(t, back)) == text


@settings(max_examples=300)
@given(data_types().flatmap(lambda t: st.tuples(st.just(t), fill_values(t))))
def test_any_type_round_trip(pair):
    t, value = pair
    text = json.dumps(fill_value_to_json(t, value), allow_nan=False)
    back = parse_fill_value(t, json.loads(text), DOC)
    assert bits(back) == bits(value)
    # and the user path accepts the JSON form too
    assert bits(fill_value_from_user(t, json.loads(text))) == bits(value)


@given(st.floats(width=32, allow_nan=False))
def test_float32_numbers_written_as_numbers(x):
    t = dt("float32")
    j = fill_value_to_json(t, np.array(x, "f4"))
    if math.isinf(x):
        assert j in ("Infinity", "-Infinity")
    else:
        assert isinstance(j, float) and j == x


# ---------------------------------------------------------------------------------------
# fill_value_from_user
# ---------------------------------------------------------------------------------------

USER_FILLS = [
    ("bool", None, np.array(False)),
    ("bool", True, np.array(True)),
    ("bool", np.bool_(True), np.array(True)),
    ("bool", 0, np.array(False)),
    ("int16", None, np.array(0, "i2")),
    ("int16", -5, np.array(-5, "i2")),
    ("int16", np.int64(7), np.array(7, "i2")),
    ("int16", 3.0, np.array(3, "i2")),
    ("uint64", 2**64 - 1, np.array(2**64 - 1, "u8")),
    ("uint8", np.array(9, "u1"), np.array(9, "u1")),
    ("float32", None, np.array(0.0, "f4")),
    ("float32", 0.1, np.array(0.1, "f4")),
    ("float32", 3, np.array(3.0, "f4")),
    ("float32", np.nan, f_bits("f4", 0x7FC00000)),
    ("float32", "NaN", f_bits("f4", 0x7FC00000)),
    ("float32", "0x7fc00001", f_bits("f4", 0x7FC00001)),
    ("float32", f_bits("f4", 0x7FA00000), f_bits("f4", 0x7FA00000)),  # exact payload kept
    ("float32", f_bits("f4", 0x7FA00000)[()], f_bits("f4", 0x7FA00000)),
    ("float32", -np.inf, np.array(-np.inf, "f4")),
    ("float32", "Infinity", np.array(np.inf, "f4")),
    ("float32", np.float64(1e300), np.array(np.inf, "f4")),
    ("float64", np.float16(0.5), np.array(0.5)),
    ("float16", 1e10, np.array(np.inf, "f2")),
    ("complex64", None, np.array(0, "c8")),
    ("complex64", 1 + 2j, np.array(1 + 2j, "c8")),
    ("complex64", 3.0, np.array(3 + 0j, "c8")),
    ("complex64", [1, "NaN"], np.array(complex(1, np.nan), "c8")),
    ("complex128", ("Infinity", -1.0), np.array(complex(np.inf, -1))),
    ("complex128", np.complex64(1 + 1j), np.array(1 + 1j)),
    ("r16", None, np.zeros((), "V2")),
    ("r16", b"\x01\x02", np.frombuffer(b"\x01\x02", "V2").reshape(())),
    ("r16", [1, 2], np.frombuffer(b"\x01\x02", "V2").reshape(())),
    ("r24", np.void(b"abc"), np.frombuffer(b"abc", "V3").reshape(())),
]


@pytest.mark.parametrize(("name", "value", "expected"), USER_FILLS)
def test_fill_value_from_user(name, value, expected):
    t = dt(name)
    out = fill_value_from_user(t, value)
    assert out.shape == () and out.dtype == t.dtype
    assert bits(out) == bits(expected.astype(t.dtype))


def test_fill_value_from_user_does_not_alias():
    src = np.array(5, "i4")
    out = fill_value_from_user(dt("int32"), src)
    src[()] = 6
    assert out[()] == 5


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("int8", 128, "[-128, 127]"),
        ("uint8", -1, "[0, 255]"),
        ("int32", np.inf, "expected an integer"),  # 1.5 truncates to 1, as zarr-python
        ("int32", np.nan, "expected an integer"),
        ("int32", "1", "expected an integer"),
        ("bool", 2, "True or False"),
        ("bool", "yes", "True or False"),
        ("float32", "abc", "expected a real number"),
        ("float32", "0x7fc0", "8 hex digits"),
        ("float32", 1 + 2j, "expected a real number"),
        ("float32", [1.0], "expected a real number"),
        ("complex64", object(), "complex number"),
        ("r16", b"\x01", "expected 2 bytes"),
        ("r16", [1, 2, 3], "expected 2 bytes"),
        ("r16", 5, "expected 2 bytes"),
        ("float64", np.zeros(3), "0-d array"),
    ],
)
def test_fill_value_from_user_rejects(name, value, needle):
    with pytest.raises(MetadataError) as info:
        fill_value_from_user(dt(name), value)
    assert str(info.value).startswith("create_array: fill_value: ")
    assert needle in str(info.value)


def test_fill_value_to_json_converts_foreign_values():
    assert fill_value_to_json(dt("float32"), 0.5) == 0.5
    assert fill_value_to_json(dt("int8"), np.int64(3)) == 3
    assert fill_value_to_json(dt("float64"), np.array(np.nan, ">f8")) == "NaN"
    assert fill_value_to_json(dt("r16"), b"\x00\xff") == [0, 255]


def test_dtype_submodule_after_plain_import():
    # `import zarr; zarr.dtype.Struct(...)` works in zarr-python 3 without importing
    # zarr.dtype: so must the same line with `import zarrhpc as zarr`
    import subprocess
    import sys

    code = ("import zarrhpc as zarr, numpy as np; "
            "t = zarr.dtype.Struct.from_native_dtype(np.dtype([('a', '<i4')])); "
            "print(type(t).__name__, zarr.dtype.Float32().to_json(zarr_format=3))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["Struct", "float32"]
