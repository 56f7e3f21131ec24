"""Random SIGKILLs of every rank during collective MPI writes; then check the store.

Kinds (4 ranks, each holding an unaligned slab, so that chunks cut by rank boundaries
travel in the two-phase exchange):

- ``collective``: `zarrhpc.mpi.write` of unsharded chunks (default "decomposition"
  ownership);
- ``node``: node-aggregated shards (``ZARRHPC_RANKS_PER_NODE=2``: 2 simulated nodes
  whose ranks write into the same shard files, `zarrhpc.mpi.aggregate`);
- ``resize``: `zarrhpc.mpi.resize` between two shapes, then a collective write of the
  new shape.

The job writes generation after generation (generation g writes the value g everywhere)
and rank 0 prints a line for g once every rank's write returned; this process SIGKILLs every rank
at a random moment, then checks that

- the store opens with zarrhpc (and, for shards, zarr-python reads it);
- every chunk (every shard, for ``node``: a shard appears by one rename) holds one
  generation, all of it, never a mix (torn);
- no chunk of the region the last reported generation wrote holds an older one (lost),
  and chunks outside it hold fill or a newer generation;
- `zarrhpc verify --repair` removes the temporary files the killed job left.

Usable without pytest::

    python tests/mpi/kill_mpi.py --kills 50                  # every kind
    python tests/mpi/kill_mpi.py --kills 20 --kinds node
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

KINDS = ("collective", "node", "resize")
NRANKS = 4
CHUNKS = (8, 12)
SHARDS = (16, 36)
SHAPES = ((48, 36), (32, 36))  # resize alternates; both whole chunks and shards
CUTS = {48: [0, 7, 19, 33, 48], 32: [0, 5, 13, 22, 32]}  # unaligned slabs per rank
FILL = -1


def _cuts(n: int) -> list[int]:
    return CUTS[n]


def writer(kind: str, root: str) -> int:
    """The MPI job: write generations until killed (``kill_mpi.py writer KIND DIR``)."""
    from mpi4py import MPI

    from zarrhpc import mpi as zmpi

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    pids = Path(root, "pids")
    pids.mkdir(exist_ok=True)
    (pids / f".{rank}").write_text(str(os.getpid()))
    (pids / f".{rank}").rename(pids / str(rank))
    a = zmpi.open_array(comm, os.path.join(root, "store"), mode="r+")
    g = 0
    while True:
        g += 1
        if kind == "resize":
            zmpi.resize(comm, a, SHAPES[g % 2])
        cuts = _cuts(a.shape[0])
        reg = (slice(cuts[rank], cuts[rank + 1]), slice(None))
        block = np.full((cuts[rank + 1] - cuts[rank], a.shape[1]), g, dtype="i4")
        own = zmpi.Ownership(a, comm, "node", regions=reg) if kind == "node" else None
        zmpi.write(a, reg, block, comm, ownership=own)
        comm.Barrier()
        if rank == 0:
            print(f"generation {g} rows {a.shape[0]} done", flush=True)


def _create(kind: str, store: str) -> None:
    import zarrhpc

    kw = {"shape": SHAPES[0], "chunks": CHUNKS, "dtype": "i4", "fill_value": FILL}
    if kind == "node":
        kw["shards"] = SHARDS
        kw["compressors"] = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                                "shuffle": "shuffle"}}
    zarrhpc.create_array(store, **kw)


def _check(kind: str, store: str, done: int, done_rows: int) -> dict:
    """Counts for one killed store: torn and lost chunks, open failures."""
    import zarrhpc

    out = {"torn": 0, "lost": 0, "open_failed": 0, "chunks": 0}
    try:
        a = zarrhpc.open_array(store, mode="r")
        data = np.asarray(a[...])
        if kind == "node":
            import zarr

            if not np.array_equal(np.asarray(zarr.open_array(store, mode="r")[...]), data):
                raise AssertionError("zarr-python reads other values")
        if a.shape not in SHAPES:
            raise AssertionError(f"shape {a.shape}")
    except Exception as exc:  # noqa: BLE001 - counted and shown, never hidden
        out["open_failed"] = 1
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    unit = SHARDS  # node: what appears by one rename
    for i in range(0, data.shape[0], CHUNKS[0]):
        for j in range(0, data.shape[1], CHUNKS[1]):
            out["chunks"] += 1
            values = np.unique(data[i:i + CHUNKS[0], j:j + CHUNKS[1]])
            if len(values) != 1:
                out["torn"] += 1
                continue
            v = int(values[0])
            # a shrink killed midway shows its new shape or the old data, never fill
            # where the old shape still reaches (core/_resize.py's order)
            if i < done_rows and v < done:  # written by the last reported generation
                out["lost"] += 1
            elif i >= done_rows and v != FILL and v <= done:  # grown: fill or newer
                out["lost"] += 1
    for i in range(0, data.shape[0] if kind == "node" else 0, unit[0]):
        for j in range(0, data.shape[1], unit[1]):
            if len(np.unique(data[i:i + unit[0], j:j + unit[1]])) != 1:
                out["torn"] += 1  # a shard mixing generations: not one rename
    return out


_GENERATION = re.compile(r"^generation (\d+) rows (\d+) done$", re.MULTILINE)


def generations(output: str) -> list[tuple[int, int]]:
    """``(generation, rows)`` of each whole line rank 0 printed. The job's output passes
    through mpiexec's proxy in pieces and mpiexec adds its own lines when a rank dies, so
    a kill can leave "generation 13 rows 4" of "... rows 48 done" followed by other text:
    only a line with its closing word counts."""
    return [(int(m[1]), int(m[2])) for m in _GENERATION.finditer(output)]


def _kill(job: subprocess.Popen, root: Path) -> None:
    """SIGKILL every rank (their ids from ``pids/``) and the launcher's process group;
    remove the MPI shared-memory files the dead job cannot."""
    from zarrhpc.testing import killed_jobs

    killed_jobs.kill_job(job, [int(f.read_text()) for f in (root / "pids").glob("[0-9]*")])


def _repair(store: str) -> tuple[int, int]:
    """``(temporary files left in store, how many zarrhpc verify --repair removed)``."""
    import contextlib
    import io

    from zarrhpc import cli

    left = len(cli._leftovers(store))
    if left:
        with contextlib.redirect_stdout(io.StringIO()):
            cli.main(["verify", store, "--repair"])
    return left, left - len(cli._leftovers(store))


def _mpi_command() -> list[str]:
    mpiexec = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or "mpiexec"
    return [mpiexec, "-n", str(NRANKS), sys.executable, "-m", "mpi4py", __file__, "writer"]


def run(kinds=KINDS, kills: int = 3, seed: int = 0, tmp: str | None = None,
        max_delay: float = 1.0, timeout: float = 120) -> dict:
    """``kills`` random kills per kind; a dict of counts per kind."""
    rng = random.Random(seed)
    results = {}
    own = tmp is None
    tmp = tmp or tempfile.mkdtemp(prefix="zh-mpikill-")
    env = {**os.environ, "ZARRHPC_NUM_THREADS": "1", "ZARRHPC_RANKS_PER_NODE": "2"}
    try:
        for kind in kinds:
            tot = {"stores": 0, "generations": 0, "torn": 0, "lost": 0, "open_failed": 0,
                   "chunks": 0, "leftover_temp_files": 0,
                   "repaired": 0, "errors": []}
            root = Path(tmp, kind)
            store = str(root / "store")
            for k in range(kills):
                if k % 10 == 0:  # a fresh store now and then
                    shutil.rmtree(root, ignore_errors=True)
                    root.mkdir(parents=True)
                    _create(kind, store)
                shutil.rmtree(root / "pids", ignore_errors=True)
                job = subprocess.Popen([*_mpi_command(), kind, str(root)], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       text=True, start_new_session=True)
                try:
                    first = job.stdout.readline()  # generation 1 is done: the loop runs
                    if not first:
                        raise AssertionError(f"{kind}: the job ended before writing")
                    deadline = time.monotonic() + timeout
                    while len(list((root / "pids").glob("[0-9]*"))) < NRANKS:
                        if time.monotonic() > deadline:
                            raise AssertionError(f"{kind}: ranks did not start")
                        time.sleep(0.01)
                    time.sleep(rng.uniform(0, max_delay))
                finally:
                    _kill(job, root)
                gens = generations(first + job.stdout.read())
                job.stdout.close()
                done, rows = gens[-1]
                counts = _check(kind, store, done, rows)
                tot["stores"] += 1
                tot["generations"] += done
                for name in ("torn", "lost", "open_failed", "chunks"):
                    tot[name] += counts[name]
                if "error" in counts:
                    tot["errors"].append(counts["error"])
                left, repaired = _repair(store)
                tot["leftover_temp_files"] += left
                tot["repaired"] += repaired
            results[kind] = tot
    finally:
        if own:
            shutil.rmtree(tmp, ignore_errors=True)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=50, help="kills per kind")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    res = run(args.kinds.split(","), args.kills, args.seed)
    bad = 0
    for kind, t in res.items():
        errs = t.pop("errors")
        print(f"{kind:12s} " + " ".join(f"{k}={v}" for k, v in t.items()), flush=True)
        for e in errs[:3]:
            print(f"    open failed: {e}")
        bad += t["torn"] + t["lost"] + t["open_failed"] + t["leftover_temp_files"] - t["repaired"]
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "writer":
        sys.exit(writer(sys.argv[2], sys.argv[3]))
    sys.exit(main())
