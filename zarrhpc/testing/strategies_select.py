"""Hypothesis strategies for orthogonal, coordinate, mask and block selections."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

__all__ = ["block_selections", "coordinate_selections", "mask_selections",
           "orthogonal_selections"]


def _ortho_item(draw, n: int):
    kinds = ["slice", "intarray", "boolarray"] + (["int"] if n else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        step = st.one_of(st.none(), st.integers(-4, 4).filter(lambda s: s != 0))
        return slice(draw(bound), draw(bound), draw(step))
    if kind == "boolarray":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=2 * n + 2))
    return np.array(idx, dtype=draw(st.sampled_from([np.int64, np.int32, np.intp])))


@st.composite
def orthogonal_selections(draw, shape: tuple[int, ...]):
    """One item per dimension: ints, slices (any step), int arrays (repeats, negatives),
    boolean arrays."""
    return tuple(_ortho_item(draw, n) for n in shape)


@st.composite
def coordinate_selections(draw, shape: tuple[int, ...]):
    """Integer arrays that broadcast together (all dimensions must be non-empty)."""
    ndim = len(shape)
    bshape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=2)))
    sel = []
    for n in shape:
        # each index array has a shape that broadcasts to bshape
        sub = tuple(1 if draw(st.booleans()) else k for k in bshape)
        vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(sub)),
                             max_size=int(np.prod(sub))))
        sel.append(np.array(vals, dtype=np.int64).reshape(sub))
    if ndim == 1 and draw(st.booleans()):
        return sel[0]
    return tuple(sel)


@st.composite
def mask_selections(draw, shape: tuple[int, ...]):
    n = int(np.prod(shape))
    bits = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(bits, dtype=bool).reshape(shape)


@st.composite
def block_selections(draw, shape: tuple[int, ...], chunks: tuple[int, ...]):
    """Block indices or step-1 slices of blocks, inside the block grid."""
    sel = []
    for n, c in zip(shape, chunks):
        nb = -(-n // c)
        if draw(st.booleans()):
            sel.append(draw(st.integers(-nb, nb - 1)))
        else:
            a = draw(st.integers(0, nb - 1))
            b = draw(st.integers(a, nb + 1))
            sel.append(slice(a, b))
    return tuple(sel)
