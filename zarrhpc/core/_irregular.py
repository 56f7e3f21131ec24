"""Reads and writes on an irregular rectilinear chunk grid (zarr-extensions ``rectilinear``).

Life cycle: an array whose metadata keeps an irregular grid (``ArraySpec.chunk_grid``) is
prepared with a ``RectilinearChunkGrid`` as its grid and no native engine; ``Array``
sends every selection kind here (basic, orthogonal, coordinate, mask, block) and resize
too. The indexing layer projects the selection onto the grid exactly as on a regular one
(np.searchsorted on the cumulative edges); this module then runs the Python path: one
batched ``store.get_values`` for the touched chunks, each decoded with the codec chain
built for that chunk's own stored shape (cached per shape), and moved by numpy indexing.
Writes read, merge and re-encode the chunks they touch only in part, encode wholly
covered ones directly, and erase chunks equal to the fill value unless
``write_empty_chunks``; the store writes each chunk atomically.

Sharded arrays on an irregular grid of shards (each edge a multiple of the inner chunk
shape; the chain for a shard shape that is not says so when first used) read and write
whole shards here: correct, not fast.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from zarrhpc.codecs import ChunkSpec, CodecPipeline
from zarrhpc.core._read import _has_ellipsis, check_out
from zarrhpc.core._resize import _check_shape
from zarrhpc.core._write import broadcast_value
from zarrhpc.core.formats import write_node
from zarrhpc.indexing import (
    block_to_basic,
    check_coordinate,
    check_mask,
    coordinate_projection,
    iter_chunk_projections,
    mask_projection,
    normalize_basic_selection,
    normalize_orthogonal,
    orthogonal_projection,
)

__all__ = ["get_selection", "resize_irregular", "set_selection"]

# (id(pipeline), stored chunk shape) -> (pipeline, the chain for that shape)
_PIPELINES: OrderedDict = OrderedDict()
_PIPELINES_MAX = 512


def _pipeline(prep, shape: tuple[int, ...]):
    key = (id(prep.pipeline), shape)
    hit = _PIPELINES.get(key)
    if hit is not None and hit[0] is prep.pipeline:
        return hit[1]
    base = prep.pipeline
    chain = CodecPipeline.from_json(base.to_json(), ChunkSpec(shape, prep.dtype,
                                                              prep.fill_value), prep.path)
    _PIPELINES[key] = (base, chain)
    if len(_PIPELINES) > _PIPELINES_MAX:
        _PIPELINES.popitem(last=False)
    return chain


def _decode(prep, coords, raw) -> np.ndarray | None:
    """Chunk ``coords`` in its stored shape and the array's dtype, or None if missing."""
    if raw is None:
        return None
    key = prep.chunk_key(coords)
    decoded = _pipeline(prep, prep.grid.stored_shape(coords)).decode(raw, key)
    return np.asarray(decoded, dtype=prep.dtype)


def _fetch(prep, coords_list) -> list:
    return prep.store.get_values([prep.chunk_key(c) for c in coords_list])


def _is_plain_basic(norm) -> bool:
    return all(isinstance(s, slice) or isinstance(s, (int, np.integer)) for s in norm)


# -- reads -----------------------------------------------------------------------------

def _read_basic(prep, selection, out):
    sel = normalize_basic_selection(selection, prep.shape)
    result = prep.empty(sel.out_shape) if out is None else check_out(out, sel.out_shape,
                                                                      prep.dtype)
    full = result[sel.expand_index]
    projs = list(iter_chunk_projections(sel, prep.grid))
    for p, raw in zip(projs, _fetch(prep, [p.chunk_coords for p in projs])):
        chunk = _decode(prep, p.chunk_coords, raw)
        if chunk is None:
            prep.fill(full[p.out_selection])
        else:
            full[p.out_selection] = chunk[p.chunk_selection]
    if out is None and result.ndim == 0 and not _has_ellipsis(selection):
        return result[()]
    return result


def _read_orthogonal(prep, norm, out):
    proj = orthogonal_projection(norm, prep.shape, prep.grid)
    result = prep.empty(proj.out_shape) if out is None else check_out(out, proj.out_shape,
                                                                       prep.dtype)
    full = result[proj.expand_index]
    coords = [tuple(int(v) for v in c) for c in proj.task_coords()]
    for t, (c, raw) in enumerate(zip(coords, _fetch(prep, coords))):
        chunk_idx, out_idx = proj.task_parts(t)
        chunk = _decode(prep, c, raw)
        full[np.ix_(*out_idx)] = (prep.fill_value if chunk is None
                                  else chunk[np.ix_(*chunk_idx)])
    return result


def _read_points(prep, proj, out):
    result = (prep.empty(proj.out_shape, "C") if out is None
              else check_out(out, proj.out_shape, prep.dtype))
    flat = np.empty(proj.npoints, dtype=prep.dtype)
    coords = [tuple(int(v) for v in c) for c in proj.chunk_coords]
    for k, (c, raw) in enumerate(zip(coords, _fetch(prep, coords))):
        lo, hi = int(proj.offsets[k]), int(proj.offsets[k + 1])
        chunk = _decode(prep, c, raw)
        flat[proj.out_index[lo:hi]] = (prep.fill_value if chunk is None
                                       else chunk[tuple(proj.in_chunk[lo:hi].T)])
    result[...] = flat.reshape(proj.out_shape)
    return result


