"""Write a basic selection: whole chunks straight from the caller, partial chunks merged.

On a LocalStore with a chain the native engine knows (codecs.native), every chunk of the
request is gathered, checked against the fill value, encoded and written (temporary file,
rename) by the engine in one call, on its threads, without the GIL. Otherwise, and for any
chunk the engine hands back, the Python path below does the same per chunk.

A chunk whose in-array part is wholly covered is encoded from the caller's data (the
bytes codec's single copy makes the stored layout); an edge chunk gets a fill-valued
buffer first. A partly covered chunk is read, merged and re-encoded. A chunk equal to the
fill value (bit for bit) is erased instead of stored unless ``write_empty_chunks``.
Each chunk is written atomically by the store (temporary file, then rename).
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config
from zarrhpc._kernels import copy_into, fill
from zarrhpc.codecs import swap_size
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._read import native_target, raise_engine_error
from zarrhpc.errors import SelectionError
from zarrhpc.indexing import iter_chunk_projections, normalize_basic_selection, plan_chunks

__all__ = ["is_fill_chunk", "write_selection"]


def is_fill_chunk(chunk: np.ndarray, fill_bytes: bytes) -> bool:
    """True when every element has exactly the fill value's bit pattern."""
    itemsize = chunk.dtype.itemsize
    if itemsize in (1, 2, 4, 8):
        bits = np.frombuffer(fill_bytes, dtype=f"u{itemsize}")[0]
        return bool((chunk.view(f"u{itemsize}") == bits).all())
    flat = np.ascontiguousarray(chunk).reshape(-1).view(np.uint8).reshape(-1, itemsize)
    return bool((flat == np.frombuffer(fill_bytes, dtype=np.uint8)).all())


def _prepare_value(array, value, sel) -> np.ndarray:
    """The value as an array of the array's dtype, broadcast to the selection's full shape."""
    dtype = array.dtype
    if isinstance(value, np.ndarray) and value.dtype == dtype:
        arr = value
    else:
        try:
            arr = np.asarray(value, dtype=dtype)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"value of type {type(value).__name__}: not convertible to {dtype}: {exc}") from exc
    try:
        arr = np.broadcast_to(arr, sel.out_shape)
    except ValueError:
        raise SelectionError(
            f"value of shape {arr.shape} cannot be broadcast to the selection's shape {sel.out_shape}"
        ) from None
    return arr[sel.expand_index]


def _write_chunk(array, coords, chunk_selection, src: np.ndarray, covers: bool) -> None:
    key = array._chunk_key(coords)
    chunk_shape = array.chunks
    region = array._grid.chunk_region(coords)
    inside = all(r.stop - r.start == c for r, c in zip(region, chunk_shape))
    if covers and inside:
        # whole chunk straight from the caller: src is chunk-shaped; a view in the
        # selection's order (negative steps are handled by mapping into chunk order)
        chunk = src if all(s.step == 1 for s in chunk_selection[:-1]) else None
        if chunk is None:
            chunk = np.empty(chunk_shape, dtype=array.dtype)
            copy_into(chunk[chunk_selection], src)
    else:
        chunk = np.empty(chunk_shape, dtype=array.dtype)
        raw = None if covers else array._store.get(key)
        if raw is None:
            fill(chunk, array._fill_bytes)
        else:
            decoded = array._pipeline.decode(raw, key)
            copy_into(chunk, decoded, swap_size(decoded.dtype))
        copy_into(chunk[chunk_selection], src)
    if not array._write_empty_chunks and is_fill_chunk(chunk, array._fill_bytes):
        array._store.erase(key)
        return
    array._store.set(key, array._pipeline.encode(chunk, key))


def write_selection(array, selection, value) -> None:
    """``array[selection] = value`` with numpy's broadcasting."""
    array._check_writable()
    sel = normalize_basic_selection(selection, array.shape)
    full = _prepare_value(array, value, sel)
    engine = array._engine
    if engine is not None and not array._store.read_only:
        target = native_target(array)
        if target is not None:
            _write_native(array, engine, sel, full, target)
            return
    plan = [
        (p.chunk_coords, p.chunk_selection, full[p.out_selection], p.covers_chunk)
        for p in iter_chunk_projections(sel, array.chunks)
    ]
    pool = config.executor() if len(plan) > 1 else None
    if pool is None:
        for job in plan:
            _write_chunk(array, *job)
    else:
        list(pool.map(lambda job: _write_chunk(array, *job), plan))


def _write_native(array, engine, sel, full: np.ndarray, target) -> None:
    plan = plan_chunks(sel, array.chunks)
    if plan.ntasks == 0:
        return
    prefix, root_len, kind, sep = target
    status, err_task, code, msg = engine.write(
        full, plan.arrays(), plan.steps, array.shape, path_prefix=prefix, root_len=root_len,
        key_kind=kind, sep=sep, write_empty_chunks=array._write_empty_chunks,
        durable=array._store.durable, nthreads=config.get("threads"),
    )
    if code:
        raise_engine_error(array, plan, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = plan.projection(int(t))
        _write_chunk(array, p.chunk_coords, p.chunk_selection, full[p.out_selection],
                     p.covers_chunk)
