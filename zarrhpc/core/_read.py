"""Read a basic selection: plan once, then every chunk in one native call.

The plan is per dimension (indexing.ChunkPlan). When the prep's codec chain has a
native form (codecs.native), the engine reads every chunk the plan touches on its own
threads with the GIL released: a LocalStore's chunk files are opened and read by the
engine itself (only the bytes wanted when a chunk is uncompressed), other stores hand
over their buffers first. Each chunk is decompressed straight into the result when it is
wholly wanted and lies there in its decoded layout, otherwise into a per-thread buffer,
then moved by one strided copy with the byte swap and transpose fused. Missing chunks
are filled with the fill value.

Chunks the engine cannot do (a chain with a Python-only codec, an odd stream such as a
multi-member gzip) run here in Python: decode with the pipeline, then the same copy.
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config, errors
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._stream import fetched_units
from zarrhpc.core._tasks import map_all
from zarrhpc.errors import OutShapeError, StoreError, status_class
from zarrhpc.indexing import (
    iter_chunk_projections,
    normalize_basic_selection,
    plan_chunks,
    point_index,
)

__all__ = ["check_out", "decode_chunk_into", "engine_error", "native_target", "raise_engine_error",
           "read_box", "read_element", "read_selection"]



def decode_chunk_into(prep, key: str, dst: np.ndarray, chunk_selection, raw=False) -> None:
    """Fill ``dst`` with ``chunk[chunk_selection]`` of the chunk stored at ``key``.

    ``raw``: the chunk's encoded bytes when the caller has fetched them already (None:
    not stored); by default they are read here.
    """
    if raw is False:
        raw = prep.store.get(key)
    if raw is None:
        prep.fill(dst)
        return
    decoded = prep.pipeline.decode(raw, key)
    prep.copy(dst, decoded[chunk_selection])


def raise_engine_error(prep, plan, task: int, code: int, msg: str):
    """Raise the exception for the engine's first failure (task ``task`` of ``plan``)."""
    raise engine_error(prep, prep.chunk_key(plan.coords(task)), code, msg)


def engine_error(prep, key: str, code: int, msg: str) -> Exception:
    """The exception for an engine failure with status ``code`` at chunk (shard) ``key``
    (the class from zarrhpc.errors' one status table)."""
    cls, _ = status_class(code)
    if issubclass(cls, MemoryError):
        return errors.engine_error(code, key)
    if issubclass(cls, StoreError):
        return errors.engine_error(code, f"{key!r} in {prep.store!r}", msg)
    return errors.engine_error(code, key, msg)


def native_target(prep):
    """``(path_prefix, root_len, key_kind, separator)`` for a store the engine opens itself."""
    return prep.native_target()


def check_out(out, shape, dtype) -> np.ndarray:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out: expected a numpy.ndarray, got {type(out).__name__}")
    if out.shape != shape:  # zarr-python's words
        raise OutShapeError(f"shape of out argument doesn't match. Expected {tuple(shape)}, "
                            f"got {out.shape}")
    if out.dtype != dtype:
        raise TypeError(f"out: dtype {out.dtype} does not match the prep's {dtype}")
    if not out.flags.writeable:
        raise ValueError("out: the buffer is read-only")
    return out


def _has_ellipsis(selection) -> bool:
    if isinstance(selection, tuple):
        return any(s is Ellipsis for s in selection)
    return selection is Ellipsis


