"""Reads and writes of orthogonal and point selections (oindex, vindex, masks).

Life cycle: indexing/ has projected the selection (an OrthogonalProjection or a
PointProjection: arrays only). Here every touched chunk is located once:

- chunk source: a plain array's chunks come with ONE ``store.get_values(keys)`` call; a
  sharded array's inner chunks are found through each touched shard's index (one reader
  per shard: its length, then its index, checked) and fetched with ONE
  ``store.get_partial_values`` call for all their byte ranges. On a directory store the
  native engine reads them itself: chunk files, or the inner chunks' ranges of the shard
  files (``ranges=``), in parallel without the GIL. Nested sharding needs
  nothing more: the inner chain decodes a whole inner shard.
- read: each chunk is decoded once, on ``config.executor()``, then numpy fancy indexing
  moves the wanted elements into the result (``np.ix_`` per task for orthogonal, the
  points' coordinates for point selections). Missing chunks give the fill value.
- write: each touched chunk is read (if stored), decoded, scattered into, then encoded and
  stored, or erased when it equals the fill value unless ``write_empty_chunks``; a shard
  is rebuilt once with all its touched inner chunks (core/_shard.py's shard writer).
  Points keep selection order within a chunk, so repeated coordinates end with the last
  value, as numpy's assignment does. On a directory store (plain arrays) point,
  orthogonal and mask writes are the engine's (``write_points``, ``write_orthogonal``,
  ``write_mask``: csrc/zh_sel_write.c), one task per chunk without the GIL; the mask
  write never builds per-point arrays. Into shards on a directory store (index chain
  bytes [+ crc32c], no ``shard_lock``) point writes are the engine's too
  (``write_shard_points``: csrc/zh_shard_sel.c, one task per touched shard: read once,
  its touched inner chunks merged and encoded, the others kept, written atomically);
  masks reach it as points (their projection), orthogonal selections up to
  ``_ORTHO_AS_POINTS`` elements as the points of their product. A shard it hands back
  (corrupt, a codec it cannot run) is rebuilt here, which names the problem.

The native engine seam: when the prepared engine has ``read_points`` /
``read_orthogonal`` (the native engineer's kernels), :func:`_native_points` /
:func:`_native_orthogonal` hand it the projection; tasks it reports as FALLBACK run here.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from zarrhpc import config
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._read import engine_error
from zarrhpc.core._shard import (
    _index_form,
    _load_existing,
    _ShardWrite,
    _store_shard,
)
from zarrhpc.core._shard_index import _InnerRanges, _shard_split, _unique_rows
from zarrhpc.core._tasks import map_all
from zarrhpc.core._write import broadcast_value
from zarrhpc.errors import CorruptChunkError, StoreError
from zarrhpc.indexing import coordinate_projection, mask_projection

__all__ = ["fetch_chunks", "read_floor", "read_mask", "read_orthogonal", "read_points",
           "write_mask", "write_orthogonal", "write_points"]


# ------------------------------------------------------------------ chunk source


def fetch_chunks(prep, coords: np.ndarray) -> tuple[list, list]:
    """Encoded bytes (or None) and a name (key) of every chunk at ``coords`` (n, ndim).

    Plain arrays: one ``get_values`` call. Sharded: the inner chunks through the shard
    indexes, one ``get_partial_values`` call for all of them.
    """
    store = prep.store
    if prep.sharding is None:
        keys = [prep.chunk_key(tuple(int(i) for i in c)) for c in coords]
        return store.get_values(keys), keys
    for _attempt in range(_ATTEMPTS):
        with _InnerRanges(prep, coords) as where:
            names = [where.name(i) for i in range(len(coords))]
            present = np.flatnonzero(where.length >= 0)
            got = where.read_all(prep, present)
            if where.unchanged(prep.store):
                break
    else:
        raise _changing(where)
    bufs: list = [None] * len(coords)
    for i, buf in zip(present, got):
        n = int(where.length[i])
        if buf is None or len(buf) != n:
            raise CorruptChunkError(
                f"{names[i]}: expected {n} bytes at offset {int(where.offset[i])}, got "
                f"{0 if buf is None else len(buf)} (the shard changed or is truncated)")
        bufs[i] = buf
    return bufs, names


# reads of a sharded array whose shards another writer keeps replacing: tries before
# the read fails (each try reads indexes and inner chunks of one version per shard)
_ATTEMPTS = 3


def _changing(where):
    return StoreError(f"{where.keys[0] if where.keys else '?'}: the shards were replaced "
                      f"by another writer {_ATTEMPTS} times while being read")


def _decode(prep, buf, name: str) -> np.ndarray:
    if prep.sharding is None:
        return prep.pipeline.decode(buf, name)
    return prep.sharding.inner.decode(buf, name)


# fewer wanted elements than 1 in _SPARSE of the touched chunks' (measured: below that a
# view of mapped bytes beats copying whole uncompressed chunks; above, the copy wins)
_SPARSE = 1000


def _chunk_loader(prep, coords: np.ndarray, nelements: int = 0):
    """``load(i) -> decoded chunk i (array) or None (not stored)`` for reads.

    With a native engine each chunk is decoded whole by one engine call (GIL released,
    so the executor's threads decode in parallel): LocalStore files are opened by the
    engine itself, other stores' bytes come from the one ``fetch_chunks`` call. Edge
    chunks are decoded for their in-array part only (the rest is never indexed).
    Otherwise the Python codecs decode the fetched bytes. So do uncompressed chunks
    when the request wants few of their elements (``nelements`` in all): the decoded
    chunk is then a view of the stored bytes (LocalStore maps large files) and only the
    pages holding wanted elements are touched.
    """
    engine = _native_engine(prep)
    if (engine is not None and prep.sharding is None and not prep.pipeline.bytes_bytes
            and nelements * _SPARSE < len(coords) * math.prod(prep.chunks)):
        engine = None
    target = prep.native_target() if prep.sharding is None else None
    bufs = names = None
    if engine is None or target is None:
        bufs, names = fetch_chunks(prep, coords)
    if engine is None:
        def load(i):
            return None if bufs[i] is None else _decode(prep, bufs[i], names[i])
        return load
    ndim = prep.ndim
    chunk_shape = prep.chunks
    ones = np.ones(ndim, np.int64)
    piece_off = np.arange(ndim, dtype=np.int64)
    zeros = np.zeros(ndim, np.int64)
    steps = (1,) * ndim
    shape = np.asarray(prep.shape, np.int64)
    cshape = np.asarray(chunk_shape, np.int64)

    def load(i):
        c = coords[i].astype(np.int64)
        if bufs is not None and bufs[i] is None:
            return None
        count = np.minimum(cshape, shape - c * cshape)
        out = np.empty(chunk_shape, dtype=prep.dtype)
        pieces = (ones, piece_off, c, zeros, count, zeros)
        if target is not None:
            prefix, root_len, kind, sep = target
            status, _, code, msg = engine.read(out, pieces, steps, path_prefix=prefix,
                                               root_len=root_len, key_kind=kind, sep=sep)
        else:
            status, _, code, msg = engine.read(out, pieces, steps, sources=[bufs[i]])
        if code:
            name = names[i] if names else prep.chunk_key(tuple(int(x) for x in c))
            raise engine_error(prep, name, code, msg)
        if status[0] == FALLBACK:
            if bufs is None:
                key = prep.chunk_key(tuple(int(x) for x in c))
                raw = prep.store.get(key)
                return None if raw is None else _decode(prep, raw, key)
            return _decode(prep, bufs[i], names[i])
        return out

    return load


def _run(fn, items) -> None:
    pool = config.executor() if len(items) > 1 else None
    if pool is None:
        for item in items:
            fn(item)
    else:
        map_all(pool, fn, items)  # no job outlives a failure (core/_tasks.py)


# ------------------------------------------------------------------ native seam


def _native_engine(prep):
    if not prep.byte_kernels:
        return None
    return prep.engine if prep.sharding is None else prep.sharding.inner_engine


def _engine_call(prep, method, coords: np.ndarray, *args):
    """Call ``method`` with the store target or the chunks' sources; raise its error.

    A directory store is read by the engine itself: chunk files, or for a sharded array
    the inner chunks' byte ranges of the shard files (the indexes read and checked here,
    once per shard; the engine checks each range against the file again before reading).
    """
    target = prep.native_target()
    kwargs = {"nthreads": config.get("threads")}
    name = None
    if target is not None:
        prefix, root_len, kind, sep = target
        kwargs.update(path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep)
        if prep.sharding is not None:
            return _engine_call_ranges(prep, method, coords, args, kwargs)
    else:
        kwargs["sources"], names = fetch_chunks(prep, coords)
        name = names.__getitem__
    status, err_task, code, msg = method(*args, **kwargs)
    if code:
        key = name(err_task) if name else prep.chunk_key(tuple(coords[err_task]))
        raise engine_error(prep, key, code, msg)
    return np.flatnonzero(status == FALLBACK)


def _engine_call_ranges(prep, method, coords, args, kwargs):
    """`_engine_call` of a sharded array on a directory: the engine reads the inner
    chunks where the indexes (read here) say, from the shard files it opens by path; a
    shard replaced meanwhile is read again (`_shard_index`)."""
    for _attempt in range(_ATTEMPTS):
        with _InnerRanges(prep, coords) as where:
            kwargs["ranges"] = (where.shard_coords, where.file, where.offset, where.length)
            status, err_task, code, msg = method(*args, **kwargs)
            if where.unchanged(prep.store):
                if code:
                    raise engine_error(prep, where.name(err_task), code, msg)
                return np.flatnonzero(status == FALLBACK)
    raise _changing(where)


def _native_points(prep, proj, flat: np.ndarray):
    """Tasks left to Python after the engine's ``read_points``, or None (no engine)."""
    engine = _native_engine(prep)
    if engine is None or not hasattr(engine, "read_points"):
        return None
    return _engine_call(prep, engine.read_points, proj.chunk_coords, flat,
                        proj.chunk_coords, proj.offsets, proj.in_chunk, proj.out_index)


