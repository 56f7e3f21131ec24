"""``create(..., dtype=object, object_codec=...)`` as zarr-python 2 took it (zarr-python 3.1
refuses dtype=object): v2 puts the object codec first among the filters, v3 picks the
data type. The documents equal what zarr-python 3 writes for ``dtype=str`` (and bytes),
and zarr-python reads the values back."""

import json
import warnings

import numcodecs
import numpy as np
import pytest
import zarr

import zarrhpc
from zarrhpc.errors import UnsupportedError


def _doc(path, fmt):
    return json.loads((path / (".zarray" if fmt == 2 else "zarr.json")).read_text())


@pytest.mark.parametrize("fmt", [2, 3])
def test_vlen_utf8_object_codec_writes_what_zarr_python_writes_for_str(tmp_path, fmt):
    a = zarrhpc.create(shape=(4,), chunks=(2,), dtype=object, zarr_format=fmt,
                       object_codec=numcodecs.VLenUTF8(), store=tmp_path / "a")
    zarr.create_array(tmp_path / "z", shape=(4,), chunks=(2,), dtype=str, zarr_format=fmt)
    assert _doc(tmp_path / "a", fmt) == _doc(tmp_path / "z", fmt)
    a[...] = np.array(["x", "", "é", "y"], dtype=object)
    assert list(zarr.open_array(tmp_path / "a", mode="r")[:]) == ["x", "", "é", "y"]


def test_v2_object_codec_goes_first_among_filters(tmp_path):
    zarrhpc.create(shape=(4,), chunks=(2,), dtype=object, zarr_format=2,
                   object_codec=numcodecs.VLenBytes(), store=tmp_path / "b",
                   filters=[numcodecs.VLenBytes()])  # already first: not repeated
    assert _doc(tmp_path / "b", 2)["filters"] == [{"id": "vlen-bytes"}]
    a = zarrhpc.create(shape=(3,), chunks=(2,), dtype=object, zarr_format=2,
                       object_codec=numcodecs.VLenArray("<i4"), store=tmp_path / "c")
    assert _doc(tmp_path / "c", 2)["filters"] == [{"id": "vlen-array", "dtype": "<i4"}]
    values = [np.array([1, 2], "i4"), np.array([], "i4"), np.array([3], "i4")]
    a[...] = np.array(values + [None], dtype=object)[:3]
    # zarr-python 3 reads no vlen-array array: the chunk is checked with numcodecs itself
    raw = (tmp_path / "c/0").read_bytes()
    first = numcodecs.VLenArray("<i4").decode(numcodecs.Zstd().decode(raw))
    assert all(np.array_equal(x, y) for x, y in zip(first, values[:2]))
    out = zarrhpc.open_array(tmp_path / "c")[:]
    assert all(np.array_equal(x, y) for x, y in zip(out, values))


def test_v3_refuses_vlen_array_and_non_object_codecs(tmp_path):
    with pytest.raises(UnsupportedError, match="zarr_format=2"):
        zarrhpc.create(shape=(3,), dtype=object, zarr_format=3, store=tmp_path / "d",
                       object_codec=numcodecs.VLenArray("<i4"))
    with pytest.raises(ValueError, match="not an object codec"):
        zarrhpc.create(shape=(3,), dtype=object, zarr_format=2, store=tmp_path / "e",
                       object_codec=numcodecs.Zlib())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = zarrhpc.create(shape=(3,), dtype="i4", zarr_format=2, store=tmp_path / "f",
                           object_codec=numcodecs.VLenUTF8())
    assert a.dtype == np.dtype("i4") and "only object arrays" in str(caught[0].message)
