"""zarr-extensions' ``cast_value`` and ``scale_offset`` codecs: stored values against a
per-element oracle written from the READMEs (Python's decimal rounding, modular wrap),
the README's NumPy-compatibility example against numpy itself, scalar maps, fill values,
refusals."""

import decimal
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import CodecError, CorruptChunkError

_MODES = {"nearest-even": decimal.ROUND_HALF_EVEN, "towards-zero": decimal.ROUND_DOWN,
          "towards-positive": decimal.ROUND_CEILING, "towards-negative": decimal.ROUND_FLOOR,
          "nearest-away": decimal.ROUND_HALF_UP}


def _oracle(v, dtype, rounding, out_of_range):
    """One float64 value cast to an integer type by the README's rules."""
    n = int(decimal.Decimal(float(v)).to_integral_value(rounding=_MODES[rounding]))
    info = np.iinfo(dtype)
    if info.min <= n <= info.max:
        return n
    if out_of_range == "clamp":
        return min(max(n, int(info.min)), int(info.max))
    if out_of_range == "wrap":
        bits = info.bits
        half = 1 << (bits - 1) if info.min < 0 else 0
        return (n + half) % (1 << bits) - half
    return None


def _array(tmp_path, values, conf, dtype="f8", fill=0):
    a = zarrhpc.create_array(tmp_path / "a", shape=values.shape, chunks=values.shape,
                             dtype=dtype, filters=[{"name": "cast_value", "configuration": conf}],
                             compressors=None, fill_value=fill, overwrite=True,
                             write_empty_chunks=True)
    a[...] = values
    return a


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.one_of(st.floats(-70000, 70000, allow_nan=False),
                                 st.integers(-600, 600).map(lambda i: i / 2)),
                       min_size=1, max_size=30),
       target=st.sampled_from(["int8", "uint8", "int16", "uint16", "int32", "uint64"]),
       rounding=st.sampled_from(sorted(_MODES)),
       out_of_range=st.sampled_from(["clamp", "wrap"]))
def test_float_to_int_against_the_readme(tmp_path_factory, values, target, rounding,
                                         out_of_range):
    tmp_path = tmp_path_factory.mktemp("cv")
    values = np.array(values, dtype="f8")
    conf = {"data_type": target, "rounding": rounding, "out_of_range": out_of_range}
    a = _array(tmp_path, values, conf)
    stored = np.frombuffer((tmp_path / "a" / "c/0").read_bytes(), dtype=np.dtype(target).newbyteorder("<"))
    expected = [_oracle(v, target, rounding, out_of_range) for v in values]
    assert stored.tolist() == expected
    # decoding rounds by the same mode (exactly: uint64 values above 2**53 too)
    np.testing.assert_array_equal(a[...], [_to_f8(n, rounding) for n in expected])


def _to_f8(n, rounding):
    """The integer ``n`` as a float64 by ``rounding`` (exact, with decimal)."""
    e = max(abs(n).bit_length() - 53, 0)
    ctx = decimal.Context(prec=100)
    q = ctx.divide(decimal.Decimal(n), decimal.Decimal(1 << e))
    return float(int(q.to_integral_value(rounding=_MODES[rounding])) << e)


def test_the_readme_numpy_compatibility_example(tmp_path):
    conf = {"data_type": "uint8", "rounding": "towards-zero", "out_of_range": "wrap",
            "scalar_map": {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}}
    values = np.array([0.0, 1.9, -1.9, 255.5, 256.0, 300.7, -300.7, 1e6, np.nan, np.inf,
                       -np.inf])
    with pytest.raises(CodecError, match="Infinity"):  # "+Infinity" is no fill-value form
        _array(tmp_path, values, conf)
    conf["scalar_map"]["encode"][1][0] = "Infinity"
    _array(tmp_path, values, conf)
    stored = np.frombuffer((tmp_path / "a" / "c/0").read_bytes(), dtype="u1")
    finite = np.isfinite(values)
    np.testing.assert_array_equal(stored[finite], values[finite].astype(np.int64).astype(np.uint8))
    assert stored[~finite].tolist() == [0, 0, 0]


def test_scalar_maps_first_pair_wins_and_decode_map(tmp_path):
    conf = {"data_type": "int16", "rounding": "nearest-away",
            "scalar_map": {"encode": [["NaN", -1], [2.5, 100], [2.5, 200]],
                           "decode": [[-1, "NaN"], [100, 2.5]]}}
    values = np.array([np.nan, 2.5, -2.5, 0.5, 7.0])
    a = _array(tmp_path, values, conf)
    stored = np.frombuffer((tmp_path / "a" / "c/0").read_bytes(), dtype="<i2")
    assert stored.tolist() == [-1, 100, -3, 1, 7]
    np.testing.assert_array_equal(a[...], [np.nan, 2.5, -3.0, 1.0, 7.0])


