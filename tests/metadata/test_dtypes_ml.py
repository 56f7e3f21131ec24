"""zarr-extensions data types from ml_dtypes (bfloat16, float8/6/4, int2/4, uint2/4):
names, exact fill values, round trips, byte order, and interop with tensorstore."""

import json
import math

import ml_dtypes
import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import MetadataError
from zarrhpc.metadata import (
    data_type_from_numpy,
    fill_value_from_user,
    fill_value_to_json,
    parse_data_type,
    parse_fill_value,
)
from zarrhpc.metadata.dtypes_ml import ML_FLOATS, ML_INTS, ML_NAMES


def _values(d: np.dtype, n=24) -> np.ndarray:
    if d.type.__name__ in ML_INTS:
        info = ml_dtypes.iinfo(d)
        return (np.arange(n) % (int(info.max) - int(info.min) + 1) + int(info.min)).astype(d)
    x = np.linspace(-3, 3, n)
    if d.type.__name__ == "float8_e8m0fnu":  # powers of two only, positive
        x = 2.0 ** np.arange(-4, n - 4)
    return x.astype(d)


@pytest.mark.parametrize("name", ML_NAMES)
def test_names_and_numpy_types(name):
    dt = parse_data_type(name, "a/zarr.json")
    assert dt.dtype == np.dtype(getattr(ml_dtypes, name)) and dt.to_json() == name
    assert data_type_from_numpy(getattr(ml_dtypes, name)) == dt
    assert data_type_from_numpy(name) == dt
    assert dt.kind == ("float" if name in ML_FLOATS else "uint" if name[0] == "u" else "int")
    assert dt.swap_size == (2 if name == "bfloat16" else 0)


def test_complex_aliases():
    assert parse_data_type("complex_float32", "z").name == "complex64"
    assert parse_data_type("complex_float64", "z").dtype == np.dtype("c16")


@pytest.mark.parametrize(
    ("name", "json_value", "bits"),
    [("bfloat16", "NaN", 0x7FC0), ("bfloat16", "0x7fc1", 0x7FC1), ("bfloat16", -2.5, 0xC020),
     ("bfloat16", "-Infinity", 0xFF80), ("float8_e4m3fn", "NaN", 0x7F),
     ("float8_e4m3", "Infinity", 0x78), ("float8_e5m2", 1.0, 0x3C), ("float8_e4m3", "NaN", 0x7C),
     ("float4_e2m1fn", 6.0, 0x7), ("int4", -8, 0x8), ("uint2", 3, 0x3)],
)
def test_fill_values_exact(name, json_value, bits):
    dt = parse_data_type(name, "z")
    fill = parse_fill_value(dt, json_value, "z")
    width = "<u2" if dt.itemsize == 2 else "u1"
    got = int(fill.reshape(1).view(width)[0])
    assert got & (0xF if name in ML_INTS else 0xFFFF) == bits
    assert fill_value_to_json(dt, fill) == json_value


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [("float4_e2m1fn", "NaN", "no representation"), ("float8_e4m3fn", "Infinity",
                                                     "no representation"),
     ("int4", 8, "[-8, 7]"), ("uint2", -1, "[0, 3]"), ("int4", 1.5, "JSON integer"),
     ("bfloat16", "0x7fc", "hex digits"), ("bfloat16", [1, 2], "expected a number")],
)
def test_bad_fill_values(name, value, needle):
    with pytest.raises(MetadataError) as info:
        parse_fill_value(parse_data_type(name, "z"), value, "a/zarr.json")
    assert needle in str(info.value) and str(info.value).startswith("a/zarr.json")


def test_user_fill_values():
    dt = parse_data_type("bfloat16", "z")
    assert float(fill_value_from_user(dt, 1.5)) == 1.5
    assert math.isnan(float(fill_value_from_user(dt, float("nan"))))
    assert int(fill_value_from_user(parse_data_type("int4", "z"), None)) == 0


@pytest.mark.parametrize("name", ML_NAMES)
def test_round_trip(tmp_path, name):
    d = np.dtype(getattr(ml_dtypes, name))
    x = _values(d)
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=x.shape, chunks=(7,), dtype=d)
    a[:] = x
    got = zarrhpc.open_array(tmp_path / "a.zarr")[:]
    assert got.dtype == d
    np.testing.assert_array_equal(got.view("u1"), x.view("u1"))


