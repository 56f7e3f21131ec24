"""Byte order of what reads return, against zarr-python 3.1 on the same stores.

- v3 with ``bytes`` ``endian: big``: zarr-python (reopened) returns machine-order arrays
  and shows ``a.dtype`` in machine order; so do we.
- v2 ``'>i4'``: both return and show the stored order.
- ``out=`` in either byte order of the array's type: zarr-python fills it (a numpy
  assignment); we decode into its memory and swap in place. Every selection kind, plain
  and sharded, chunks missing (fill value) and present.
"""

from __future__ import annotations

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")
from zarr.codecs import BytesCodec  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402

SELECTIONS = [
    ("basic", (slice(1, 9), slice(None, None, 2))),
    ("orthogonal", ([0, 3, 8], slice(2, 6))),
    ("coordinate", ([0, 3, 8, 8], [1, 5, 0, 6])),
    ("mask", "mask"),
    ("block", (1, slice(0, 2))),
]


def _mask(shape):
    return (np.arange(np.prod(shape)).reshape(shape) % 3) == 1


def _store(tmp_path, zarr_format, dtype, sharded):
    kw = {}
    if zarr_format == 3:
        kw["serializer"] = BytesCodec(endian="big")
        if sharded:
            kw["shards"] = (6, 4)
    z = zarr.create_array(tmp_path / "a.zarr", shape=(10, 7), chunks=(3, 2), dtype=dtype,
                          fill_value=5, zarr_format=zarr_format, compressors=None, **kw)
    z[:6, :] = np.arange(42).reshape(6, 7).astype(dtype) - 20  # the rest: fill chunks
    return zarr.open_array(tmp_path / "a.zarr", mode="r"), zarrhpc.open_array(
        tmp_path / "a.zarr")


def _get(arr, kind, sel, out=None):
    if sel == "mask":
        sel = _mask(arr.shape)
    return getattr(arr, f"get_{kind}_selection")(sel, out=out)


@pytest.mark.parametrize(("zarr_format", "sharded"), [(3, False), (3, True), (2, False)])
@pytest.mark.parametrize("dtype", [">f8", ">i4", ">c8", ">u2"])
@pytest.mark.parametrize(("kind", "sel"), SELECTIONS)
def test_reads_and_out_buffers_as_zarr_python(tmp_path, zarr_format, sharded, dtype, kind,
                                               sel):
    theirs, ours = _store(tmp_path, zarr_format, dtype, sharded)
    assert ours.dtype == theirs.dtype and ours.dtype.str == theirs.dtype.str
    want = np.asarray(_get(theirs, kind, sel))
    got = _get(ours, kind, sel)
    assert got.dtype.str == want.dtype.str
    np.testing.assert_array_equal(got, want)
    for order in (">", "<"):
        buf_theirs = np.full(want.shape, 99, np.dtype(dtype).newbyteorder(order))
        buf_ours = buf_theirs.copy()
        _get(theirs, kind, sel, default_buffer_prototype().nd_buffer.from_numpy_array(
            buf_theirs))
        assert _get(ours, kind, sel, buf_ours) is buf_ours
        assert buf_ours.dtype == buf_theirs.dtype and buf_ours.tobytes() == buf_theirs.tobytes()
        np.testing.assert_array_equal(buf_ours, want)


def test_out_of_another_type_and_read_only_out_are_refused(tmp_path):
    _, ours = _store(tmp_path, 3, ">f8", False)
    with pytest.raises(TypeError, match="float32"):
        ours.read(out=np.zeros(ours.shape, "f4"))
    ro = np.zeros(ours.shape, ">f8")
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ours.read(out=ro)
    strided = np.zeros((10, 14), ">f8")[:, ::2]  # a strided buffer of the other order
    ours.read(out=strided)
    np.testing.assert_array_equal(strided, ours[:])
