"""v2 arrays of ml_dtypes types (bfloat16, float8_*, int4...) as tensorstore's zarr driver
writes them: ``"dtype": "bfloat16"``, fill values as numbers or "NaN"/"Infinity"."""

import json

import ml_dtypes
import numpy as np
import pytest

import zarrhpc

ts = pytest.importorskip("tensorstore")

TYPES = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4"]


def _spec(path, dtype, fill=None):
    meta = {"dtype": dtype, "shape": [5], "chunks": [2], "compressor": None}
    if fill is not None:
        meta["fill_value"] = fill
    return {"driver": "zarr", "kvstore": {"driver": "file", "path": str(path)},
            "metadata": meta}


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("fill", [None, 1])
def test_tensorstore_v2_ml_dtype_reads(tmp_path, name, fill):
    try:
        t = ts.open(_spec(tmp_path, name, fill), create=True).result()
    except ValueError as e:  # a type this tensorstore's v2 driver does not take
        pytest.skip(str(e))
    dt = np.dtype(getattr(ml_dtypes, name))
    t[:3] = np.arange(3).astype(dt)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    assert a.dtype == dt
    expect = t.read().result()
    np.testing.assert_array_equal(a[:].view(np.uint8), np.asarray(expect).view(np.uint8))
    assert (a.fill_value is None) if fill is None else float(a.fill_value) == fill


@pytest.mark.parametrize("fill", [float("nan"), float("inf"), 0.5])
def test_v2_bfloat16_written_as_tensorstore_reads(tmp_path, fill):
    a = zarrhpc.create_array(str(tmp_path), shape=(5,), chunks=(2,), zarr_format=2,
                             dtype=ml_dtypes.bfloat16, fill_value=fill, compressors=None)
    a[:3] = np.arange(3)
    doc = json.loads((tmp_path / ".zarray").read_text())
    assert doc["dtype"] == "bfloat16"
    got = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": str(tmp_path)}}
                  ).result().read().result()
    want = np.array([0, 1, 2, fill, fill], dtype=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint16), want.view(np.uint16))
