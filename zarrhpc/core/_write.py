"""Write a basic selection: whole chunks straight from the caller, partial chunks merged.

On a LocalStore with a chain the native engine knows (codecs.native), every chunk of the
request is gathered, checked against the fill value, encoded and written (temporary file,
rename) by the engine in one call, on its threads, without the GIL. Otherwise, and for any
chunk the engine hands back, the Python path below does the same per chunk.

A chunk whose in-prep part is wholly covered is encoded from the caller's data (the
bytes codec's single copy makes the stored layout); an edge chunk gets a fill-valued
buffer first. A partly covered chunk is read, merged and re-encoded. A chunk equal to the
fill value (bit for bit) is erased instead of stored unless ``write_empty_chunks``.
Each chunk is written atomically by the store (temporary file then rename; one PUT on an
object store, a multipart upload completed or aborted as a whole).

Any other store gets the chunks in batches (`_write_batched`): per batch, one
`Store.get_values` for the partly covered chunks, the encodes on the worker threads, then
one `Store.set_values` for the encoded chunks and one `Store.erase_values` for the empty
ones, run by an uploader thread while the next batch is read and encoded. A remote store
uploads a batch concurrently and about `Store.concurrency` chunks are in flight in all;
no request is made per chunk beyond its PUT (no existence check), and empty chunks are
erased with one batched delete per batch.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from zarrhpc import config
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._prepared import is_fill_chunk
from zarrhpc.core._read import native_target, raise_engine_error
from zarrhpc.errors import BroadcastError
from zarrhpc.indexing import iter_chunk_projections, normalize_basic_selection, plan_chunks

__all__ = ["UploadQueue", "broadcast_value", "edge_merge_dims", "is_fill_chunk", "store_encoded",
           "uploaders", "write_selection"]


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


def _encode_chunk(prep, coords, chunk_selection, src: np.ndarray, covers: bool, raw=False):
    """``(key, encoded bytes)`` of one chunk after the write, bytes None for a chunk equal
    to the fill value that is not stored (``write_empty_chunks`` off).

    ``raw``: the chunk's stored bytes when the caller fetched them already (None: not
    stored); by default a partly covered chunk is read here.
    """
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
        if covers:
            raw = None
        elif raw is False:
            raw = prep.store.get(key)
        if raw is None:
            prep.fill(chunk)
        else:
            decoded = prep.pipeline.decode(raw, key)
            prep.copy(chunk, decoded)
        prep.copy(chunk[chunk_selection], src)
    if not prep.write_empty_chunks and prep.is_fill(chunk):
        return key, None
    return key, prep.pipeline.encode(chunk, key)


def _write_chunk(prep, coords, chunk_selection, src: np.ndarray, covers: bool) -> None:
    key, encoded = _encode_chunk(prep, coords, chunk_selection, src, covers)
    if encoded is None:
        prep.store.erase(key)
    else:
        prep.store.set(key, encoded)


def store_encoded(store, encoded: list) -> None:
    """Store a batch of ``(key, bytes or None)``: one `set_values` for the values, one
    `erase_values` for the keys of chunks equal to the fill value."""
    puts = [(key, data) for key, data in encoded if data is not None]
    empties = [key for key, data in encoded if data is None]
    if puts:
        store.set_values(puts)
    if empties:
        store.erase_values(empties)


_uploaders: ThreadPoolExecutor | None = None
_uploaders_size = 0
_uploaders_lock = threading.Lock()


def uploaders(size: int = 8) -> ThreadPoolExecutor:
    """The threads that drive `store_encoded` calls while the caller encodes the next
    batch (at least ``size`` of them). They only wait for the store (whose requests run on
    the store's own threads), one per batch in flight, so an `UploadQueue` with ``ahead``
    batches needs ``ahead`` of them: fewer would quietly cap the uploads in flight."""
    global _uploaders, _uploaders_size
    with _uploaders_lock:
        if _uploaders is None or _uploaders_size < size:
            # a bigger pool replaces the old one, left to finish what it was given
            _uploaders_size = max(size, 8)
            _uploaders = ThreadPoolExecutor(_uploaders_size,
                                            thread_name_prefix="zarrhpc-upload")
        return _uploaders


class UploadQueue:
    """Batches handed to `uploaders`, at most ``ahead`` of them in flight.

    `put` waits for the oldest batch once ``ahead`` are in flight; `drain` waits for all
    and raises the first failure. Used as a context manager, an exception inside lets
    the batches in flight finish before it propagates (no upload outlives the call).
    """

    def __init__(self, store, ahead: int) -> None:
        self.store = store
        self.ahead = max(1, ahead)
        self._pending: deque = deque()

    def put(self, encoded: list) -> None:
        while len(self._pending) >= self.ahead:
            self._pending.popleft().result()
        self._pending.append(uploaders(self.ahead).submit(store_encoded, self.store, encoded))

    def drain(self) -> None:
        while self._pending:
            self._pending.popleft().result()

    def __enter__(self) -> UploadQueue:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if exc_info[0] is None:
            self.drain()
        else:
            wait(list(self._pending))
            self._pending.clear()


def _write_batched(prep, plan: list) -> None:
    """Write the chunks of ``plan`` in batches: the partly covered chunks of a batch read
    with one `get_values`, the batch encoded on the worker threads, then stored with one
    `set_values` (and one `erase_values`) by an uploader thread while the next batch is
    read and encoded. About `Store.concurrency` chunks are uploading at once."""
    store = prep.store
    pool = config.executor()
    threads = config.get("threads")
    size = max(2 * threads, 4)

    def encode(job):
        return _encode_chunk(prep, *job)

    with UploadQueue(store, store.concurrency // size) as queue:
        for first in range(0, len(plan), size):
            batch = plan[first:first + size]
            partial = [i for i, job in enumerate(batch) if not job[3]]
            if partial:  # chunks merged with what is stored: one batched read
                raws = store.get_values([prep.chunk_key(batch[i][0]) for i in partial])
                for i, raw in zip(partial, raws):
                    batch[i] = (*batch[i], raw)
            if pool is None or len(batch) == 1:
                encoded = [encode(job) for job in batch]
            else:
                encoded = list(pool.map(encode, batch))
            if len(plan) <= size:
                store_encoded(store, encoded)  # one batch: nothing to overlap with
            else:
                queue.put(encoded)


def edge_merge_dims(sel, chunks) -> list[tuple[int, int]]:
    """``(dimension, last chunk index)`` of the dimensions on which the selection takes the
    one element of an edge chunk by an integer or a step other than 1.

    zarr-python writes an edge chunk without reading it only when, on every dimension,
    the selection is a step-1 slice reaching the array's edge; otherwise it merges with
    the stored chunk, keeping the elements past the edge (which a shrunk array shows
    again when it grows, and which another handle of a larger shape wrote). Only a
    one-element edge chunk can be "covered" otherwise, hence the test on ``n % c``.
    """
    out = []
    for d, (ds, n, c) in enumerate(zip(sel.dims, sel.shape, chunks)):
        if c > 1 and n % c == 1 and ds.count and (ds.dropped or ds.step != 1) and \
                max(ds.start, ds.start + (ds.count - 1) * ds.step) == n - 1:
            out.append((d, n // c))
    return out


def write_selection(prep, selection, value) -> None:
    """``prep[selection] = value`` with numpy's broadcasting."""
    sel = normalize_basic_selection(selection, prep.shape)
    full = _prepare_value(prep, value, sel)
    engine = prep.engine
    merge = edge_merge_dims(sel, prep.chunks)
    if engine is not None and not prep.store.read_only and not merge:
        target = native_target(prep)
        if target is not None:
            _write_native(prep, engine, sel, full, target)
            return
    plan = [
        (p.chunk_coords, p.chunk_selection, full[p.out_selection],
         p.covers_chunk and not any(p.chunk_coords[d] == last for d, last in merge))
        for p in iter_chunk_projections(sel, prep.chunks)
    ]
    if len(plan) == 1:
        _write_chunk(prep, *plan[0])
    elif plan:
        _write_batched(prep, plan)


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
