"""The looser fill value forms (metadata/loose.py) against zarr-python 3's own parser
(``ZDType.from_json_scalar``, what its metadata classes call): every JSON value
zarr-python reads for a data type, zarrhpc reads to the same bits, v2 and v3, except the
forms refused on purpose (loose.py's docstring: strings longer than a fixed-length type,
base64 of the wrong length, bool from anything but true/false/0/1)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtypes import data_type_from_numpy, parse_fill_value
from zarrhpc.metadata.loose import loose_float, loose_hex_float, loose_int
from zarrhpc.metadata.v2 import parse_fill_value_v2

zdtype = pytest.importorskip("zarr.core.dtype")

DTYPES = ["bool", "i1", "u1", "<i2", ">u4", "<i8", "<u8", "<f2", ">f4", "<f8", "<c8", ">c16",
          "<M8[s]", ">m8[ns]", "S3", "<U2", "V2", [("a", "<i2"), ("b", "u1")]]

_NUMBER_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "-nan", "inf", "-inf", "+inf", "infinity", "-Infinity", "NaN",
                     "Infinity", " 7 ", "+3", "1_000", "1e3", "1.5", "-0.0", "NaT", "",
                     "0x7fc00000", "0x3fc00000", "0x3e00", "0x7ff8000000000000",
                     "0x3ff8000000000000", "0xfc00", "0x7f800001", "YWI=", "AAA=", "AAAA"]),
)
_SCALAR = st.one_of(st.booleans(), st.integers(-(2**65), 2**65),
                    st.floats(allow_nan=True, allow_infinity=True), _NUMBER_TEXT, st.none())
JSON_FILL = st.one_of(_SCALAR, st.lists(_SCALAR, min_size=2, max_size=2),
                      st.lists(st.integers(-1, 256), min_size=0, max_size=4))


def _refused_on_purpose(npdt: np.dtype, value) -> bool:
    if npdt.kind == "b":
        return not (isinstance(value, bool) or (type(value) is int and value in (0, 1)))
    if npdt.kind == "U":
        return isinstance(value, str) and len(value) > npdt.itemsize // 4
    if npdt.kind in "SV":
        return True  # zarr-python pads or truncates base64 of any length
    return False


def _zarr_python(npdt, value, fmt):
    z = zdtype.get_data_type_from_native_dtype(npdt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(z.from_json_scalar(value, zarr_format=fmt), dtype=npdt)
        except Exception:  # noqa: BLE001 - any refusal
            return None


def _ours(npdt, value, fmt):
    dt = data_type_from_numpy(npdt)
    if fmt == 3:
        return parse_fill_value(dt, value, "zarr.json")
    return parse_fill_value_v2(npdt, dt, value, ".zarray")


def _same(npdt, a, b) -> bool:
    a = np.asarray(a, dtype=npdt)
    b = np.asarray(b, dtype=npdt)
    if npdt.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return a.tobytes() == b.tobytes()


@settings(max_examples=400, deadline=None)
@given(dtype=st.sampled_from(DTYPES), value=JSON_FILL, fmt=st.sampled_from([2, 3]))
def test_every_form_zarr_python_reads_is_read_the_same(dtype, value, fmt):
    npdt = np.dtype(dtype if not isinstance(dtype, list) else [tuple(f) for f in dtype])
    if fmt == 2 and value is None:
        return  # null: no fill value in v2, as zarr-python
    theirs = _zarr_python(npdt, value, fmt)
    try:
        ours = _ours(npdt, value, fmt)
    except MetadataError:
        ours = None
    if theirs is None or _refused_on_purpose(npdt, value):
        return
    assert ours is not None, (npdt, value, theirs)
    assert _same(npdt, ours, theirs), (npdt, value, ours, theirs)


@pytest.mark.parametrize(("fmt", "dtype", "value", "expected"), [
    (3, "<i4", "42", 42), (3, "<u8", " 7 ", 7), (3, "<i8", "-5", -5), (3, "<i2", "1_000", 1000),
    (2, "<i4", "42", 42), (2, "<u1", "+3", 3),
    (3, "<f4", True, 1.0), (3, "<f8", "1.5", 1.5), (3, "<f8", "1e3", 1000.0),
    (3, "<f2", "inf", math.inf), (3, "<f8", "-Infinity", -math.inf),
    (3, "<f8", "0x3fc00000", 1.5), (3, "<f4", "0x3ff8000000000000", 1.5),
    (3, "<f4", "0x3e00", 1.5), (3, "<f8", float("inf"), math.inf),
    (2, "<f4", False, 0.0), (2, "<f8", "inf", math.inf), (2, "<f8", "1_000", 1000.0),
    (3, "<c8", [True, "0x3fc00000"], 1 + 1.5j), (2, "<c16", [True, 0], 1 + 0j),
    (3, "<M8[s]", True, 1), (2, "<m8[s]", 3.0, 3),
])
def test_looser_forms_read_to_the_value(fmt, dtype, value, expected):
    npdt = np.dtype(dtype)
    got = _ours(npdt, value, fmt)
    if npdt.kind in "Mm":
        assert got.view("i8") == expected
    else:
        assert got == np.asarray(expected).astype(npdt)


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("value", ["nan", "NaN", float("nan"), "0x7fc00000",
                                   "0x7ff8000000000000", "0x7e00"])
def test_loose_nan_forms_are_nan(fmt, value):
    for dtype in ("<f2", "<f4", "<f8"):
        assert np.isnan(_ours(np.dtype(dtype), value, fmt))


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize(("dtype", "value"), [
    ("<i4", "1.5"), ("<i4", "0x10"), ("<i1", "200"), ("<f4", "1.5.2"), ("<f4", "0x7fc"),
    ("bool", "true"), ("bool", 0.5), ("<U2", "abc"), ("<M8[s]", "2020-01-01")])
def test_what_could_be_misread_is_refused(fmt, dtype, value):
    with pytest.raises(MetadataError, match="fill_value"):
        _ours(np.dtype(dtype), value, fmt)


def test_helpers():
    assert loose_int("12") == 12 and loose_int(True) == 1 and loose_int(2.0) == 2
    assert loose_int("1.5") is None and loose_int(2.5) is None and loose_int(None) is None
    assert loose_float("1.5") == 1.5 and loose_float(False) == 0.0
    assert loose_float(3) is None and loose_float("x") is None
    assert math.isinf(loose_float(float("inf")))
    assert loose_hex_float("0x3fc00000", np.dtype("f8")) == 1.5
    assert loose_hex_float("0x3fc0000", np.dtype("f8")) is None
