"""Sharding interop both ways with zarr-python and tensorstore: index at start and end, with
and without crc32c, compressed inner chunks, edge shards that overhang the array, missing
inner chunks and shards, nested sharding."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.peers import (
    same_bits,
    sharding_entry,
    ts_read,
    ts_write_sharded,
    zarr_read,
    zarr_write_sharded,
)

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

SHAPE, SHARDS, CHUNKS = (13, 11), (6, 4), (3, 2)  # edge shards overhang on both axes
FILL = -2.5
LITTLE = {"name": "bytes", "configuration": {"endian": "little"}}
INNER = {
    "bytes": [LITTLE],
    "blosc": [LITTLE, {"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}],
    "zstd-crc": [LITTLE, {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
                 {"name": "crc32c"}],
    "transpose-big": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                      {"name": "bytes", "configuration": {"endian": "big"}}],
}
INDEX = {"crc32c": [LITTLE, {"name": "crc32c"}], "plain": [LITTLE]}
REGION = (slice(1, 12), slice(0, 7))  # outside it: missing shards and inner chunks


def expected_data(seed):
    x = np.random.default_rng(seed).standard_normal(SHAPE)
    x[0:3, 2:4] = FILL  # an inner chunk equal to the fill value: left out
    full = np.full(SHAPE, FILL)
    full[REGION] = x[REGION]
    return x, full


def entry(inner, index, location):
    return sharding_entry(CHUNKS, INNER[inner], INDEX[index], location)


def zh_write(path, data, sharding):
    a = zarrhpc.create_array(path, shape=data.shape, dtype=data.dtype, chunks=SHARDS,
                             serializer=sharding, compressors=None, fill_value=FILL,
                             overwrite=True)
    assert a.shards == SHARDS and a.chunks == CHUNKS
    a[REGION] = data[REGION]
    return a


def check_zarrhpc_reads(path, full):
    a = zarrhpc.open_array(path)
    assert a.shards == SHARDS and a.chunks == CHUNKS
    assert same_bits(a[...], full)
    assert same_bits(a[2:12:3, ::-2], full[2:12:3, ::-2])
    for point in [(0, 0), (12, 10), (5, 6), (1, 2), (7, 3)]:
        assert same_bits(np.asarray(a[point]), np.asarray(full[point]))


@pytest.mark.parametrize("location", ["start", "end"])
@pytest.mark.parametrize("index", sorted(INDEX))
@pytest.mark.parametrize("inner", sorted(INNER))
def test_zarrhpc_writes_peers_read(tmp_path, inner, index, location):
    x, full = expected_data(1)
    zh_write(tmp_path / "a.zarr", x, entry(inner, index, location))
    assert same_bits(zarr_read(tmp_path / "a.zarr"), full)
    assert same_bits(ts_read(tmp_path / "a.zarr"), full)


@pytest.mark.parametrize("location", ["start", "end"])
@pytest.mark.parametrize("index", sorted(INDEX))
@pytest.mark.parametrize("inner", sorted(INNER))
def test_peers_write_zarrhpc_reads(tmp_path, inner, index, location):
    x, full = expected_data(2)
    sharding = entry(inner, index, location)
    zarr_write_sharded(tmp_path / "z.zarr", x, SHARDS, sharding, FILL, REGION)
    ts_write_sharded(tmp_path / "t.zarr", x, SHARDS, sharding, FILL, REGION)
    for where in ("z.zarr", "t.zarr"):
        check_zarrhpc_reads(tmp_path / where, full)


def test_zarrhpc_updates_a_peer_shard(tmp_path):
    x, full = expected_data(3)
    sharding = entry("blosc", "crc32c", "end")
    zarr_write_sharded(tmp_path / "z.zarr", x, SHARDS, sharding, FILL, REGION)
    a = zarrhpc.open_array(tmp_path / "z.zarr", mode="r+")
    a[4:5, 1:3] = 7.0
    full[4:5, 1:3] = 7.0
    assert same_bits(zarr_read(tmp_path / "z.zarr"), full)
    assert same_bits(ts_read(tmp_path / "z.zarr"), full)


NESTED = sharding_entry((6, 4), [sharding_entry(CHUNKS, INNER["zstd-crc"], INDEX["plain"],
                                                "start")], INDEX["crc32c"], "end")


def test_nested_sharding_both_ways_with_zarr_python(tmp_path):
    x, full = expected_data(4)
    shards = (12, 8)
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=SHAPE, dtype="f8", chunks=shards,
                             serializer=NESTED, compressors=None, fill_value=FILL)
    a[REGION] = x[REGION]
    assert same_bits(zarr_read(tmp_path / "a.zarr"), full)
    zarr_write_sharded(tmp_path / "z.zarr", x, shards, NESTED, FILL, REGION)
    b = zarrhpc.open_array(tmp_path / "z.zarr")
    assert same_bits(b[...], full) and b.shards == shards and b.chunks == (6, 4)
    assert same_bits(np.asarray(b[7, 5]), np.asarray(full[7, 5]))


def test_nested_sharding_both_ways_with_tensorstore(tmp_path):
    x, full = expected_data(5)
    shards = (12, 8)
    try:
        ts_write_sharded(tmp_path / "t.zarr", x, shards, NESTED, FILL, REGION)
    except ValueError as exc:  # pragma: no cover - depends on the tensorstore build
        pytest.skip(f"tensorstore does not write nested sharding: {exc}")
    assert same_bits(zarrhpc.open_array(tmp_path / "t.zarr")[...], full)
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=SHAPE, dtype="f8", chunks=shards,
                             serializer=NESTED, compressors=None, fill_value=FILL)
    a[REGION] = x[REGION]
    assert same_bits(ts_read(tmp_path / "a.zarr"), full)
