"""Helpers of the MPI benchmarks (zarrhpc.bench.mpi and zarrhpc.bench.mpi_checkpoint):
the test field, slab decompositions, and interleaved timed rounds with clean-up between
methods. Both benchmark modules import these; neither imports the other's internals.
"""

from __future__ import annotations

import itertools
import shutil
import statistics
import time
from pathlib import Path

import numpy as np

from zarrhpc.mpi._comm import _mpi

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}


def field_block(shape, region, rank: int) -> np.ndarray:
    """A smooth field with a little noise: compressible, not trivial."""
    z = np.arange(region[0].start, region[0].stop, dtype="f8")[:, None, None]
    y = np.arange(shape[1], dtype="f8")[None, :, None]
    x = np.arange(shape[2], dtype="f8")[None, None, :]
    block = np.sin(z / 17.0) * np.cos(y / 23.0) + x / shape[2]
    block += np.random.default_rng(rank).standard_normal(block.shape) * 1e-3
    return block


def slabs(n: int, size: int, chunk: int) -> list[slice]:
    """Slabs of about equal size whose inner boundaries fall inside chunks."""
    cuts = [0] + [min(n, (n * r) // size + chunk // 3) for r in range(1, size)] + [n]
    return [slice(a, b) for a, b in itertools.pairwise(cuts)]


def timed(comm, fn, repeat: int, root: Path | None = None, keep: str = "") -> float:
    """Median over ``repeat`` runs of the wall time from a barrier to the slowest rank.

    ``fn(i)`` gets the repetition number, to write to a new path each time (so that no
    method pays for deleting what the previous repetition wrote). Afterwards, outside the
    timing, rank 0 deletes what the runs wrote under ``root`` except names starting with
    ``keep``: on a RAM file system (/dev/shm) the copies would otherwise add up.
    """
    times = []
    for i in range(repeat):
        comm.Barrier()
        t0 = time.perf_counter()
        fn(i)
        dt = comm.allreduce(time.perf_counter() - t0, op=_max())
        times.append(dt)
    if root is not None:
        _clean(comm, root, keep)
    return statistics.median(times)


def round_order(names: list, slow: set, i: int) -> list:
    """The order of round ``i``: the fast methods first, taking turns at the head, then
    the slow ones (``slow``), taking turns too: so the close comparisons (zarrhpc
    against per-rank files) never follow a long single-rank phase, and each method leads
    equally often over ``len(fast)`` rounds."""
    def turn(group):
        k = i % len(group) if group else 0
        return group[k:] + group[:k]

    return turn([n for n in names if n not in slow]) + turn([n for n in names if n in slow])


def timed_rounds(comm, fns: dict, repeat: int, root: Path, keep: str = "",
                 slow: frozenset = frozenset()) -> tuple[dict, dict]:
    """Wall times and CPU times of every method in ``fns``, run in turn in each of
    ``repeat`` rounds: ``(times, cpu)``, each a list per method name.

    Interleaved, so that a method and its peers see the same machine (on a shared
    machine the load drifts over a minute); each time is from a barrier to the slowest
    rank. The order changes from round to round (`round_order`; ``slow`` names the
    methods that go last). After each method, outside the timing, rank 0 deletes what it
    wrote except names starting with ``keep``: every method then writes into memory just
    freed, as on a node that checkpoints over its previous files. (With a whole round's
    files left in place on this 2-core VM, the second gathered write of 1 GiB took 6-9 s
    instead of 1-3 s, whichever peer it was.) An untimed round comes first (imports, MPI
    connections, first touches of memory), with ``i = -1``.

    The CPU time is the mean over ranks of each process's CPU seconds (all its threads)
    while it ran the method. With ranks outnumbering cores the wall time follows it;
    blocking MPI collectives spin, so a rank waiting in ``Gatherv`` adds CPU too.
    """
    times = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    for i in range(-1, repeat):
        for name in round_order(list(fns), set(slow), i):
            fn = fns[name]
            comm.Barrier()
            c0, t0 = time.process_time(), time.perf_counter()
            fn(i)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
            dt, dc = comm.allreduce(dt, op=_max()), comm.allreduce(dc) / comm.Get_size()
            if i >= 0:
                times[name].append(dt)
                cpu[name].append(dc)
            _clean(comm, root, keep)
    return times, cpu


def _clean(comm, root: Path, keep: str) -> None:
    comm.Barrier()
    if comm.Get_rank() == 0:
        for p in root.iterdir():
            if not (keep and p.name.startswith(keep)):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()
    comm.Barrier()


def _max():
    MPI = _mpi()  # only zarrhpc.mpi imports mpi4py

    return MPI.MAX
