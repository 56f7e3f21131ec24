"""Differential programs for collective writes at the array's edge: real ranks against
zarr-python and the serial path.

A chunk (or shard) cut by the array's edge holds elements past the edge; zarr-python keeps
them unless one write covers the chunk's in-array part with a step-1 slice (then it writes
a fresh chunk), and they show again when the array grows (`zarrhpc.core._write`
`edge_merge_dims`, tests/reliability/test_edge_chunk_merge.py). A collective write
(`zarrhpc.mpi.write`) is every rank's ``a[region] = block``: its result must be that of
those writes made one after the other, whatever ranks assemble which chunks.

Life cycle: `make_programs(nranks)` draws, from a seed, programs of collective operations
on small arrays with ragged edges (plain, sharded with edge inner chunks, compressed or
not, v2): a serial fill by rank 0, collective writes whose regions leave gaps and cut
chunks (ownership ``decomposition``, ``block``, ``cyclic``, ``node`` for sharded arrays),
collective resizes that shrink then grow, and a last grow to the largest shape so that
what lies past every edge is read. ``main`` (run as ``mpiexec -n N python -m mpi4py
differential_mpi.py DIR``) runs them on real ranks into ``DIR/<name>``;
`reference` runs one program with zarr-python (or serial zarrhpc) in one process, each
collective write as the ranks' writes in rank order. The caller compares the stores.
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np

__all__ = ["make_programs", "reference", "regions_of", "run_program", "value_of"]

LAYOUTS = {
    "plain-1d": dict(shape=(10,), chunks=(4,)),
    "plain-2d": dict(shape=(7, 5), chunks=(3, 2)),
    "zstd-2d": dict(shape=(7, 5), chunks=(3, 2), codec="zstd"),
    "v2-2d": dict(shape=(7, 5), chunks=(3, 2), zarr_format=2),
    "v2-F-3d": dict(shape=(7, 5, 3), chunks=(3, 2, 2), zarr_format=2, order="F"),
    "sharded-1d": dict(shape=(11,), chunks=(2,), shards=(4,)),
    "sharded-2d": dict(shape=(7, 9), chunks=(2, 3), shards=(4, 6)),
    "sharded-zstd": dict(shape=(9, 7), chunks=(3, 2), shards=(6, 4), codec="zstd"),
}
POLICIES = ("decomposition", "block", "cyclic", "node")


def _interval(rng: random.Random, n: int) -> tuple[int, int]:
    a = rng.randrange(0, n + 1)
    b = rng.randrange(0, n + 1)
    return (min(a, b), max(a, b)) if a != b else (a, min(n, a + 1))


def regions_of(rng: random.Random, shape, nranks: int) -> list:
    """Disjoint regions, one per rank (``None``: nothing): slabs along a random axis cut
    at random (gaps allowed), each with a random interval on the other axes."""
    axis = rng.randrange(len(shape))
    n0 = shape[axis]
    cuts = sorted(rng.randrange(0, n0 + 1) for _ in range(2 * nranks))
    out = []
    for r in range(nranks):
        lo, hi = cuts[2 * r], cuts[2 * r + 1]
        if rng.random() < 0.3:  # widen to the next cut: slabs that touch
            hi = cuts[2 * r + 2] if 2 * r + 2 < len(cuts) else n0
        if hi <= lo or rng.random() < 0.1:
            out.append(None)
            continue
        box = [list(_interval(rng, n)) if rng.random() < 0.5 else [0, n] for n in shape]
        box[axis] = [lo, hi]
        out.append(box)
    return out


def value_of(step: int, rank: int, region) -> np.ndarray:
    """The block rank ``rank`` writes at ``region`` in step ``step`` (distinct values)."""
    shape = tuple(b - a for a, b in region)
    base = 1000 * (step + 1) + 100 * rank
    return (base + np.arange(int(np.prod(shape)))).reshape(shape).astype("i4")


def make_programs(nranks: int, seed: int = 0, count: int = 4,
                  restart: int | None = None) -> list[dict]:
    """``count`` programs per layout (each a dict: name, layout, ops). With ``restart``,
    each program stops at a ``["restart"]`` op and goes on with that many ranks (a job
    restarted on another rank count opens the array again)."""
    rng = random.Random(seed * 7919 + nranks * 31 + (restart or 0))
    programs = []
    for lname, layout in LAYOUTS.items():
        for k in range(count):
            shape = list(layout["shape"])
            largest = list(shape)
            ops: list = [["fill"]]
            if rng.random() < 0.7:  # shrink first: what lies past the new edges is kept
                shape = [max(1, n - rng.randrange(1, 4)) for n in shape]
                ops.append(["resize", shape])
            nops = rng.randrange(3, 6)
            stop = rng.randrange(1, nops) if restart else None
            ranks = nranks
            for j in range(nops):
                if j == stop:
                    ops.append(["restart"])
                    ranks = restart
                if rng.random() < 0.35:
                    new = [max(1, n + rng.randrange(-3, 3)) for n in shape]
                    ops.append(["resize", new])
                    shape = new
                    largest = [max(a, b) for a, b in zip(largest, new)]
                else:
                    policy = rng.choice(POLICIES if "shards" in layout else POLICIES[:3])
                    ops.append(["write", policy, regions_of(rng, shape, ranks)])
            ops.append(["resize", largest])
            programs.append({"name": f"{lname}-{k}", "layout": lname, "ops": ops})
    return programs


def _create(lib, store, layout: dict):
    kw = _create_kwargs(layout)
    if lib.__name__ == "zarr" and layout.get("codec") == "zstd":
        import numcodecs
        from zarr.codecs import ZstdCodec

        kw["compressors"] = (numcodecs.Zstd(level=1) if kw["zarr_format"] == 2
                             else ZstdCodec(level=1))
    return lib.create_array(store, **kw)


def _slices(region):
    return tuple(slice(a, b) for a, b in region)


def reference(lib, store, program: dict, nranks: int):
    """Run ``program`` in this process with ``lib`` (zarr or zarrhpc): a collective write
    is each rank's ``a[region] = block`` in rank order. Returns the array."""
    a = _create(lib, store, LAYOUTS[program["layout"]])
    for step, op in enumerate(program["ops"]):
        if op[0] == "fill":
            a[...] = np.arange(int(np.prod(a.shape)), dtype="i4").reshape(a.shape)
        elif op[0] == "resize":
            a.resize(tuple(op[1]))
        elif op[0] == "write":
            for rank, region in enumerate(op[2]):
                if region is not None:
                    a[_slices(region)] = value_of(step, rank, region)
    return a


