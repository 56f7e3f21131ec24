"""libnetcdf's shuffle form: ``{"id": "shuffle", "elementsize": 0}`` (written before zlib on
every compressed NCZarr variable) shuffles by the element size of the variable's type.
numcodecs takes 0 as "no shuffle"; zarrhpc reads and writes libnetcdf's meaning (the
netCDF fixtures in tests/conformance/writer_stores are read back by netCDF itself)."""

from __future__ import annotations

import json
import zlib

import numcodecs
import numpy as np
import pytest

import zarrhpc


@pytest.mark.parametrize("dtype", ["<i2", "<u4", ">f8", "<f4", "|u1"])
@pytest.mark.parametrize("position", ["filter", "compressor"])
def test_elementsize_zero_is_the_type_size(tmp_path, dtype, position):
    meta = {"zarr_format": 2, "shape": [9, 7], "chunks": [4, 3], "dtype": dtype,
            "fill_value": 0, "order": "C", "dimension_separator": "."}
    if position == "filter":
        meta.update(filters=[{"id": "shuffle", "elementsize": 0}],
                    compressor={"id": "zlib", "level": 1})
    else:
        meta.update(filters=None, compressor={"id": "shuffle", "elementsize": 0})
    (tmp_path / ".zarray").write_text(json.dumps(meta))
    data = (np.arange(63) * 1000003 % 65521).reshape(9, 7).astype(dtype)
    a = zarrhpc.open_array(str(tmp_path), mode="r+")
    a[...] = data
    raw = (tmp_path / "0.0").read_bytes()
    if position == "filter":
        raw = zlib.decompress(raw)
    itemsize = np.dtype(dtype).itemsize
    plain = numcodecs.Shuffle(elementsize=itemsize).decode(raw)
    # what libnetcdf stores: the chunk's bytes shuffled by the type size
    assert np.frombuffer(plain, dtype=dtype).reshape(4, 3).tolist() == data[:4, :3].tolist()
    if itemsize > 1:
        assert raw != data[:4, :3].tobytes()
    got = zarrhpc.open_array(str(tmp_path), mode="r")[...]
    assert np.array_equal(got, data)
    # the document keeps libnetcdf's 0
    doc = json.loads((tmp_path / ".zarray").read_text())
    entry = doc["compressor"] if position == "compressor" else doc["filters"][0]
    assert entry == {"id": "shuffle", "elementsize": 0}
