"""Orthogonal and point projections reproduce numpy's oindex/vindex chunk by chunk."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.errors import BoundsCheckError, SelectionError, VindexInvalidSelectionError
from zarrhpc.indexing import (
    block_to_basic,
    coordinate_projection,
    mask_projection,
    normalize_orthogonal,
    normalize_vindex,
    orthogonal_projection,
)
from zarrhpc.testing.strategies import shapes_and_chunks
from zarrhpc.testing.strategies_select import (
    block_selections,
    coordinate_selections,
    mask_selections,
    numpy_oindex,
    orthogonal_selections,
)


def chunk_of(a, chunks, coords):
    region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunks))
    chunk = np.full(chunks, -7, a.dtype)
    part = a[region]
    chunk[tuple(slice(0, n) for n in part.shape)] = part
    return chunk


@settings(max_examples=300, deadline=None)
@given(geom=shapes_and_chunks(max_dims=4, max_len=9, max_chunk=4), data=st.data())
def test_orthogonal_projection_matches_numpy(geom, data):
    shape, chunks = geom
    if not shape:
        return
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    sel = data.draw(orthogonal_selections(shape))
    proj = orthogonal_projection(normalize_orthogonal(sel, shape), shape, chunks)
    out = np.full(proj.full_shape, -1, np.int64)
    coords = proj.task_coords()
    assert len(coords) == proj.ntasks
    assert len({tuple(c) for c in coords}) == len(coords)  # each chunk once
    for t in range(proj.ntasks):
        cidx, oidx = proj.task_parts(t)
        chunk = chunk_of(a, chunks, coords[t])
        out[np.ix_(*oidx)] = chunk[np.ix_(*cidx)]
    expected = numpy_oindex(a, sel)
    assert proj.out_shape == expected.shape
    np.testing.assert_array_equal(out.reshape(proj.out_shape), expected)


def run_points(a, chunks, proj):
    out = np.full(int(np.prod(proj.out_shape)), -1, a.dtype)
    assert len({tuple(c) for c in proj.chunk_coords}) == len(proj.chunk_coords)
    flat = [np.ravel_multi_index(c, [max(-(-n // k), 1) for n, k in zip(a.shape, chunks)])
            for c in proj.chunk_coords]
    assert flat == sorted(flat)  # C order
    for k, c in enumerate(proj.chunk_coords):
        lo, hi = proj.offsets[k], proj.offsets[k + 1]
        chunk = chunk_of(a, chunks, c)
        out[proj.out_index[lo:hi]] = chunk[tuple(proj.in_chunk[lo:hi].T)]
    return out.reshape(proj.out_shape)


@settings(max_examples=300, deadline=None)
@given(geom=shapes_and_chunks(max_dims=4, max_len=9, max_chunk=4), data=st.data())
def test_coordinate_projection_matches_numpy(geom, data):
    shape, chunks = geom
    if not shape or 0 in shape:
        return
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    sel = data.draw(coordinate_selections(shape))
    kind, norm = normalize_vindex(sel, shape)
    assert kind == "coordinate"
    proj = coordinate_projection(norm, shape, chunks)
    expected = a[sel if isinstance(sel, tuple) else (sel,)]
    np.testing.assert_array_equal(run_points(a, chunks, proj), expected)


@settings(max_examples=200, deadline=None)
@given(geom=shapes_and_chunks(max_dims=4, max_len=9, max_chunk=4), data=st.data())
def test_mask_projection_matches_numpy(geom, data):
    shape, chunks = geom
    if not shape:
        return
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    mask = data.draw(mask_selections(shape))
    kind, norm = normalize_vindex(mask, shape)
    assert kind == "mask"
    proj = mask_projection(norm, shape, chunks)
    np.testing.assert_array_equal(run_points(a, chunks, proj), a[mask])


@settings(max_examples=200, deadline=None)
@given(geom=shapes_and_chunks(max_dims=3, max_len=9, max_chunk=4), data=st.data())
def test_block_selection_is_the_blocks_region(geom, data):
    shape, chunks = geom
    if not shape or 0 in shape:
        return
    a = np.arange(int(np.prod(shape))).reshape(shape)
    sel = data.draw(block_selections(shape, chunks))
    slices = block_to_basic(sel, shape, chunks)
    expected_idx = []
    for s, n, c in zip(sel, shape, chunks):
        nb = -(-n // c)
        if isinstance(s, int):
            b = s % nb
            expected_idx.append(slice(b * c, (b + 1) * c))
        else:
            expected_idx.append(slice(s.start * c, s.stop * c))
    np.testing.assert_array_equal(a[slices], a[tuple(expected_idx)])


def test_repeated_points_keep_selection_order_within_a_chunk():
    proj = coordinate_projection((np.array([3, 1, 3, 0]),), (8,), (4,))
    # all in chunk 0, in selection order: a later write of index 3 wins
    assert proj.chunk_coords.tolist() == [[0]]
    assert proj.out_index.tolist() == [0, 1, 2, 3]
    assert proj.in_chunk[:, 0].tolist() == [3, 1, 3, 0]


def test_projection_errors_match_zarr_python_kinds():
    with pytest.raises(BoundsCheckError):
        orthogonal_projection((np.array([5]),), (5,), (2,))
    with pytest.raises(BoundsCheckError):
        coordinate_projection((np.array([-6]),), (5,), (2,))
    with pytest.raises(SelectionError, match="1-dimensional"):
        orthogonal_projection((np.zeros((1, 1), int),), (5,), (2,))
    with pytest.raises(SelectionError, match="wrong length"):
        orthogonal_projection((np.ones(4, bool),), (5,), (2,))
    with pytest.raises(VindexInvalidSelectionError):
        normalize_vindex((slice(None), [1]), (5, 5))
    with pytest.raises(BoundsCheckError):
        block_to_basic((3,), (5,), (2,))
    with pytest.raises(SelectionError, match="step=1"):
        block_to_basic((slice(0, 2, 2),), (5,), (2,))
    # the caller's index array is never changed by wraparound
    idx = np.array([-1, 0])
    orthogonal_projection((idx,), (5,), (2,))
    assert idx.tolist() == [-1, 0]
