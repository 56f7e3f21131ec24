"""group_points and mask_points (the native point grouping) against the numpy oracle."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc._kernels.points import group_points, mask_points
from zarrhpc.testing.oracles import point_groups_oracle


@st.composite
def geometry(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 12)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    return shape, chunks, draw(st.integers(0, 2**32 - 1))


def assert_same(got, want):
    assert got is not None
    for g, w in zip(got, want):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, w)


@settings(max_examples=200, deadline=None)
@given(geom=geometry(), n=st.integers(0, 60))
def test_group_points_matches_oracle(geom, n):
    shape, chunks, seed = geom
    rng = np.random.default_rng(seed)
    coords = tuple(rng.integers(0, s, n) for s in shape)
    assert_same(group_points(coords, shape, chunks), point_groups_oracle(coords, shape, chunks))


@settings(max_examples=200, deadline=None)
@given(geom=geometry(), density=st.sampled_from([0.0, 0.01, 0.3, 1.0]))
def test_mask_points_matches_oracle(geom, density):
    shape, chunks, seed = geom
    mask = np.random.default_rng(seed).random(shape) < density
    coords = np.nonzero(mask)
    want = point_groups_oracle(coords, shape, chunks)
    got = mask_points(mask, shape, chunks)
    assert_same(got, want)


def test_mask_points_long_rows_and_words():
    """Rows longer than 8 bytes with trues at every position of an 8-byte word."""
    shape, chunks = (3, 37), (2, 5)
    mask = np.zeros(shape, bool)
    mask[0, :] = True
    mask[2, [7, 8, 15, 16, 36]] = True
    assert_same(mask_points(mask, shape, chunks),
                point_groups_oracle(np.nonzero(mask), shape, chunks))


def test_declines_out_of_range_and_huge_grids():
    assert group_points((np.array([5]),), (5,), (2,)) is None
    assert group_points((np.array([-1]),), (5,), (2,)) is None
    assert group_points((np.array([0]), np.array([0])), (10**9, 10**9), (1, 1)) is None
    assert mask_points(np.zeros((3, 4), bool), (4, 3), (2, 2)) is None


@settings(max_examples=150, deadline=None)
@given(outer=st.lists(st.integers(1, 4), max_size=2), last=st.integers(1, 300),
       chunks=st.lists(st.integers(1, 100), min_size=3, max_size=3),
       density=st.sampled_from([0.002, 0.02, 0.3]), seed=st.integers(0, 2**32 - 1),
       wide=st.booleans())
def test_mask_points_long_rows_words_and_segments(outer, last, chunks, density, seed, wide):
    """Rows long enough for the 64-byte and 8-byte skips, chunks that split words, and
    mask bytes other than 0/1 (a bool view of uint8: any non-zero byte is true)."""
    shape = (*outer, last)
    chunk_shape = tuple(chunks[-len(shape):])
    rng = np.random.default_rng(seed)
    raw = (rng.random(shape) < density).astype(np.uint8)
    if wide:
        raw *= rng.integers(1, 256, shape, dtype=np.uint8)
    mask = raw.view(np.bool_)
    assert_same(mask_points(mask, shape, chunk_shape),
                point_groups_oracle(np.nonzero(raw), shape, chunk_shape))
