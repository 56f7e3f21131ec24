"""Checkpoints past one node: ``mpiexec -n N python ckpt2_worker.py MODE DIR``.

Modes
- ``write``: save step 1 of four arrays (plain and node-aggregated shards, uncompressed
  and blosc) from unaligned slabs; every rank writes its stats to ``DIR/stats/<rank>``.
- ``read``: load step 1 on this job's rank count, each rank a region of a random
  decomposition (seeded by the rank count), and compare bit for bit.
- ``async``: asynchronous saves: snapshot before return, one in flight, local waits,
  the same stats on every rank, what was saved is what loads.
- ``async_hang``: steps 1 and 2 saved asynchronously, then step 3's background save stops
  dead after a few chunks (``DIR/pids/<rank>`` announced): the test SIGKILLs every rank.
- ``async_node_hang``: as ``async_hang`` with node-aggregated shards, the caller
  overwriting its array right after each ``save_async``; step 3 stops dead in its shard writes.
- ``tiers``: a fast and a durable tier, drain_every=2.
- ``drain_hang``: steps 1 and 2 saved and drained, step 3 saved; its drain stops dead.

The data of a step is a pure function of the global coordinates (`field`).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

SHAPE = (37, 26, 11)
CHUNKS = (4, 5, 11)
BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}
NAMES = ("plain_raw", "plain_blosc", "node_raw", "node_blosc")


def field(step: int, name: str = "T") -> np.ndarray:
    base = np.arange(np.prod(SHAPE), dtype="f8").reshape(SHAPE)
    out = np.sin(base * 0.01 * (step + 1)) + len(name)
    out[:5] = 0.0  # fill chunks, left out
    return out


def slabs(rank: int, size: int) -> tuple[slice, ...]:
    cuts = np.linspace(0, SHAPE[0], size + 1).round().astype(int)
    return (slice(int(cuts[rank]), int(cuts[rank + 1])), slice(None), slice(None))


def random_region(rank: int, size: int) -> tuple[slice, ...]:
    """A decomposition along a random axis with random cuts (the same on every rank)."""
    rng = np.random.default_rng(size)
    axis = int(rng.integers(3))
    n = SHAPE[axis]
    cuts = [0] + sorted(rng.integers(0, n + 1, size - 1).tolist()) + [n]
    return tuple(slice(cuts[rank], cuts[rank + 1]) if d == axis else slice(None) for d in range(3))


def main(mode: str, root: str) -> int:
    from mpi4py import MPI

    import zarrhpc
    from zarrhpc.checkpoint import Checkpointer

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    reg = slabs(rank, size)
    pids = Path(root, "pids")

    def stopping_store(path, nth: int):
        """A LocalStore that stops this rank dead (until killed) after storing the
        ``nth`` chunk of step 3, once it has announced itself in ``DIR/pids``."""
        from ckpt_worker import announce_pid  # beside this script

        class Stop(zarrhpc.LocalStore):
            count = 0

            def _set(self, key, data):
                super()._set(key, data)
                if key.startswith("step_00000003/") and "/c/" in key:
                    Stop.count += 1
                    if Stop.count == nth:
                        announce_pid(pids, rank)
                        time.sleep(600)

        return Stop(path)

    def kw(name):
        out = {"region": reg, "shape": SHAPE, "chunks": CHUNKS,
               "compressors": BLOSC if name.endswith("blosc") else None}
        if name.startswith("node"):
            out["policy"] = "node"
        return out

    def save_all(ck, step, asynchronous=False):
        """One save per kind of array (each save takes one set of options)."""
        handles = []
        for name in NAMES:
            fn = ck.save_async if asynchronous else ck.save
            handles.append(fn(step * 10 + NAMES.index(name), {name: field(step, name)[reg]},
                              {"step": step}, **kw(name)))
        return handles

    if mode == "write":
        ck = Checkpointer(root, comm)
        stats = {}
        for step, name in enumerate(NAMES, 1):  # one save per kind: options are per save
            ck.shards_per_node = 1 if name == "node_raw" else 2  # one shard per node, or two
            stats[name] = ck.save(step, {name: field(step, name)[reg]}, {"time": step * 1.5},
                                  **kw(name))
            files = sorted(str(p.relative_to(root))
                           for p in Path(root, f"step_{step:08d}", name).rglob("*") if p.is_file())
            stats[name]["files_in_array"] = len(files)
        Path(root, "stats").mkdir(exist_ok=True)
        Path(root, "stats", str(rank)).write_text(json.dumps(stats))
        return 0

    if mode == "read":
        ck = Checkpointer(root, comm)
        mine = random_region(rank, size)
        assert ck.steps() == [1, 2, 3, 4]
        for step, name in enumerate(NAMES, 1):
            snap = ck.load(step, region=mine)
            assert list(snap.arrays) == [name]
            assert snap[name].tobytes() == field(step, name)[mine].tobytes(), name
            assert snap.attrs == {"time": step * 1.5}
        Path(root, f"read_{size}_{rank}").write_text("ok")
        return 0

    if mode == "async":
        ck = Checkpointer(root, comm, keep_last=3)
        data = field(0)[reg].copy()
        handles = []
        for step in range(4):
            data[...] = field(step)[reg]
            h = ck.save_async(step, {"T": data}, {"step": step}, region=reg, shape=SHAPE,
                              chunks=CHUNKS, compressors=BLOSC, shards=(8, 10, 11))
            data[...] = -1.0  # overwritten at once: the snapshot was taken
            handles.append(h)
        stats = handles[-1].wait()
        assert handles[-1].done() and handles[-1].exception() is None
        assert all(h.done() for h in handles)  # one at a time: the earlier ones are done
        every = comm.allgather(stats)
        assert all(s == every[0] for s in every), every
        assert stats["files_created"] > 0 and stats["renames"] >= stats["files_created"] - 2
        for step in (1, 2, 3):
            snap = ck.load(step, region=reg)
            assert np.array_equal(snap["T"], field(step)[reg]), step
        assert ck.steps() == [1, 2, 3]
        if rank == 0:
            Path(root, "async_stats.json").write_text(json.dumps(every[0]))
        ck.close()
        return 0

    if mode == "async_hang":
        ck = Checkpointer(stopping_store(root, 2), comm)
        for step in (1, 2, 3):
            h = ck.save_async(step, {"T": field(step)[reg]}, {"step": step}, region=reg,
                              shape=SHAPE, chunks=CHUNKS, compressors=BLOSC)
        h.wait()  # never returns: the background save of step 3 stops dead
        return 1

    if mode == "async_node_hang":  # node-aggregated shards, the caller's array reused
        from ckpt_worker import announce_pid  # beside this script

        import zarrhpc.mpi.aggregate as agg

        write = agg._pwrite
        stop = []

        def stopping_pwrite(fd, offset, items, *args, **kwargs):
            write(fd, offset, items, *args, **kwargs)
            if stop:  # step 3: stop dead inside the shard writes, after the first write
                announce_pid(pids, rank)
                time.sleep(600)

        agg._pwrite = stopping_pwrite
        ck = Checkpointer(root, comm)
        data = np.empty_like(field(1)[reg])
        for step in (1, 2, 3):
            if step == 3:
                ck._wait_job()  # step 2 committed: only step 3's save stops
                stop.append(True)
            data[...] = field(step)[reg]
            h = ck.save_async(step, {"T": data}, {"step": step}, region=reg, shape=SHAPE,
                              chunks=CHUNKS, compressors=BLOSC, policy="node")
            data[...] = -1.0  # the caller overwrites its array at once
        h.wait()  # never returns
        return 1

    if mode == "tiers":
        fast, durable = Path(root, "fast"), Path(root, "durable")
        with Checkpointer(durable, comm, fast=fast, drain_every=2) as ck:
            for step in range(5):
                args = ({"T": field(step)[reg]}, {"step": step})
                opts = {"region": reg, "shape": SHAPE, "chunks": CHUNKS, "compressors": BLOSC}
                if step % 2:
                    ck.save_async(step, *args, **opts)
                else:
                    ck.save(step, *args, **opts)
            assert ck.latest() == 4 and ck.steps() == [0, 1, 2, 3, 4]
            assert Checkpointer(durable, comm).steps() == [1, 3]  # the 2nd and 4th saves
            snap = ck.load(region=reg)
            assert snap.step == 4 and np.array_equal(snap["T"], field(4)[reg])
        # close() drained the newest step
        alone = Checkpointer(durable, comm)
        assert alone.steps() == [1, 3, 4], alone.steps()
        assert np.array_equal(alone.load(region=reg)["T"], field(4)[reg])
        return 0

    if mode == "drain_hang":
        ck = Checkpointer(stopping_store(Path(root, "durable"), 1), comm, fast=Path(root, "fast"))
        for step in (1, 2, 3):
            ck.save(step, {"T": field(step)[reg]}, {"step": step}, region=reg, shape=SHAPE,
                    chunks=CHUNKS, compressors=BLOSC)
        ck.latest()  # waits for the drain of step 3: never returns
        return 1
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
