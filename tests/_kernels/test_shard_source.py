"""The engine's native shard source: point and orthogonal reads of sharded arrays on a
LocalStore, the inner chunks read by the engine from byte ranges of the shard files.

Against numpy (hypothesis: shapes, shard and inner chunk shapes, codecs, missing inner
chunks and shards), and against corrupt shard indexes (entries beyond the file,
overlapping, overflowing, half empty, a shard truncated after its index was read): a
CorruptChunkError naming the shard key, never wrong data or a crash.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc._kernels.engine import crc32c
from zarrhpc.core import _select, _shard
from zarrhpc.errors import CorruptChunkError
from zarrhpc.storage import LocalStore

CODECS = {"none": None, "blosc": {"name": "blosc", "configuration": {
    "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}},
    "zstd": {"name": "zstd", "configuration": {"level": 1}}}


@st.composite
def sharded_case(draw):
    ndim = draw(st.integers(1, 3))
    inner = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    ratio = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    shards = tuple(i * r for i, r in zip(inner, ratio))
    shape = tuple(draw(st.integers(1, 3 * s)) for s in shards)
    return shape, shards, inner, draw(st.sampled_from(sorted(CODECS))), draw(
        st.integers(0, 2**32 - 1))


def _make(tmp_path, shape, shards, inner, codec, seed, holes=True):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape).astype(np.float32)
    comp = CODECS[codec]
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=shape, dtype="f4",
                             chunks=inner, shards=shards, fill_value=-1.0,
                             compressors=[comp] if comp else None, overwrite=True)
    if holes:  # some inner chunks (and maybe whole shards) stay unwritten: fill value
        keep = rng.random(shape) < 0.6
        data = np.where(keep, data, np.float32(-1.0))
    a[...] = data
    return a, data, rng


@settings(max_examples=60, deadline=None)
@given(case=sharded_case())
def test_sharded_selections_match_numpy(tmp_path_factory, case):
    shape, shards, inner, codec, seed = case
    a, data, rng = _make(tmp_path_factory.mktemp("s"), shape, shards, inner, codec, seed)
    a = zarrhpc.open_array(a.store, mode="r")
    n = int(rng.integers(1, 40))
    coords = tuple(rng.integers(0, s, n) for s in shape)
    np.testing.assert_array_equal(a.vindex[coords], data[coords])
    idx = tuple(rng.choice(s, int(rng.integers(1, s + 1)), replace=False) for s in shape)
    np.testing.assert_array_equal(a.oindex[idx], data[np.ix_(*idx)])
    mask = rng.random(shape) < 0.2
    np.testing.assert_array_equal(a.vindex[mask], data[mask])


def test_engine_gets_ranges_not_bytes(tmp_path, monkeypatch):
    """On a LocalStore the inner chunks reach the engine as ranges of the shard files."""
    a, data, _ = _make(tmp_path, (16, 16), (8, 8), (4, 4), "blosc", 1, holes=False)
    seen = []
    real = _select._InnerRanges

    def spy(prep, coords):
        where = real(prep, coords)
        seen.append(len(where.length))
        return where

    monkeypatch.setattr(_select, "_InnerRanges", spy)
    monkeypatch.setattr(_select, "fetch_chunks", None)  # no Python reads of inner chunks
    coords = (np.array([0, 5, 15, 9]), np.array([1, 14, 15, 3]))
    np.testing.assert_array_equal(a.vindex[coords], data[coords])
    np.testing.assert_array_equal(a.oindex[[0, 9], [3, 15]], data[np.ix_([0, 9], [3, 15])])
    assert seen == [4, 4]


def _rewrite_index(path, nper, change):
    """Apply ``change(index (nper, 2) uint64)`` to a shard's end index, crc kept valid."""
    with open(path, "rb") as f:
        raw = f.read()
    n = nper * 16
    index = np.frombuffer(raw[-n - 4:-4], "<u8").reshape(nper, 2).copy()
    change(index, len(raw))
    body = index.astype("<u8").tobytes()
    with open(path, "wb") as f:
        f.write(raw[:-n - 4] + body + crc32c(body).to_bytes(4, "little"))


def _beyond(index, size):
    index[1] = (size + 10, 8)


def _overlap(index, size):
    index[1] = index[0]


def _overflow(index, size):
    index[1] = (2**64 - 2, 16)


def _half_empty(index, size):
    index[1, 0] = 2**64 - 1