def get_selection(prep, kind: str, selection, out=None):
    """Read a selection of ``kind`` (basic, block, orthogonal, coordinate, mask)."""
    shape = prep.shape
    if kind == "basic":
        return _read_basic(prep, selection, out)
    if kind == "block":
        return _read_basic(prep, block_to_basic(selection, shape, prep.grid) + (Ellipsis,),
                           out)
    if kind == "orthogonal":
        norm = normalize_orthogonal(selection, shape)
        if _is_plain_basic(norm):
            return _read_basic(prep, norm + (Ellipsis,), out)
        return _read_orthogonal(prep, norm, out)
    if kind == "coordinate":
        proj = coordinate_projection(check_coordinate(selection, shape), shape, prep.grid)
    else:
        proj = mask_projection(check_mask(selection, shape), shape, prep.grid)
    return _read_points(prep, proj, out)


# -- writes ----------------------------------------------------------------------------

def _update(prep, jobs) -> None:
    """``jobs``: (coords, apply(chunk), covers) per touched chunk; each chunk is read
    (unless wholly covered), changed by ``apply`` and stored, or erased when it equals
    the fill value and empty chunks are not written."""
    grid = prep.grid
    whole = []
    for c, _apply, covers in jobs:
        region = grid.chunk_region(c)
        inside = all(r.stop - r.start == e for r, e in zip(region, grid.stored_shape(c)))
        whole.append(covers and inside)
    need = [c for (c, _, _), w in zip(jobs, whole) if not w]
    olds = dict(zip(need, _fetch(prep, need)))
    for (c, apply, _), w in zip(jobs, whole):
        stored = grid.stored_shape(c)
        chunk = prep.empty(stored, "C")
        old = None if w else _decode(prep, c, olds[c])
        if old is None:
            if not w:
                prep.fill(chunk)
        else:
            chunk[...] = old
        apply(chunk)
        key = prep.chunk_key(c)
        if not prep.write_empty_chunks and prep.is_fill(chunk):
            prep.store.erase(key)
        else:
            prep.store.set(key, _pipeline(prep, stored).encode(chunk, key))


def _write_basic(prep, selection, value) -> None:
    sel = normalize_basic_selection(selection, prep.shape)
    full = broadcast_value(prep, value, sel.out_shape)[sel.expand_index]

    def job(p):
        def apply(chunk):
            chunk[p.chunk_selection] = full[p.out_selection]
        return p.chunk_coords, apply, p.covers_chunk

    _update(prep, [job(p) for p in iter_chunk_projections(sel, prep.grid)])


def _write_orthogonal(prep, norm, value) -> None:
    proj = orthogonal_projection(norm, prep.shape, prep.grid)
    full = broadcast_value(prep, value, proj.out_shape)[proj.expand_index]

    def job(t, c):
        chunk_idx, out_idx = proj.task_parts(t)

        def apply(chunk):
            chunk[np.ix_(*chunk_idx)] = full[np.ix_(*out_idx)]
        return tuple(int(v) for v in c), apply, False

    _update(prep, [job(t, c) for t, c in enumerate(proj.task_coords())])


def _write_points(prep, proj, value) -> None:
    vals = broadcast_value(prep, value, proj.out_shape).reshape(-1)

    def job(k, c):
        lo, hi = int(proj.offsets[k]), int(proj.offsets[k + 1])
        where = tuple(proj.in_chunk[lo:hi].T)
        src = vals[proj.out_index[lo:hi]]

        def apply(chunk):
            chunk[where] = src  # repeated points: the last one wins (stable grouping)
        return tuple(int(v) for v in c), apply, False

    _update(prep, [job(k, c) for k, c in enumerate(proj.chunk_coords)])


def set_selection(prep, kind: str, selection, value) -> None:
    """Write ``value`` at a selection of ``kind`` (numpy's broadcasting)."""
    shape = prep.shape
    if kind == "basic":
        _write_basic(prep, selection, value)
    elif kind == "block":
        _write_basic(prep, block_to_basic(selection, shape, prep.grid), value)
    elif kind == "orthogonal":
        norm = normalize_orthogonal(selection, shape)
        if _is_plain_basic(norm):
            _write_basic(prep, norm, value)
        else:
            _write_orthogonal(prep, norm, value)
    elif kind == "coordinate":
        proj = coordinate_projection(check_coordinate(selection, shape), shape, prep.grid)
        _write_points(prep, proj, value)
    else:
        _write_points(prep, mask_projection(check_mask(selection, shape), shape, prep.grid),
                      value)


def resize_irregular(prep, metadata, new_shape, written=None, delete_outside_chunks=True):
    """Write and return the new metadata, then erase the chunks wholly outside
    ``new_shape`` (the crash-safe order of core/_resize.py; growing past the declared edges
    adds edges of the last edge's length; nothing erased if not ``delete_outside_chunks``)."""
    shape = _check_shape(new_shape, len(prep.shape))
    grid = prep.grid
    keys = [prep.chunk_key(c) for c in grid.all_chunk_coords()
            if any(grid.start(d, k) >= n for d, (k, n) in enumerate(zip(c, shape)))
            ] if delete_outside_chunks else []
    md = metadata.with_shape(shape)
    write_node(prep.store, prep.path, md)
    if written is not None:  # as core/_resize.py: the handle takes the stored shape
        written(md)
    if keys:
        prep.store.erase_values(keys)
    return md
