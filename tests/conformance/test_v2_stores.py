"""Conformance: whole v2 stores written by zarr-python and tensorstore (generated here, at
test time), read by zarrhpc node by node and compared with what the writer reads back.

One zarr-python hierarchy holds every dtype family, both orders, both separators, the
compressors and filters, nested groups, attributes and consolidated metadata; one
tensorstore store per numeric case covers its writer. zarrhpc must list the same members
as zarr-python and read every array bit for bit as the writer does.
"""

import itertools

import numcodecs
import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.peers import random_data, same_bits
from zarrhpc.testing.peers_v2 import ts_read_v2, ts_write_v2

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

DTYPES = ["|b1", "|i1", ">u2", "<i4", ">i8", "<f2", ">f4", "<f8", ">c16", "|S4", "<U2",
          ">U1", "|V3", "<M8[us]", ">m8[D]", [("x", "<f4"), ("y", ">i2")]]
COMPRESSORS = [None, numcodecs.Zlib(3), numcodecs.GZip(5), numcodecs.Zstd(2),
               numcodecs.Blosc("zstd", 3, numcodecs.Blosc.BITSHUFFLE), numcodecs.BZ2(2),
               numcodecs.LZ4(1)]


def _data(dtype, shape, seed):
    dt = np.dtype(dtype)
    if dt.kind == "U":
        return np.random.default_rng(seed).choice(np.array(["", "a", "bc"], dtype=dt), shape)
    if dt.kind == "S":
        raw = random_data("u1", shape + (dt.itemsize,), seed) | 1
        raw[..., -1] = 0
        return raw.view(dt).reshape(shape)
    if dt.kind in "Mm":
        return random_data("i8", shape, seed).astype(dt)
    return random_data(dt.newbyteorder("=") if dt.fields is None else dt, shape, seed)


@pytest.fixture(scope="module")
def zarr_python_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("conf") / "zp.zarr"
    root = zarr.create_group(str(path), zarr_format=2, attributes={"title": "conformance"})
    expected = {}
    cases = zip(DTYPES, itertools.cycle(COMPRESSORS), itertools.cycle("CF"),
                itertools.cycle("./"))
    for i, (dtype, comp, order, sep) in enumerate(cases):
        name = f"g{i % 3}/sub/a{i}"
        data = _data(dtype, (5, 6), i)
        a = root.create_array(name, shape=data.shape, chunks=(2, 4), dtype=np.dtype(dtype),
                              compressors=comp, order=order,
                              chunk_key_encoding={"name": "v2", "separator": sep},
                              attributes={"i": i})
        a[:4, :] = data[:4, :]  # the last chunk row stays missing
        expected[name] = a[...]  # what zarr-python itself reads back
    f = root.create_array("filtered", shape=(20,), chunks=(6,), dtype="<f8",
                          filters=[numcodecs.Delta("<f8", "<f4"), numcodecs.Quantize(2, "<f8")],
                          compressors=numcodecs.Blosc())
    f[...] = np.linspace(0, 1, 20)
    expected["filtered"] = f[...]
    zarr.consolidate_metadata(str(path))
    return path, expected


def test_zarr_python_hierarchy(zarr_python_store):
    path, expected = zarr_python_store
    g = zarrhpc.open_group(path, use_consolidated=False)
    z = zarr.open_group(str(path), mode="r", zarr_format=2, use_consolidated=False)
    assert sorted(n for n, _ in g.members(max_depth=None)) == \
        sorted(n for n, _ in z.members(max_depth=None))
    assert g.attrs["title"] == "conformance"
    for name, want in expected.items():
        a = g[name]
        assert a.zarr_format == 2
        got = a[...]
        assert same_bits(got.astype(want.dtype), want), name
        if name != "filtered":
            assert a.attrs["i"] == int(name.rsplit("a", 1)[1])
    # the consolidated view agrees with the listed one
    c = zarrhpc.open_consolidated(path)
    assert [n for n, _ in c.members(max_depth=None)] == [n for n, _ in g.members(max_depth=None)]


@pytest.mark.parametrize("case", range(6))
def test_tensorstore_stores(tmp_path, case):
    dtype = ["|u1", ">i4", "<f4", ">f8", "<c8", "|b1"][case]
    comp = [None, {"id": "zlib", "level": 2}, {"id": "gzip", "level": 9},
            {"id": "zstd", "level": 5},
            {"id": "blosc", "cname": "lz4hc", "clevel": 9, "shuffle": 2, "blocksize": 0},
            {"id": "bz2", "level": 9}][case]
    data = _data(dtype, (9, 4, 3), case)
    ts_write_v2(tmp_path / "t.zarr", data.astype(dtype), (4, 3, 2), compressor=comp,
                order="CF"[case % 2], separator="./"[case // 3], region=np.s_[:8])
    want = ts_read_v2(tmp_path / "t.zarr")
    got = zarrhpc.open_array(tmp_path / "t.zarr")[...]
    assert same_bits(got.astype(want.dtype), want)