def _read_native(prep, engine, sel, full: np.ndarray) -> None:
    plan = plan_chunks(sel, prep.chunks)
    if plan.ntasks == 0:
        return
    target = native_target(prep)
    # no more threads than chunks: waking an idle worker for a one-chunk read (each dask
    # task reads one) costs more than the read itself on a busy machine
    nthreads = min(config.get("threads"), plan.ntasks)
    if target is not None:
        prefix, root_len, kind, sep = target
        status, err_task, code, msg = engine.read(
            full, plan.arrays(), plan.steps, path_prefix=prefix, root_len=root_len,
            key_kind=kind, sep=sep, nthreads=nthreads,
        )
    elif plan.ntasks > 1 and prep.store.concurrency > 1:
        # a remote store: every chunk requested at once, each unit of the plan decoded
        # as soon as its chunks are in while the other fetches go on
        for sub, sources in fetched_units(prep, plan):
            _read_native_sources(prep, engine, sub, full, sources, min(nthreads, sub.ntasks))
        return
    else:
        # one batched call: remote stores fetch every chunk of the request concurrently
        sources = prep.store.get_values([prep.chunk_key(c) for c in plan.iter_coords()])
        _read_native_sources(prep, engine, plan, full, sources, nthreads)
        return
    if code:
        raise_engine_error(prep, plan, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = plan.projection(int(t))
        decode_chunk_into(prep, prep.chunk_key(p.chunk_coords), full[p.out_selection],
                          p.chunk_selection)


def _read_native_sources(prep, engine, plan, full: np.ndarray, sources: list,
                         nthreads: int) -> None:
    """Decode the fetched ``sources`` of ``plan``'s tasks into ``full`` with the engine."""
    status, err_task, code, msg = engine.read(
        full, plan.arrays(), plan.steps, sources=sources, nthreads=nthreads)
    if code:
        raise_engine_error(prep, plan, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = plan.projection(int(t))
        # the bytes fetched for the engine serve the Python decode too (no second request)
        decode_chunk_into(prep, prep.chunk_key(p.chunk_coords), full[p.out_selection],
                          p.chunk_selection, sources[int(t)])


def _read_python(prep, sel, full: np.ndarray) -> None:
    plan = [
        (prep.chunk_key(p.chunk_coords), full[p.out_selection], p.chunk_selection)
        for p in iter_chunk_projections(sel, prep.chunks)
    ]
    # one batched call for every chunk (concurrent on remote stores), then decode
    raws = prep.store.get_values([key for key, _, _ in plan])
    plan = [(key, dst, csel, raw) for (key, dst, csel), raw in zip(plan, raws)]
    pool = config.executor() if len(plan) > 1 else None
    if pool is None:
        for job in plan:
            decode_chunk_into(prep, *job)
    else:
        # the first worker exception, once no job still writes into the output
        map_all(pool, lambda job: decode_chunk_into(prep, *job), plan)


def _read_point(prep, engine, idx):
    """One element of a store the engine does not open itself: the chunk's bytes handed
    over, one task, no plan (from a directory: `read_element`)."""
    chunks = prep.chunks
    coords = [i // c for i, c in zip(idx, chunks)]
    within = [i - k * c for i, k, c in zip(idx, coords, chunks)]
    out = np.empty((), dtype=prep.dtype)
    status, _, code, _msg = engine.read_point(out, coords, within,
                                              source=prep.store.get(prep.chunk_key(coords)))
    if code or status == FALLBACK:
        return None  # the general path decodes in Python or raises the error
    return out[()]


def read_element(prep, selection):
    """``a[i, j, ...]`` (an int per dimension) as zarr-python returns it, a 0-d ndarray,
    by one engine call on the array's directory; None when the caller must take the
    general path (another selection, a store the engine does not open, a sharded array,
    an index out of range, a chunk for the Python codecs, any error)."""
    target = prep.element_target
    if target is None:
        return None
    return prep.engine.read_element(selection, prep.shape, prep.dtype, *target)


def read_box(prep, selection):
    """A small box ``a[slices and ints]`` whose first entry is a slice (W4's block read),
    by the engine's lean read from the array's directory; None for anything it does not
    take (the general path then reads it: a large box, a step, a missing target...)."""
    target = prep.box_target
    if target is None:
        return None
    return prep.engine.read_small(selection, prep.shape, prep.dtype, *target,
                                  nthreads=config.get("threads"))


def read_selection(prep, selection, out=None):
    """``prep[selection]`` as numpy returns it (a scalar for an all-integer index)."""
    engine = prep.engine
    if out is None and engine is not None:
        # (a box of slices is no point: skip the test, a W4 block read costs ~10 us)
        boxy = type(selection) is tuple and selection and type(selection[0]) is slice
        idx = point_index(selection, prep.shape) if prep.shape and not boxy else None
        if idx is not None:
            if prep.element_target is not None:
                value = read_element(prep, idx)
                if value is not None:
                    return value[()]
            else:
                value = _read_point(prep, engine, idx)
                if value is not None:
                    return value
        # a small box (ints and step-1 slices) from a directory: planned natively
        value = read_box(prep, selection)
        if value is not None:
            return value
    sel = normalize_basic_selection(selection, prep.shape)
    dtype = prep.dtype
    if out is None:
        result = prep.empty(sel.out_shape)
    else:
        result = check_out(out, sel.out_shape, dtype)
    full = result[sel.expand_index]  # a view with dropped dims as length 1
    if engine is not None:
        _read_native(prep, engine, sel, full)
    else:
        _read_python(prep, sel, full)
    if out is None and result.ndim == 0 and not _has_ellipsis(selection):
        return result[()]  # numpy gives a scalar for a full integer index, not for `...`
    return result
