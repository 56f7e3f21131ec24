"""Zarr v3 interop both ways: every core data type x every codec chain, with zarr-python
and tensorstore; missing chunks and edge chunks; groups and attributes."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.peers import (
    CHAINS,
    CORE_DTYPES,
    chain,
    random_data,
    same_bits,
    split_chain,
    ts_read,
    ts_write,
    zarr_read,
    zarr_write,
)

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

SHAPE, CHUNKS = (7, 5), (3, 4)  # edge chunks overhang on both axes


def fill_for(dtype):
    return {"b": True, "c": 1.5 - 2j, "f": -3.25}.get(np.dtype(dtype).kind, 7)


def zh_write(path, data, codecs, fill_value, region=Ellipsis):
    a = zarrhpc.create_array(path, shape=data.shape, chunks=CHUNKS, dtype=data.dtype,
                             fill_value=fill_value, overwrite=True, **split_chain(codecs))
    a[region] = data[region]
    return a


@pytest.mark.parametrize("codec", CHAINS)
@pytest.mark.parametrize("dtype", CORE_DTYPES)
def test_zarrhpc_writes_peers_read(tmp_path, dtype, codec):
    data = random_data(dtype, SHAPE, seed=1)
    codecs = chain(codec, dtype)
    zh_write(tmp_path / "a.zarr", data, codecs, fill_for(dtype))
    assert same_bits(zarr_read(tmp_path / "a.zarr"), data)
    assert same_bits(ts_read(tmp_path / "a.zarr"), data)


@pytest.mark.parametrize("codec", CHAINS)
@pytest.mark.parametrize("dtype", CORE_DTYPES)
def test_peers_write_zarrhpc_reads(tmp_path, dtype, codec):
    data = random_data(dtype, SHAPE, seed=2)
    codecs = chain(codec, dtype)
    zarr_write(tmp_path / "z.zarr", data, CHUNKS, codecs, fill_for(dtype))
    ts_write(tmp_path / "t.zarr", data, CHUNKS, codecs, fill_for(dtype))
    for where in ("z.zarr", "t.zarr"):
        a = zarrhpc.open_array(tmp_path / where)
        assert same_bits(a[...], data), where
        # a strided, reversed sub-selection decodes the same as numpy's
        assert same_bits(a[5:0:-2, 1::3], data[5:0:-2, 1::3]), where


@pytest.mark.parametrize("dtype", CORE_DTYPES)
def test_missing_chunks_both_ways(tmp_path, dtype):
    data = random_data(dtype, SHAPE, seed=3)
    codecs = chain("zstd", dtype)
    fill = fill_for(dtype)
    region = (slice(0, 3), slice(0, 4))  # only chunk (0, 0) is written
    expected = np.full(SHAPE, fill, dtype=dtype)
    expected[region] = data[region]
    zh_write(tmp_path / "a.zarr", data, codecs, fill, region)
    assert sorted(p.name for p in (tmp_path / "a.zarr" / "c").rglob("*") if p.is_file()) == ["0"]
    assert same_bits(zarr_read(tmp_path / "a.zarr"), expected)
    assert same_bits(ts_read(tmp_path / "a.zarr"), expected)
    ts_write(tmp_path / "t.zarr", data, CHUNKS, codecs, fill, region)
    zarr_write(tmp_path / "z.zarr", data, CHUNKS, codecs, fill, region)
    assert same_bits(zarrhpc.open_array(tmp_path / "t.zarr")[...], expected)
    assert same_bits(zarrhpc.open_array(tmp_path / "z.zarr")[...], expected)


@pytest.mark.parametrize("fill", [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300])
def test_float_fill_values_both_ways(tmp_path, fill):
    data = np.zeros((4,), "f8")
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(4,), chunks=(2,), dtype="f8",
                             fill_value=fill)
    z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
    assert same_bits(np.asarray(z.fill_value, "f8"), np.asarray(fill, "f8"))
    assert same_bits(z[...], np.full(4, fill))
    zarr.create_array(str(tmp_path / "z.zarr"), shape=(4,), chunks=(2,), dtype="f8",
                      fill_value=fill)
    b = zarrhpc.open_array(tmp_path / "z.zarr")
    assert same_bits(np.asarray(b.fill_value), np.asarray(fill, "f8"))
    assert same_bits(b[...], np.full(4, fill))
    del a, data


def test_peer_metadata_reserialises_identically(tmp_path):
    """zarrhpc's zarr.json for an array equals what zarr-python writes for the same array."""
    for dtype in ["float32", "complex64", "bool", "uint16"]:
        codecs = chain("blosc", dtype)
        zarr_write(tmp_path / "z.zarr", random_data(dtype, SHAPE), CHUNKS, codecs, fill_for(dtype))
        zh_write(tmp_path / "h.zarr", random_data(dtype, SHAPE), codecs, fill_for(dtype))
        ours = json.loads((tmp_path / "h.zarr" / "zarr.json").read_text())
        theirs = json.loads((tmp_path / "z.zarr" / "zarr.json").read_text())
        assert ours == theirs, dtype


