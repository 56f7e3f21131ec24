"""Zip stores both ways: hierarchies zarrhpc writes into a .zip open in zarr-python 3
(``zarr.storage.ZipStore``) and tensorstore (kvstore driver ``zip``, read-only), and
zip files written by zarr-python, Python's zipfile and the ``zip`` tool open in zarrhpc."""

from __future__ import annotations

import shutil
import subprocess
import warnings
import zipfile

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage import ZipStore
from zarrhpc.testing.peers import CHAINS, chain, random_data, same_bits, split_chain, ts_write

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

SHAPE, CHUNKS = (7, 5), (3, 4)


def zh_hierarchy(path, data, codecs):
    """A group with attributes, an array at the root of it and a nested one."""
    root = zarrhpc.create_group(path, attributes={"title": "zip test"})
    a = root.create_array("a", shape=data.shape, chunks=CHUNKS, dtype=data.dtype,
                          fill_value=0, **split_chain(codecs))
    a[...] = data
    a.attrs["units"] = "K"  # rewrites a.zarr.json: the newest entry must win everywhere
    b = zarrhpc.create_array(path, name="sub/b", shape=(4,), chunks=(3,), dtype="i2")
    b[...] = [1, -2, 3, -4]
    root.store.close()  # writes the central directory


def ts_read_zip(path, name):
    kvstore = {"driver": "zip", "base": {"driver": "file", "path": str(path)}, "path": name + "/"}
    return ts.open({"driver": "zarr3", "kvstore": kvstore}, open=True).result().read().result()


@pytest.mark.parametrize("codec", CHAINS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_zarrhpc_writes_peers_read(tmp_path, codec, dtype):
    path = tmp_path / "h.zip"
    data = random_data(dtype, SHAPE, seed=1)
    zh_hierarchy(path, data, chain(codec, dtype))
    store = zarr.storage.ZipStore(path, mode="r")
    root = zarr.open_group(store, mode="r")
    assert root.attrs["title"] == "zip test"
    assert root["a"].attrs["units"] == "K"
    assert same_bits(root["a"][...], data)
    assert root["sub/b"][...].tolist() == [1, -2, 3, -4]
    store.close()
    assert same_bits(ts_read_zip(path, "a"), data)
    assert ts_read_zip(path, "sub/b").tolist() == [1, -2, 3, -4]


def test_zarr_python_writes_zarrhpc_reads(tmp_path):
    path = tmp_path / "z.zip"
    data = random_data("float64", SHAPE, seed=2)
    store = zarr.storage.ZipStore(path, mode="w")
    root = zarr.create_group(store, attributes={"k": 1})
    a = root.create_array("a", shape=SHAPE, chunks=CHUNKS, dtype="f8",
                          **split_chain(chain("blosc", "float64")))
    a[...] = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        a.attrs["units"] = "m"  # a second a/zarr.json entry in the zip
        a[0, 0] = -1.0  # and a second chunk 0/0
    store.close()
    data[0, 0] = -1.0
    with zipfile.ZipFile(path) as z:
        assert z.namelist().count("a/zarr.json") == 2  # zarr-python keeps both
    for where in (path, ZipStore(path)):
        arr = zarrhpc.open_array(where, path="a")
        assert arr.attrs["units"] == "m"
        assert same_bits(arr[...], data)
        assert zarrhpc.open_group(where).attrs["k"] == 1
    # zarrhpc appends to zarr-python's zip; zarr-python reads the result
    arr = zarrhpc.open_array(path, path="a", mode="r+")
    arr[6, 4] = 42.0
    arr.store.close()
    data[6, 4] = 42.0
    store = zarr.storage.ZipStore(path, mode="r")
    assert same_bits(zarr.open_array(store, path="a", mode="r")[...], data)
    store.close()


@pytest.mark.parametrize("tool", ["zipfile-stored", "zipfile-deflated", "zip-cli"])
def test_zipped_directory_of_tensorstore_reads(tmp_path, tool):
    src = tmp_path / "t.zarr"
    data = random_data("uint16", SHAPE, seed=3)
    ts_write(src / "x", data, CHUNKS, chain("zstd", "uint16"), 7)
    zarrhpc.create_group(src)
    path = tmp_path / "t.zip"
    if tool == "zip-cli":
        if shutil.which("zip") is None:
            pytest.skip("no zip command")
        # default deflate, with directory entries; run inside the hierarchy
        subprocess.run(["zip", "-q", "-r", str(path), "."], cwd=src, check=True)
    else:
        method = zipfile.ZIP_STORED if tool == "zipfile-stored" else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(path, "w", method) as z:
            for f in sorted(src.rglob("*")):
                if f.is_file():
                    z.write(f, f.relative_to(src).as_posix())
    a = zarrhpc.open_array(path, path="x")
    assert same_bits(a[...], data)
    assert same_bits(a[1:6:2, ::-1], data[1:6:2, ::-1])
    assert [name for name, _ in zarrhpc.open_group(path).members()] == ["x"]


def test_zarrhpc_zip_is_what_the_directory_is(tmp_path):
    """The same hierarchy written to a directory and a zip holds the same keys and bytes."""
    data = random_data("float32", SHAPE, seed=4)
    zh_hierarchy(tmp_path / "d.zarr", data, chain("gzip", "float32"))
    zh_hierarchy(tmp_path / "d.zip", data, chain("gzip", "float32"))
    files = {p.relative_to(tmp_path / "d.zarr").as_posix(): p.read_bytes()
             for p in (tmp_path / "d.zarr").rglob("*") if p.is_file()}
    with zipfile.ZipFile(tmp_path / "d.zip") as z:
        assert {n: z.read(n) for n in z.namelist()} == files
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
    assert np.array_equal(zarrhpc.open_array(tmp_path / "d.zip", path="a")[...], data)
