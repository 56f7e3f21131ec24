"""The engine's sharded write (Engine.write_shards): whole shards encoded and written in
one native call on a LocalStore. Checked against numpy and, byte for byte, against the
Python path (same encoders, same inner chunk order), on random geometries and chains."""

import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc import config
from zarrhpc.core import _shard
from zarrhpc.errors import StoreError
from zarrhpc.testing.fork import in_forked_child
from zarrhpc.testing.strategies import basic_selections

from .test_sharded_array import assert_storage_minimal, sharded_geometry

CHAINS = {
    "none": None,
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                  "shuffle": "shuffle", "blocksize": 0}}],
    "zstd": [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    "gzip+crc": [{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}],
}
INDEX_CHAINS = {
    "bytes+crc32c": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
    "bytes": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "big-endian": [{"name": "bytes", "configuration": {"endian": "big"}}],  # Python path
}


def _files(root) -> dict:
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            if name != "zarr.json":
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = f.read()
    return out


def _whole_shards(draw, shape, shards):
    """A selection that covers whole shards (edge shards up to the array's end)."""
    sel = []
    for n, s in zip(shape, shards):
        nshards = -(-n // s)
        lo = draw(st.integers(0, nshards))
        hi = draw(st.integers(lo, nshards))
        sel.append(slice(lo * s, min(hi * s, n)))
    return tuple(sel)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), sharded_geometry(), st.sampled_from(sorted(CHAINS)),
       st.sampled_from(sorted(INDEX_CHAINS)), st.sampled_from(["start", "end"]),
       st.sampled_from([1, 2]), st.booleans())
def test_native_shard_writes_match_numpy_and_the_python_path(
        data, geometry, chain, index_chain, location, threads, write_empty):
    shape, shards, chunks = geometry
    kwargs = {"shape": shape, "dtype": "i4", "chunks": chunks, "fill_value": -7,
              "shards": {"shape": shards, "index_location": location},
              "compressors": CHAINS[chain], "write_empty_chunks": write_empty}
    with tempfile.TemporaryDirectory() as tmp:
        a = zarrhpc.create_array(os.path.join(tmp, "native.zarr"), **kwargs)
        b = zarrhpc.create_array(os.path.join(tmp, "python.zarr"), **kwargs)
        # the same index chain on both, given as the codec's configuration
        for arr in (a, b):
            assert arr._sharding.index_location == location
        if index_chain != "bytes+crc32c":
            a = _with_index_chain(os.path.join(tmp, "native.zarr"), INDEX_CHAINS[index_chain], write_empty)
            b = _with_index_chain(os.path.join(tmp, "python.zarr"), INDEX_CHAINS[index_chain], write_empty)
        b._sharding._inner_engine = None  # the Python codecs for every shard of b
        expected = np.full(shape, -7, dtype="i4")
        rng = np.random.default_rng(0)
        with config.set(threads=threads):
            for _ in range(3):
                if data.draw(st.booleans(), label="whole shards"):
                    sel = _whole_shards(data.draw, shape, shards)
                else:
                    sel = data.draw(basic_selections(shape), label="write")
                value = rng.integers(-5, 5, size=expected[sel].shape).astype("i4")
                if data.draw(st.booleans(), label="zeros"):
                    value[...] = -7
                a[sel] = value
                b[sel] = value
                expected[sel] = value
                assert np.array_equal(a[...], expected)
        assert _files(a.store.root) == _files(b.store.root)
        if not write_empty:
            assert_storage_minimal(a, expected)


def _with_index_chain(path, index_codecs, write_empty):
    """Rewrite the array's metadata with another index chain (no data is stored yet)."""
    import json

    meta_path = os.path.join(path, "zarr.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta["codecs"][0]["configuration"]["index_codecs"] = index_codecs
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    return zarrhpc.open_array(path, mode="r+", write_empty_chunks=write_empty)


def test_whole_shard_writes_never_use_the_python_path(tmp_path, monkeypatch):
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(40, 30), dtype="f4", chunks=(4, 5),
                             shards=(8, 10), compressors=CHAINS["blosc"])

    def no_python(*args, **kwargs):
        raise AssertionError("a wholly covered shard went to the Python path")

    monkeypatch.setattr(_shard, "_write_shard", no_python)
    monkeypatch.setattr(_shard, "_store_shard", no_python)
    data = np.arange(40 * 30, dtype="f4").reshape(40, 30)
    with config.set(threads=2):
        a[...] = data
        a[8:24, 10:30] = -data[8:24, 10:30]
    data[8:24, 10:30] *= -1
    assert np.array_equal(a[...], data)
    # a partly covered shard does go through the Python path
    with pytest.raises(AssertionError, match="Python path"):
        a[1:3, 1:3] = 5


def test_shard_write_failure_names_the_shard_and_keeps_the_others(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(16, 16), dtype="i4", chunks=(4, 4),
                             shards=(8, 8), compressors=CHAINS["zstd"])
    old = np.arange(256, dtype="i4").reshape(16, 16)
    a[...] = old
    # shard c/1/1 becomes a directory holding another key: it cannot be replaced
    key = tmp_path / "a.zarr" / "c" / "1" / "1"
    os.remove(key)
    os.makedirs(key)
    (key / "x").write_bytes(b"other")
    with pytest.raises(StoreError, match=r"c/1/1"):
        a[...] = old + 1
    assert (key / "x").read_bytes() == b"other"
    # no temporary files are left behind
    leftovers = [n for _, _, names in os.walk(tmp_path) for n in names if n.startswith(".zhtmp-")]
    assert leftovers == []


def test_zarr_python_reads_native_shards(tmp_path):
    zarr = pytest.importorskip("zarr")
    data = np.random.default_rng(1).standard_normal((50, 37, 20)).astype("f4")
    for location in ("start", "end"):
        path = tmp_path / f"{location}.zarr"
        a = zarrhpc.create_array(path, shape=data.shape, dtype="f4", chunks=(5, 8, 10),
                                 shards={"shape": (10, 16, 20), "index_location": location},
                                 compressors=CHAINS["blosc"])
        with config.set(threads=2):
            a[...] = data
        assert np.array_equal(zarr.open_array(str(path), mode="r")[...], data)


def _child_write(path, q):
    b = zarrhpc.open_array(path, mode="r+")
    with config.set(threads=2):
        b[...] = np.arange(64 * 64, dtype="f4").reshape(64, 64)
    q.put(bool(np.array_equal(b[...], np.arange(64 * 64, dtype="f4").reshape(64, 64))))


def test_shard_writes_work_in_a_forked_child(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(64, 64), dtype="f4", chunks=(8, 8),
                             shards=(32, 32), compressors=CHAINS["blosc"])
    with config.set(threads=2):
        a[...] = 1  # the parent's pool threads and shard arenas exist before the fork
    assert in_forked_child(_child_write, str(tmp_path / "a.zarr")) is True
