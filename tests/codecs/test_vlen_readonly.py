"""Regression: writing a whole chunk of a variable-length bytes/str array from an object
array failed with "buffer source array is read-only" (the vlen kernel took a writable
object buffer; the write path hands it read-only chunks)."""

import numpy as np
import pytest

import zarrhpc


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize(("dtype", "values"), [
    (bytes, [b"a", b"", b"\x00z", b"xyz" * 20]), (str, ["a", "", "é\x00", "日本" * 9])])
@pytest.mark.parametrize("readonly", [False, True])
def test_whole_chunk_object_writes(tmp_path, fmt, dtype, values, readonly):
    a = zarrhpc.create_array(str(tmp_path / "a.zarr"), shape=(4,), chunks=(4,), dtype=dtype,
                             zarr_format=fmt)
    v = np.array(values, dtype=object)
    v.flags.writeable = not readonly
    a[...] = v
    assert list(zarrhpc.open_array(str(tmp_path / "a.zarr"))[...]) == values
    a[1:3] = v[2:4]  # a partial chunk too
    assert list(a[...]) == [values[0], values[2], values[3], values[3]]


@pytest.mark.parametrize("fmt", [2, 3])
def test_default_chunks_object_write(fmt):
    """The call that failed: default chunks, a plain (writable) object array."""
    a = zarrhpc.create_array({}, shape=(3,), dtype=bytes, zarr_format=fmt, fill_value=b"")
    a[...] = np.array([b"a", b"", b"\x00z"], dtype=object)
    assert list(a[...]) == [b"a", b"", b"\x00z"]
