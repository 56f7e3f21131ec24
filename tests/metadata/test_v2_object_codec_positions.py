"""v2 object arrays whose object codec sits where zarr-python 2 writers put it oddly: as
the ``compressor`` (no filters), or behind another filter. zarrhpc reads what zarr-python
3 reads, with the same values, writes back what it reads, and refuses clearly where
zarr-python refuses."""

import json

import numcodecs
import numpy as np
import pytest
import zarr

import zarrhpc
from zarrhpc.errors import ZarrhpcError

VALUES = ["a", "bé", "", "d\x00d", "e"]


def _store(tmp_path, filters, compressor, encode):
    d = tmp_path / "o.zarr"
    d.mkdir()
    (d / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [5], "chunks": [3], "dtype": "|O", "fill_value": None,
        "order": "C", "filters": filters, "compressor": compressor}))
    padded = np.array(VALUES + [""], dtype=object)
    for i in range(2):
        (d / str(i)).write_bytes(bytes(encode(padded[3 * i:3 * i + 3])))
    return d


UTF8 = numcodecs.VLenUTF8()


def _as_bytes(chunk):
    return numcodecs.VLenBytes().encode(np.array([s.encode() for s in chunk], dtype=object))


@pytest.mark.parametrize(("filters", "compressor", "encode", "expected"), [
    (None, {"id": "vlen-utf8"}, UTF8.encode, VALUES),
    ([], {"id": "vlen-utf8"}, UTF8.encode, VALUES),
    (None, {"id": "vlen-bytes"}, _as_bytes, [v.encode() for v in VALUES]),
    ([{"id": "vlen-utf8"}], {"id": "zlib", "level": 1},
     lambda c: numcodecs.Zlib(1).encode(UTF8.encode(c)), VALUES),
])
def test_reads_as_zarr_python_does(tmp_path, filters, compressor, encode, expected):
    d = _store(tmp_path, filters, compressor, encode)
    assert list(zarr.open_array(d, mode="r")[:]) == expected
    a = zarrhpc.open_array(d, mode="r+")
    assert list(a[:]) == expected
    a[1:4] = a[3:0:-1]  # written back through the same object codec
    again = expected[:1] + expected[3:0:-1] + expected[4:]
    assert list(zarr.open_array(d, mode="r")[:]) == again
    doc = json.loads((d / ".zarray").read_text())
    assert doc["compressor"] == compressor and doc["filters"] == filters  # left as found


@pytest.mark.parametrize(("filters", "compressor"), [
    ([{"id": "zlib", "level": 1}, {"id": "vlen-utf8"}], None),
    ([{"id": "vlen-utf8"}], {"id": "vlen-utf8"}),
    ([{"id": "delta", "dtype": "<i4"}], {"id": "vlen-utf8"}),
])
def test_refused_where_zarr_python_refuses(tmp_path, filters, compressor):
    d = _store(tmp_path, filters, compressor, UTF8.encode)
    with pytest.raises(TypeError):
        zarr.open_array(d, mode="r")[:]
    with pytest.raises(ZarrhpcError, match=r"\.zarray"):
        zarrhpc.open_array(d, mode="r")[:]
