"""Point and orthogonal reads straight through the native engine, for the W8-W11
benchmarks and the engine's tests while the public ``vindex``/``oindex`` are not there.

Each function builds the projection with numpy (chunks touched in C order, the points
grouped by chunk), hands the whole request to :meth:`Engine.read_points` or
:meth:`Engine.read_orthogonal` in one call, and decodes in Python only the chunks the
engine reports as FALLBACK (raising the codecs' error, which names the key).
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config
from zarrhpc.core._read import decode_chunk_into, engine_error, native_target
from zarrhpc.codecs.native import FALLBACK

__all__ = ["engine_oindex", "engine_vindex", "ortho_plan", "ortho_tables", "point_plan"]


def point_plan(coords: tuple, shape, chunk_shape):
    """``(chunk_coords, offsets, in_chunk, out_index)`` for points ``coords`` (one int
    array per dimension, broadcast together; negative indices counted from the end)."""
    idx = np.broadcast_arrays(*[np.asarray(c, dtype=np.int64) for c in coords])
    flat = [np.where(i < 0, i + n, i).ravel() for i, n in zip(idx, shape)]
    for i, n in zip(flat, shape):
        if i.size and (i.min() < 0 or i.max() >= n):
            raise IndexError("index out of bounds")
    ndim = len(shape)
    cs = np.asarray(chunk_shape, dtype=np.int64)
    pts = np.stack(flat, axis=1) if ndim else np.zeros((1, 0), np.int64)
    chunk = pts // cs
    grid = [-(-n // c) for n, c in zip(shape, chunk_shape)]
    lin = np.ravel_multi_index(tuple(chunk.T), grid) if ndim else np.zeros(len(pts), np.int64)
    order = np.argsort(lin, kind="stable")
    lin_sorted = lin[order]
    starts = np.flatnonzero(np.r_[True, lin_sorted[1:] != lin_sorted[:-1]]) if len(order) else np.zeros(0, np.int64)
    offsets = np.r_[starts, len(order)].astype(np.int64)
    chunk_coords = chunk[order[starts]] if len(order) else np.zeros((0, ndim), np.int64)
    in_chunk = (pts - chunk * cs)[order]
    return chunk_coords, offsets, in_chunk, order.astype(np.int64)


def ortho_plan(indices, chunk_len: int):
    """``(chunks, offsets, in_chunk, out)`` of one dimension's integer index list."""
    idx = np.asarray(indices, dtype=np.int64)
    ch = idx // chunk_len
    order = np.argsort(ch, kind="stable")
    chs = ch[order]
    starts = np.flatnonzero(np.r_[True, chs[1:] != chs[:-1]]) if len(idx) else np.zeros(0, np.int64)
    return (chs[starts], np.r_[starts, len(idx)].astype(np.int64),
            (idx - ch * chunk_len)[order], order.astype(np.int64))


def ortho_tables(dims) -> tuple:
    """The engine's ``read_orthogonal`` tables from per-dimension ``(chunks, offsets,
    in_chunk, out)``: concatenated, offsets shifted to index the concatenated lists."""
    base = np.cumsum([0] + [len(d[2]) for d in dims[:-1]]).astype(np.int64)

    def cat(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    return (np.array([len(d[0]) for d in dims], dtype=np.int64), cat([d[0] for d in dims]),
            cat([d[1] + b for d, b in zip(dims, base)]), cat([d[2] for d in dims]),
            cat([d[3] for d in dims]))


def _run(array, call, coords_of, ntasks):
    prep = array._prep
    target = native_target(prep)
    if target is not None:
        prefix, root_len, kind, sep = target
        status, err, code, msg = call(path_prefix=prefix, root_len=root_len, key_kind=kind,
                                      sep=sep)
    else:
        keys = [prep.chunk_key(coords_of(t)) for t in range(ntasks)]
        status, err, code, msg = call(sources=prep.store.get_values(keys))
    if code:
        raise engine_error(prep, prep.chunk_key(coords_of(err)), code, msg)
    return np.flatnonzero(status == FALLBACK)


def engine_vindex(array, coords, *, nthreads=None) -> np.ndarray:
    """``array.vindex[coords]`` through Engine.read_points."""
    engine = array._engine
    chunk_coords, offsets, in_chunk, out_index = point_plan(coords, array.shape, array.chunks)
    out_shape = np.broadcast_shapes(*[np.shape(c) for c in coords])
    out = np.empty(out_shape, dtype=array.dtype)
    nthreads = nthreads or config.get("threads")

    def call(**kw):
        return engine.read_points(out, chunk_coords, offsets, in_chunk, out_index,
                                  nthreads=nthreads, **kw)

    for k in _run(array, call, lambda k: [int(c) for c in chunk_coords[k]], len(chunk_coords)):
        a, b = offsets[k], offsets[k + 1]
        cc = [int(c) for c in chunk_coords[k]]
        cs = array.chunks
        lo = [c * s for c, s in zip(cc, cs)]
        hi = [min(n, c + s) for c, s, n in zip(lo, cs, array.shape)]
        block = np.empty([h - l for l, h in zip(lo, hi)], dtype=array.dtype)
        decode_chunk_into(array._prep, array._chunk_key(cc), block,
                          tuple(slice(0, h - l) for l, h in zip(lo, hi)))
        out.reshape(-1)[out_index[a:b]] = block[tuple(in_chunk[a:b].T)]
    return out


def engine_oindex(array, indices, *, nthreads=None) -> np.ndarray:
    """``array.oindex[indices]`` (one integer array per dimension) through
    Engine.read_orthogonal."""
    engine = array._engine
    dims = [ortho_plan(np.where(np.asarray(i) < 0, np.asarray(i) + n, i), c)
            for i, n, c in zip(indices, array.shape, array.chunks)]
    out = np.empty([len(d[2]) for d in dims], dtype=array.dtype)
    nthreads = nthreads or config.get("threads")
    grid = [len(d[0]) for d in dims]

    def coords_of(t):
        pos = np.unravel_index(t, grid) if grid else ()
        return [int(d[0][p]) for d, p in zip(dims, pos)]

    def call(**kw):
        return engine.read_orthogonal(out, ortho_tables(dims), nthreads=nthreads, **kw)

    for t in _run(array, call, coords_of, int(np.prod(grid))):
        pos = np.unravel_index(t, grid)
        cc = coords_of(t)
        cs = array.chunks
        lo = [c * s for c, s in zip(cc, cs)]
        hi = [min(n, c + s) for c, s, n in zip(lo, cs, array.shape)]
        block = np.empty([h - l for l, h in zip(lo, hi)], dtype=array.dtype)
        decode_chunk_into(array._prep, array._chunk_key(cc), block,
                          tuple(slice(0, h - l) for l, h in zip(lo, hi)))
        sl = [slice(d[1][p], d[1][p + 1]) for d, p in zip(dims, pos)]
        ins = [d[2][s] for d, s in zip(dims, sl)]
        outs = [d[3][s] for d, s in zip(dims, sl)]
        out[np.ix_(*outs)] = block[np.ix_(*ins)]
    return out
