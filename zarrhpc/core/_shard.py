"""Reads and writes of sharded arrays (a ``sharding_indexed`` codec alone in the chain).

Read ``a[sel]``: the selection is planned over the *inner* chunk grid and grouped by
shard. The touched shards are opened together (``store.open_readers``: one open per shard
on LocalStore, one request bringing size and index on a remote store, none when its index
is cached); each reader gives the shard's length and its index, read for all shards with
one ``store.read_ranges`` and checked against that length
(:meth:`ShardLayout.decode_index`) before any inner byte is read; then the wanted inner
chunks of every shard are read through their readers with one more ``read_ranges`` call
(a remote store coalesces neighbouring ranges and fetches all of them concurrently). When
at least half a shard is wanted it is fetched whole instead (one ``get_values`` for all
such shards) and its index taken from those bytes.

- One element: two small reads, then the engine's one-task decode (``read_point``).
- Inner chain with a native form (codecs.native): the inner chunks' bytes go to the
  engine as ``sources`` and are decoded into the result without the GIL.
- Otherwise: :func:`plan_inner_reads` makes a flat list of :class:`InnerRead` jobs (byte
  range of one inner chunk, part wanted, destination view) and :func:`run_inner_reads`
  executes them on ``config.executor()`` with the Python codecs. Planning and executing
  are apart so that another executor can run the same jobs.

Write ``a[sel] = x``: on a LocalStore, the shards the selection covers whole are
written by the engine in one call (Engine.write_shards): inner chunks gathered, checked
against the fill value and encoded in parallel, shard after shard, into a reused arena;
the thread finishing a shard's last inner chunk writes index and chunks with one writev
to a temporary file and renames it into place. Any other shard (partly covered, another
store, an index chain other than bytes/crc32c, or handed back by the engine) goes through
the Python path: every touched shard is rebuilt in memory and stored once
(``store.set`` is atomic). Inner chunks the selection does not touch keep their encoded
bytes as they are; touched ones are merged (read, decode, copy) when partly covered and
encoded; inner chunks equal to the fill value are left out unless ``write_empty_chunks``;
a shard left with no inner chunk is erased. With the ``shard_lock`` setting every shard
written is held under the store's lock (``LocalStore.lock``: flock) from the read of the
shard it rebuilds to its store, so concurrent processes lose no inner chunk; whole shards
take the lock too (then through the Python path: the engine's writes take none), else
one renamed in between a partial writer's read and rename would be lost. With at least
as many shards as threads each shard is one task (so shards are stored while others are encoded); with fewer, the inner
chunks are encoded in a few batches per worker thread. A store that uploads concurrently
(``store.concurrency > 1``, a remote store) gets the shards in batches instead: one
``get_values`` for the stored shards a batch merges with, the batch rebuilt on the worker
threads, one ``set_values``/``erase_values`` on an uploader thread while the next batch
is built (`zarrhpc.core._write.UploadQueue`): one PUT per shard, nothing else.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from zarrhpc import config, errors
from zarrhpc.codecs.bytes import BytesCodec
from zarrhpc.codecs.crc32c import Crc32cCodec
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.codecs.sharding import EMPTY
from zarrhpc.core._read import _has_ellipsis, check_out, engine_error, native_target
from zarrhpc.core._shard_index import _InnerRanges, _shard_split  # noqa: F401 (re-exported)
from zarrhpc.core._stream import arrived_units
from zarrhpc.core._tasks import map_all
from zarrhpc.core._write import UploadQueue, _prepare_value, store_encoded
from zarrhpc.errors import CorruptChunkError
from zarrhpc.indexing import (
    iter_chunk_projections,
    normalize_basic_selection,
    plan_chunks,
    point_index,
)

__all__ = [
    "InnerRead",
    "plan_inner_reads",
    "plan_point_read",
    "read_sharded",
    "run_inner_reads",
    "write_sharded",
]




class InnerRead(NamedTuple):
    """One inner chunk to read: where its bytes are, what part is wanted, where it goes.

    ``offset < 0`` means the inner chunk (or its whole shard) is not stored: ``dst`` gets
    the fill value.
    """

    key: str  # the shard's store key
    offset: int
    length: int
    inner_coords: tuple  # coordinates of the inner chunk inside its shard
    chunk_selection: tuple  # part of the inner chunk wanted
    dst: np.ndarray  # view of the output
    shard_nbytes: int
    data: object = None  # the encoded inner chunk when the plan has already read it


def _group_by_shard(layout, projections) -> dict:
    ratio = layout.grid_shape
    by_shard: dict[tuple, list] = {}
    for p in projections:
        sc = tuple(c // r for c, r in zip(p.chunk_coords, ratio))
        by_shard.setdefault(sc, []).append(p)
    return by_shard


def _local(coords, ratio) -> tuple:
    return tuple(c % r for c, r in zip(coords, ratio))


def plan_inner_reads(prep, sel, full: np.ndarray) -> list[InnerRead]:
    """The jobs that fill ``full`` (the full-shape output view) with ``sel`` of ``prep``.

    Reads what the jobs need: per touched shard its length, its index and the inner
    chunks wanted, all through one reader (one version of the shard: a shard another
    writer replaces meanwhile never pairs an old index with new bytes), shards in
    batches of ``_READERS_AT_ONCE`` (each batch of inner chunks in one ``read_ranges``:
    remote stores coalesce and fetch it concurrently).
    """
    layout = prep.sharding
    store = prep.store
    by_shard = _group_by_shard(layout, iter_chunk_projections(sel, layout.chunk_shape))
    keys = {sc: prep.chunk_key(sc) for sc in by_shard}
    jobs = []
    order = list(keys)
    for first in range(0, len(order), _READERS_AT_ONCE):
        group = order[first:first + _READERS_AT_ONCE]
        readers = store.open_readers([keys[sc] for sc in group])
        try:
            opened = [(sc, r) for sc, r in zip(group, readers) if r is not None]
            bufs = store.read_ranges([(r, [layout.index_range(r.size)]) for _, r in opened])
            pending = []  # per opened shard: its jobs still to be given their bytes
            for (sc, reader), (buf,) in zip(opened, bufs):
                index = layout.decode_index(buf, reader.size, keys[sc])
                pending.append((reader, _shard_jobs(prep, keys[sc], by_shard[sc], index,
                                                    reader.size, full, jobs)))
            for sc, reader in zip(group, readers):
                if reader is None:
                    _shard_jobs(prep, keys[sc], by_shard[sc], None, 0, full, jobs)
            datas = store.read_ranges([(r, [(j.offset, j.length) for j in js])
                                       for r, js in pending])
            for (_, js), got in zip(pending, datas):
                jobs += [j._replace(data=d) for j, d in zip(js, got)]
        finally:
            for reader in readers:
                if reader is not None:
                    reader.close()
    return jobs


def _shard_jobs(prep, key, projections, index, nbytes, full, out) -> list[InnerRead]:
    """The jobs of one shard: those of inner chunks not stored go to ``out``, those to
    read are returned."""
    ratio = prep.sharding.grid_shape
    stored = []
    for p in projections:
        local = _local(p.chunk_coords, ratio)
        dst = full[p.out_selection]
        off = EMPTY if index is None else index[local][0]
        if off == EMPTY:
            out.append(InnerRead(key, -1, 0, local, p.chunk_selection, dst, nbytes))
        else:
            stored.append(InnerRead(key, int(off), int(index[local][1]), local,
                                    p.chunk_selection, dst, nbytes))
    return stored


# The store keys of the shards point reads opened, cached per prepared form
# (``Prepared.shard_keys``): encoding a key costs ~1 us of a ~12 us read. Not process-wide: a
# cache keyed by (prefix, shard) was shared by arrays at the same prefix (the roots of two
# stores) with other chunk key encodings ("c/1/0/0", "c.1.0.0", "1.0.0"), and a point read
# of one opened the other's key, found no shard and returned the fill value.
_SHARD_KEYS_MAX = 4096


def plan_point_read(prep, point: tuple, dst: np.ndarray) -> list[InnerRead]:
    """The one job reading the element at ``point`` (non-negative, in range) into ``dst``.

    The lean path of a single-element read: no selection object, no projection; one
    reader gives the shard's size, its index and the inner chunk's bytes (two small
    reads), which the job carries in ``data``.
    """
    layout = prep.sharding
    shard = []
    local = []
    within = []
    for i, s, c in zip(point, layout.shard_shape, layout.chunk_shape):
        shard.append(i // s)
        r = i % s
        local.append(r // c)
        within.append(slice(r % c, r % c + 1))
    shard = tuple(shard)
    keys = prep.shard_keys
    key = keys.get(shard)
    if key is None:
        key = prep.chunk_key(shard)
        if len(keys) >= _SHARD_KEYS_MAX:
            keys.clear()
        keys[shard] = key
    local = tuple(local)
    csel = (*within, Ellipsis)
    reader = prep.store.open_reader(key)
    if reader is None:
        return [InnerRead(key, -1, 0, local, csel, dst, 0)]
    with reader:
        nbytes = reader.size
        index = layout.decode_index(reader.read(*layout.index_range(nbytes)), nbytes, key)
        off = index.item(*local, 0)
        if off == EMPTY:
            return [InnerRead(key, -1, 0, local, csel, dst, nbytes)]
        length = index.item(*local, 1)
        return [InnerRead(key, off, length, local, csel, dst, nbytes, reader.read(off, length))]


def _decode_into(prep, job: InnerRead, buf) -> None:
    where = f"{job.key}: inner chunk {job.inner_coords}"
    if buf is None:
        raise CorruptChunkError(f"{where}: the shard vanished while it was being read")
    if len(buf) != job.length:  # bytes, or a 1-d byte memoryview of a mapping
        raise CorruptChunkError(
            f"{where}: expected {job.length} bytes at offset {job.offset}, got "
            f"{len(buf)} (the shard changed or is truncated)")
    decoded = prep.sharding.inner.decode(buf, where)
    src = decoded[job.chunk_selection]
    prep.copy(job.dst, src)


def run_inner_reads(prep, jobs: list[InnerRead]) -> None:
    """Execute read jobs: the fill value where nothing is stored, else decode the bytes
    the plan read (on the executor when there are several) and copy into ``dst``."""
    pairs = []
    for job in jobs:
        if job.offset < 0:
            prep.fill(job.dst)
        else:
            pairs.append((job, job.data))
    pool = config.executor() if len(pairs) > 1 else None
    if pool is None:
        for pair in pairs:
            _decode_into(prep, *pair)
    else:
        map_all(pool, lambda pair: _decode_into(prep, *pair), pairs)


def _index_value(index, local) -> tuple[int, int] | None:
    off = index.item(*local, 0)
    return None if off == EMPTY else (off, index.item(*local, 1))


_READERS_AT_ONCE = 256  # shards open together (a LocalStore reader holds a file open)


def _shard_sources(prep, shards: list) -> Iterator[tuple[int, int, object]]:
    """Encoded bytes of the inner chunks wanted from every shard of a request.

    ``shards``: ``(key, locals_, whole)`` per shard, ``locals_`` the inner chunks wanted
    and ``whole`` true when most of the shard is wanted. Yields ``(n, m, buffer)`` (None:
    not stored) for inner chunk ``locals_[m]`` of shard ``n``, each as soon as it is in.
    The shards wanted whole are fetched with one `get_values` (the index taken from those
    same bytes); the others are opened together (`Store.open_readers`: size and index with
    one request each on a remote store, none when cached), their indexes read with one
    `Store.read_ranges` and then every wanted inner chunk of all of them with one
    `Store.iter_ranges`, so that a remote store coalesces and fetches them in one
    concurrent batch while the caller decodes what has arrived. Each reader reads one
    version of its shard.
    """
    layout = prep.sharding
    store = prep.store
    whole = [n for n, s in enumerate(shards) if s[2]]
    if whole:
        for n, raw in zip(whole, store.get_values([shards[n][0] for n in whole])):
            key, locals_, _ = shards[n]
            if raw is None:
                yield from ((n, m, None) for m in range(len(locals_)))
                continue
            view = memoryview(raw)
            index = layout.read_index(view, key)
            for m, local in enumerate(locals_):
                sp = _index_value(index, local)
                yield n, m, None if sp is None else view[sp[0]:sp[0] + sp[1]]
    part = [n for n, s in enumerate(shards) if not s[2]]
    for first in range(0, len(part), _READERS_AT_ONCE):
        group = part[first:first + _READERS_AT_ONCE]
        readers = store.open_readers([shards[n][0] for n in group])
        try:
            yield from _read_inner(prep, shards, group, readers)
        finally:
            for reader in readers:
                if reader is not None:
                    reader.close()


def _read_inner(prep, shards: list, group: list, readers: list):
    layout = prep.sharding
    store = prep.store
    opened = [(n, r) for n, r in zip(group, readers) if r is not None]
    for n, r in zip(group, readers):
        if r is None:
            yield from ((n, m, None) for m in range(len(shards[n][1])))
    indexes = store.read_ranges([(r, [layout.index_range(r.size)]) for _, r in opened])
    requests = []
    plans = []
    for (n, reader), (buf,) in zip(opened, indexes):
        key, locals_, _ = shards[n]
        index = layout.decode_index(buf, reader.size, key)
        spans = [_index_value(index, local) for local in locals_]
        slots = [m for m, sp in enumerate(spans) if sp is not None]
        yield from ((n, m, None) for m, sp in enumerate(spans) if sp is None)
        requests.append((reader, [spans[m] for m in slots]))
        plans.append((n, slots, spans))
    for r, i, buf in store.iter_ranges(requests):
        n, slots, spans = plans[r]
        m = slots[i]
        off, length = spans[m]
        if len(buf) != length:
            raise CorruptChunkError(
                f"{shards[n][0]}: inner chunk {shards[n][1][m]}: expected {length} bytes at "
                f"offset {off}, got {len(buf)} (the shard changed while it was read)")
        yield n, m, buf


def _read_native_ranges(prep, engine, plan, target, where, full) -> None:
    """The engine reads the inner chunks ``where`` locates; those it hands back (a form
    it does not decode) are decoded here from the same shard versions."""
    prefix, root_len, kind, sep = target
    status, err_task, code, msg = engine.read(
        full, plan.arrays(), plan.steps, path_prefix=prefix, root_len=root_len,
        key_kind=kind, sep=sep, nthreads=config.get("threads"),
        ranges=(where.shard_coords, where.file, where.offset, where.length))
    if code:
        raise errors.engine_error(code, where.name(err_task), msg)
    for t in (int(t) for t in np.flatnonzero(status == FALLBACK)):
        src = where.read(prep, t)
        if src is None or len(src) != where.length[t]:
            raise CorruptChunkError(f"{where.name(t)}: the shard changed while it was read")
        p = plan.projection(t)
        job = InnerRead(where.keys[where.file[t]], 0, len(src),
                        tuple(int(x) for x in where.local[t]), p.chunk_selection,
                        full[p.out_selection], 0)
        _decode_into(prep, job, src)


def _read_native(prep, engine, sel, full: np.ndarray) -> None:
    """Read with the native engine, decoding without the GIL: on a directory the engine
    reads the inner chunks' byte ranges of the shard files itself (the indexes read and
    checked here, once per shard); otherwise their bytes are gathered per shard first.

    Measured (W5 sub-volume, 8 shards of 256^3 float32, 1440 inner chunks touched, blosc
    lz4): gathering first read the 4 mostly wanted shards whole into Python bytes (~200 MB
    into fresh pages, one thread) before any decode began; the engine's own reads run on
    every thread into reused buffers and only the inner chunks wanted."""
    layout = prep.sharding
    plan = plan_chunks(sel, layout.chunk_shape)
    if plan.ntasks == 0:
        return
    ratio = layout.grid_shape
    target = native_target(prep)
    if target is not None:
        coords = np.array(list(plan.iter_coords()), dtype=np.int64).reshape(-1, len(ratio))
        where = _InnerRanges(prep, coords)
        try:
            _read_native_ranges(prep, engine, plan, target, where, full)
            if where.unchanged(prep.store):
                return
        except errors.ZarrhpcError:
            if where.unchanged(prep.store):
                raise
        finally:
            where.close()
        # a shard was replaced between its index and the reads of its inner chunks: read
        # again, index and inner chunks through one reader per shard
    _read_native_gathered(prep, engine, plan, full)


def _read_native_gathered(prep, engine, plan, full: np.ndarray) -> None:
    """The inner chunks' bytes gathered per shard through one reader each (index and
    inner chunks from one version of the shard), then decoded by the engine."""
    ratio = prep.sharding.grid_shape
    layout = prep.sharding
    by_shard: dict[tuple, list] = {}
    coords = list(plan.iter_coords())
    for t, c in enumerate(coords):
        by_shard.setdefault(tuple(i // r for i, r in zip(c, ratio)), []).append(t)
    keys = {sc: prep.chunk_key(sc) for sc in by_shard}
    shards = [(keys[sc], [_local(coords[t], ratio) for t in tasks],
               2 * len(tasks) >= layout.nchunks) for sc, tasks in by_shard.items()]
    task_of = list(by_shard.values())
    arrivals = ((task_of[n][m], buf) for n, m, buf in _shard_sources(prep, shards))
    nthreads = config.get("threads")
    if plan.ntasks > 1 and prep.store.concurrency > 1:
        # a remote store: each unit of the plan decoded as soon as its inner chunks are
        # in while the other requests go on (zarrhpc.core._stream)
        for sub, sources in arrived_units(plan, arrivals):
            _decode_sources(prep, engine, sub, full, sources, min(nthreads, sub.ntasks))
        return
    sources: list = [None] * plan.ntasks
    for t, buf in arrivals:
        sources[t] = buf
    _decode_sources(prep, engine, plan, full, sources, nthreads)


def _decode_sources(prep, engine, plan, full: np.ndarray, sources: list,
                    nthreads: int) -> None:
    """Decode the inner chunks ``sources`` of ``plan``'s tasks into ``full``."""
    ratio = prep.sharding.grid_shape

    def where(c) -> tuple[str, tuple]:
        return prep.chunk_key(tuple(i // r for i, r in zip(c, ratio))), _local(c, ratio)

    status, err_task, code, msg = engine.read(
        full, plan.arrays(), plan.steps, sources=sources, nthreads=nthreads)
    if code:
        key, local = where(plan.coords(err_task))
        raise errors.engine_error(code, f"{key}: inner chunk {local}", msg)
    for t in np.flatnonzero(status == FALLBACK):
        t = int(t)
        p = plan.projection(t)
        key, local = where(p.chunk_coords)
        src = sources[t]
        if src is None:  # pragma: no cover - the engine fills missing chunks itself
            prep.fill(full[p.out_selection])
            continue
        job = InnerRead(key, 0, len(src), local, p.chunk_selection, full[p.out_selection], 0)
        _decode_into(prep, job, src)


def _read_point(prep, point: tuple):
    """One element: two small reads, then the engine's one-task decode (or Python's)."""
    result = np.empty((1,) * len(point), dtype=prep.dtype)
    (job,) = plan_point_read(prep, point, result)
    if job.data is None:
        prep.fill(result)
        return result.reshape(())[()]
    engine = prep.sharding.inner_engine
    if engine is not None:
        out = np.empty((), dtype=prep.dtype)
        within = [s.start for s in job.chunk_selection[:-1]]
        status, _, code, _ = engine.read_point(out, job.inner_coords, within, source=job.data)
        if not code and status != FALLBACK:
            return out[()]
    _decode_into(prep, job, job.data)  # decodes in Python, or raises the error
    return result.reshape(())[()]


def read_sharded(prep, selection, out=None):
    """``prep[selection]`` for a sharded prep (see the module docstring)."""
    if out is None:
        point = point_index(selection, prep.shape)
        if point is not None:
            return _read_point(prep, point)
    sel = normalize_basic_selection(selection, prep.shape)
    if out is None:
        result = prep.empty(sel.out_shape)
    else:
        result = check_out(out, sel.out_shape, prep.dtype)
    full = result[sel.expand_index]
    engine = prep.sharding.inner_engine
    if engine is not None:
        _read_native(prep, engine, sel, full)
    else:
        run_inner_reads(prep, plan_inner_reads(prep, sel, full))
    if out is None and result.ndim == 0 and not _has_ellipsis(selection):
        return result[()]
    return result


# ------------------------------------------------------------------------------ writes


class _ShardWrite:
    """One shard being rebuilt: existing encoded inner chunks, then the new ones."""

    def __init__(self, key: str, projections: list):
        self.key = key
        self.projections = projections
        self.raw = None  # the existing shard's bytes
        self.index = None  # its checked index, (nchunks, 2)
        self.pieces: dict[int, object] = {}


def _needs_existing(prep, sc, projections) -> bool:
    """False when the shard lies wholly inside the array and the selection covers every
    inner chunk of it. A shard cut by the array's edge is always merged with the stored
    one, as zarr-python merges it: its inner chunks past the edge (which a shrunk array
    shows again when it grows, or another handle of a larger shape wrote) are kept."""
    layout = prep.sharding
    if not all(p.covers_chunk for p in projections):
        return True
    region = prep.grid.chunk_region(sc)
    if any(r.stop - r.start != n for r, n in zip(region, prep.grid.chunk_shape)):
        return True
    return len(projections) != layout.nchunks


def _load_existing(prep, sw: _ShardWrite, raw=False) -> None:
    """Take the stored shard's inner chunks (``raw``: its bytes when already fetched)."""
    layout = prep.sharding
    if raw is False:
        raw = prep.store.get(sw.key)
    if raw is None:
        return
    sw.raw = memoryview(raw)
    sw.index = layout.read_index(sw.raw, sw.key).reshape(-1, 2)
    for flat in range(layout.nchunks):
        off, length = int(sw.index[flat, 0]), int(sw.index[flat, 1])
        if off != EMPTY:
            sw.pieces[flat] = sw.raw[off:off + length]


def _encode_inner(prep, sw: _ShardWrite, p, src: np.ndarray):
    """Encode one touched inner chunk; returns (flat index, bytes or None)."""
    layout = prep.sharding
    flat = 0
    inside = True
    local = []
    for c, r, n, size in zip(p.chunk_coords, layout.grid_shape, layout.chunk_shape, prep.shape):
        flat = flat * r + c % r
        local.append(c % r)
        inside = inside and (c + 1) * n <= size
    if p.covers_chunk and inside and all(s.step == 1 for s in p.chunk_selection[:-1]):
        chunk = src
    else:
        chunk = prep.empty(layout.chunk_shape, "C")
        # an inner chunk cut by the array's edge keeps its elements past the edge
        old = sw.pieces.get(flat) if not (p.covers_chunk and inside) else None
        if old is None:
            prep.fill(chunk)
        else:
            decoded = layout.inner.decode(old, f"{sw.key}: inner chunk {tuple(local)}")
            prep.copy(chunk, decoded)
        prep.copy(chunk[p.chunk_selection], src)
    if not prep.write_empty_chunks and prep.is_fill(chunk):
        return flat, None
    return flat, layout.inner.encode(chunk, sw.key)


_scratch = threading.local()  # per-thread shard buffer, reused across writes


def _store_shard(prep, sw: _ShardWrite) -> None:
    if not sw.pieces:
        prep.store.erase(sw.key)
        return
    total = sum(memoryview(p).nbytes for p in sw.pieces.values()) + prep.sharding.index_nbytes
    buf = getattr(_scratch, "buf", None)
    if buf is None or len(buf) < total:
        buf = _scratch.buf = bytearray(max(total, 2 * len(buf) if buf is not None else 0))
    # store.set copies (writes) the bytes before returning, so the buffer can be reused
    prep.store.set(sw.key, prep.sharding.assemble(sw.pieces, out=buf))


def _map(pool, fn, items) -> list:
    """``[fn(x) for x in items]``, on the pool in a few contiguous batches.

    Batches, not one task per item: with small inner chunks the executor's per-task cost
    would exceed the work.
    """
    if pool is None or len(items) <= 1:
        return [fn(item) for item in items]
    nbatch = min(len(items), 4 * config.get("threads"))
    size = -(-len(items) // nbatch)
    batches = [items[i:i + size] for i in range(0, len(items), size)]
    return [r for rs in map_all(pool, lambda batch: [fn(x) for x in batch], batches)
            for r in rs]


def _index_form(layout):
    """``(index_start, index_crc)`` when the engine can write the index, else None.

    The engine writes uint64 little-endian pairs, optionally followed by a crc32c: the
    ``bytes`` + ``crc32c`` index chain zarr-python and tensorstore write, or ``bytes``.
    """
    pipe = layout.index_pipeline
    ab = pipe.array_bytes
    if pipe.array_array or not isinstance(ab, BytesCodec) or ab._endian not in ("little", None):
        return None
    bb = pipe.bytes_bytes
    if len(bb) > 1 or (bb and not isinstance(bb[0], Crc32cCodec)):
        return None
    return layout.index_location == "start", bool(bb)


def _shard_groups(layout, plan, shape, edges: bool = False):
    """Per dimension, the runs of plan pieces that cover one shard's whole extent.

    Returns ``(g_n, g_off, g_piece, g_count, g_shard)`` for the engine (see
    Engine.write_shards), or None when no shard is wholly covered. A shard cut by the
    array's edge counts only with ``edges`` (when no such shard is stored): otherwise it
    is merged with the stored one (the Python path, `_needs_existing`).
    """
    g_n, g_off, g_piece, g_count, g_shard = [], [], [], [], []
    for pieces, c, r, size in zip(plan.per_dim, layout.chunk_shape, layout.grid_shape, shape):
        nchunks = -(-size // c)
        runs: dict[int, list] = {}
        for k, p in enumerate(pieces):
            if edges:  # the in-array part of every inner chunk
                whole = p.chunk_slice.start == 0 and p.count == min(c, size - p.chunk_index * c)
            else:  # whole inner chunks of a shard wholly inside the array
                shard_end = (p.chunk_index // r + 1) * r
                whole = (p.chunk_slice.start == 0 and p.count == c and shard_end <= nchunks
                         and shard_end * c <= size)
            run = runs.setdefault(p.chunk_index // r, [k, 0, True])
            run[1] += 1
            run[2] = run[2] and whole
        g_off.append(len(g_piece))
        for shard, (first, count, whole) in runs.items():
            if whole and count == (min(r, nchunks - shard * r) if edges else r):
                g_piece.append(first)
                g_count.append(count)
                g_shard.append(shard)
        g_n.append(len(g_piece) - g_off[-1])
        if g_n[-1] == 0:
            return None
    return g_n, g_off, g_piece, g_count, g_shard


def _write_native(prep, sel, full, target) -> tuple[set, int]:
    """Write the shards ``sel`` wholly covers with the engine.

    Returns the coordinates of the shards written (those handed back excluded) and how
    many shards ``sel`` touches in all.
    """
    layout = prep.sharding
    engine = layout.inner_engine
    form = _index_form(layout)
    if engine is None or form is None or any(d.step != 1 for d in sel.dims):
        return set(), -1
    plan = plan_chunks(sel, layout.chunk_shape)
    touched = math.prod(len({p.chunk_index // r for p in pieces})
                        for pieces, r in zip(plan.per_dim, layout.grid_shape))
    groups = _shard_groups(layout, plan, prep.shape, edges=True) if plan.ntasks else None
    if groups is None:
        return set(), touched
    g_n, g_off, _, _, g_shard = groups
    cut = [sc for sc in itertools.product(*[g_shard[o:o + n] for o, n in zip(g_off, g_n)])
           if any(r.stop - r.start != n for r, n in zip(prep.grid.chunk_region(sc),
                                                        prep.grid.chunk_shape))]
    if any(prep.store.exists(prep.chunk_key(sc)) for sc in cut):
        # a stored shard cut by the edge keeps what lies past it (merged by the Python
        # path); shards not stored yet (a new array) have nothing to keep
        groups = _shard_groups(layout, plan, prep.shape)
        if groups is None:
            return set(), touched
    g_n, g_off, _, _, g_shard = groups
    prefix, root_len, kind, sep = target
    status, err, code, msg = engine.write_shards(
        full, plan.arrays(), prep.shape, layout.grid_shape, groups, index_start=form[0],
        index_crc=form[1], path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep,
        write_empty_chunks=prep.write_empty_chunks, durable=prep.store.durable,
        nthreads=config.get("threads"))
    coords = list(itertools.product(*[g_shard[o:o + n] for o, n in zip(g_off, g_n)]))
    if code:
        raise engine_error(prep, prep.chunk_key(coords[err]), code, msg)
    return {sc for sc, st in zip(coords, status) if st != FALLBACK}, touched


def write_sharded(prep, selection, value) -> None:
    """``prep[selection] = value`` for a sharded prep (see the module docstring)."""
    sel = normalize_basic_selection(selection, prep.shape)
    full = _prepare_value(prep, value, sel)
    layout = prep.sharding
    # shard_lock: every shard stored under its store lock (a partial one from reading it
    # to storing it), whole shards too: a whole shard renamed in unlocked between a
    # partial writer's read and its rename would be lost. The engine's whole-shard
    # writes take no lock, so with one every shard goes the Python way.
    lock = getattr(prep.store, "lock", None) if config.get("shard_lock") else None
    target = native_target(prep) if not prep.store.read_only and lock is None else None
    done, touched = _write_native(prep, sel, full, target) if target else (set(), -1)
    if len(done) == touched:
        return
    by_shard = _group_by_shard(layout, iter_chunk_projections(sel, layout.chunk_shape))
    shards = {sc: _ShardWrite(prep.chunk_key(sc), ps) for sc, ps in by_shard.items()
              if sc not in done}
    if not shards:
        return
    pool = config.executor()
    if prep.store.concurrency > 1 and len(shards) > 1 and lock is None:
        _write_batched(prep, pool, list(shards.items()), full)
        return
    if pool is None or lock is not None or len(shards) >= config.get("threads"):
        # enough shards to keep every thread busy: one task per shard, so that shards
        # are stored while others are still being encoded
        _map(pool, lambda item: _write_shard(prep, *item, full, lock), list(shards.items()))
        return
    loads = [sw for sc, sw in shards.items() if _needs_existing(prep, sc, sw.projections)]
    _map(pool, lambda sw: _load_existing(prep, sw), loads)
    jobs = [(sw, p) for sw in shards.values() for p in sw.projections]
    results = _map(pool, lambda job: _encode_inner(prep, job[0], job[1],
                                                   full[job[1].out_selection]), jobs)
    for (sw, _), (flat, enc) in zip(jobs, results):
        if enc is None:
            sw.pieces.pop(flat, None)
        else:
            sw.pieces[flat] = enc
    _map(pool, lambda sw: _store_shard(prep, sw), list(shards.values()))


def _encode_touched(prep, sw: _ShardWrite, full: np.ndarray) -> None:
    """Encode the inner chunks ``sw`` touches into its pieces (existing ones loaded)."""
    for p in sw.projections:
        flat, enc = _encode_inner(prep, sw, p, full[p.out_selection])
        if enc is None:
            sw.pieces.pop(flat, None)
        else:
            sw.pieces[flat] = enc


def _write_shard(prep, sc, sw: _ShardWrite, full: np.ndarray, lock=None) -> None:
    """Rebuild and store one shard, its inner chunks encoded in this thread; under
    ``lock(key)`` (the store's, ``shard_lock``) from reading the existing shard (when
    it is needed) to storing the new one."""
    needs = _needs_existing(prep, sc, sw.projections)
    with lock(sw.key) if lock is not None else contextlib.nullcontext():
        if needs:
            _load_existing(prep, sw)
        _encode_touched(prep, sw, full)
        _store_shard(prep, sw)


def _build_shard(prep, sw: _ShardWrite, full: np.ndarray) -> tuple:
    """``(key, new shard bytes or None)``: the touched inner chunks encoded into ``sw``
    (whose existing chunks are loaded), None when no inner chunk is left."""
    _encode_touched(prep, sw, full)
    return sw.key, prep.sharding.assemble(sw.pieces)


def _write_batched(prep, pool, items: list, full: np.ndarray) -> None:
    """Shards to a store that uploads concurrently (a remote store), in batches: the
    stored shards a batch must merge with read by one ``get_values``, the batch's shards
    rebuilt on the worker threads, then each shard's upload started (`UploadQueue`; one
    ``erase_values`` for shards left empty) while the next batch is built. One PUT per
    shard; about ``store.concurrency`` shards uploading at once."""
    store = prep.store
    size = max(2 * config.get("threads"), 4)
    with UploadQueue(store) as queue:
        for first in range(0, len(items), size):
            batch = items[first:first + size]
            loads = [sw for sc, sw in batch if _needs_existing(prep, sc, sw.projections)]
            if loads:
                for sw, raw in zip(loads, store.get_values([sw.key for sw in loads])):
                    _load_existing(prep, sw, raw)
            encoded = _map(pool, lambda item: _build_shard(prep, item[1], full), batch)
            if len(items) <= size:
                store_encoded(store, encoded)  # one batch: nothing to overlap with
            else:
                queue.put(encoded)