@pytest.mark.parametrize("change", [_beyond, _overlap, _overflow, _half_empty])
@pytest.mark.parametrize("kind", ["vindex", "oindex", "mask"])
def test_corrupt_index_names_the_shard(tmp_path, change, kind):
    a, data, _ = _make(tmp_path, (8, 8), (4, 4), (2, 2), "blosc", 3, holes=False)
    _rewrite_index(os.path.join(str(tmp_path), "c", "0", "1"), 4, change)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    with pytest.raises(CorruptChunkError, match=r"c/0/1"):
        if kind == "vindex":
            a.vindex[np.array([0, 1]), np.array([6, 7])]
        elif kind == "oindex":
            a.oindex[[0, 1], [6, 7]]
        else:
            mask = np.zeros((8, 8), bool)
            mask[1, 6] = True
            a.vindex[mask]
    # the shards left alone still read
    np.testing.assert_array_equal(a.vindex[np.array([0, 7]), np.array([0, 3])],
                                  data[[0, 7], [0, 3]])


def test_shard_truncated_after_its_index_was_read(tmp_path, monkeypatch):
    """A shard truncated in place after its index was read: the engine checks every
    range against the file as it is when it reads, and the read, seeing the file
    changed, reads the index again and refuses the truncated shard (either error names
    the shard)."""
    a, _, _ = _make(tmp_path, (8, 8), (8, 8), (2, 2), "none", 4, holes=False)
    shard = os.path.join(str(tmp_path), "c", "0", "0")
    real = _select._InnerRanges

    def then_truncate(prep, coords):
        where = real(prep, coords)
        os.truncate(shard, 100)
        return where

    monkeypatch.setattr(_select, "_InnerRanges", then_truncate)
    with pytest.raises(CorruptChunkError,
                       match=r"c/0/0: (inner chunk \(3, 3\).*beyond|shard index.*truncated)"):
        a.vindex[np.array([7]), np.array([7])]


def test_engine_refuses_ranges_beyond_the_file(tmp_path):
    """The kernel itself, given ranges no index check has seen."""
    a, _, _ = _make(tmp_path, (4, 4), (4, 4), (2, 2), "none", 5, holes=False)
    engine = a._prep.sharding.inner_engine
    prep = a._prep
    prefix, root_len, kind, sep = prep.native_target()
    size = os.path.getsize(os.path.join(str(tmp_path), "c", "0", "0"))
    out = np.zeros(1, np.float32)
    for off, length in [(size - 8, 16), (size + 1, 0), (2**62, 2**62), (-4, 16)]:
        status, err_task, code, msg = engine.read_points(
            out, np.array([[0, 0]]), np.array([0, 1]), np.array([[0, 0]]), np.array([0]),
            path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep,
            ranges=(np.array([[0, 0]]), np.array([0]), np.array([off]), np.array([length])),
            nthreads=1)
        assert code == 5 and err_task == 0 and "beyond the shard" in msg, (off, length, msg)
    with pytest.raises(ValueError, match="file out of range"):
        engine.read_points(out, np.array([[0, 0]]), np.array([0, 1]), np.array([[0, 0]]),
                           np.array([0]), path_prefix=prefix, root_len=root_len,
                           key_kind=kind, sep=sep,
                           ranges=(np.array([[0, 0]]), np.array([1]), np.array([0]),
                                   np.array([16])))


@pytest.mark.parametrize("codec", ["none", "blosc"])
def test_sparse_reads_inside_large_inner_chunks(tmp_path, codec):
    """Inner chunks large enough for the sparse paths (byte runs of an uncompressed chunk,
    a few blosc blocks), at non-zero offsets in the shard: the ranges are relative."""
    a, data, rng = _make(tmp_path, (64, 64, 128), (64, 64, 128), (64, 64, 32), codec, 6,
                         holes=False)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    for _ in range(3):
        coords = tuple(rng.integers(0, s, 5) for s in data.shape)
        np.testing.assert_array_equal(a.vindex[coords], data[coords])
    idx = ([0, 1], [5, 6], [33, 70, 127])
    np.testing.assert_array_equal(a.oindex[idx], data[np.ix_(*idx)])


# ---------------------------------------------------------------- basic (slice) reads


@st.composite
def basic_case(draw):
    shape, shards, inner, codec, seed = draw(sharded_case())
    sel = []
    for n in shape:
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a + 1, n))
        sel.append(draw(st.sampled_from([slice(a, b), a, slice(a, b, 2)])))
    return shape, shards, inner, codec, seed, tuple(sel)


@settings(max_examples=60, deadline=None)
@given(case=basic_case())
def test_sharded_slices_match_numpy(tmp_path_factory, case):
    """Basic reads of sharded arrays on a LocalStore: the engine reads the inner chunks'
    ranges of the shard files itself (core/_shard.py _read_native)."""
    shape, shards, inner, codec, seed, sel = case
    a, data, _ = _make(tmp_path_factory.mktemp("s"), shape, shards, inner, codec, seed)
    a = zarrhpc.open_array(a.store, mode="r")
    np.testing.assert_array_equal(a[sel], data[sel])
    np.testing.assert_array_equal(a[...], data)


