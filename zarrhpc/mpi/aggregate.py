"""Node-aggregated shards: the ranks of a node write one shard file together.

The ``"node"`` ownership policy (`zarrhpc.mpi.partition.node_plan`) gives every shard to
one node and every inner chunk of it to one rank of that node. A collective write under
it (`write_node`, reached through ``zarrhpc.mpi.write(..., ownership=Ownership(arr, comm,
"node", ...))``) then creates about one file per node per array instead of one per chunk:
on a parallel file system the metadata server, not the bandwidth, is the limit at scale.

Life cycle of one write:

1. two-phase exchange: pieces of inner chunks a rank holds but does not own go to their
   owner (one all-to-all; with a decomposition the node policy follows, the pieces stay
   within the node, and nothing moves when the regions are chunk-aligned);
2. every rank encodes its inner chunks with the array's inner codec chain (fill chunks
   left out, as the serial writer does);
3. the ranks of a node share their encoded sizes (one allgather on the node's
   communicator); each rank's place in each shard is the exclusive prefix sum of the
   sizes of the node's ranks before it (inner chunks in the order ranks, then C order);
4. each shard's index writer creates the shard under a temporary name in the key's
   directory and tells the node its name; every rank ``pwrite``\\ s its inner chunks at its
   offsets, in parallel (no gather through one rank);
5. once all of the node's ranks are done, the writer writes the index (the spec's format:
   `zarrhpc.codecs.sharding.ShardLayout`), ``fsync``\\ s when the store is durable, and
   renames the file over the key: a reader sees the old shard or the whole new one.

Every agreement between phases waits sleeping (`zarrhpc.mpi.collective._agree` with
``quiet``): a rank spinning in a blocking collective takes the core a rank of the same
node still needs. Shards that end up holding only fill are erased, as a serial write does. A failure at any
step reaches every rank (agreements on the whole communicator) and the writers remove
their temporary files. Needs a `LocalStore` (a shared POSIX file system).
"""

from __future__ import annotations

import os
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from zarrhpc import config
from zarrhpc._kernels import alloc, copy_into
from zarrhpc.codecs.abc import as_bytes_view
from zarrhpc.codecs.bytes import BytesCodec
from zarrhpc.codecs.sharding import EMPTY, is_fill_chunk
from zarrhpc.errors import UnsupportedError
from zarrhpc.mpi.nodes import node_comm
from zarrhpc.mpi.partition import box_shape, box_size, plan_pieces, to_slices

__all__ = ["write_node"]



def _local_store(arr):
    from zarrhpc.storage.local import LocalStore

    store = arr._store
    if not isinstance(store, LocalStore):
        raise UnsupportedError(f"{arr.name}: node-aggregated shards need a LocalStore on a "
                               f"shared file system, got {type(store).__name__}")
    return store