def test_groups_and_attributes_both_ways(tmp_path):
    root = zarrhpc.create_group(tmp_path / "h.zarr", attributes={"title": "zarrhpc", "n": [1, 2]})
    sub = root.create_group("sim", attributes={"step": 10})
    arr = sub.create_array("t", shape=(4, 4), chunks=(2, 2), dtype="f4",
                           attributes={"units": "K"}, dimension_names=("y", "x"))
    arr[...] = np.arange(16, dtype="f4").reshape(4, 4)
    g = zarr.open_group(str(tmp_path / "h.zarr"), mode="r")
    assert dict(g.attrs) == {"title": "zarrhpc", "n": [1, 2]}
    assert dict(g["sim"].attrs) == {"step": 10}
    assert dict(g["sim/t"].attrs) == {"units": "K"}
    assert g["sim/t"].metadata.dimension_names == ("y", "x")
    np.testing.assert_array_equal(g["sim/t"][...], np.arange(16, dtype="f4").reshape(4, 4))
    assert sorted(k for k, _ in g.members(max_depth=None)) == ["sim", "sim/t"]

    zg = zarr.create_group(str(tmp_path / "z.zarr"), attributes={"a": {"nested": True}})
    zs = zg.create_group("x/y")
    zs.attrs["k"] = "v"
    za = zs.create_array("arr", shape=(3,), chunks=(2,), dtype="i8")
    za[...] = [5, 6, 7]
    ours = zarrhpc.open_group(tmp_path / "z.zarr")
    assert dict(ours.attrs) == {"a": {"nested": True}}
    assert dict(ours["x/y"].attrs) == {"k": "v"}
    assert [n for n, _ in ours.members(max_depth=None)] == ["x", "x/y", "x/y/arr"]
    assert list(ours["x/y/arr"][...]) == [5, 6, 7]


def test_chunk_key_encodings_both_ways(tmp_path):
    data = np.arange(30, dtype="i2").reshape(5, 6)
    for enc in [{"name": "default", "configuration": {"separator": "."}},
                {"name": "v2", "configuration": {"separator": "."}},
                {"name": "v2", "configuration": {"separator": "/"}}]:
        a = zarrhpc.create_array(tmp_path / "h.zarr", shape=data.shape, chunks=(2, 4), dtype="i2",
                                 chunk_key_encoding=enc, overwrite=True)
        a[...] = data
        np.testing.assert_array_equal(zarr_read(tmp_path / "h.zarr"), data)
        np.testing.assert_array_equal(ts_read(tmp_path / "h.zarr"), data)
        z = zarr.create_array(str(tmp_path / "z.zarr"), shape=data.shape, chunks=(2, 4),
                              dtype="i2", chunk_key_encoding=enc, overwrite=True)
        z[...] = data
        np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "z.zarr")[...], data)
