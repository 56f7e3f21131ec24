"""Hypothesis strategies for array geometries and basic selections."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["shapes_and_chunks", "basic_selections"]


@st.composite
def shapes_and_chunks(draw, max_dims: int = 4, max_len: int = 12, max_chunk: int = 6):
    """(shape, chunks): shape may have zero-length dimensions; chunks are >= 1."""
    ndim = draw(st.integers(0, max_dims))
    shape = tuple(draw(st.integers(0, max_len)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, max_chunk)) for _ in range(ndim))
    return shape, chunks


def _dim_index(n: int):
    bound = st.one_of(st.none(), st.integers(-n - 3, n + 3))
    step = st.one_of(st.none(), st.integers(-5, 5).filter(lambda s: s != 0))
    slices = st.builds(slice, bound, bound, step)
    if n == 0:
        return slices
    return st.one_of(slices, st.integers(-n, n - 1))


@st.composite
def basic_selections(draw, shape: tuple[int, ...]):
    """A valid numpy basic selection for ``shape`` (ints, slices, maybe one Ellipsis)."""
    sel = [draw(_dim_index(n)) for n in shape]
    if sel and draw(st.booleans()):
        # leave out trailing dimensions, or stand an Ellipsis in for them
        k = draw(st.integers(0, len(sel)))
        if draw(st.booleans()):
            return tuple(sel[:k]) + (Ellipsis,)
        return tuple(sel[:k])
    if not sel and draw(st.booleans()):
        return Ellipsis
    return tuple(sel)