def write_node(arr, comm, ownership, box, boxes, data, what: str) -> None:
    """Write every rank's block under the node policy (see the module docstring).

    Called by `zarrhpc.mpi.collective.write` once the regions are gathered and checked;
    ``box``/``data`` are this rank's, ``boxes`` every rank's.
    """
    from zarrhpc.mpi._comm import _agree

    rank = comm.Get_rank()
    plan = ownership.plan
    part = plan.chunks
    layout = arr._sharding
    per_shard = tuple(s // c for s, c in zip(plan.shard_shape, layout.chunk_shape))
    scope = _scope(plan, boxes)  # the shards this write touches (the same on every rank)
    raw = _raw_layout(layout)
    results: dict = {}

    def encode(coords, chunk):
        if raw:  # stored as it is: copied straight into the file in phase 4
            empty = not arr._write_empty_chunks and is_fill_chunk(chunk, layout.fill_bytes)
            results[coords] = None if empty else chunk
        else:
            results[coords] = layout.encode_inner(chunk, arr.name, arr._write_empty_chunks)

    # phases 1 and 2: the chunks this rank holds whole are encoded while the pieces of the
    # others travel. On worker threads even when there is one: numcodecs' blosc then
    # compresses with one thread per call, as the native engine does (from the main thread
    # it would start its own threads in every rank, more than the node has cores).
    error = None
    with ThreadPoolExecutor(max(1, config.get("threads")),
                            thread_name_prefix="zarrhpc-encode") as pool:
        futures = []
        try:
            store = _local_store(arr)
            _gather_chunks(arr, comm, part, box, boxes, data, what, scope, per_shard,
                           lambda c, chunk: futures.append(pool.submit(encode, c, chunk)))
        except Exception as exc:  # noqa: BLE001 - agreed below
            error = exc
        for f in futures:
            try:
                f.result()
            except Exception as exc:  # noqa: BLE001
                error = error or exc
    _agree(comm, error, what, quiet=True)

    encoded: dict = defaultdict(list)  # shard flat index -> [(inner flat, bytes)]
    error = None
    try:
        jobs = sorted(results.items())
        shard_grid = plan.shard_node.shape
        for coords, enc in jobs:
            shard = tuple(c // k for c, k in zip(coords, per_shard))
            inner = tuple(c % k for c, k in zip(coords, per_shard))
            if enc is not None:
                encoded[int(np.ravel_multi_index(shard, shard_grid))].append(
                    (int(np.ravel_multi_index(inner, per_shard)),
                     enc if isinstance(enc, np.ndarray) else as_bytes_view(enc)))
        if arr._write_empty_chunks:  # inner chunks outside the array are stored as fill too
            _fill_outside(arr, plan, rank, per_shard, encoded, scope)
        for items in encoded.values():
            items.sort(key=lambda item: item[0])
    except Exception as exc:  # noqa: BLE001
        error = exc
    _agree(comm, error, what, quiet=True)

    # 3. sizes within the node: every rank learns the layout of the node's shards
    local = node_comm(comm)
    sizes = {s: [(i, v.nbytes) for i, v in items] for s, items in encoded.items()}
    node_sizes = local.allgather(sizes)  # in node-rank order (split keyed by rank)
    members = local.allgather(rank)
    base = layout.index_nbytes if layout.index_location == "start" else 0
    flat_writer = plan.shard_writer.reshape(-1)
    my_shards = [int(s) for s in np.flatnonzero(flat_writer == rank) if int(s) in scope]
    touched = set()
    for entry in node_sizes:
        touched.update(entry)
    offsets, totals = {}, {}
    for s in sorted(touched):
        pos = base
        for r, entry in zip(members, node_sizes):
            if r == rank:
                offsets[s] = pos
            pos += sum(n for _, n in entry.get(s, ()))
        totals[s] = pos - base

    # 4. writers create the temporary files; the node learns their names
    temps, error = {}, None
    try:
        for s in my_shards:
            if totals.get(s, 0):
                temps[s] = _create_temp(store, arr._chunk_key(_unravel(s, plan)),
                                        totals[s] + layout.index_nbytes)
    except Exception as exc:  # noqa: BLE001
        error = exc
    try:
        _agree(comm, error, what, quiet=True)
        names = {}
        for entry in local.allgather(temps):
            names.update(entry)
        error = None
        try:  # every rank writes its inner chunks into the node's shards, in parallel
            for s, items in encoded.items():
                if items:
                    _pwrite(names[s], offsets[s], [v for _, v in items], store.durable)
        except Exception as exc:  # noqa: BLE001
            error = exc
        _agree(comm, error, what, quiet=True)

        # 5. the writer: index last, then the rename makes the shard appear at once
        error = None
        try:
            for s in my_shards:
                key = arr._chunk_key(_unravel(s, plan))
                if s not in temps:  # all fill: erased, as a serial write does
                    store.erase(key)
                    continue
                index = np.full((layout.nchunks, 2), EMPTY, dtype=np.uint64)
                for r, entry in zip(members, node_sizes):
                    pos = base + _before(members, node_sizes, r, s)
                    for i, n in entry.get(s, ()):
                        index[i] = (pos, n)
                        pos += n
                enc = as_bytes_view(layout.encode_index(index.reshape(layout.grid_shape + (2,))))
                at = 0 if layout.index_location == "start" else base + totals[s]
                _pwrite(temps[s], at, [enc], store.durable)
                path = store._path(key)
                os.replace(temps.pop(s), path)
                if store.durable:
                    _fsync_dir(os.path.dirname(path))
        except Exception as exc:  # noqa: BLE001
            error = exc
        _agree(comm, error, what, quiet=True)
    finally:
        for tmp in temps.values():  # a failure on some rank: leave nothing behind
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _raw_layout(layout) -> bool:
    """True when an inner chunk is stored as its C-order bytes in native order."""
    inner = layout.inner
    return (not inner.array_array and not inner.bytes_bytes and not inner.swap
            and isinstance(inner.array_bytes, BytesCodec))


def _before(members, node_sizes, rank, s) -> int:
    """Bytes the node's ranks before ``rank`` put into shard ``s``."""
    total = 0
    for r, entry in zip(members, node_sizes):
        if r == rank:
            return total
        total += sum(n for _, n in entry.get(s, ()))
    return total


def _scope(plan, boxes) -> set[int]:
    """Flat indices of the shards that some box touches."""
    grid = plan.shard_node.shape
    out = set()
    for b in boxes:
        if not box_size(b):
            continue
        ranges = [range(lo // s, -(-hi // s)) for (lo, hi), s in zip(b, plan.shard_shape)]
        for coords in np.ndindex(*[len(r) for r in ranges]):
            shard = tuple(r[i] for r, i in zip(ranges, coords))
            out.add(int(np.ravel_multi_index(shard, grid)))
    return out


def _unravel(flat: int, plan) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, plan.shard_node.shape))


def _gather_chunks(arr, comm, part, box, boxes, data, what, scope, per_shard, ready) -> None:
    """Phase 1: hand every inner chunk this rank owns to ``ready(coords, chunk)``, whole
    and padded to the chunk shape: the ones it holds whole at once, the others once their
    pieces have arrived (one all-to-all, in flight meanwhile)."""
    from zarrhpc.mpi._comm import _agree, _layout, _segment, _start_exchange, _wait_request

    rank, size = comm.Get_rank(), comm.Get_size()
    pieces = plan_pieces(part, boxes, ranks={rank})
    sends = [p for p in pieces if p.holder == rank and p.owner != rank]
    received = [p for p in pieces if p.owner == rank and p.holder != rank]
    units = defaultdict(list)  # inner chunk -> [(piece, source)]
    for p in pieces:
        if p.holder == rank and p.owner == rank:
            units[p.unit].append((p, data[to_slices(p.box, box)]))
    request = recvbuf = mismatch = None
    if size > 1:
        error, sendbuf, scounts, sdispls, expect = None, None, None, None, None
        try:
            send_offsets, scounts, sdispls = _layout(sends, lambda p: p.owner,
                                                     arr.dtype.itemsize, size)
            sendbuf = alloc.empty((int(scounts.sum()),), np.uint8)
            for p, off in zip(sends, send_offsets):
                _segment(sendbuf, off, p, arr.dtype)[...] = data[to_slices(p.box, box)]
            recv_offsets, expect, _ = _layout(received, lambda p: p.holder,
                                              arr.dtype.itemsize, size)
        except Exception as exc:  # noqa: BLE001
            error = exc
        recvbuf, request, mismatch = _start_exchange(comm, sendbuf, scounts, sdispls, expect,
                                                     what, error)
    chunk_shape = part.unit_shape
    shard_grid = tuple(-(-g // k) for g, k in zip(part.grid_shape, per_shard))
    later = []
    for coords in part.owned(rank):
        shard = tuple(c // k for c, k in zip(coords, per_shard))
        if int(np.ravel_multi_index(shard, shard_grid)) not in scope:
            continue
        got = units.get(coords, [])
        ubox = part.unit_box(coords)
        if len(got) == 1 and got[0][0].box == ubox and box_shape(ubox) == chunk_shape:
            ready(coords, got[0][1])  # one piece is the whole chunk: encode it from there
        else:
            later.append(coords)
    if request is not None:
        _wait_request(request)
        _agree(comm, mismatch, what, quiet=True)
        for p, off in zip(received, recv_offsets):
            units[p.unit].append((p, _segment(recvbuf, off, p, arr.dtype)))
    fill = np.frombuffer(arr._fill_bytes, dtype=arr.dtype)[0] if arr._fill_bytes else 0
    for coords in later:
        ubox = part.unit_box(coords)
        got = units.get(coords, [])
        covered = sum(p.nelems for p, _ in got) == box_size(ubox)
        if box_shape(ubox) == chunk_shape and covered:  # block cache: pages touched already
            chunk = alloc.empty(chunk_shape, arr.dtype)
        else:
            chunk = np.full(chunk_shape, fill, dtype=arr.dtype)
        if not covered:  # the regions leave part of this chunk: keep what is stored there
            chunk[tuple(slice(0, b - a) for a, b in ubox)] = arr[to_slices(ubox)]
        for p, src in got:
            copy_into(chunk[to_slices(p.box, ubox)], src)
        ready(coords, chunk)


def _fill_outside(arr, plan, rank, per_shard, encoded, scope) -> None:
    """With write_empty_chunks, the inner chunks of edge shards that lie outside the array
    are stored (as fill), as a serial write stores them; the index writer encodes them."""
    layout = arr._sharding
    grid = plan.chunks.grid_shape
    fill_chunk = None
    for s in np.flatnonzero(plan.shard_writer.reshape(-1) == rank):
        if int(s) not in scope:
            continue
        shard = _unravel(int(s), plan)
        for inner in np.ndindex(*per_shard):
            coords = tuple(a * k + i for a, k, i in zip(shard, per_shard, inner))
            if all(c < g for c, g in zip(coords, grid)):
                continue
            if fill_chunk is None:
                fill = np.frombuffer(arr._fill_bytes, dtype=arr.dtype)[0]
                fill_chunk = as_bytes_view(layout.inner.encode(
                    np.full(layout.chunk_shape, fill, dtype=arr.dtype), arr.name))
            encoded[int(s)].append((int(np.ravel_multi_index(inner, per_shard)), fill_chunk))


def _create_temp(store, key: str, size: int) -> str:
    """A temporary file of ``size`` bytes beside ``key``'s file (directories created as
    needed). Sized at once: the ranks' writes then never extend it."""
    path = store._path(key)
    dirpath = os.path.dirname(path)
    # LocalStore's temporary names: no listing shows them, and its clean-up knows them
    from zarrhpc.storage.local import _TEMP_PREFIX, _TEMP_SUFFIX

    tmp = os.path.join(dirpath, f"{_TEMP_PREFIX}{uuid.uuid4().hex}{_TEMP_SUFFIX}")
    for _ in range(64):
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            try:
                os.ftruncate(fd, size)
            finally:
                os.close(fd)
            return tmp
        except FileNotFoundError:
            try:
                store._make_dirs(key, dirpath)
            except FileNotFoundError:
                continue
    raise OSError(f"{key!r}: cannot create a temporary file in {dirpath}")


_PIECE = 1 << 20  # bytes per write call


def _pwrite(path: str, offset: int, items, durable: bool) -> None:
    """Write ``items`` back to back at ``offset`` of the existing file ``path``.

    An item is bytes-like, or an array written as its C-order bytes (copied through one
    scratch buffer, without the GIL). Calls write at most `_PIECE` bytes: the ranks of a
    node write into one file, and a local file system takes the file's lock for each call
    (measured on tmpfs, 2 ranks writing 128 MiB each into one file: one call each took
    twice as long as each rank writing its own file; 1 MiB calls took the same).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    scratch = None
    try:
        for item in items:
            if isinstance(item, np.ndarray):
                if scratch is None or scratch.nbytes < item.nbytes:
                    scratch = alloc.empty((item.nbytes,), np.uint8)
                flat = scratch[:item.nbytes]
                copy_into(flat.view(item.dtype).reshape(item.shape), item)
                view = memoryview(flat)
            else:
                view = memoryview(item).cast("B")
            for lo in range(0, view.nbytes, _PIECE):
                piece = view[lo:lo + _PIECE]
                while piece.nbytes:
                    done = os.pwrite(fd, piece, offset)
                    offset += done
                    piece = piece[done:]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