def read_floor(prep, proj, flat: np.ndarray, whole: bool = True) -> None:
    """The floor of :func:`read_points` (``zarrhpc bench``'s floor rows): the same
    fetch and decode of every touched chunk on the engine, nothing gathered into
    ``flat`` (a buffer of ``proj.npoints`` elements, not written). ``whole``: each chunk
    read and decoded whole, as every peer does; else only what the points need (the
    wanted blosc blocks, the uncompressed runs), as :func:`read_points` does. Shard
    indexes are read as in a real read. Raises when the engine cannot run it.
    """
    engine = _native_engine(prep)
    if engine is None or not hasattr(engine, "read_points"):
        raise StoreError("the floor read needs the native engine")
    method = functools.partial(engine.read_points, floor=1 if whole else 2)
    left = _engine_call(prep, method, proj.chunk_coords, flat.reshape(-1),
                        proj.chunk_coords, proj.offsets, proj.in_chunk, proj.out_index)
    if len(left):
        raise StoreError(f"the floor read left {len(left)} chunks to the Python codecs")


def _native_orthogonal(prep, proj, full: np.ndarray, coords: np.ndarray):
    """Tasks left to Python after the engine's ``read_orthogonal``, or None.

    The engine gets ``full`` and the dimensions' tables concatenated: ``(nchunks (ndim,),
    chunks (sum nd,), offsets (sum nd+1,), in_chunk, out)``; dimension ``d``'s entries
    start at ``sum(nchunks[:d])`` in ``chunks`` and at that plus ``d`` in ``offsets``,
    whose values index the concatenated ``in_chunk``/``out`` directly. Task ``t`` is the
    ``t``-th chunk of the product over the dimensions, last dimension fastest.
    """
    engine = _native_engine(prep)
    if engine is None or not hasattr(engine, "read_orthogonal"):
        return None
    return _engine_call(prep, engine.read_orthogonal, coords, full, _ortho_tables(proj))


