"""Checkpoint jobs for the kill tests: ``mpiexec -n N python ckpt_worker.py MODE DIR``.

Modes
- ``hang``: commit steps 1 and 2, then start step 3 and stop dead (sleep) after each rank has
  stored a few chunks of it, announcing ``DIR/pids/<rank>``: the test SIGKILLs every rank.
- ``restart``: load the newest committed step (each rank its region), check it, save step 3.
- ``loop``: save steps 0, 1, 2, ... (keep_last=2) until killed; ``DIR/pids/<rank>`` once
  step 0 is committed.
- ``retention``: save steps 0..3 with keep_last=1 through a store that records, in
  ``DIR/erased/<rank>``, how many chunk keys of retired steps this rank erased.
- ``resume``: after a kill at any moment: check the newest committed step, if any (each
  rank its region), then save the next two steps (keep_last=2), as a restarted job would.

The data of step s is a pure function (`field`) so any process can check it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

SHAPE = (23, 19, 10)
CHUNKS = (5, 4, 10)
BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}


def field(step: int, name: str = "T") -> np.ndarray:
    base = np.arange(np.prod(SHAPE), dtype="f8").reshape(SHAPE)
    return base * (step + 1) + (0.5 if name == "T" else -3.0)


def region(rank: int, size: int) -> tuple[slice, ...]:
    """Unaligned slabs along axis 0."""
    cuts = np.linspace(0, SHAPE[0], size + 1).round().astype(int)
    return (slice(int(cuts[rank]), int(cuts[rank + 1])), slice(None), slice(None))


def announce_pid(pids: Path, rank: int) -> None:
    """``pids/<rank>`` holds this process's id (written atomically): the test kills it."""
    pids.mkdir(exist_ok=True)
    tmp = pids / f".{rank}"
    tmp.write_text(str(os.getpid()))
    tmp.rename(pids / str(rank))


def main(mode: str, root: str) -> int:
    from mpi4py import MPI

    import zarrhpc
    from zarrhpc.checkpoint import Checkpointer

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    reg = region(rank, size)
    pids = Path(root, "pids")

    def announce():
        announce_pid(pids, rank)

    def save(ck, step):
        ck.save(step, {"T": field(step)[reg], "U": field(step, "U")[reg]}, {"time": step * 0.25},
                region=reg, shape=SHAPE, chunks=CHUNKS, compressors=BLOSC)

    if mode == "hang":
        class StopMidway(zarrhpc.LocalStore):
            """Stores a few chunks of step 3, then this rank stops dead until killed."""

            count = 0

            def _set(self, key, data):
                super()._set(key, data)
                if key.startswith("step_00000003/") and "/c/" in key:
                    StopMidway.count += 1
                    if StopMidway.count == 2:
                        announce()
                        time.sleep(600)

        ck = Checkpointer(StopMidway(root), comm)
        save(ck, 1)
        save(ck, 2)
        save(ck, 3)
        return 1  # not reached: every rank stops inside step 3

    if mode == "retention":
        erased = []

        class Recording(zarrhpc.LocalStore):
            def _erase(self, key):
                erased.append(key)
                super()._erase(key)

        ck = Checkpointer(Recording(root), comm, keep_last=1)
        for step in range(4):
            save(ck, step)
        Path(root, "erased").mkdir(exist_ok=True)
        chunks = [k for k in erased if "/c/" in k]
        Path(root, "erased", str(rank)).write_text(str(len(chunks)))
        return 0
    ck = Checkpointer(root, comm, keep_last=2)
    if mode == "restart":
        snap = ck.load(region=reg)
        assert snap.step == 2, snap.step
        assert snap.attrs == {"time": 0.5}, snap.attrs
        assert np.array_equal(snap["T"], field(2)[reg])
        assert np.array_equal(snap["U"], field(2, "U")[reg])
        assert ck.uncommitted() == [3]
        save(ck, 3)
        return 0
    if mode == "resume":
        latest = ck.latest()
        if latest is not None:
            snap = ck.load(region=reg)
            assert snap.step == latest, (snap.step, latest)
            assert snap.attrs == {"time": latest * 0.25}, snap.attrs
            assert np.array_equal(snap["T"], field(latest)[reg])
            assert np.array_equal(snap["U"], field(latest, "U")[reg])
        start = 0 if latest is None else latest + 1
        for step in (start, start + 1):
            save(ck, step)
        assert ck.latest() == start + 1 and ck.uncommitted() == [], (ck.steps(), ck.uncommitted())
        return 0
    if mode == "loop":
        step = 0
        while True:
            save(ck, step)
            if step == 0:
                announce()
            step += 1
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
