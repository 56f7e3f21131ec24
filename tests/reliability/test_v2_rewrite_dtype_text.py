"""A v2 ``.zarray`` rewritten by zarrhpc (attributes, resize, append) keeps its ``dtype``
text while it means the same numpy type.

Found by the hunt (wave 9), rewriting the stores of tests/conformance/writer_stores and
reading them back with libnetcdf: NCZarr stores text variables as ``">S1"`` (netCDF
``char``); zarrhpc wrote ``"|S1"`` back (numpy's spelling of the same type), which
libnetcdf reads as a ``string`` variable: after ``a.resize(...)`` or ``a.append(...)``
netCDF handed out ``str`` objects instead of the ``char`` bytes it wrote.
"""

import json
import tarfile
from pathlib import Path

import numpy as np
import pytest

import zarrhpc


def _store(tmp_path, dtype_text, fill):
    path = tmp_path / "v"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [5, 3], "dtype": dtype_text, "chunks": [2, 2],
        "fill_value": fill, "order": "C", "compressor": None, "filters": None}))
    return path


@pytest.mark.parametrize("dtype_text,fill,values", [
    (">S1", "", np.array([b"a", b"", b"x"] * 5, "S1").reshape(5, 3)),
    ("<u1", 0, np.arange(15, dtype="u1").reshape(5, 3)),
    ("|b1", False, (np.arange(15) % 2 == 0).reshape(5, 3)),
    (">i4", 7, np.arange(15, dtype=">i4").reshape(5, 3)),
])
@pytest.mark.parametrize("op", ["attrs", "resize", "append"])
def test_rewrites_keep_the_dtype_text(tmp_path, dtype_text, fill, values, op):
    path = _store(tmp_path, dtype_text, fill)
    a = zarrhpc.open_array(str(path), mode="r+")
    a[...] = values
    if op == "attrs":
        a.attrs["x"] = 1
    elif op == "resize":
        a.resize((7, 3))
        a.resize((5, 3))
    else:
        a.append(values[:2], axis=0)
    meta = json.loads((path / ".zarray").read_text())
    assert meta["dtype"] == dtype_text
    got = zarrhpc.open_array(str(path), mode="r")[:5]
    assert got.dtype == np.dtype(dtype_text) and np.array_equal(got, values)


def test_a_type_read_through_a_filter_keeps_the_writers_text(tmp_path):
    """'<U4' with a vlen-utf8 filter is read as an object array; a resize leaves the member
    as the writer spelled it (metadata/as_written: unchanged members are not respelled) and
    the values read back are the strings written."""
    path = tmp_path / "s"
    path.mkdir()
    (path / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [2], "dtype": "<U4", "chunks": [2], "fill_value": "",
        "order": "C", "compressor": None, "filters": [{"id": "vlen-utf8"}]}))
    a = zarrhpc.open_array(str(path), mode="r+")
    a[...] = ["ab", "cde"]
    a.resize((3,))
    assert json.loads((path / ".zarray").read_text())["dtype"] == "<U4"
    assert zarrhpc.open_array(str(path), mode="r")[...].tolist() == ["ab", "cde", ""]


def test_netcdf_still_reads_chars_after_a_resize(tmp_path):
    netCDF4 = pytest.importorskip("netCDF4")
    here = Path(__file__).parents[1] / "conformance" / "writer_stores"
    archive = next(iter(sorted(here.glob("netcdf4-1.7*.tar.xz"))), None)
    if archive is None:
        pytest.skip("no libnetcdf 4.10 store")
    with tarfile.open(archive, "r:xz") as tf:
        tf.extractall(tmp_path, filter="data")
    store = tmp_path / "stores" / "types-nczarr.zarr"
    url = f"file://{store}#mode=nczarr,file"

    def read():
        with netCDF4.Dataset(url, "r") as ds:
            v = ds.variables["chars"]
            v.set_auto_maskandscale(False)
            return np.array(v[...])

    before = read()
    a = zarrhpc.open_array(str(store), path="chars", mode="r+")
    a.resize((a.shape[0] + 2, a.shape[1]))
    a.resize((a.shape[0] - 2, a.shape[1]))
    after = read()
    assert after.dtype == before.dtype == np.dtype("S1")
    assert np.array_equal(after, before)
