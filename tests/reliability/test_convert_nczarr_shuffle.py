"""``convert`` of libnetcdf's ``shuffle`` with ``elementsize: 0`` (NCZarr shuffles by the
variable's type size; zarrhpc reads it so): the v3 result kept the 0, which zarr-python reads
as "no shuffle" -- a store written by zarrhpc that zarr-python read as scrambled values.
The size is now spelled out; the chunks stay byte for byte."""

import json
import warnings

import numcodecs
import numpy as np
import pytest
import zarr

import zarrhpc


@pytest.mark.parametrize("dtype", ["<i2", "<f8", "<u4"])
@pytest.mark.parametrize("in_place", [False, True], ids=["copy", "in_place"])
def test_converted_shuffle_reads_the_same_in_zarr_python(tmp_path, dtype, in_place):
    src = tmp_path / "src"
    data = (np.arange(63) * 37 - 500).astype(dtype).reshape(9, 7)
    a = zarrhpc.create_array(str(src), shape=data.shape, chunks=(4, 3), dtype=dtype,
                             zarr_format=2, filters=[numcodecs.Shuffle(elementsize=data.itemsize)],
                             compressors=numcodecs.Zlib(level=4))
    a[...] = data
    meta = json.loads((src / ".zarray").read_text())
    meta["filters"] = [{"id": "shuffle", "elementsize": 0}]  # as libnetcdf records it
    (src / ".zarray").write_text(json.dumps(meta))
    chunks = {p.name: p.read_bytes() for p in src.iterdir() if not p.name.startswith(".")}
    np.testing.assert_array_equal(zarrhpc.open_array(str(src), mode="r")[...], data)
    dst = src if in_place else tmp_path / "dst"
    if in_place:
        zarrhpc.convert(str(src), in_place=True, progress=False)
    else:
        zarrhpc.convert(str(src), str(dst), progress=False)
    codecs = json.loads((dst / "zarr.json").read_text())["codecs"]
    assert {"name": "numcodecs.shuffle",
            "configuration": {"elementsize": data.itemsize}} in codecs
    assert {n: (dst / n).read_bytes() for n in chunks} == chunks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = zarr.open_array(str(dst), mode="r")[...]
    np.testing.assert_array_equal(theirs, data)
    np.testing.assert_array_equal(zarrhpc.open_array(str(dst), mode="r")[...], data)
