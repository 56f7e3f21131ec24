"""The chunk projection reproduces numpy's basic indexing on any grid."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.errors import SelectionError
from zarrhpc.indexing import RegularChunkGrid, iter_chunk_projections, normalize_basic_selection
from zarrhpc.testing.strategies import basic_selections, shapes_and_chunks


def assemble(a: np.ndarray, chunks, selection):
    """Read ``a[selection]`` chunk by chunk through the projection (the numpy oracle's twin)."""
    sel = normalize_basic_selection(selection, a.shape)
    out = np.full(sel.full_shape, -1, a.dtype)
    seen = set()
    for p in iter_chunk_projections(sel, chunks):
        assert p.chunk_coords not in seen  # each chunk visited once
        seen.add(p.chunk_coords)
        region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(p.chunk_coords, chunks))
        chunk = np.full(chunks, -7, a.dtype)
        part = a[region]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        out[p.out_selection] = chunk[p.chunk_selection]
    return out.reshape(sel.out_shape)


@settings(max_examples=400, deadline=None)
@given(geom=shapes_and_chunks(max_dims=3), data=st.data())
def test_projection_matches_numpy(geom, data):
    shape, chunks = geom
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    selection = data.draw(basic_selections(shape))
    expected = a[selection]
    got = assemble(a, chunks, selection)
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got, expected)


def test_covers_chunk_flags():
    sel = normalize_basic_selection((slice(None), slice(2, 7)), (10, 9))
    flags = {p.chunk_coords: p.covers_chunk for p in iter_chunk_projections(sel, (4, 4))}
    # axis 1: chunk 0 holds 0..3 (2..3 wanted: partial), chunk 1 holds 4..7 (4..6: partial)
    assert flags[(0, 0)] is False and flags[(2, 1)] is False
    sel = normalize_basic_selection((slice(None), slice(None, None, -1)), (10, 9))
    assert all(p.covers_chunk for p in iter_chunk_projections(sel, (4, 4)))


def test_grid():
    g = RegularChunkGrid((10, 0, 5), (4, 3, 5))
    assert g.grid_shape == (3, 0, 1) and g.nchunks == 0
    g = RegularChunkGrid((10, 5), (4, 5))
    assert g.chunk_region((2, 0)) == (slice(8, 10), slice(0, 5))
    assert list(RegularChunkGrid((), ()).all_chunk_coords()) == [()]


@pytest.mark.parametrize("bad,err,match", [
    ((0, 0, 0), SelectionError, "too many indices"),
    ((Ellipsis, Ellipsis), SelectionError, "single ellipsis"),
    ((5, 0), SelectionError, "index out of bounds for dimension with length 5"),
    ((slice(0, 2, 0),), SelectionError, "step cannot be zero"),
    (([0, 1],), SelectionError, "unsupported selection item for basic indexing"),
    ((None,), SelectionError, "unsupported selection item for basic indexing"),
    ((slice(0.5, 2),), SelectionError, "integer"),
])
def test_bad_selections(bad, err, match):
    with pytest.raises(err, match=match):
        normalize_basic_selection(bad, (5, 4))
