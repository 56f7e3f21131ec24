"""Bad input on some ranks: ``mpiexec -n N python -m mpi4py errors_worker.py DIR``.

Every scenario runs on every rank; each rank records what it raised (class and message)
in ``DIR/errors_<rank>.json``. None of them may hang: a rank that raised alone would leave
the others waiting, so the job finishing at all is part of the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(root: str) -> int:
    from mpi4py import MPI

    import zarrhpc
    from zarrhpc import mpi as zmpi

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    out = {}

    def attempt(name, fn):
        try:
            result = fn()
            out[name] = {"ok": True, "result": result}
        except Exception as exc:  # noqa: BLE001 - recorded for the test
            out[name] = {"ok": False, "type": type(exc).__name__, "msg": str(exc)}
        comm.Barrier()

    arr = zmpi.create_array(comm, root, name="a", shape=(12, 10), chunks=(4, 5), dtype="i4")
    slab = (slice(4 * rank, 4 * rank + 4),) if rank < 3 else None
    g = np.arange(120, dtype="i4").reshape(12, 10)

    def wrong_block_shape():
        block = g[slab] if slab is not None else None
        if rank == 1:
            block = block[:2]  # rank 1 passes a block too small for its region
        zmpi.write(arr, slab, block, comm)

    def overlapping_regions():
        reg = (slice(0, 6),) if rank == 0 else (slice(5, 7),) if rank == 1 else None
        zmpi.write(arr, reg, None if reg is None else g[reg], comm)

    def bad_region():
        reg = (slice(0, 99),) if rank == size - 1 else None
        zmpi.write(arr, reg, None, comm)

    def open_missing():
        zmpi.open_array(comm, root, path="nope")

    def memory_store():
        zmpi.create_array(comm, zarrhpc.MemoryStore(), shape=(4,), dtype="i4")

    def read_only_write():
        ro = zmpi.open_array(comm, root, path="a", mode="r")
        zmpi.write(ro, slab, None if slab is None else g[slab], comm)

    def write_owned_aligned():
        own = zmpi.Ownership(arr, comm, "decomposition", regions=slab if slab else (slice(0, 0),))
        if slab is not None:
            zmpi.write_owned(arr, slab, g[slab] + 1000, own)
        comm.Barrier()
        return bool(np.array_equal(arr[...], g + 1000)) if size >= 3 else None

    def write_owned_refused():
        own = zmpi.Ownership(arr, comm, "cyclic")
        zmpi.write_owned(arr, (slice(0, 4),), g[:4], own)  # rank 0's slab: chunks of all ranks

    def zero_d():
        z = zmpi.create_array(comm, root, name="z", shape=(), chunks=(), dtype="f8")
        zmpi.write(z, () if rank == size - 1 else None, np.float64(3.5) if rank == size - 1 else None,
                   comm)
        back = zmpi.read(z, () if rank == 0 else None, comm)
        return float(back[()]) if rank == 0 else back.shape

    def threads_shared():
        from zarrhpc import config
        from zarrhpc.mpi.collective import _share_node

        before = config.get("threads")
        with _share_node(comm):
            inside = config.get("threads")
        with config.set(threads=1), _share_node(comm):  # an explicit choice is kept
            explicit = config.get("threads")
        return [before, inside, config.get("threads"), explicit, config.available_cpus()]

    def checkpoint_missing_region():
        from zarrhpc.checkpoint import Checkpointer

        ck = Checkpointer(Path(root, "ck"), comm)
        reg = (slice(4 * rank, 4 * rank + 4),)
        ck.save(1, {"g": g[reg]}, region=None if rank == 1 else reg, shape=g.shape)

    unaligned = (slice(0, 5),) if rank == 0 else (slice(5, 12),) if rank == 1 else None

    def write_with_failing(step: str, failing_rank: int, exc: Exception):
        """The unaligned write, with ``collective.<step>`` raising ``exc`` on one rank."""
        from zarrhpc.mpi import collective

        real = getattr(collective, step)

        def broken(*args):
            raise exc

        if rank == failing_rank:
            setattr(collective, step, broken)
        try:
            zmpi.write(arr, unaligned, None if unaligned is None else g[unaligned], comm)
        finally:
            setattr(collective, step, real)

    def pack_fails():  # rank 0 sends a piece to rank 1; packing it fails
        write_with_failing("_segment", 0, MemoryError("no room to pack the pieces"))

    def ownership_differs():
        own = zmpi.Ownership(arr, comm, "cyclic" if rank == 0 else "block")
        zmpi.write(arr, unaligned, None if unaligned is None else g[unaligned], comm, ownership=own)

    def write_fails_late():  # after the exchange started: reported by the closing agreement
        write_with_failing("_write_direct", 1, OSError("no space left on device (test)"))

    def read_bad_out():
        reg = (slice(0, 4),)
        out = np.empty((3, 10) if rank == 2 else (4, 10), dtype="i4")
        return zmpi.read(arr, reg, comm, out=out).shape[0]

    for name, fn in [("threads_shared", threads_shared), ("pack_fails", pack_fails),
                     ("write_fails_late", write_fails_late), ("read_bad_out", read_bad_out),
                     ("ownership_differs", ownership_differs),
                     ("checkpoint_missing_region", checkpoint_missing_region), ("wrong_block_shape", wrong_block_shape), ("overlapping_regions", overlapping_regions),
                     ("bad_region", bad_region), ("open_missing", open_missing),
                     ("memory_store", memory_store), ("read_only_write", read_only_write),
                     ("write_owned_aligned", write_owned_aligned),
                     ("write_owned_refused", write_owned_refused), ("zero_d", zero_d)]:
        attempt(name, fn)
    Path(root, f"errors_{rank}.json").write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
