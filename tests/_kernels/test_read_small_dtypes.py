"""Small box reads of a LocalStore array (the engine's lean ``read_small`` path) return the
dtype and values zarr-python returns, for every kind of dtype.

The lean path once created its result from the dtype's type number alone: a fixed-width
bytes array came out one byte wide (the engine then wrote three bytes per element past
the result: wrong values and heap corruption), and a datetime would have lost its unit.
"""

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

SHAPE, CHUNKS = (4, 5, 6), (2, 3, 4)


def _data(dtype):
    n = int(np.prod(SHAPE))
    dt = np.dtype(dtype)
    if dt.kind in "SU":
        return np.array([str(i * 7 % 101) for i in range(n)], dtype=dt).reshape(SHAPE)
    if dt.kind == "V" and dt.fields is None:
        return np.frombuffer(np.arange(n * dt.itemsize, dtype="u1").tobytes(),
                             dtype=dt).reshape(SHAPE)
    if dt.fields is not None:
        out = np.zeros(n, dtype=dt)
        out["a"], out["b"] = np.arange(n), np.arange(n) / 4
        return out.reshape(SHAPE)
    return (np.arange(n) * 3 % 17).astype(dt).reshape(SHAPE)


@pytest.mark.parametrize("dtype", ["S3", "<U2", "V4", "<M8[ns]", "<m8[s]", "<M8[D]", "?",
                                   "<f2", "<c8", "u1", [("a", "<i2"), ("b", "<f8")]])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_small_reads_match_zarr_python(tmp_path, dtype, zarr_format):
    data = _data(dtype)
    a = zarrhpc.create_array(str(tmp_path), shape=SHAPE, chunks=CHUNKS, dtype=data.dtype,
                             zarr_format=zarr_format)
    a[...] = data
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    # zarrhpc writes v3 raw and struct types in the registered forms zarr-python 3.1 does
    # not read (tests/conformance/_write_spec.py): their dtype is compared with numpy's
    ref = None if zarr_format == 3 and data.dtype.kind == "V" else \
        zarr.open_array(str(tmp_path), mode="r")
    for sel in [(slice(1, 3), slice(2, 5), slice(1, 4)), (1, slice(0, 5), slice(3, 6)),
                (slice(0, 4), 4, slice(0, 1))]:
        got = b[sel]
        want = data.dtype if ref is None else ref[sel].dtype
        assert got.dtype == want, (sel, got.dtype, want)
        np.testing.assert_array_equal(got, data[sel])