def _ortho_tables(proj) -> tuple:
    """The engine's orthogonal tables of ``proj`` (see `_native_orthogonal`)."""
    dims = proj.dims
    base = np.cumsum([0] + [d.count for d in dims[:-1]]).astype(np.int64)

    def cat(parts):
        if not parts:
            return np.zeros(0, np.int64)
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.int64)

    return (
        np.array([len(d.chunks) for d in dims], dtype=np.int64),
        cat([d.chunks for d in dims]),
        cat([d.offsets + b for d, b in zip(dims, base)]),
        cat([d.in_chunk for d in dims]),
        cat([d.out for d in dims]),
    )


# ------------------------------------------------------------------ reads


def read_orthogonal(prep, proj, full: np.ndarray) -> None:
    """Fill ``full`` (``proj.full_shape``) with the orthogonal selection ``proj``."""
    if proj.ntasks == 0 or full.size == 0:
        return
    coords = proj.task_coords()
    tasks = _native_orthogonal(prep, proj, full, coords)
    if tasks is None:
        tasks = np.arange(len(coords))
    if len(tasks) == 0:
        return
    load = _chunk_loader(prep, coords[tasks], math.prod(proj.full_shape))

    def one(i):
        cidx, oidx = proj.task_parts(int(tasks[i]))
        dst = np.ix_(*oidx) if oidx else ()
        chunk = load(i)
        if chunk is None:
            full[dst] = prep.fill_value
        else:
            full[dst] = chunk[np.ix_(*cidx)] if cidx else chunk

    _run(one, list(range(len(tasks))))