def test_slices_get_ranges_not_bytes(tmp_path, monkeypatch):
    """No Python read of inner chunks or whole shards on a LocalStore: ranges only."""
    a, data, _ = _make(tmp_path, (32, 32), (16, 16), (4, 4), "blosc", 7)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    monkeypatch.setattr(_shard, "_shard_sources", None)
    monkeypatch.setattr(type(a.store), "get_values", None)
    np.testing.assert_array_equal(a[3:29, 1:30], data[3:29, 1:30])
    np.testing.assert_array_equal(a[...], data)


@pytest.mark.parametrize("change", [_beyond, _overlap, _overflow, _half_empty])
def test_corrupt_index_names_the_shard_in_slices(tmp_path, change):
    a, data, _ = _make(tmp_path, (8, 8), (4, 4), (2, 2), "blosc", 3, holes=False)
    _rewrite_index(os.path.join(str(tmp_path), "c", "0", "1"), 4, change)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    with pytest.raises(CorruptChunkError, match=r"c/0/1"):
        a[0:2, 4:8]
    np.testing.assert_array_equal(a[0:4, 0:4], data[0:4, 0:4])


def test_shard_truncated_after_its_index_was_read_in_slices(tmp_path, monkeypatch):
    a, _, _ = _make(tmp_path, (8, 8), (8, 8), (2, 2), "none", 4, holes=False)
    shard = os.path.join(str(tmp_path), "c", "0", "0")
    real = _shard._InnerRanges

    def then_truncate(prep, coords):
        where = real(prep, coords)
        os.truncate(shard, 100)
        return where

    monkeypatch.setattr(_shard, "_InnerRanges", then_truncate)
    with pytest.raises(CorruptChunkError,
                       match=r"c/0/0: (inner chunk \(3, 3\).*beyond|shard index.*truncated)"):
        a[6:8, 6:8]


def test_an_inner_chunk_the_engine_cannot_decode_goes_to_python(tmp_path):
    """A damaged inner chunk comes back from the engine for the Python codecs, which read
    its range again and name it."""
    a, data, _ = _make(tmp_path, (8, 8), (8, 8), (4, 4), "zstd", 8, holes=False)
    shard = os.path.join(str(tmp_path), "c", "0", "0")
    with open(shard, "rb") as f:
        raw = bytearray(f.read())
    index = np.frombuffer(bytes(raw[-4 * 16 - 4:-4]), "<u8").reshape(4, 2)
    off, length = (int(x) for x in index[3])
    raw[off + 4: off + length] = b"\xff" * (length - 4)  # inner chunk (1, 1): zstd garbage
    with open(shard, "wb") as f:
        f.write(bytes(raw))
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    np.testing.assert_array_equal(a[0:4, 0:8], data[0:4, 0:8])
    with pytest.raises(zarrhpc.errors.ZarrhpcError, match=r"c/0/0: inner chunk \(1, 1\)"):
        a[4:8, 4:8]


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("shards", [(4, 4), (1, 2)], ids=["few-files", "past-the-shared-limit"])
def test_shard_files_opened_once_per_call_and_closed(tmp_path, shards):
    """A call shares one descriptor per shard file among its inner chunks (up to 256
    files, past that one per inner chunk) and closes them all when it ends."""
    shape = (24, 24) if shards == (4, 4) else (40, 20)  # 36 or 400 shard files
    a, data, rng = _make(tmp_path, shape, shards, (1, 2) if shards == (1, 2) else (2, 2),
                         "blosc", 9)
    a = zarrhpc.open_array(str(tmp_path), mode="r")
    before = _open_fds()
    for _ in range(3):
        np.testing.assert_array_equal(a[...], data)
        np.testing.assert_array_equal(a[1:23, 3:17], data[1:23, 3:17])
        coords = tuple(rng.integers(0, s, 50) for s in shape)
        np.testing.assert_array_equal(a.vindex[coords], data[coords])
        idx = tuple(rng.choice(s, 7, replace=False) for s in shape)
        np.testing.assert_array_equal(a.oindex[idx], data[np.ix_(*idx)])
    assert _open_fds() == before


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 40), ndim=st.integers(0, 4), top=st.integers(1, 6),
       seed=st.integers(0, 2**32 - 1))
def test_unique_rows_is_numpys_unique_by_rows(rows, ndim, top, seed):
    """The shards a sharded read touches: as np.unique(axis=0) gives them (the same
    order: the engine's shard table is indexed by it)."""
    from zarrhpc.core._shard_index import _unique_rows

    coords = np.random.default_rng(seed).integers(0, top, (rows, ndim))
    got_u, got_i = _unique_rows(coords)
    want_u, want_i = np.unique(coords, axis=0, return_inverse=True)
    np.testing.assert_array_equal(got_u, want_u)
    np.testing.assert_array_equal(got_i, want_i.reshape(-1))
    np.testing.assert_array_equal(got_u[got_i], coords)