@pytest.mark.parametrize("target", ["float32", "float16", "bfloat16"])
def test_float_targets_keep_nan_and_round_to_nearest_even(tmp_path, target):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    t = np.dtype(ml_dtypes.bfloat16) if target == "bfloat16" else np.dtype(target)
    values = np.array([0.1, -2.75, 1e-3, np.nan, np.inf, 65504.0])
    a = _array(tmp_path, values, {"data_type": target})
    np.testing.assert_array_equal(a[...], values.astype(t).astype("f8"))
    with pytest.raises(CodecError, match="range"):
        _array(tmp_path, np.array([1e6]), {"data_type": "float16"})
    b = _array(tmp_path, np.array([1e6, -1e6]), {"data_type": "float16", "out_of_range": "clamp"})
    np.testing.assert_array_equal(b[...], [np.inf, -np.inf])


def test_refusals(tmp_path):
    with pytest.raises(CodecError, match="range"):
        _array(tmp_path, np.array([300.0]), {"data_type": "uint8"})
    with pytest.raises(CodecError, match="NaN"):
        _array(tmp_path, np.array([np.nan]), {"data_type": "int8"})
    with pytest.raises(CodecError, match="wrap"):
        _array(tmp_path, np.array([1.0]), {"data_type": "float32", "out_of_range": "wrap"})
    with pytest.raises(CodecError, match="rounding"):
        _array(tmp_path, np.array([1.0]), {"data_type": "int8", "rounding": "up"})
    with pytest.raises(CodecError, match="fill value"):
        _array(tmp_path, np.array([1.0]), {"data_type": "uint8"}, fill=-5)
    with pytest.raises(CodecError, match="data_type"):
        _array(tmp_path, np.array([1.0]), {"data_type": "complex64"})
    a = _array(tmp_path, np.array([1.0, 2.0]), {"data_type": "int8"})
    (tmp_path / "a" / "c/0").write_bytes(b"\x01")
    with pytest.raises(CorruptChunkError):
        a[...]


def test_fill_value_is_cast_and_ints_widen_exactly(tmp_path):
    values = np.array([-(2**31), 2**31 - 1, 0, 7], dtype="i4")
    a = _array(tmp_path, values, {"data_type": "int64"}, dtype="i4", fill=-3)
    np.testing.assert_array_equal(a[...], values)
    doc = json.loads((tmp_path / "a" / "zarr.json").read_text())
    assert doc["codecs"][0] == {"name": "cast_value", "configuration": {
        "data_type": "int64", "rounding": "nearest-even"}}
    cast = [{"name": "cast_value", "configuration": {"data_type": "uint8",
                                                     "rounding": "towards-zero"}}]
    with pytest.raises(CodecError, match="survive"):  # 2.5 -> 2 -> 2.0: the README forbids it
        zarrhpc.create_array(tmp_path / "c", shape=(6,), chunks=(4,), dtype="f8",
                             fill_value=2.5, filters=cast, compressors=None)
    b = zarrhpc.create_array(tmp_path / "b", shape=(6,), chunks=(4,), dtype="f8", fill_value=3.0,
                             filters=cast, compressors=None)
    b[:2] = [9.9, 1.1]
    np.testing.assert_array_equal(b[...], [9, 1, 3, 3, 3, 3])


@pytest.mark.parametrize(("dtype", "conf", "values", "stored"), [
    ("i4", {"offset": 5, "scale": 3}, [10, 20, 35, -5], [15, 45, 90, -30]),
    ("f8", {"offset": 1.5, "scale": 4.0}, [1.5, 2.0, -0.5], [0.0, 2.0, -8.0]),
    ("f4", {"scale": 10.0}, [0.25, -1.5], [2.5, -15.0]),
    ("u2", {}, [1, 2, 3], [1, 2, 3]),
])
def test_scale_offset(tmp_path, dtype, conf, values, stored):
    a = zarrhpc.create_array(tmp_path / "a", shape=(len(values),), chunks=(len(values),),
                             dtype=dtype, filters=[{"name": "scale_offset", "configuration": conf}],
                             compressors=None)
    a[...] = values
    raw = np.frombuffer((tmp_path / "a" / "c/0").read_bytes(), dtype=np.dtype(dtype).newbyteorder("<"))
    assert raw.tolist() == stored
    np.testing.assert_array_equal(a[...], np.array(values, dtype=dtype))


def test_scale_offset_refuses_unrepresentable_integers(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a", shape=(2,), chunks=(2,), dtype="i1",
                             filters=[{"name": "scale_offset", "configuration": {"scale": 100}}],
                             compressors=None)
    with pytest.raises(CodecError, match="representable"):
        a[...] = [1, 2]
    a2 = zarrhpc.create_array(tmp_path / "b", shape=(2,), chunks=(2,), dtype="i2",
                              filters=[{"name": "scale_offset", "configuration": {"scale": 4}}],
                              compressors=None)
    a2[...] = [1, 2]
    (tmp_path / "b" / "c/0").write_bytes(np.array([4, 5], "<i2").tobytes())  # 5 / 4: inexact
    with pytest.raises(CorruptChunkError, match="representable"):
        a2[...]
    with pytest.raises(CodecError, match="scale"):
        zarrhpc.create_array(tmp_path / "c", shape=(2,), dtype="f4", filters=[
            {"name": "scale_offset", "configuration": {"scale": 0.0}}])
    assert math.isfinite(1.0)
