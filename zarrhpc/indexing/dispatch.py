"""Which kind a selection is, and its normal form — as zarr-python 3 decides.

``a[sel]`` goes where zarr-python's ``Array.__getitem__`` sends it: a pure fancy
selection (integer arrays/lists with integers, or a boolean array) to ``vindex``
(coordinates or a full-shape mask), a pure orthogonal one (integer/boolean arrays with
ints and slices, at most one array unless every item is one) to ``oindex``, anything else
to basic indexing. The predicates and error texts follow zarr.core.indexing so that the
same bad selection raises the same exception class with the same message. Basic
selections keep zarrhpc's wider support (any slice step).

``fields`` (structured dtypes) are split off first (:func:`pop_fields`), as there.
"""

from __future__ import annotations

import numbers

import numpy as np

from zarrhpc.errors import (
    BoundsCheckError,
    SelectionError,
    VindexInvalidSelectionError,
)
from zarrhpc.indexing.rectilinear import RectilinearChunkGrid, axes_of

__all__ = [
    "block_to_basic",
    "check_coordinate",
    "check_fields",
    "check_mask",
    "check_no_multi_fields",
    "ensure_tuple",
    "is_coordinate_selection",
    "is_mask_selection",
    "is_pure_fancy_indexing",
    "is_pure_orthogonal_indexing",
    "normalize_orthogonal",
    "normalize_vindex",
    "pop_fields",
    "replace_ellipsis",
    "replace_lists",
]


def _is_bool(x) -> bool:
    return type(x) in (bool, np.bool_)


def _is_integer(x) -> bool:
    return isinstance(x, numbers.Integral) and not _is_bool(x)


def _is_integer_list(x) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_is_integer(i) for i in x)


def _is_bool_list(x) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_is_bool(i) for i in x)


def _is_integer_array(x, ndim: int | None = None) -> bool:
    t = (not np.isscalar(x) and hasattr(x, "shape") and hasattr(x, "dtype")
         and x.dtype.kind in "ui")
    return t and (ndim is None or len(x.shape) == ndim)


def _is_bool_array(x, ndim: int | None = None) -> bool:
    t = hasattr(x, "shape") and hasattr(x, "dtype") and x.dtype == bool
    return t and (ndim is None or len(x.shape) == ndim)


def _is_int_or_bool_iterable(x) -> bool:
    return _is_integer_list(x) or _is_integer_array(x) or _is_bool_array(x) or _is_bool_list(x)


def is_pure_fancy_indexing(selection, ndim: int) -> bool:
    """Only integers and integer/boolean arrays (zarr-python's test, same cases)."""
    if _is_bool_array(selection):
        return True
    if ndim == 1 and (_is_integer_list(selection) or _is_integer_array(selection)
                      or _is_bool_list(selection)):
        return True
    no_slicing = (isinstance(selection, tuple) and len(selection) == ndim
                  and not any(isinstance(e, slice) or e is Ellipsis for e in selection))
    return (no_slicing
            and all(_is_integer(e) or _is_integer_list(e) or _is_integer_array(e)
                    for e in selection)
            and any(_is_integer_list(e) or _is_integer_array(e) for e in selection))


def is_pure_orthogonal_indexing(selection, ndim: int) -> bool:
    """Arrays per dimension, or one array among ints and slices (zarr-python's test)."""
    if not ndim:
        return False
    sel = selection if isinstance(selection, tuple) else (selection,)
    if len(sel) == ndim and all(_is_int_or_bool_iterable(s) for s in sel):
        return True
    return (len(sel) <= ndim
            and sum(_is_int_or_bool_iterable(s) for s in sel) <= 1
            and all(_is_int_or_bool_iterable(s) or isinstance(s, (int, slice)) for s in sel))


def is_coordinate_selection(selection, shape) -> bool:
    return (isinstance(selection, tuple) and len(selection) == len(shape)
            and all(_is_integer(s) or _is_integer_array(s) for s in selection))


def is_mask_selection(selection, shape) -> bool:
    return (isinstance(selection, tuple) and len(selection) == 1
            and _is_bool_array(selection[0]) and selection[0].shape == tuple(shape))


def ensure_tuple(v) -> tuple:
    return v if isinstance(v, tuple) else (v,)


def replace_lists(selection: tuple) -> tuple:
    return tuple(np.asarray(s) if isinstance(s, list) else s for s in selection)


def replace_ellipsis(selection, shape) -> tuple:
    """Expand ``...`` and pad with full slices; too many items raise IndexError."""
    selection = ensure_tuple(selection)
    n_ellipsis = sum(1 for i in selection if i is Ellipsis)
    if n_ellipsis > 1:
        raise SelectionError("an index can only have a single ellipsis ('...')")
    if n_ellipsis == 1:
        left = next(k for k, s in enumerate(selection) if s is Ellipsis)
        n_right = len(selection) - left - 1
        n_items = len(selection) - 1
        if n_items >= len(shape):
            selection = tuple(i for i in selection if i is not Ellipsis)
        else:
            new = selection[:left] + (slice(None),) * (len(shape) - n_items)
            if n_right:
                new += selection[-n_right:]
            selection = new
    if len(selection) < len(shape):
        selection += (slice(None),) * (len(shape) - len(selection))
    if len(selection) > len(shape):
        raise SelectionError(
            f"too many indices for array; expected {len(shape)}, got {len(selection)}")
    return selection


