"""Basic selections: integers, slices with any step, Ellipsis — normalised per dimension.

A selection is parsed once into one :class:`DimSelection` per array dimension (the
elements ``start + k * step`` for ``k < count``, and whether an integer index drops the
dimension from the result). The projection onto chunks (projection.py) works on these.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from zarrhpc.errors import BoundsCheckError, SelectionError, ZeroStepError

__all__ = ["BasicSelection", "DimSelection", "normalize_basic_selection", "point_index"]


@dataclass(frozen=True)
class DimSelection:
    """The elements ``start + k * step`` (``0 <= k < count``) of one dimension."""

    start: int
    step: int
    count: int
    dropped: bool  # an integer index: the dimension is not in the result

    @property
    def is_full(self) -> bool:
        return self.step == 1 and self.start == 0


@dataclass(frozen=True)
class BasicSelection:
    """A normalised basic selection over an array of ``shape``."""

    dims: tuple[DimSelection, ...]
    shape: tuple[int, ...]

    @property
    def full_shape(self) -> tuple[int, ...]:
        """Result shape with dropped dimensions kept as length 1 (what the plan fills)."""
        return tuple(d.count for d in self.dims)

    @property
    def out_shape(self) -> tuple[int, ...]:
        """Result shape as numpy reports it (dropped dimensions removed)."""
        return tuple(d.count for d in self.dims if not d.dropped)

    @property
    def expand_index(self) -> tuple:
        """Index that turns an ``out_shape`` array into a ``full_shape`` view.

        Ends with Ellipsis so that numpy returns a view even for 0-d arrays.
        """
        return tuple(None if d.dropped else slice(None) for d in self.dims) + (Ellipsis,)

    @property
    def nelements(self) -> int:
        return int(np.prod(self.full_shape, dtype=np.int64))


def _as_index(obj) -> int | None:
    """An integer index, or None if ``obj`` is not integer-like (bool is not)."""
    if isinstance(obj, (bool, np.bool_)):
        return None
    try:
        return operator.index(obj)
    except TypeError:
        return None


def normalize_basic_selection(selection, shape: tuple[int, ...]) -> BasicSelection:
    """Parse ``selection`` (as given to ``a[...]``) against ``shape``.

    Raises
    ------
    SelectionError
        An index out of range or too many indices (message names the dimension).
        Also for fancy items (lists, arrays, booleans, None, floats): not basic indexing.
    BoundsCheckError
        An integer index out of range (a SelectionError).
    """
    ndim = len(shape)
    if not isinstance(selection, tuple):
        selection = (selection,)
    n_ellipsis = sum(1 for s in selection if s is Ellipsis)
    # the messages are zarr-python's words (a user's script may print them)
    if n_ellipsis > 1:
        raise SelectionError("an index can only have a single ellipsis ('...')")
    if n_ellipsis:
        i = next(k for k, s in enumerate(selection) if s is Ellipsis)
        fill = ndim - (len(selection) - 1)
        if fill < 0:
            raise SelectionError(f"too many indices for array; expected {ndim}, "
                                 f"got {len(selection) - 1}")
        selection = selection[:i] + (slice(None),) * fill + selection[i + 1:]
    if len(selection) > ndim:
        raise SelectionError(
            f"too many indices for array; expected {ndim}, got {len(selection)}")
    selection = selection + (slice(None),) * (ndim - len(selection))

    dims = []
    for axis, (sel, n) in enumerate(zip(selection, shape)):
        idx = _as_index(sel)
        if idx is not None:
            if idx < -n or idx >= n:
                raise BoundsCheckError(f"index out of bounds for dimension with length {n}")
            if idx < 0:
                idx += n
            dims.append(DimSelection(idx, 1, 1, True))
        elif isinstance(sel, slice):
            for part in (sel.start, sel.stop, sel.step):
                if part is not None and _as_index(part) is None:
                    raise SelectionError(
                        f"axis {axis}: slice {sel!r} must have integer start, stop and step"
                    )
            if sel.step is not None and operator.index(sel.step) == 0:
                raise ZeroStepError("slice step cannot be zero")
            start, stop, step = sel.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                start = 0
            dims.append(DimSelection(start, step, count, False))
        else:
            # zarr-python's text (BasicIndexer)
            raise SelectionError(
                "unsupported selection item for basic indexing; expected integer or slice, "
                f"got {type(sel)!r}"
            )
    return BasicSelection(tuple(dims), tuple(shape))


def point_index(selection, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """``selection`` as in-range non-negative ints when it is one int per dimension.

    The fast path of single-element reads; None for anything else, including an index
    out of range (the general path raises that error).
    """
    if type(selection) is not tuple:
        selection = (selection,)
    if len(selection) != len(shape):
        return None
    point = []
    for i, n in zip(selection, shape):
        if type(i) is not int:
            if not isinstance(i, np.integer):
                return None
            i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            return None
        point.append(i)
    return tuple(point)
