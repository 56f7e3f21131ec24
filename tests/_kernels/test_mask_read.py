"""The engine's per-chunk mask pass (Engine.mask_ranks / read_mask, core/_select.read_mask)
against numpy: random shapes (edge chunks, 1-D to 4-D), dtypes, codecs, missing chunks,
densities from none to all, masks that are views or hold bytes other than 0/1, ``out=``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.core._select import read_mask

COMPRESSORS = {
    "none": None,
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                  "shuffle": "shuffle"}}],
    "zstd": [{"name": "zstd", "configuration": {"level": 1}}],
}


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 12 if ndim < 3 else 7)) for _ in range(ndim - 1))
    shape += (draw(st.integers(1, 150)),)
    chunks = tuple(draw(st.integers(1, 5)) for _ in range(ndim - 1))
    chunks += (draw(st.integers(8, 80)),)  # the engine's pass needs >= 8 on the last axis
    dtype = draw(st.sampled_from(["<f4", ">f8", "u1", "<i2"]))
    comp = draw(st.sampled_from(sorted(COMPRESSORS)))
    density = draw(st.sampled_from([0.0, 0.01, 0.2, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, chunks, np.dtype(dtype), comp, density, seed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_mask_matches_numpy(tmp_path, case):
    shape, chunks, dtype, comp, density, seed = case
    rng = np.random.default_rng(seed)
    a = zarrhpc.create_array(str(tmp_path / f"m{seed}"), shape=shape, chunks=chunks,
                             dtype=dtype, compressors=COMPRESSORS[comp], fill_value=3,
                             overwrite=True)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    a[...] = data
    # erase a chunk: it reads as the fill value
    first = tuple(slice(0, c) for c in chunks)
    a[first] = 3
    data[first] = 3
    mask = rng.random(shape) < density
    got = a.vindex[mask]
    np.testing.assert_array_equal(got, data[mask])
    assert got.dtype == a.dtype
    # the engine pass itself ran (not the point path) for this array
    taken = []
    result = read_mask(a._prep, mask, lambda s: taken.append(s) or np.empty(s, a.dtype))
    assert result is not None and taken == [(int(mask.sum()),)]
    np.testing.assert_array_equal(result, data[mask])
    out = np.full(int(mask.sum()), 99, dtype=a.dtype)
    assert a.get_mask_selection(mask, out=out) is out
    np.testing.assert_array_equal(out, data[mask])


def test_mask_views_and_nonbinary_bytes(tmp_path):
    data = np.arange(20 * 33, dtype="i4").reshape(20, 33)
    a = zarrhpc.create_array(str(tmp_path / "v"), shape=data.shape, chunks=(4, 16),
                             dtype=data.dtype, compressors=None)
    a[...] = data
    big = np.random.default_rng(0).random((40, 33)) < 0.3
    view = big[::2]  # not contiguous
    np.testing.assert_array_equal(a.vindex[view], data[view])
    raw = np.zeros(data.shape, np.uint8)
    raw[3, 5] = 7
    raw[19, 32] = 255  # bytes other than 1 still select
    as_bool = raw.view(np.bool_)
    np.testing.assert_array_equal(a.vindex[as_bool], data[raw != 0])


@pytest.mark.parametrize("last", [1, 7])
def test_narrow_chunks_take_the_point_path(tmp_path, last):
    data = np.arange(6 * 20, dtype="f4").reshape(6, 20)
    a = zarrhpc.create_array(str(tmp_path / "n"), shape=data.shape, chunks=(2, last),
                             dtype=data.dtype)
    a[...] = data
    mask = data % 3 == 0
    assert read_mask(a._prep, mask, lambda s: np.empty(s, a.dtype)) is None
    np.testing.assert_array_equal(a.vindex[mask], data[mask])


def test_engine_refuses_ranks_of_another_shape(tmp_path):
    a = zarrhpc.create_array(str(tmp_path / "r"), shape=(8, 16), chunks=(4, 8), dtype="f4")
    a[...] = 1
    eng = a._prep.engine
    mask = np.ones((8, 16), bool)
    rank, bits = eng.mask_ranks(mask, (8, 16))
    assert rank[-1] == 128
    prefix, root_len, kind, sep = a._prep.native_target()
    out = np.empty(128, "f4")
    with pytest.raises(ValueError):
        eng.read_mask(out, (8, 24), rank, bits, path_prefix=prefix, root_len=root_len)
    with pytest.raises(ValueError):
        eng.read_mask(np.empty(127, "f4"), (8, 16), rank, bits, path_prefix=prefix,
                      root_len=root_len)
    with pytest.raises(ValueError):
        eng.mask_ranks(np.ones((8, 15), bool), (8, 16))


@pytest.mark.parametrize("shape,chunks", [
    ((300, 70), (7, 66)),          # 300 rows: two blocks of ranks; 2 words per segment
    ((9, 40, 130), (4, 6, 128)),   # 360 rows, edge chunks on every axis
    ((3, 5, 7, 200), (2, 2, 3, 64)),
    ((1000,), (64,)),              # one row
])
@pytest.mark.parametrize("density", [0.003, 0.05, 0.6])
def test_mask_across_rank_blocks(tmp_path, shape, chunks, density):
    """Ranks are kept per block of 256 rows plus each block's first rank (zh_mask.h):
    masks of more rows than one block, wide segments (more than 64 elements), rows
    holding more set bits than the unrolled part of a row."""
    rng = np.random.default_rng(len(shape) * 1000 + int(density * 1000))
    data = rng.standard_normal(shape).astype("<f8")
    a = zarrhpc.create_array(str(tmp_path / "b"), shape=shape, chunks=chunks,
                             dtype=data.dtype, compressors=None)
    a[...] = data
    mask = rng.random(shape) < density
    result = read_mask(a._prep, mask, lambda s: np.empty(s, a.dtype))
    assert result is not None
    np.testing.assert_array_equal(result, data[mask])


def test_engine_refuses_bits_past_the_edge(tmp_path):
    """A set bit beyond the array's last column (bits from elsewhere than mask_ranks)
    fails its chunk's task: no offset past the chunk's row is read."""
    a = zarrhpc.create_array(str(tmp_path / "e"), shape=(8, 20), chunks=(4, 16), dtype="f4",
                             compressors=None)
    a[...] = 1
    eng = a._prep.engine
    mask = np.zeros((8, 20), bool)
    mask[0, 0] = True
    rank, bits = eng.mask_ranks(mask, (8, 20))
    # segment (row 0, chunk column 1) holds columns 16..19: set bit 10 (column 26)
    bits = bits.copy()
    bits[1 * 8 + 0] |= np.uint64(1 << 10)
    prefix, root_len, kind, sep = a._prep.native_target()
    out = np.zeros(int(rank[-1]), "f4")
    status, err_task, code, msg = eng.read_mask(out, (8, 20), rank, bits, path_prefix=prefix,
                                                root_len=root_len)
    assert code != 0 and err_task == 1 and "mask" in msg


@pytest.mark.parametrize("density", [0.0, 0.02, 1.0])
def test_mask_f_order_and_sharded(tmp_path, density):
    """Chunks stored in F order (v2 ``order="F"``: the engine's element strides) and a
    sharded array (the point path) read what numpy reads; ``out=`` is filled in place."""
    rng = np.random.default_rng(int(density * 100))
    shape = (37, 20, 70)
    data = rng.standard_normal(shape).astype("<f4")
    mask = rng.random(shape) < density
    f = zarrhpc.create_array(str(tmp_path / "f"), shape=shape, chunks=(8, 6, 32),
                             dtype=data.dtype, zarr_format=2, order="F")
    f[...] = data
    np.testing.assert_array_equal(f.vindex[mask], data[mask])
    s = zarrhpc.create_array(str(tmp_path / "s"), shape=shape, chunks=(4, 3, 16),
                             shards=(8, 6, 32), dtype=data.dtype)
    s[...] = data
    out = np.full(int(mask.sum()), -1, "f4")
    assert s.get_mask_selection(mask, out=out) is out
    np.testing.assert_array_equal(out, data[mask])
