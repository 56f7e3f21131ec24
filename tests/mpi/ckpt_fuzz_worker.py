"""Random checkpoints through the public surface: ``mpiexec -n N python -m mpi4py
ckpt_fuzz_worker.py DIR SEED NCASES``.

Each case: one to three named arrays (1-D to 3-D, random chunks, dtypes and codec), a few
saves with per-name random regions (any alignment, some ranks holding nothing) and
``keep_last`` 1 to 3; then the kept steps must be exactly the newest ones and every rank's
``load`` of random names and regions must equal numpy. Rank 0 writes ``DIR/fuzz.json``:
one entry per case with what failed, if anything.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from fuzz_worker import compressors, random_regions


def _mine(regs, rank, shape):
    """This rank's region, an empty one when it holds nothing."""
    r = regs[rank]
    return r if r is not None else tuple(slice(0, 0) for _ in shape)


def run_case(comm, root: str, seed: int, c: int) -> list[str]:
    from zarrhpc.checkpoint import Checkpointer

    rank, size = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng([seed, c, size])
    names = [f"f{i}" for i in range(int(rng.integers(1, 4)))]
    shapes = {nm: tuple(int(rng.integers(1, 25)) for _ in range(int(rng.integers(1, 4))))
              for nm in names}
    chunks = {nm: tuple(int(rng.integers(1, n + 2)) for n in shapes[nm]) for nm in names}
    dtypes = {nm: str(rng.choice(["f8", "i4", "u1"])) for nm in names}
    codec, keep = str(rng.choice(["none", "blosc", "zstd", "gzip"])), int(rng.integers(1, 4))
    ck = Checkpointer(f"{root}/ck{c}", comm, keep_last=keep)
    nsteps, stored, failures = int(rng.integers(1, 6)), {}, []
    for step in range(nsteps):
        regs = {nm: random_regions(rng, shapes[nm], size) for nm in names}
        data = {nm: rng.integers(0, 100, shapes[nm]).astype(dtypes[nm]) for nm in names}
        mine = {nm: _mine(regs[nm], rank, shapes[nm]) for nm in names}
        ck.save(step, {nm: data[nm][mine[nm]] for nm in names}, {"s": step}, region=mine,
                shape=shapes, chunks=chunks, compressors=compressors(codec, 3))
        stored[step] = {}
        for nm in names:  # what the regions leave out is the fill value
            want = np.zeros(shapes[nm], dtypes[nm])
            for r in regs[nm]:
                if r is not None:
                    want[r] = data[nm][r]
            stored[step][nm] = want
    kept = list(range(max(0, nsteps - keep), nsteps))
    if ck.steps() != kept:
        failures.append(f"steps {ck.steps()}, expected {kept}")
    for step in kept:
        sub = [nm for nm in names if rng.random() < 0.7] or names[:1]
        region = {nm: _mine(random_regions(rng, shapes[nm], size), rank, shapes[nm]) for nm in sub}
        snap = ck.load(step, names=sub, region=region)
        if snap.step != step or snap.attrs != {"s": step}:
            failures.append(f"step {step}: got step {snap.step}, attrs {snap.attrs}")
        for nm in sub:
            if not np.array_equal(snap[nm], stored[step][nm][region[nm]]):
                failures.append(f"rank {rank}: step {step} {nm}: loaded data differs")
    return failures


def main(root: str, seed: int, ncases: int) -> int:
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    report = []
    for c in range(ncases):
        try:
            failures = run_case(comm, root, seed, c)
        except Exception:  # noqa: BLE001 - recorded with the case number to replay it
            failures = [f"rank {comm.Get_rank()}: {traceback.format_exc()}"]
        everyone = comm.gather(failures, root=0)
        if comm.Get_rank() == 0:
            report.append({"seed": seed, "case": c, "failures": [f for fs in everyone for f in fs]})
    if comm.Get_rank() == 0:
        Path(root, "fuzz.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