def test_big_endian_bfloat16_is_swapped(tmp_path):
    d = np.dtype(ml_dtypes.bfloat16)
    x = np.array([1.5, -2.0, 0.25, 3.0], dtype=d)
    a = zarrhpc.create_array(tmp_path / "b.zarr", shape=(4,), chunks=(4,), dtype=d,
                             compressors=None,
                             serializer={"name": "bytes", "configuration": {"endian": "big"}})
    a[:] = x
    raw = (tmp_path / "b.zarr/c/0").read_bytes()
    assert raw == x.view("<u2").astype(">u2").tobytes()  # stored big-endian
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "b.zarr")[:].view("u2"),
                                  x.view("u2"))


ts = pytest.importorskip("tensorstore")
# every ml type tensorstore 0.1.x writes (not float8_e4m3, float6_*, uint2, uint4)
TS_TYPES = ["bfloat16", "float8_e3m4", "float8_e4m3fn", "float8_e4m3fnuz",
            "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
            "float4_e2m1fn", "int2", "int4"]


def _ts_open(path, dtype=None, shape=None, create=False):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
    if create:
        spec["metadata"] = {"shape": list(shape), "data_type": dtype,
                            "chunk_grid": {"name": "regular",
                                           "configuration": {"chunk_shape": [7]}}}
        return ts.open(spec, create=True).result()
    return ts.open(spec).result()


@pytest.mark.parametrize("name", TS_TYPES)
def test_tensorstore_writes_zarrhpc_reads(tmp_path, name):
    d = np.dtype(getattr(ml_dtypes, name))
    x = _values(d)
    try:
        t = _ts_open(tmp_path / "t.zarr", name, x.shape, create=True)
    except ValueError as exc:  # an older tensorstore without this type
        pytest.skip(f"tensorstore does not write {name}: {exc}")
    t[:14].write(x[:14]).result()  # the last two chunks stay missing: the fill value
    expected = np.asarray(t.read().result())
    got = zarrhpc.open_array(tmp_path / "t.zarr")[:]
    np.testing.assert_array_equal(got.view("u1"), expected.view("u1"))
    np.testing.assert_array_equal(got[:14].view("u1"), x[:14].view("u1"))


def test_e8m0fnu_stored_zero_fill_is_the_zero_bit_pattern(tmp_path):
    # float8_e8m0fnu has no zero: tensorstore writes 0.0 for its default fill (the all-zero
    # pattern, 2**-127) and reads 0.0 back as that pattern, as zarrs reads a 0; the cast
    # would give NaN (0xff). Complex pairs of the type take each part the same way.
    t = _ts_open(tmp_path / "t.zarr", "float8_e8m0fnu", (4,), create=True)
    assert json.loads((tmp_path / "t.zarr/zarr.json").read_text())["fill_value"] == 0.0
    a = zarrhpc.open_array(tmp_path / "t.zarr")
    assert a.fill_value.view("u1") == 0 and a[:].view("u1").tolist() == [0, 0, 0, 0]
    assert np.asarray(t.read().result()).view("u1").tolist() == [0, 0, 0, 0]
    dt = parse_data_type("float8_e8m0fnu", "z")
    for zero in (0, 0.0, -0.0):
        assert parse_fill_value(dt, zero, "z").view("u1") == 0
    assert parse_fill_value(dt, 1, "z").view("u1") == 127  # a number: its value (2**0)
    pair = parse_fill_value(parse_data_type("complex_float8_e8m0fnu", "z"), [0, 1.0], "z")
    assert list(pair.reshape(1).view("u1")) == [0, 127]


@pytest.mark.parametrize("name", TS_TYPES)
def test_zarrhpc_writes_tensorstore_reads(tmp_path, name):
    d = np.dtype(getattr(ml_dtypes, name))
    x = _values(d)
    a = zarrhpc.create_array(tmp_path / "h.zarr", shape=x.shape, chunks=(7,), dtype=d,
                             fill_value=1)
    a[:20] = x[:20]
    doc = json.loads((tmp_path / "h.zarr/zarr.json").read_text())
    assert doc["data_type"] == name
    try:
        t = _ts_open(tmp_path / "h.zarr")
    except ValueError as exc:
        pytest.skip(f"tensorstore does not read {name}: {exc}")
    got = np.asarray(t.read().result())
    expected = x.copy()
    expected[20:] = np.array(1, dtype=d)
    np.testing.assert_array_equal(got.view("u1"), expected.view("u1"))