def read_points(prep, proj, flat: np.ndarray) -> None:
    """Fill ``flat`` (the C-contiguous result, raveled) with the points of ``proj``."""
    n = len(proj.chunk_coords)
    if n == 0 or proj.npoints == 0:
        return
    tasks = _native_points(prep, proj, flat.reshape(proj.out_shape))
    if tasks is None:
        tasks = np.arange(n)
    if len(tasks) == 0:
        return
    load = _chunk_loader(prep, proj.chunk_coords[tasks], proj.npoints)

    def one(i):
        k = tasks[i]
        lo, hi = proj.offsets[k], proj.offsets[k + 1]
        dst = proj.out_index[lo:hi]
        chunk = load(i)
        if chunk is None:
            flat[dst] = prep.fill_value
        else:
            flat[dst] = chunk[tuple(proj.in_chunk[lo:hi].T)]

    _run(one, list(range(len(tasks))))


def read_mask(prep, mask: np.ndarray, result_for):
    """The elements a full-shape boolean ``mask`` selects (C order), read by the engine's
    per-chunk mask pass, or None when that does not apply (no engine, a sharded array,
    a store the engine does not open itself, chunks narrower than 8 along the last
    dimension, or a chunk left to the Python codecs): the caller then projects the mask
    to points. ``result_for(shape)`` gives the result array (``out=`` checked).

    Why (W10: a 1 % mask of 512^3 float32, 64^3 chunks, 1.34 M points): projecting the
    mask to points builds ~110 MB of per-point arrays per read (chunk, coordinates,
    rank) and scans the mask on one thread. Here ``Engine.mask_ranks`` counts every row
    segment (a row's part inside one chunk) on the pool and keeps its elements as bits
    (16 MB of ranks and 16 MB of bits for W10, segment-major so that a chunk's rows are
    consecutive: read in the mask's own row-major order, a task's strided 64-byte
    pieces of the 128 MB mask stalled on memory and made it slower than the point path);
    each chunk's task then finds its points in its bits. Measured (CPU time, loaded
    machine): 115-117 ms against the point path's 122-125 ms uncompressed, 148-162
    against 156-172 ms with blosc; since wave 9 (csrc/zh_mask.c: SSE2 count, ranks per
    block of rows, one branch-light pass per chunk) ~75 and ~131 ms. The rest is the
    chunks' bytes (a 1 % mask touches every 8 KiB of every chunk: whole chunks are read
    and decoded) and one read of the mask.
    """
    engine = _native_engine(prep)
    if (engine is None or prep.sharding is not None or not hasattr(engine, "read_mask")
            or mask.ndim != prep.ndim or mask.ndim == 0 or prep.chunks[-1] < 8):
        return None
    target = prep.native_target()
    if target is None:
        return None
    if mask.dtype != np.bool_ or not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask, dtype=np.bool_)
    nthreads = config.get("threads")
    rank, bits = engine.mask_ranks(mask, prep.shape, nthreads=nthreads)
    n = int(rank[-1])
    result = result_for((n,))
    flat = result if result.flags.c_contiguous else prep.empty((n,), "C")
    prefix, root_len, kind, sep = target
    status, err_task, code, msg = engine.read_mask(
        flat, prep.shape, rank, bits, path_prefix=prefix, root_len=root_len, key_kind=kind,
        sep=sep, nthreads=nthreads)
    if code:
        grid = tuple(-(-s // c) for s, c in zip(prep.shape, prep.chunks))
        coords = tuple(int(i) for i in np.unravel_index(err_task, grid))
        raise engine_error(prep, prep.chunk_key(coords), code, msg)
    if (status == FALLBACK).any():
        return None
    if flat is not result:
        result[...] = flat
    return result


# ------------------------------------------------------------------ writes


def _update_chunks(prep, coords: np.ndarray, apply) -> None:
    """Read-modify-write every chunk at ``coords``: ``apply(k, chunk)`` scatters into it."""
    if len(coords) == 0:
        return
    chunk_shape = prep.chunks
    wec = prep.write_empty_chunks

    def fresh(old, name):
        chunk = prep.empty(chunk_shape, "C")
        if old is None:
            prep.fill(chunk)
        else:
            prep.copy(chunk, _decode(prep, old, name))
        return chunk

    store = prep.store
    if prep.sharding is None:
        olds, keys = fetch_chunks(prep, coords)

        def one(k):
            chunk = fresh(olds[k], keys[k])
            apply(k, chunk)
            if not wec and prep.is_fill(chunk):
                store.erase(keys[k])
            else:
                store.set(keys[k], prep.pipeline.encode(chunk, keys[k]))

        _run(one, list(range(len(coords))))
        return
    layout = prep.sharding
    shards, local = _shard_split(prep, coords)
    uniq, inv = _unique_rows(shards)
    members = np.argsort(inv, kind="stable")
    bounds = np.searchsorted(inv[members], np.arange(len(uniq) + 1))
    flat_local = np.ravel_multi_index(tuple(local.T), layout.grid_shape)

    def shard(s):
        sw = _ShardWrite(prep.chunk_key(tuple(int(i) for i in uniq[s])), [])
        _load_existing(prep, sw)
        for k in members[bounds[s]:bounds[s + 1]]:
            f = int(flat_local[k])
            chunk = fresh(sw.pieces.get(f), f"{sw.key}: inner chunk {tuple(local[k])}")
            apply(int(k), chunk)
            if not wec and prep.is_fill(chunk):
                sw.pieces.pop(f, None)
            else:
                sw.pieces[f] = layout.inner.encode(chunk, sw.key)
        _store_shard(prep, sw)

    _run(shard, list(range(len(uniq))))


def write_orthogonal(prep, proj, value: np.ndarray) -> None:
    """Store ``value`` (broadcast to ``proj.full_shape``) at the orthogonal selection."""
    if proj.ntasks == 0 or value.size == 0:
        return
    if (prep.sharding is not None and prep.ndim and value.dtype == prep.dtype
            and math.prod(proj.full_shape) <= _ORTHO_AS_POINTS and _shard_native(prep)):
        # into shards, as points: the engine's shard task merges them (zh_shard_sel.c)
        flat = np.broadcast_to(value, proj.full_shape).reshape(-1)
        write_points(prep, _ortho_points(prep, proj), flat)
        return
    coords = proj.task_coords()
    tasks = np.arange(len(coords))
    if prep.ndim and value.dtype == prep.dtype:
        status = _native_write(prep, "write_orthogonal", value, _ortho_tables(proj),
                               prep.shape, key=lambda t: prep.chunk_key(tuple(coords[t])))
        if status is not None:
            tasks = np.flatnonzero(status == FALLBACK)
            if len(tasks) == 0:
                return

    def apply(i, chunk):
        cidx, oidx = proj.task_parts(int(tasks[i]))
        if not cidx:
            chunk[...] = value
            return
        chunk[np.ix_(*cidx)] = value[np.ix_(*oidx)]

    _update_chunks(prep, coords[tasks], apply)


# the largest orthogonal write into shards handed to the engine as points (three int64
# coordinates and more per element; W9w's 64^3 is 262,144)
_ORTHO_AS_POINTS = 1 << 22


def _ortho_points(prep, proj):
    """The PointProjection of the orthogonal ``proj`` (points in the C order of its full
    shape, so a repeated index keeps its last value as numpy's assignment does)."""
    idx = []
    for d, c in zip(proj.dims, prep.chunks):
        i = np.empty(d.count, np.int64)
        i[d.out] = np.repeat(d.chunks * c, np.diff(d.offsets)) + d.in_chunk
        idx.append(i)
    coords = tuple(x.reshape(-1) for x in np.broadcast_arrays(*np.ix_(*idx)))
    return coordinate_projection(coords, prep.shape, prep.chunks)


def write_points(prep, proj, flat_value: np.ndarray, tasks=None) -> None:
    """Store ``flat_value`` (one value per point, result C order; a broadcast scalar
    too) at the points; ``tasks``: only these chunks of ``proj`` (default all)."""
    if proj.npoints == 0:
        return
    if tasks is None and prep.sharding is not None:
        status = _native_shard_points(prep, proj, _values(flat_value))
        tasks = np.arange(len(proj.chunk_coords)) if status is None else np.flatnonzero(
            status == FALLBACK)
    if tasks is None:
        status = _native_write(prep, "write_points", _values(flat_value), proj.chunk_coords,
                               proj.offsets, proj.in_chunk, proj.out_index, prep.shape,
                               key=lambda t: prep.chunk_key(tuple(proj.chunk_coords[t])))
        tasks = np.arange(len(proj.chunk_coords)) if status is None else np.flatnonzero(
            status == FALLBACK)
    if len(tasks) == 0:
        return
    ordered = flat_value[proj.out_index]  # grouped by chunk, selection order kept

    def apply(i, chunk):
        k = tasks[i]
        lo, hi = proj.offsets[k], proj.offsets[k + 1]
        chunk[tuple(proj.in_chunk[lo:hi].T)] = ordered[lo:hi]

    _update_chunks(prep, proj.chunk_coords[tasks], apply)


def write_mask(prep, mask: np.ndarray, value) -> bool:
    """``a.vindex[mask] = value`` by the engine's per-chunk mask pass (the counting pass
    of `read_mask`, then one task per chunk: read, merged, encoded, written atomically,
    without the GIL); False when that does not apply (as for `read_mask`: the caller
    then projects the mask to points). Chunks the engine hands back are written here.
    """
    engine = _native_engine(prep)
    if (engine is None or prep.sharding is not None or not hasattr(engine, "write_mask")
            or mask.ndim != prep.ndim or mask.ndim == 0 or prep.chunks[-1] < 8
            or prep.native_target() is None or prep.store.read_only):
        return False
    if mask.dtype != np.bool_ or not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask, dtype=np.bool_)
    rank, bits = engine.mask_ranks(mask, prep.shape, nthreads=config.get("threads"))
    flat = broadcast_value(prep, value, (int(rank[-1]),))
    grid = tuple(-(-s // c) for s, c in zip(prep.shape, prep.chunks))
    status = _native_write(
        prep, "write_mask", _values(flat), prep.shape, rank, bits,
        key=lambda t: prep.chunk_key(tuple(int(i) for i in np.unravel_index(t, grid))))
    if status is None:
        return False
    fallback = np.flatnonzero(status == FALLBACK)
    if len(fallback):  # those chunks through points, nothing else projected
        keep = np.zeros(grid, dtype=bool)
        keep.flat[fallback] = True
        proj = mask_projection(mask, prep.shape, prep.chunks)
        hit = np.ravel_multi_index(tuple(proj.chunk_coords.T), grid)
        write_points(prep, proj, flat, np.flatnonzero(keep.flat[hit]))
    return True


def _values(flat: np.ndarray) -> np.ndarray:
    """The engine's values: one when ``flat`` broadcasts a scalar, else contiguous."""
    if flat.ndim == 1 and flat.strides == (0,) and len(flat):
        return np.ascontiguousarray(flat[:1])
    return np.ascontiguousarray(flat)


def _shard_native(prep) -> bool:
    """Whether the engine writes points into this sharded array's shards: a directory
    store, an index chain it writes (`_index_form`), no ``shard_lock``."""
    engine = _native_engine(prep)
    return (engine is not None and hasattr(engine, "write_shard_points")
            and prep.native_target() is not None and not prep.store.read_only
            and _index_form(prep.sharding) is not None and not config.get("shard_lock"))


def _native_shard_points(prep, proj, values: np.ndarray):
    """Per inner chunk of ``proj``, FALLBACK or not, after the engine's point write into
    the shards on a directory store (one task per shard: read once, merged, written
    atomically; csrc/zh_shard_sel.c); or None when it does not apply (no engine, another
    store or index chain, the ``shard_lock`` setting: the Python path then)."""
    if not _shard_native(prep):
        return None
    layout = prep.sharding
    engine = _native_engine(prep)
    form = _index_form(layout)
    target = prep.native_target()
    shards, local = _shard_split(prep, proj.chunk_coords)
    uniq, inv = _unique_rows(shards)
    member = np.argsort(inv, kind="stable")
    first = np.searchsorted(inv[member], np.arange(len(uniq) + 1))
    flat = np.ravel_multi_index(tuple(local.T), layout.grid_shape)[member]
    prefix, root_len, kind, sep = target
    status, err, code, msg = engine.write_shard_points(
        values, proj.chunk_coords, proj.offsets, proj.in_chunk, proj.out_index, prep.shape,
        (uniq, first, member, flat, layout.nchunks), index_start=form[0],
        index_crc=form[1], path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep,
        write_empty_chunks=prep.write_empty_chunks, durable=prep.store.durable,
        nthreads=config.get("threads"))
    if code:
        raise engine_error(prep, prep.chunk_key(tuple(int(i) for i in uniq[err])), code, msg)
    return (status == FALLBACK)[inv].astype(np.uint8) * FALLBACK


def _native_write(prep, method: str, *args, key):
    """Task statuses of the engine's selection write ``method`` on a directory store,
    or None (no engine, sharded, another store, elements Python must handle); its first
    failure raised with the chunk's ``key(task)``."""
    engine = _native_engine(prep)
    target = prep.native_target()
    if (engine is None or prep.sharding is not None or target is None
            or not hasattr(engine, method) or prep.store.read_only):
        return None
    prefix, root_len, kind, sep = target
    status, err_task, code, msg = getattr(engine, method)(
        *args, path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep,
        write_empty_chunks=prep.write_empty_chunks, durable=prep.store.durable,
        nthreads=config.get("threads"))
    if code:
        raise engine_error(prep, key(err_task), code, msg)
    return status
