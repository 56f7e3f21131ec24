"""Write a basic selection: whole chunks straight from the caller, partial chunks merged.

On a LocalStore with a chain the native engine knows (codecs.native), every chunk of the
request is gathered, checked against the fill value, encoded and written (temporary file,
rename) by the engine in one call, on its threads, without the GIL. Otherwise, and for any
chunk the engine hands back, the Python path below does the same per chunk.

A chunk whose in-prep part is wholly covered is encoded from the caller's data (the
bytes codec's single copy makes the stored layout); an edge chunk gets a fill-valued
buffer first. A partly covered chunk is read, merged and re-encoded. A chunk equal to the
fill value (bit for bit) is erased instead of stored unless ``write_empty_chunks``.
Each chunk is written atomically by the store (temporary file, then rename).
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._prepared import is_fill_chunk
from zarrhpc.core._read import native_target, raise_engine_error
from zarrhpc.errors import BroadcastError
from zarrhpc.indexing import iter_chunk_projections, normalize_basic_selection, plan_chunks

__all__ = ["broadcast_value", "is_fill_chunk", "write_selection"]


def broadcast_value(prep, value, shape) -> np.ndarray:
    """``value`` as an array of the array's dtype, broadcast to ``shape`` (numpy's rules)."""
    dtype = prep.dtype
    if isinstance(value, np.ndarray) and value.dtype == dtype:
        arr = value
    else:
        try:
            arr = np.asarray(value, dtype=dtype)
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"value of type {type(value).__name__}: not convertible to {dtype}: {exc}"
            ) from exc
    try:
        return np.broadcast_to(arr, tuple(shape))
    except ValueError:
        raise BroadcastError(
            f"value of shape {arr.shape} cannot be broadcast to the selection's shape "
            f"{tuple(shape)}"
        ) from None


def _prepare_value(prep, value, sel) -> np.ndarray:
    """The value broadcast to the selection's result shape, as a full-shape view."""
    return broadcast_value(prep, value, sel.out_shape)[sel.expand_index]


def _write_chunk(prep, coords, chunk_selection, src: np.ndarray, covers: bool) -> None:
    key = prep.chunk_key(coords)
    chunk_shape = prep.chunks
    region = prep.grid.chunk_region(coords)
    inside = all(r.stop - r.start == c for r, c in zip(region, chunk_shape))
    if covers and inside:
        # whole chunk straight from the caller: src is chunk-shaped; a view in the
        # selection's order (negative steps are handled by mapping into chunk order)
        chunk = src if all(s.step == 1 for s in chunk_selection[:-1]) else None
        if chunk is None:
            chunk = prep.empty(chunk_shape, "C")
            prep.copy(chunk[chunk_selection], src)
    else:
        chunk = prep.empty(chunk_shape, "C")
        raw = None if covers else prep.store.get(key)
        if raw is None:
            prep.fill(chunk)
        else:
            decoded = prep.pipeline.decode(raw, key)
            prep.copy(chunk, decoded)
        prep.copy(chunk[chunk_selection], src)
    if not prep.write_empty_chunks and prep.is_fill(chunk):
        prep.store.erase(key)
        return
    prep.store.set(key, prep.pipeline.encode(chunk, key))


def write_selection(prep, selection, value) -> None:
    """``prep[selection] = value`` with numpy's broadcasting."""
    sel = normalize_basic_selection(selection, prep.shape)
    full = _prepare_value(prep, value, sel)
    engine = prep.engine
    if engine is not None and not prep.store.read_only:
        target = native_target(prep)
        if target is not None:
            _write_native(prep, engine, sel, full, target)
            return
    plan = [
        (p.chunk_coords, p.chunk_selection, full[p.out_selection], p.covers_chunk)
        for p in iter_chunk_projections(sel, prep.chunks)
    ]
    pool = config.executor() if len(plan) > 1 else None
    if pool is None:
        for job in plan:
            _write_chunk(prep, *job)
    else:
        list(pool.map(lambda job: _write_chunk(prep, *job), plan))


def _write_native(prep, engine, sel, full: np.ndarray, target) -> None:
    plan = plan_chunks(sel, prep.chunks)
    if plan.ntasks == 0:
        return
    prefix, root_len, kind, sep = target
    status, err_task, code, msg = engine.write(
        full, plan.arrays(), plan.steps, prep.shape, path_prefix=prefix, root_len=root_len,
        key_kind=kind, sep=sep, write_empty_chunks=prep.write_empty_chunks,
        durable=prep.store.durable, nthreads=config.get("threads"),
    )
    if code:
        raise_engine_error(prep, plan, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = plan.projection(int(t))
        _write_chunk(prep, p.chunk_coords, p.chunk_selection, full[p.out_selection],
                     p.covers_chunk)
