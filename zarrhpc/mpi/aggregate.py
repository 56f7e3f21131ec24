"""Node-aggregated shards: the ranks of a node write one shard file together.

The ``"node"`` ownership policy (`zarrhpc.mpi.partition.node_plan`) gives every shard to
one node and every inner chunk of it to one rank of that node. A collective write under
it (`write_node`, reached through ``zarrhpc.mpi.write(..., ownership=Ownership(arr, comm,
"node", ...))``) then creates about one file per node per array instead of one per chunk:
on a parallel file system the metadata server, not the bandwidth, is the limit at scale.

Life cycle of one write:

1. each shard's index writer (a rank of the shard's node) creates the shard under a
   temporary name in the key's directory; the node learns the names;
2. two-phase exchange: pieces of inner chunks a rank holds but does not own go to their
   owner (one all-to-all started here, in flight while the chunks a rank holds whole are
   encoded; with a decomposition the node policy follows, the pieces stay within the
   node, and nothing moves when the regions are chunk-aligned);
3. every rank encodes its inner chunks one by one (with more than one thread, a few
   ahead on worker threads; fill chunks left out, as the serial writer does) and writes
   each as soon as it is encoded, while its bytes are still in the cache (``pwrite``;
   `_BloscInto` encodes into a few arena slots kept for the write). Into a shard only its
   index writer writes (`_shared_shards`: the usual case, `node_plan` gives the index to
   the rank that writes most of the shard) it writes at its own running offset: no rank
   waits for another. Into a shard the node's ranks share, a rank writes runs of up to
   `_RUN` bytes, each at the place it takes from the node's counter of that shard (one
   atomic fetch-and-add in an MPI window: `_Counters`): such a shard grows by whole runs,
   first come first placed, so the file has no gaps and no data goes through another
   rank; then the node shares where those chunks went (one allgather of four numbers per
   chunk). CPU time against the engine's one file per chunk (one rank's 256 MiB slab,
   64^3 float64 chunks, blosc lz4, one thread, loaded 2-core VM): encoding batches of
   32 MiB into a 64 MiB arena, then writing them, cost 12-15 % more (the written bytes
   come from memory, not the cache); chunk by chunk from the slot written last, 1-5 %.
   Earlier designs: holding a whole write's encoded chunks before writing 0.50-0.70x,
   rounds in lock step (an exclusive prefix sum of each round's sizes) 0.65-0.75x;
4. once every rank is done, the writer writes the index (the spec's format:
   `zarrhpc.codecs.sharding.ShardLayout`), flushes it (``fsync``) when the store is
   durable, and renames the file over the key: a reader sees the old shard or the whole new one.

The inner chunks of a shard lie in the order they were written (runs in the order they
took their places): the spec leaves that order free, and zarr-python and tensorstore read
such shards. Waits sleep (`zarrhpc.mpi._comm._wait_request`): a rank spinning in a
blocking collective takes the core a rank of the same node still needs. Shards that end
up holding only fill are erased, as a serial write does. A failure at any step reaches
every rank (a rank that fails stops writing and says so in the agreement on the whole
communicator that ends each phase) and the writers remove their temporary files. Needs a
`LocalStore` (a shared POSIX file system).
"""

from __future__ import annotations

import os
import time
from collections import defaultdict, deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from zarrhpc import config
from zarrhpc._kernels import alloc, copy_into
from zarrhpc._kernels.engine import blosc1_encode_into
from zarrhpc.codecs.abc import as_bytes_view
from zarrhpc.codecs.bytes import BytesCodec
from zarrhpc.codecs.sharding import EMPTY, is_fill_chunk
from zarrhpc.errors import UnsupportedError
from zarrhpc.mpi._files import create_temp, local_fs
from zarrhpc.mpi._files import pwrite_items as _pwrite
from zarrhpc.mpi.nodes import node_comm
from zarrhpc.mpi.partition import box_shape, box_size, plan_pieces, to_slices
from zarrhpc.storage.local import _fsync_dir

__all__ = ["last_profile", "write_node"]

# raw bytes of inner chunks per run written into a shard the node's ranks share (at least
# one chunk): a run costs one atomic fetch-and-add (2-8 us with MPICH's shared-memory
# window here) and holds an arena slot per chunk until it is written
_RUN = 4 << 20

