"""Run collective write/read cases on real ranks: ``mpiexec -n N python mpi_worker.py DIR``.

The cases (and the global arrays they write) are pure functions of the case and the number
of ranks, so the pytest process rebuilds the expected arrays itself and compares them with
what the ranks stored. The worker records, per case, which rank wrote (or erased) which
chunk key, and whether each rank's collective read returned its block; rank 0 writes it
all to ``DIR/results.json``.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np

SHAPES = {  # ndim -> (shape, chunks): several chunks per axis, ragged edges
    1: ((103,), (10,)),
    2: ((37, 29), (8, 6)),
    3: ((17, 13, 11), (5, 4, 3)),
    4: ((9, 8, 7, 6), (3, 3, 2, 4)),
}
DTYPES = ("f8", "i4", "f4", "u2")
POLICIES = ("block", "cyclic", "decomposition")
KINDS = ("aligned", "unaligned", "partial")


def make_cases(nranks: int, sharded: bool = True) -> list[dict]:
    cases = []
    for i, (ndim, kind, policy) in enumerate(itertools.product(SHAPES, KINDS, POLICIES)):
        shape, chunks = SHAPES[ndim]
        codec = ("none", "blosc", "zstd")[i % 3]
        cases.append({"name": f"{ndim}d-{kind}-{policy}-{codec}", "shape": shape,
                      "chunks": chunks, "shards": None, "dtype": DTYPES[i % len(DTYPES)],
                      "codec": codec, "kind": kind, "policy": policy,
                      "seed": 1000 * nranks + i, "prefill": i % 2 == 0})
    if sharded:
        for i, (ndim, kind) in enumerate(itertools.product((2, 3), KINDS)):
            shape, chunks = SHAPES[ndim]
            cases.append({"name": f"{ndim}d-{kind}-sharded", "shape": shape, "chunks": chunks,
                          "shards": tuple(2 * c for c in chunks), "dtype": "f8",
                          "codec": "zstd", "kind": kind, "policy": POLICIES[i % 3],
                          "seed": 5000 + 1000 * nranks + i, "prefill": True})
    return cases


def process_grid(nranks: int, ndim: int, seed: int) -> tuple[int, ...]:
    """How many ranks along each axis (the rest are 1); varies which axes are cut."""
    if nranks == 4 and ndim >= 2:
        grid = [2, 2] + [1] * (ndim - 2)
    else:
        grid = [1] * ndim
        grid[seed % ndim] = nranks
    return tuple(grid)


def _cuts(rng, lo: int, hi: int, parts: int, step: int, aligned: bool) -> list[int]:
    if parts == 1:
        return [lo, hi]
    if aligned:
        points = np.arange(lo, hi + 1, step).tolist()
        inner = sorted(rng.choice(points, parts - 1).tolist())  # repeats: empty regions
    else:
        inner = sorted(rng.integers(lo, hi + 1, parts - 1).tolist())
    return [lo, *inner, hi]


def regions(case: dict, nranks: int) -> list[tuple[slice, ...]]:
    """Every rank's region: a (random) block decomposition of the whole array or a sub-box."""
    rng = np.random.default_rng(case["seed"])
    shape = case["shape"]
    unit = case["shards"] or case["chunks"]
    grid = process_grid(nranks, len(shape), case["seed"])
    if case["kind"] == "partial":
        bounds = [tuple(sorted(rng.integers(0, n + 1, 2).tolist())) for n in shape]
        bounds = [(a, b) if b > a else (0, n) for (a, b), n in zip(bounds, shape)]
    else:
        bounds = [(0, n) for n in shape]
    cuts = [_cuts(rng, a, b, g, u, case["kind"] == "aligned")
            for (a, b), g, u in zip(bounds, grid, unit)]
    out = []
    for idx in itertools.product(*(range(g) for g in grid)):
        out.append(tuple(slice(c[i], c[i + 1]) for c, i in zip(cuts, idx)))
    return out


def global_array(case: dict) -> np.ndarray:
    rng = np.random.default_rng(case["seed"])
    data = rng.integers(1, 1000, case["shape"]).astype(case["dtype"])
    # a run of zeros (the fill value) so that some assembled chunks must be erased
    data[: case["chunks"][0] + 1] = 0
    return data


def prefill_array(case: dict) -> np.ndarray:
    return np.full(case["shape"], 7, dtype=case["dtype"])


def expected(case: dict, nranks: int) -> np.ndarray:
    """What the store must hold after the collective write: a serial numpy write."""
    out = prefill_array(case) if case["prefill"] else np.zeros(case["shape"], case["dtype"])
    g = global_array(case)
    for reg in regions(case, nranks):
        out[reg] = g[reg]
    return out


def compressors(codec: str):
    if codec == "none":
        return None
    if codec == "blosc":
        return {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}
    return {"name": "zstd", "configuration": {"level": 1}}


def main(root: str) -> int:
    from mpi4py import MPI

    import zarrhpc
    from zarrhpc import mpi as zmpi
    from zarrhpc.errors import UnsupportedError

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()

    class RecordingStore(zarrhpc.LocalStore):
        """Remembers every chunk key this rank stores or erases."""

        touched: ClassVar[list] = []

        def _set(self, key, data):
            if not key.endswith("zarr.json"):
                self.touched.append(key)
            super()._set(key, data)

        def _erase(self, key):
            if not key.endswith("zarr.json"):
                self.touched.append(key)
            super()._erase(key)

    store = RecordingStore(root)
    results = []
    for case in make_cases(size):
        res = {"name": case["name"]}
        try:
            arr = zmpi.create_array(comm, store, name=case["name"], shape=case["shape"],
                                    chunks=case["chunks"], shards=case["shards"],
                                    dtype=case["dtype"], compressors=compressors(case["codec"]))
        except UnsupportedError as exc:
            results.append(dict(res, status=f"unsupported: {exc}"))
            continue
        if case["prefill"] and rank == 0:
            arr[...] = prefill_array(case)
        comm.Barrier()
        regs = regions(case, size)
        mine = regs[rank]
        g = global_array(case)
        own = zmpi.Ownership(arr, comm, case["policy"],
                             regions=mine if case["policy"] == "decomposition" else None)
        if case["policy"] == "decomposition" and rank % 2:
            own = None  # the default is the decomposition too: mixing both must agree
        RecordingStore.touched = []
        zmpi.write(arr, mine, g[mine], comm, ownership=own)
        touched = comm.gather(RecordingStore.touched, root=0)
        check = zmpi.Ownership(arr, comm, case["policy"], regions=regs)
        want = expected(case, size)
        reads = {}
        for method in ("direct", "owners"):
            block = zmpi.read(arr, mine, comm, method=method, ownership=check)
            reads[method] = comm.gather(bool(np.array_equal(block, want[mine])), root=0)
        if rank == 0:
            prefix = len(case["name"]) + 3  # "<name>/c/"
            res["writes"] = {r: [k[prefix:] for k in keys] for r, keys in enumerate(touched)}
            res["owners"] = {r: [list(c) for c in check.owned_chunks(r)] for r in range(size)}
            res["reads"] = reads
            res["status"] = "ok"
            results.append(res)
    if rank == 0:
        Path(root, "results.json").write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
