"""The engine's selection writes into shards (Engine.write_shard_points,
csrc/zh_shard_sel.c, reached through core/_select.write_points; masks and orthogonal
selections arrive as points): random geometries (edge shards, 1-D to 3-D), dtypes and
byte orders, inner chains, index at the start or the end, with or without its crc32c,
points / masks / orthogonal selections, scalars and arrays, repeated points,
write_empty_chunks both ways, against numpy, against the Python path file for file,
and zarr-python reading the result; shards left empty erased, no temporary files; a
corrupt shard refused with its key; shards handed back written by the Python path."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc import config
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core import _select
from zarrhpc.errors import CorruptChunkError

CHAINS = {
    "none": None,
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                  "shuffle": "shuffle"}}],
    "zstd": [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    "gzip+crc": [{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}],
}
INDEX_CHAINS = {
    "bytes+crc32c": [{"name": "bytes", "configuration": {"endian": "little"}},
                     {"name": "crc32c"}],
    "bytes": [{"name": "bytes", "configuration": {"endian": "little"}}],
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


def _make(path, shape, chunks, shards, dtype, chain, location, index_chain, wec, fill):
    a = zarrhpc.create_array(path, shape=shape, dtype=dtype, chunks=chunks,
                             shards={"shape": shards, "index_location": location},
                             compressors=CHAINS[chain], fill_value=fill, overwrite=True)
    meta_path = os.path.join(path, "zarr.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta["codecs"][0]["configuration"]["index_codecs"] = INDEX_CHAINS[index_chain]
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    del a
    return zarrhpc.open_array(path, mode="r+", write_empty_chunks=wec)


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    chunks = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    shards = tuple(c * draw(st.integers(1, 3)) for c in chunks)
    shape = tuple(draw(st.integers(1, 3 * s + 2)) for s in shards)
    return dict(
        shape=shape, chunks=chunks, shards=shards,
        dtype=np.dtype(draw(st.sampled_from(["<f4", ">f8", "u1", ">i4"]))),
        chain=draw(st.sampled_from(sorted(CHAINS))),
        location=draw(st.sampled_from(["start", "end"])),
        index_chain=draw(st.sampled_from(sorted(INDEX_CHAINS))),
        wec=draw(st.booleans()),
        kind=draw(st.sampled_from(["points", "mask", "ortho"])),
        scalar=draw(st.booleans()),
        stored=draw(st.sampled_from([0.0, 0.5, 1.0])),  # part of the array stored first
        seed=draw(st.integers(0, 2**32 - 1)),
    )


def _selection(rng, kind, shape):
    """(zarrhpc selection, numpy index, number of elements)."""
    if kind == "points":  # unsorted, repeated (the last value wins)
        n = int(rng.integers(0, 3 * max(shape) + 1))
        idx = tuple(rng.integers(0, s, n) for s in shape)
        return idx, idx, n
    if kind == "mask":
        mask = rng.random(shape) < rng.choice([0.05, 0.3, 1.0])
        return mask, mask, int(mask.sum())
    lists = tuple(rng.integers(0, s, int(rng.integers(1, s + 2))) for s in shape)
    return lists, np.ix_(*lists), int(np.prod([len(x) for x in lists]))


def _write(a, kind, sel, value):
    if kind == "ortho":
        a.oindex[sel] = value
    else:
        a.vindex[sel] = value


def _run(path, case, rng_seed):
    """Make the array, store part of it, write the selection; returns the numpy
    reference and the selection made."""
    c = case
    rng = np.random.default_rng(rng_seed)
    fill = c["dtype"].type(3)
    a = _make(path, c["shape"], c["chunks"], c["shards"], c["dtype"], c["chain"],
              c["location"], c["index_chain"], c["wec"], fill)
    ref = np.full(c["shape"], fill, dtype=c["dtype"])
    data = (rng.standard_normal(c["shape"]) * 50).astype(c["dtype"])
    data[..., ::3] = fill  # some inner chunks may come back all fill
    cut = int(round(c["shape"][0] * c["stored"]))
    if cut:
        a[:cut] = ref[:cut] = data[:cut]
    sel, npsel, n = _selection(rng, c["kind"], c["shape"])
    if c["scalar"]:
        value = fill if rng_seed % 2 else c["dtype"].type(7)
    else:
        value = (rng.standard_normal(ref[npsel].shape) * 9).astype(c["dtype"])
    return a, ref, sel, npsel, value


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(case=cases())
def test_sharded_selection_write_matches_numpy_and_python(tmp_path, python_writes,
                                                          monkeypatch, case):
    c = case
    path = str(tmp_path / f"a{c['seed']}")
    a, ref, sel, npsel, value = _run(path, c, c["seed"])
    del python_writes[:]
    _write(a, c["kind"], sel, value)
    ref[npsel] = value
    assert python_writes == []  # the engine wrote every shard
    np.testing.assert_array_equal(a[...], ref)
    files = _files(path)
    assert not [f for f in files if ".tmp" in f or "zarrhpc" in os.path.basename(f)]
    # the Python path (engine off) leaves the same shards, byte for byte
    with monkeypatch.context() as m:
        m.setattr(_select, "_shard_native", lambda prep: False)
        py_path = str(tmp_path / f"p{c['seed']}")
        b, ref_b, sel_b, npsel_b, value_b = _run(py_path, c, c["seed"])
        _write(b, c["kind"], sel_b, value_b)
    np.testing.assert_array_equal(b[...], ref)
    assert sorted(files) == sorted(_files(py_path))
    for key, raw in files.items():  # same inner chunks (their order in a shard may differ)
        got = zarrhpc.open_array(path, mode="r")
        want = zarrhpc.open_array(py_path, mode="r")
        index = got._prep.sharding.read_index(memoryview(raw), key).reshape(-1, 2)
        with open(os.path.join(py_path, key), "rb") as f:
            other = f.read()
        index_b = want._prep.sharding.read_index(memoryview(other), key).reshape(-1, 2)
        for (o1, n1), (o2, n2) in zip(index.tolist(), index_b.tolist()):
            assert (n1 == 2**64 - 1) == (n2 == 2**64 - 1), key
            if n1 != 2**64 - 1:
                assert raw[o1:o1 + n1] == other[o2:o2 + n2], key


def test_zarr_python_reads_what_was_written(tmp_path):
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "z")
    a = zarrhpc.create_array(path, shape=(50, 70), chunks=(8, 10), shards=(16, 30),
                             dtype="<f8", compressors=CHAINS["blosc"], fill_value=0)
    ref = np.zeros((50, 70))
    rng = np.random.default_rng(1)
    a[:20] = ref[:20] = rng.random((20, 70))
    rows, cols = np.array([[1, 2, 49], [30, 30, 0]]), np.array([[0, 69, 5], [7, 7, 68]])
    v = np.arange(6, dtype="<f8").reshape(2, 3) + 1
    a.vindex[rows, cols] = v
    ref[rows, cols] = v
    mask = np.zeros((50, 70), bool)
    mask[::7, ::3] = True
    a.vindex[mask] = -2.5
    ref[mask] = -2.5
    a.oindex[[3, 40, 3], [69, 0]] = np.array([[1.0, 2], [3, 4], [5, 6]])
    ref[np.ix_([3, 40, 3], [69, 0])] = [[1.0, 2], [3, 4], [5, 6]]
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], ref)
    # back to the fill value everywhere: every shard erased
    a.vindex[np.ones((50, 70), bool)] = 0.0
    assert _files(path) == {}


def test_corrupt_shard_is_refused_with_its_key(tmp_path):
    path = str(tmp_path / "c")
    a = zarrhpc.create_array(path, shape=(32, 32), chunks=(8, 8), shards=(16, 16),
                             dtype="<f4", compressors=CHAINS["blosc"], fill_value=0)
    a[...] = 1.0
    shard = os.path.join(path, "c", "0", "0")
    with open(shard, "r+b") as f:  # the index's crc32c no longer matches
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 0xFF]))
    with open(shard, "rb") as f:
        before = f.read()
    with pytest.raises(CorruptChunkError, match="c/0/0"):
        a.vindex[[1, 20], [1, 20]] = 5.0
    with open(shard, "rb") as f:
        assert f.read() == before  # nothing written over it
    with pytest.raises(CorruptChunkError, match="c/0/0"):
        a.oindex[[1, 2], [3]] = 5.0


def test_shards_handed_back_are_written_by_python(tmp_path, monkeypatch):
    """A shard the engine hands back (FALLBACK) is rebuilt by the Python path, and only
    its inner chunks go there."""
    path = str(tmp_path / "h")
    a = zarrhpc.create_array(path, shape=(30, 40), chunks=(5, 8), shards=(10, 16),
                             dtype="<f4", compressors=CHAINS["zstd"], fill_value=0)
    rng = np.random.default_rng(7)
    data = rng.random((30, 40), dtype=np.float32)
    a[...] = ref = data.copy()
    real = _select._native_shard_points
    handed = []

    def hands_back(prep, proj, values):
        shards = proj.chunk_coords // np.asarray(prep.sharding.grid_shape)
        status = real(prep, proj, values)
        back = (shards[:, 0] + shards[:, 1]) % 2 == 1  # these shards: put their bytes back
        handed.extend(map(tuple, proj.chunk_coords[back]))
        b = zarrhpc.open_array(path, mode="r+")
        for sc in {tuple(s) for s in shards[back]}:
            region = (slice(sc[0] * 10, sc[0] * 10 + 10), slice(sc[1] * 16, sc[1] * 16 + 16))
            b[region] = data[region]
        status[back] = FALLBACK
        return status

    monkeypatch.setattr(_select, "_native_shard_points", hands_back)
    seen = []
    real_update = _select._update_chunks
    monkeypatch.setattr(_select, "_update_chunks",
                        lambda prep, coords, apply: (seen.extend(map(tuple, coords)),
                                                     real_update(prep, coords, apply)))
    idx = (rng.integers(0, 30, 300), rng.integers(0, 40, 300))
    v = rng.random(300, dtype=np.float32)
    a.vindex[idx] = v
    ref[idx] = v
    np.testing.assert_array_equal(a[...], ref)
    assert handed and sorted(seen) == sorted(handed)


def test_shard_lock_keeps_the_python_path(tmp_path, python_writes):
    path = str(tmp_path / "l")
    a = zarrhpc.create_array(path, shape=(20, 20), chunks=(5, 5), shards=(10, 10),
                             dtype="u1", compressors=None, fill_value=0)
    with config.set(shard_lock=True):
        a.vindex[[1, 15], [2, 19]] = 9
    assert python_writes
    assert a[1, 2] == 9 and a[15, 19] == 9


def test_edge_inner_chunks_keep_what_lies_past_the_edge(tmp_path):
    """An inner chunk cut by the array's edge keeps its stored elements past it (as
    zarr-python merges it): a larger handle wrote them, the smaller one writes points."""
    path = str(tmp_path / "e")
    big = zarrhpc.create_array(path, shape=(24, 24), chunks=(8, 8), shards=(16, 16),
                               dtype="<i4", compressors=CHAINS["zstd"], fill_value=0)
    data = np.arange(24 * 24, dtype="<i4").reshape(24, 24) + 1
    big[...] = data
    big.resize((20, 20))
    small = zarrhpc.open_array(path, mode="r+")
    small.vindex[[19, 0], [19, 0]] = -1
    ref = data.copy()
    ref[19, 19] = ref[0, 0] = -1
    np.testing.assert_array_equal(small[...], ref[:20, :20])
    small.resize((24, 24))
    grown = zarrhpc.open_array(path, mode="r")
    # inner chunk (2, 2) (rows and columns 16..24) was touched: its part past 20 kept
    np.testing.assert_array_equal(grown[16:20, 16:20], ref[16:20, 16:20])
    np.testing.assert_array_equal(grown[20:24, 16:20], ref[20:24, 16:20])


def test_engine_refuses_bad_shard_members(tmp_path):
    path = str(tmp_path / "b")
    a = zarrhpc.create_array(path, shape=(16, 16), chunks=(4, 4), shards=(8, 8),
                             dtype="<f4", compressors=None, fill_value=0)
    prep = a._prep
    engine = prep.sharding.inner_engine
    prefix, root_len, kind, sep = prep.native_target()
    args = (np.zeros(1, "<f4"), [[0, 0]], [0, 1], [[0, 0]], [0], prep.shape)
    kw = dict(index_start=False, index_crc=True, path_prefix=prefix, root_len=root_len)
    for shards, words in [(([[0, 0]], [0, 1], [0], [16], 4), "outside its shard"),
                          (([[0, 0]], [0, 2], [0, 0], [0, 1], 4), "out of range"),
                          (([[0, 0]], [0, 1], [5], [0], 4), "outside its shard")]:
        status, task, code, msg = engine.write_shard_points(*args, shards, **kw)
        assert code and words in msg, msg
    with pytest.raises(ValueError, match="chunks_per_shard"):
        engine.write_shard_points(*args, ([[0, 0]], [0, 1], [0], [0], 0), **kw)
    assert _files(path) == {}