_PROFILE: dict = {}  # phase -> seconds of this rank's last write_node (`last_profile`)


def last_profile() -> dict:
    """Seconds this rank spent in each phase of its last node-aggregated write: ``create``
    (temporary files, names shared), ``encode`` (assembly and encoding), ``pwrite``
    (taking places and writing), ``share`` (where the node's chunks went: waits for the
    node's slowest writer), ``wait`` (for every rank), ``index`` (index, rename, fsync),
    ``end_wait`` and ``total``; ``cpu``: the process's CPU seconds (all threads, kernel
    time included) over the whole write. For benchmarks and tuning."""
    return dict(_PROFILE)


class _Clock:
    """Accumulates the seconds since the previous call under each phase name."""

    def __init__(self):
        _PROFILE.clear()
        self.t0 = self.t = time.perf_counter()
        self.c0 = time.process_time()

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        _PROFILE[phase] = _PROFILE.get(phase, 0.0) + now - self.t
        self.t = now

    def done(self) -> None:
        _PROFILE["total"] = time.perf_counter() - self.t0
        _PROFILE["cpu"] = time.process_time() - self.c0


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

    clock = _Clock()
    rank = comm.Get_rank()
    plan = ownership.plan
    layout = arr._sharding
    per_shard = tuple(s // c for s, c in zip(plan.shard_shape, layout.chunk_shape))
    scope = _scope(plan, boxes)  # the shards this write touches (the same on every rank)
    my_shards = [int(s) for s in np.flatnonzero(plan.shard_writer.reshape(-1) == rank)
                 if int(s) in scope]
    local = node_comm(comm)

    # 1. writers create the temporary files; the node learns their names
    temps, store, error = {}, None, None
    try:
        store = _local_store(arr)
        for s in my_shards:
            temps[s] = create_temp(store, arr._chunk_key(_unravel(s, plan)))
    except Exception as exc:  # noqa: BLE001
        error = exc
    try:
        _agree(comm, error, what, quiet=True)
        names = {}
        for entry in local.allgather(temps):
            names.update(entry)
        clock("create")

        # 2. and 3.: the exchange starts, then the batches
        gather = _Gather(arr, comm, plan, box, boxes, data, what, scope, per_shard)
        index = {s: np.full((layout.nchunks, 2), EMPTY, dtype=np.uint64) for s in my_shards}
        error, ends = _stream(arr, plan, local, gather, names, index, store.durable, clock)
        error = gather.finish(error)
        clock("pwrite")
        _agree(comm, error, what, quiet=True)
        clock("wait")

        # 4. the writer: index last, then the rename makes the shard appear at once
        error = None
        try:
            base = layout.index_nbytes if layout.index_location == "start" else 0
            for s in my_shards:
                key = arr._chunk_key(_unravel(s, plan))
                end = ends.get(s, base)
                if end == base:  # all fill: erased, as a serial write does
                    os.unlink(temps.pop(s))
                    store.erase(key)
                    continue
                enc = as_bytes_view(layout.encode_index(index[s].reshape(layout.grid_shape + (2,))))
                fd = os.open(temps[s], os.O_WRONLY | os.O_CLOEXEC)
                try:
                    _pwrite(fd, 0 if layout.index_location == "start" else end, [enc])
                    if store.durable:
                        os.fsync(fd)
                finally:
                    os.close(fd)
                path = store._path(key)
                os.replace(temps.pop(s), path)
                if store.durable:
                    _fsync_dir(os.path.dirname(path))
        except Exception as exc:  # noqa: BLE001
            error = exc
        clock("index")
        _agree(comm, error, what, quiet=True)
        clock("end_wait")
        clock.done()
    finally:
        for tmp in temps.values():  # a failure on some rank: leave nothing behind
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _stream(arr, plan, local, gather, names, index, durable, clock):
    """Phase 3: encode the inner chunks one by one (threads > 1: a few ahead on the pool)
    and write each as soon as it is encoded, while it is still in the cache: into a shard
    only this rank writes at this rank's own running offset, into a shard the node's ranks
    share in runs of up to `_RUN` bytes at places taken from the node's counters. Then
    the places in shared shards are shared within the node. Returns ``(error, ends)``:
    this rank's failure and the end of each of the node's shards (the index writer's file
    size before the index)."""
    layout = arr._sharding
    raw = _raw_layout(layout)
    m = max(1, _RUN // max(1, int(np.prod(layout.chunk_shape)) * arr.dtype.itemsize))
    base = layout.index_nbytes if layout.index_location == "start" else 0
    # counters only for the shards several ranks write (the same on every rank of the node)
    slots = {s: k for k, s in enumerate(gather.shared)}
    counters = _Counters(local, len(slots), base)
    own_end = {s: base for s in gather.node_shards if s not in slots}  # this rank's shards
    # writes into a shared shard take turns under flock on a local file system (`_pwrite`)
    locks = bool(slots) and local_fs(os.path.dirname(names[gather.shared[0]]))
    fds: dict = {}
    scratch: list = [None]
    placed: list = []  # (shard, inner, offset, size) of this rank's chunks in shared shards
    error = None
    run: list = []  # encoded chunks of one shared shard waiting to be written: (s, i, view)

    # In this thread when there is nothing to encode, or one thread per rank and blosc
    # straight into the arena: a second thread of a rank that has one core's share gains
    # nothing and costs hand-offs (measured: 10-30% more CPU time). Else on worker threads
    # even when there is one: numcodecs' blosc then compresses with one thread per call,
    # as the native engine does (from the main thread it would start its own threads in
    # every rank, more than the node has cores).
    threads = max(1, config.get("threads"))
    fast = not raw and _BloscInto.applies(layout)
    inline = raw or (fast and threads == 1)
    ahead = 0 if inline else 2 * threads  # encodes in flight on the pool
    nslots = ahead + m  # an arena slot per chunk in flight or waiting in `run`
    fast = _BloscInto.make(layout, nslots) if fast else None
    # free arena slots, a stack: the slot written last is taken next, still in the cache
    free = list(range(nslots - 1, -1, -1))

    def encode(item, slot):
        s, i, chunk = item
        if not arr._write_empty_chunks and is_fill_chunk(chunk, layout.fill_bytes):
            return s, i, None, slot
        if raw:  # stored as it is: copied straight into the file
            return s, i, chunk, slot
        if fast is not None:
            return s, i, fast.encode(chunk, slot, arr.name), slot
        return s, i, as_bytes_view(layout.inner.encode(chunk, arr.name)), slot

    def write(s, views):
        n = sum(v.nbytes for v in views)
        if s in slots:
            offset = counters.take(slots[s], n)
        else:
            offset, own_end[s] = own_end[s], own_end[s] + n
        fd = fds.get(s)
        if fd is None:
            fd = fds[s] = os.open(names[s], os.O_WRONLY | os.O_CLOEXEC)
        _pwrite(fd, offset, views, scratch, s in slots and locks)
        return offset

    def flush():  # the waiting run of a shared shard: one place, one write
        if run:
            pos = write(run[0][0], [v for _, _, v, _ in run])
            for s, i, v, slot in run:
                placed.append((s, i, pos, v.nbytes))
                pos += v.nbytes
                free.append(slot)
            run.clear()

    def done(s, i, v, slot):  # an encoded chunk
        clock("encode")
        if v is None:
            free.append(slot)
        elif s not in slots:  # this rank's own shard: written now, at its own offset
            index[s][i] = (write(s, [v]), v.nbytes)
            free.append(slot)
        else:
            if run and run[0][0] != s:
                flush()
            run.append((s, i, v, slot))
            if len(run) >= m:
                flush()
        clock("pwrite")

    try:
        if inline:
            for item in gather:
                done(*encode(item, free.pop()))
        else:
            with ThreadPoolExecutor(threads, thread_name_prefix="zarrhpc-encode") as pool:
                inflight: deque = deque()
                for item in gather:  # at most `ahead` in flight and m in `run`: a slot is free
                    inflight.append(pool.submit(encode, item, free.pop()))
                    if len(inflight) >= ahead:
                        done(*inflight.popleft().result())
                while inflight:
                    done(*inflight.popleft().result())
        flush()
        if durable:
            for fd in fds.values():
                os.fsync(fd)
    except Exception as exc:  # noqa: BLE001 - agreed by the caller
        error = exc
    finally:
        for fd in fds.values():
            os.close(fd)
    ends: dict = defaultdict(lambda: base)
    ends.update(own_end)
    if slots:  # every rank of the node learns where the shared shards' chunks went
        mine = np.array(placed if error is None else [], dtype=np.int64).reshape(-1, 4)
        every = _allgather_rows(local, mine)
        for s, i, off, n in every.tolist():
            if s in index:
                index[s][i] = (off, n)
            ends[s] = max(ends[s], off + n)
    counters.free()
    clock("share")
    return error, ends


class _Done:
    """A finished future."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class _BloscInto:
    """Inner chains of the bytes codec (native order) and blosc: each chunk compressed
    with c-blosc1's ``blosc_compress_ctx`` (numcodecs' library: the same bytes as
    numcodecs and the native engine write) into a slot of an arena kept for the write,
    from a per-thread contiguous copy. numcodecs would return every chunk in new memory,
    and a rank that holds a batch of those pays the kernel's page faults for every
    encoded byte (measured: a third of the encode time of 64^3 float64 chunks)."""

    _fn = None

    @classmethod
    def applies(cls, layout) -> bool:
        """Whether the inner chain is the bytes codec and blosc (and the chunk small enough)."""
        from zarrhpc.codecs.blosc import BloscCodec

        inner = layout.inner
        nbytes = int(np.prod(layout.chunk_shape)) * inner.spec.dtype.itemsize
        return not (inner.array_array or inner.swap
                    or not isinstance(inner.array_bytes, BytesCodec)
                    or len(inner.bytes_bytes) != 1
                    or not isinstance(inner.bytes_bytes[0], BloscCodec)
                    or nbytes > 2**31 - 64 or cls._function() is None)

    @classmethod
    def make(cls, layout, slots: int):
        """An encoder with an arena of ``slots`` chunks, or None when it does not apply."""
        if not cls.applies(layout):
            return None
        inner = layout.inner
        nbytes = int(np.prod(layout.chunk_shape)) * inner.spec.dtype.itemsize
        return cls(inner.bytes_bytes[0].native_step(), nbytes, slots)

    @classmethod
    def _function(cls):
        if cls._fn is None:
            import ctypes

            try:
                import numcodecs.blosc as nc_blosc

                fn = ctypes.CDLL(nc_blosc.__file__).blosc_compress_ctx
            except (ImportError, OSError, AttributeError):  # pragma: no cover - builds
                cls._fn = False
                return None
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                           ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                           ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
            cls._fn = fn
        return cls._fn or None

    def __init__(self, step, nbytes: int, slots: int):
        import threading

        self.step, self.nbytes = step, nbytes
        self.cname = step.cname.encode("ascii")
        self.room = nbytes + 16  # BLOSC_MAX_OVERHEAD
        self.arena = alloc.empty((slots * self.room,), np.uint8)
        self.base = self.arena.__array_interface__["data"][0]
        self.local = threading.local()

    def encode(self, chunk: np.ndarray, slot: int, name: str):
        from zarrhpc.errors import CodecError

        if chunk.flags.c_contiguous:
            src = chunk
        else:
            src = getattr(self.local, "src", None)
            if src is None:
                src = self.local.src = alloc.empty((self.nbytes,), np.uint8)
            src = src.view(chunk.dtype).reshape(chunk.shape)
            copy_into(src, chunk)
        st, at = self.step, slot * self.room
        n = 0
        if st.blocksize < 0:  # the own c-blosc1 writer's blocks (codecs/blosc.py), as the engine
            n = blosc1_encode_into(src, self.arena[at:at + self.room], st.cname, st.level,
                                   st.shuffle, st.typesize, -st.blocksize)
        if n == 0:  # c-blosc1 (a negative blocksize: the own writer's block size handed over)
            n = self._fn(st.level, st.shuffle, st.typesize, self.nbytes,
                         src.__array_interface__["data"][0], self.base + at, self.room,
                         self.cname, abs(st.blocksize), 1)
        if n <= 0:
            raise CodecError(f"{name}: blosc: compression failed ({n})")
        return self.arena[at:at + n]


class _Counters:
    """One counter per shard of the node, in a window of the node's first rank: a rank
    takes the next ``n`` bytes of a shard with one atomic fetch-and-add.

    The ranks of a node never wait for each other while they write: each takes its place
    when its batch is encoded (rounds in lock step, an exclusive prefix sum of the sizes
    per round, were measured 0.65-0.75x the speed of one file per chunk on a loaded
    machine, where a rank that waits also gives up its share of the cores). A
    shared-memory window when the node's ranks share memory (always on a real node), else
    passive-target RMA.
    """

    def __init__(self, local, n: int, base: int):
        from zarrhpc.mpi._comm import _mpi, _wait_quietly

        MPI = self.MPI = _mpi()
        self.win = None
        self.one = np.zeros(1, dtype=np.int64)
        self.got = np.zeros(1, dtype=np.int64)
        if n == 0:
            return
        size = 8 * n if local.Get_rank() == 0 else 0
        if _shares_memory(local):
            self.win = MPI.Win.Allocate_shared(size, 8, comm=local)
            buf, _ = self.win.Shared_query(0)
        else:
            self.win = MPI.Win.Allocate(size, 8, comm=local)
            buf = self.win.tomemory()
        if local.Get_rank() == 0:
            np.frombuffer(buf, dtype=np.int64)[:n] = base
        _wait_quietly(local)  # initialised before anyone takes
        self.win.Lock_all(MPI.MODE_NOCHECK)

    def take(self, slot: int, n: int) -> int:
        """The offset of ``n`` bytes of the shard at ``slot``, reserved for this rank."""
        MPI = self.MPI
        self.one[0] = n
        self.win.Fetch_and_op([self.one, MPI.INT64_T], [self.got, MPI.INT64_T], 0, slot,
                              MPI.SUM)
        self.win.Flush(0)
        return int(self.got[0])

    def free(self) -> None:
        """Collective on the node (after every rank's last `take`)."""
        if self.win is not None:
            self.win.Unlock_all()
            self.win.Free()
            self.win = None


_SHARED: dict = {}  # node communicator handle -> its ranks share memory


def _shares_memory(local) -> bool:
    key = local.py2f() if hasattr(local, "py2f") else id(local)
    if key not in _SHARED:
        from zarrhpc.mpi._comm import _mpi

        sub = local.Split_type(_mpi().COMM_TYPE_SHARED)
        _SHARED[key] = sub.Get_size() == local.Get_size()
        sub.Free()
    return _SHARED[key]


def _allgather_rows(local, rows: np.ndarray) -> np.ndarray:
    """Every rank's int64 rows (4 columns), stacked in rank order; waits sleeping."""
    from zarrhpc.mpi._comm import _mpi, _wait_request

    MPI = _mpi()
    if local.Get_size() == 1:
        return rows
    counts = np.zeros(local.Get_size(), dtype=np.int64)
    _wait_request(local.Iallgather([np.array([rows.size], dtype=np.int64), MPI.INT64_T],
                                   [counts, MPI.INT64_T]))
    out = np.empty(int(counts.sum()), dtype=np.int64)
    displs = np.zeros_like(counts)
    np.cumsum(counts[:-1], out=displs[1:])
    _wait_request(local.Iallgatherv([np.ascontiguousarray(rows).reshape(-1), MPI.INT64_T],
                                    [out, (counts.tolist(), displs.tolist()), MPI.INT64_T]))
    return out.reshape(-1, 4)


def _raw_layout(layout) -> bool:
    """True when an inner chunk is stored as its C-order bytes in native order."""
    inner = layout.inner
    return (not inner.array_array and not inner.bytes_bytes and not inner.swap
            and isinstance(inner.array_bytes, BytesCodec))


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


class _Gather:
    """Phase 2: every inner chunk this rank owns, whole and padded to the chunk shape, as
    ``(shard flat index, inner flat index, chunk)``: the ones it holds whole first, the
    others once their pieces have arrived (one all-to-all, started here and in flight
    meanwhile); then, with write_empty_chunks, the fill chunks this rank's shards hold
    outside the array. ``count`` is how many there are.

    Started on every rank (the all-to-all is collective); `finish` waits for the
    exchange on every rank, also one that needed none of it.
    """

    def __init__(self, arr, comm, plan, box, boxes, data, what, scope, per_shard):
        from zarrhpc.mpi._comm import _layout, _segment, _start_exchange

        self.arr, self.what, self.per_shard = arr, what, per_shard
        part = self.part = plan.chunks
        rank, size = comm.Get_rank(), comm.Get_size()
        pieces = plan_pieces(part, boxes, ranks={rank})
        sends = [p for p in pieces if p.holder == rank and p.owner != rank]
        self.received = [p for p in pieces if p.owner == rank and p.holder != rank]
        self.units = units = defaultdict(list)  # inner chunk -> [(piece, source)]
        for p in pieces:
            if p.holder == rank and p.owner == rank:
                units[p.unit].append((p, data[to_slices(p.box, box)]))
        self.request = self.recvbuf = self.mismatch = None
        if size > 1:
            error, sendbuf, scounts, sdispls, expect = None, None, None, None, None
            try:
                send_offsets, scounts, sdispls = _layout(sends, lambda p: p.owner,
                                                         arr.dtype.itemsize, size)
                sendbuf = alloc.empty((int(scounts.sum()),), np.uint8)
                for p, off in zip(sends, send_offsets):
                    _segment(sendbuf, off, p, arr.dtype)[...] = data[to_slices(p.box, box)]
                self.recv_offsets, expect, _ = _layout(self.received, lambda p: p.holder,
                                                       arr.dtype.itemsize, size)
            except Exception as exc:  # noqa: BLE001
                error = exc
            self.recvbuf, self.request, self.mismatch = _start_exchange(
                comm, sendbuf, scounts, sdispls, expect, what, error)
            self._sendbuf = sendbuf  # alive until the exchange is done
        self.shard_grid = tuple(-(-g // k) for g, k in zip(part.grid_shape, per_shard))
        self.whole, self.later = [], []
        chunk_shape = part.unit_shape
        for coords in part.owned(rank):
            if self._flat(coords)[0] not in scope:
                continue
            got = units.get(coords, [])
            ubox = part.unit_box(coords)
            if len(got) == 1 and got[0][0].box == ubox and box_shape(ubox) == chunk_shape:
                self.whole.append(coords)  # one piece is the whole chunk: encoded from there
            else:
                self.later.append(coords)
        from zarrhpc.mpi.nodes import node_map

        node = node_map(comm).node
        self.node_shards = sorted(s for s in scope if plan.shard_node.reshape(-1)[s] == node)
        self.shared = _shared_shards(plan, per_shard, self.node_shards)
        # shard by shard: a shared shard's chunks then go out in long runs
        self.whole.sort(key=self._flat)
        self.later.sort(key=self._flat)
        # shards cut by the array's edge are merged with the stored ones, as the serial
        # write merges them: inner chunks past the edge are carried over (decoded and
        # encoded again) and inner chunks cut by the edge keep their elements past it
        self.stored = _stored_edge_shards(arr, plan, scope)
        self.outside = _outside(arr, plan, rank, per_shard, scope, self.stored)
        self.count = len(self.whole) + len(self.later) + len(self.outside)

    def _flat(self, coords) -> tuple[int, int]:
        shard = tuple(c // k for c, k in zip(coords, self.per_shard))
        inner = tuple(c % k for c, k in zip(coords, self.per_shard))
        return (int(np.ravel_multi_index(shard, self.shard_grid)),
                int(np.ravel_multi_index(inner, self.per_shard)))

    def _wait(self) -> None:
        from zarrhpc.mpi._comm import _segment, _wait_request

        if self.request is None:
            return
        request, self.request = self.request, None
        _wait_request(request)
        self._sendbuf = None
        for p, off in zip(self.received, self.recv_offsets):
            self.units[p.unit].append((p, _segment(self.recvbuf, off, p, self.arr.dtype)))

    def finish(self, error):
        """Wait for the exchange (every rank must); returns ``error`` or the exchange's."""
        self._wait()
        return error or self.mismatch

    def __iter__(self):
        arr, part = self.arr, self.part
        for coords in self.whole:
            yield (*self._flat(coords), self.units[coords][0][1])
        if self.later:
            self._wait()
            if self.mismatch is not None:
                raise self.mismatch
        chunk_shape = part.unit_shape
        fill = np.frombuffer(arr._fill_bytes, dtype=arr.dtype)[0] if arr._fill_bytes else 0
        cut = [c for c in self.later if box_shape(part.unit_box(c)) != chunk_shape
               and self._flat(c)[0] in self.stored]
        kept = _stored_inner(arr, cut + [c for _, _, c in self.outside])
        for coords in self.later:
            ubox = part.unit_box(coords)
            got = self.units.get(coords, [])
            covered = sum(p.nelems for p, _ in got) == box_size(ubox)
            old = kept.get(coords)
            if old is not None:  # cut by the edge: what lies past it is kept
                chunk = old
            elif box_shape(ubox) == chunk_shape and covered:  # block cache: pages touched
                chunk = alloc.empty(chunk_shape, arr.dtype)
            else:
                chunk = np.full(chunk_shape, fill, dtype=arr.dtype)
            if not covered and old is None:  # the regions leave part of this chunk
                chunk[tuple(slice(0, b - a) for a, b in ubox)] = arr[to_slices(ubox)]
            for p, src in got:
                copy_into(chunk[to_slices(p.box, ubox)], src)
            yield (*self._flat(coords), chunk)
        fill_chunk = None
        for s, i, coords in self.outside:
            if self.stored.get(s):
                if coords in kept:  # past the edge in a stored shard: carried over
                    yield s, i, kept[coords]
                continue
            if fill_chunk is None:
                fill_chunk = np.full(arr._sharding.chunk_shape, fill, dtype=arr.dtype)
            yield s, i, fill_chunk


def _shared_shards(plan, per_shard, shards) -> list[int]:
    """Those of ``shards`` (flat indices) that some rank other than the index writer
    writes inner chunks into: their places come from the node's counters and the node
    shares them (`_stream`). Into every other shard only its index writer writes (with
    write_empty_chunks also the fill chunks outside the array): at its own offsets."""
    owners = plan.chunks.owners
    grid = plan.shard_node.shape
    out = []
    for s in shards:
        coords = np.unravel_index(s, grid)
        inner = owners[tuple(slice(c * k, (c + 1) * k) for c, k in zip(coords, per_shard))]
        if (inner != plan.shard_writer[coords]).any():
            out.append(s)
    return out


def _stored_edge_shards(arr, plan, scope) -> dict[int, bool]:
    """``{shard flat index: stored}`` of the shards in ``scope`` cut by the array's edge
    (the same on every rank: every rank asks before any shard is replaced)."""
    out = {}
    for s in sorted(scope):
        shard = _unravel(s, plan)
        if any((c + 1) * k > n for c, k, n in zip(shard, plan.shard_shape, arr.shape)):
            out[s] = arr._store.exists(arr._chunk_key(shard))
    return out


def _stored_inner(arr, coords: list) -> dict:
    """The stored inner chunks at ``coords`` (inner-grid coordinates), decoded at the
    whole chunk shape (elements past the array's edge included); missing ones left out."""
    if not coords:
        return {}
    from zarrhpc.core._select import fetch_chunks

    layout = arr._sharding
    bufs, names = fetch_chunks(arr._prep, np.asarray(coords, dtype=np.int64))
    out = {}
    for c, buf, name in zip(coords, bufs, names):
        if buf is not None:
            chunk = np.empty(layout.chunk_shape, dtype=arr.dtype)
            chunk[...] = layout.inner.decode(buf, name)
            out[c] = chunk
    return out


def _outside(arr, plan, rank, per_shard, scope, stored) -> list:
    """The inner chunks that lie wholly outside the array in the edge shards this rank
    writes the index of, ``(shard flat, inner flat, inner coords)``: carried over from a
    stored shard, or, with write_empty_chunks and no stored shard, written as fill (as a
    serial write stores them)."""
    grid = plan.chunks.grid_shape
    out = []
    for s in np.flatnonzero(plan.shard_writer.reshape(-1) == rank):
        if int(s) not in stored or not (stored[int(s)] or arr._write_empty_chunks):
            continue
        shard = _unravel(int(s), plan)
        for inner in np.ndindex(*per_shard):
            coords = tuple(a * k + i for a, k, i in zip(shard, per_shard, inner))
            if any(c >= g for c, g in zip(coords, grid)):
                out.append((int(s), int(np.ravel_multi_index(inner, per_shard)), coords))
    return out