def run_program(comm, root: str, program: dict, phase: int = 0) -> None:
    """Run ``program`` collectively on ``comm`` into the directory ``root``: the whole of
    it (``phase`` 0), or the ops before (1) or after (2) its ``["restart"]`` op."""
    from zarrhpc import mpi as zmpi

    rank = comm.Get_rank()
    ops = list(enumerate(program["ops"]))
    cut = next((i for i, op in ops if op[0] == "restart"), len(ops))
    if phase == 2:
        a = zmpi.open_array(comm, root, mode="r+")
        ops = ops[cut + 1:]
    else:
        a = zmpi.create_array(comm, root, **_create_kwargs(LAYOUTS[program["layout"]]))
        ops = ops[:cut] if phase == 1 else ops
    for step, op in ops:
        if op[0] == "fill":
            if rank == 0:
                a[...] = np.arange(int(np.prod(a.shape)), dtype="i4").reshape(a.shape)
            comm.Barrier()
        elif op[0] == "resize":
            zmpi.resize(comm, a, tuple(op[1]))
        else:
            policy, regions = op[1], op[2]
            mine = regions[rank]
            region = None if mine is None else _slices(mine)
            block = None if mine is None else value_of(step, rank, mine)
            own = None
            if policy != "decomposition":
                own = zmpi.Ownership(a, comm, policy,
                                     regions=[None if r is None else _slices(r) for r in regions]
                                     if policy == "node" else None)
            zmpi.write(a, region, block, comm, ownership=own)
    comm.Barrier()


def _create_kwargs(layout: dict) -> dict:
    kw = {k: v for k, v in layout.items() if k not in ("codec", "zarr_format")}
    zarr_format = layout.get("zarr_format", 3)
    if layout.get("codec") == "zstd":
        kw["compressors"] = ({"id": "zstd", "level": 1} if zarr_format == 2 else
                             {"name": "zstd", "configuration": {"level": 1}})
    else:
        kw["compressors"] = None
    return dict(kw, dtype="i4", fill_value=-1, zarr_format=zarr_format, overwrite=True)


def main(argv: list[str]) -> None:
    """``differential_mpi.py DIR SEED COUNT [PHASE RANKS RESTART]``: run `make_programs`
    into DIR/<name> (with PHASE 1 or 2: the part before or after the restart, the
    programs drawn for RANKS then RESTART ranks); rank 0 writes DIR/programs.json."""
    from zarrhpc.mpi._comm import _mpi

    comm = _mpi().COMM_WORLD
    root, seed, count = argv[0], int(argv[1]), int(argv[2])
    phase = int(argv[3]) if len(argv) > 3 else 0
    if phase:
        programs = make_programs(int(argv[4]), seed, count, restart=int(argv[5]))
    else:
        programs = make_programs(comm.Get_size(), seed, count)
    for program in programs:
        run_program(comm, f"{root}/{program['name']}", program, phase)
    if comm.Get_rank() == 0:
        with open(f"{root}/programs.json", "w") as f:
            json.dump(programs, f)


if __name__ == "__main__":
    main(sys.argv[1:])
