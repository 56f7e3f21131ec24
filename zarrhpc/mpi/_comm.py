"""MPI primitives the collective operations share: the lazy mpi4py import, quiet waits,
the agreement on errors, and the two-phase all-to-all exchange of byte segments.

A module of its own so that collective.py, aggregate.py, nodes.py and resize.py all
build on it without importing one another in a circle.
"""

from __future__ import annotations

import os
import time

import numpy as np

from zarrhpc._kernels import alloc
from zarrhpc.errors import CollectiveError
from zarrhpc.mpi.partition import Piece, box_shape

__all__ = ["_agree", "_exchange", "_layout", "_mpi", "_segment", "_start_exchange",
           "_wait_quietly", "_wait_request"]


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("zarrhpc.mpi needs mpi4py: pip install 'zarrhpc[mpi]'") from exc
    return MPI


def _wait_quietly(comm) -> None:
    """A barrier that sleeps instead of spinning while it waits.

    MPI implementations busy-poll in blocking collectives; a rank that finishes its I/O
    early would then burn a core that slower ranks on the same node need (always, when
    ranks outnumber cores). Polling a non-blocking barrier with short sleeps costs at
    most a fraction of a millisecond of latency.
    """
    if comm.Get_size() == 1 or not hasattr(comm, "Ibarrier"):
        return
    _wait_request(comm.Ibarrier())


_SPIN = 2e-4  # seconds of polling (yielding the core) before a wait starts to sleep


def _wait_request(request) -> None:
    """``request.Wait()``, sleeping between polls (see `_wait_quietly`).

    The first `_SPIN` seconds poll and yield the core in between: when the others are
    about to arrive, that saves a sleep's wake-up delay.
    """
    if request.Test():
        return
    end = time.perf_counter() + _SPIN
    while time.perf_counter() < end:
        os.sched_yield()
        if request.Test():
            return
    delay = 1e-5
    while not request.Test():
        time.sleep(delay)
        delay = min(delay * 2, 1e-3)


def _agree(comm, error: BaseException | None, what: str, quiet: bool = False) -> None:
    """Every rank learns whether any rank failed; then all raise or all go on.

    ``quiet``: ranks wait sleeping (see `_wait_quietly`), for one allreduce of "failed?";
    the messages travel only when some rank failed.
    """
    if quiet and comm.Get_size() > 1 and hasattr(comm, "Iallreduce"):
        MPI = _mpi()
        failed = np.zeros(1, dtype=np.int32)
        _wait_request(comm.Iallreduce([np.array([error is not None], dtype=np.int32), MPI.INT],
                                      [failed, MPI.INT], op=MPI.MAX))
        if not failed[0]:
            return
    msgs = comm.allgather(None if error is None else f"{type(error).__name__}: {error}")
    if error is not None:
        raise error
    for rank, msg in enumerate(msgs):
        if msg is not None:
            raise CollectiveError(f"{what}: rank {rank} failed: {msg}")


def _layout(pieces: list[Piece], peer_of, itemsize: int, size: int):
    """Byte offset of each piece in its peer's segment; byte counts per peer."""
    counts = np.zeros(size, dtype=np.int64)
    offsets = []
    for p in pieces:
        peer = peer_of(p)
        offsets.append(int(counts[peer]))
        counts[peer] += p.nelems * itemsize
    displs = np.zeros(size, dtype=np.int64)
    np.cumsum(counts[:-1], out=displs[1:])
    return [int(displs[peer_of(p)]) + o for p, o in zip(pieces, offsets)], counts, displs


def _segment(buf: np.ndarray, offset: int, piece: Piece, dtype) -> np.ndarray:
    n = piece.nelems * dtype.itemsize
    return buf[offset:offset + n].view(dtype).reshape(box_shape(piece.box))


def _exchange(comm, sendbuf, scounts, sdispls, expect, what: str) -> np.ndarray:
    """One all-to-all: byte counts first (checked against the plan), then the bytes."""
    recvbuf, request, error = _start_exchange(comm, sendbuf, scounts, sdispls, expect, what)
    _wait_request(request)
    _agree(comm, error, what)
    return recvbuf


def _start_exchange(comm, sendbuf, scounts, sdispls, expect, what: str, error=None):
    """Start the all-to-all of the bytes; returns ``(recvbuf, request, mismatch)``.

    The byte counts go first (a blocking Alltoall). A rank that failed to build its send
    buffer (``error``) sends -1 counts instead, so every rank learns it here and all
    raise together, with no extra agreement round in the common case. Counts that
    differ from the plan (``expect``) come back as ``mismatch`` (the caller reports it
    in its closing agreement: the bytes are still exchanged, by the counts received, so
    that no rank is left waiting). The caller must ``Wait`` on the request before
    reading ``recvbuf`` or reusing ``sendbuf``.
    """
    MPI = _mpi()
    size = comm.Get_size()
    if error is not None:
        scounts = np.full(size, -1, dtype=np.int64)
    rcounts = np.zeros(size, dtype=np.int64)
    _wait_quietly(comm)  # ranks that arrive early sleep instead of spinning on the cores
    comm.Alltoall([np.ascontiguousarray(scounts, dtype=np.int64), MPI.INT64_T],
                  [rcounts, MPI.INT64_T])
    if error is not None or (rcounts < 0).any():
        _agree(comm, error, what)  # raises on every rank: some rank sent -1
    mismatch = None
    if not np.array_equal(rcounts, expect):
        mismatch = CollectiveError(
            f"{what}: rank {comm.Get_rank()} expected {expect.tolist()} bytes from the ranks, "
            f"got {rcounts.tolist()} (do all ranks pass the same array and ownership?)"
        )
    rdispls = np.zeros(size, dtype=np.int64)
    np.cumsum(rcounts[:-1], out=rdispls[1:])
    recvbuf = alloc.empty((int(rcounts.sum()),), np.uint8)  # pages already touched
    request = comm.Ialltoallv(
        [sendbuf, (scounts.tolist(), sdispls.tolist()), MPI.BYTE],
        [recvbuf, (rcounts.tolist(), rdispls.tolist()), MPI.BYTE],
    )
    return recvbuf, request, mismatch