def normalize_orthogonal(selection, shape) -> tuple:
    """One item per dimension: int, slice, integer array or boolean array."""
    return replace_lists(replace_ellipsis(replace_lists(ensure_tuple(selection)), shape))


def _vindex_error(selection) -> VindexInvalidSelectionError:
    return VindexInvalidSelectionError(
        "unsupported selection type for vectorized indexing; only coordinate selection "
        "(tuple of integer arrays) and mask selection (single Boolean array) are "
        f"supported; got {selection!r}")


def normalize_vindex(selection, shape) -> tuple[str, object]:
    """``("coordinate", tuple of int arrays)`` or ``("mask", bool array)``."""
    sel = replace_lists(ensure_tuple(selection))
    if is_coordinate_selection(sel, shape):
        return "coordinate", tuple(np.asarray([s]) if _is_integer(s) else s for s in sel)
    if is_mask_selection(sel, shape):
        return "mask", np.asarray(sel[0])
    raise _vindex_error(sel)


def check_coordinate(selection, shape) -> tuple:
    """A coordinate selection for ``get_coordinate_selection`` (IndexError otherwise)."""
    sel = replace_lists(ensure_tuple(selection))
    sel = tuple(np.asarray([s]) if _is_integer(s) else s for s in sel)
    if not is_coordinate_selection(sel, shape):
        raise SelectionError(
            "invalid coordinate selection; expected one integer (coordinate) array per "
            f"dimension of the target array, got {selection!r}")
    return sel


def check_mask(selection, shape) -> np.ndarray:
    """A mask selection for ``get_mask_selection`` (IndexError otherwise)."""
    sel = replace_lists(ensure_tuple(selection))
    if not is_mask_selection(sel, shape):
        raise SelectionError(
            "invalid mask selection; expected one Boolean (mask)array with the same shape "
            f"as the target array, got {sel!r}")
    return np.asarray(sel[0])


def _bound(c, i: int) -> int:
    """Array position where block ``i`` starts on an axis (regular length ``c``, or a
    rectilinear axis's cumulative ends; past the last declared edge: its end)."""
    if isinstance(c, np.ndarray):
        return i if i <= 0 else int(c[min(i, len(c)) - 1])  # negative: refused below
    return i * c


def block_to_basic(selection, shape, chunk_shape) -> tuple:
    """A block selection (block indices, or slices of blocks with step 1) as slices.

    ``chunk_shape``: a regular chunk shape or a ``RectilinearChunkGrid``.
    """
    sel = replace_lists(replace_ellipsis(replace_lists(ensure_tuple(selection)), shape))
    grid = chunk_shape if isinstance(chunk_shape, RectilinearChunkGrid) else None
    out = []
    for d, (s, n, c) in enumerate(zip(sel, shape, axes_of(chunk_shape))):
        nblocks = grid.grid_shape[d] if grid is not None else -(-n // c)
        if _is_integer(s):
            i = int(s)
            if i < 0:
                i += nblocks
            if grid is not None and not 0 <= i < nblocks:
                raise BoundsCheckError(f"index out of bounds for dimension with length {n}")
            start, stop = _bound(c, i), _bound(c, i + 1)
        elif isinstance(s, slice):
            if s.step not in (1, None):
                raise SelectionError(
                    "unsupported selection item for block indexing; expected integer or "
                    f"slice with step=1, got {type(s)!r}")
            b0 = 0 if s.start is None else int(s.start)
            b1 = nblocks if s.stop is None else int(s.stop)
            if b0 < 0:
                b0 += nblocks
            if b1 < 0:
                b1 += nblocks
            start, stop = _bound(c, b0), _bound(c, b1)
        else:
            raise SelectionError(
                "unsupported selection item for block indexing; expected integer or "
                f"slice, got {type(s)!r}")
        if start >= n or start < 0:
            raise BoundsCheckError(f"index out of bounds for dimension with length {n}")
        out.append(slice(start, min(max(stop, start), n)))
    return tuple(out)


def pop_fields(selection):
    """Split field names (structured dtypes) from a selection: ``(fields, selection)``."""
    if isinstance(selection, str):
        return selection, ()
    if not isinstance(selection, tuple):
        return None, selection
    fields = [f for f in selection if isinstance(f, str)]
    fields = fields[0] if len(fields) == 1 else fields
    rest = tuple(s for s in selection if not isinstance(s, str))
    return fields, (rest[0] if len(rest) == 1 else rest)


def check_fields(fields, dtype: np.dtype) -> np.dtype:
    """The result dtype of ``fields`` of ``dtype`` (IndexError as zarr-python)."""
    if fields is None:
        return dtype
    if not isinstance(fields, (str, list, tuple)):
        raise SelectionError(
            f"'fields' argument must be a string or list of strings; found {type(fields)!r}")
    if not fields:
        return dtype
    if dtype.names is None:
        raise SelectionError("invalid 'fields' argument, array does not have any fields")
    try:
        if isinstance(fields, str):
            return dtype[fields]
        return np.dtype([(f, dtype[f]) for f in fields])
    except KeyError as e:
        raise SelectionError(f"invalid 'fields' argument, field not found: {e!r}") from e


def check_no_multi_fields(fields):
    """One field at most (for writes), as zarr-python."""
    if isinstance(fields, list):
        if len(fields) == 1:
            return fields[0]
        if len(fields) > 1:
            raise SelectionError("multiple fields are not supported for this operation")
    return fields

