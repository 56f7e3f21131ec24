"""zarrhpc checkpoint/restart demo: 3-D heat diffusion, killed mid-checkpoint, restarted.

1. an uninterrupted reference run (numpy, in this process);
2. the simulation (one process, or ``--ranks N`` under mpiexec, slabs along z that do not
   line up with the chunks, the ranks acting as 2 simulated nodes) checkpoints every
   ``--every`` steps with blosc, asynchronously (`Checkpointer.save_async`: the simulation
   goes on while the step is written); under MPI as node-aggregated shards (each node's
   ranks write one shard file together). It is SIGKILLed inside the checkpoint of step
   ``--kill-step``, once its data is written and before its commit;
3. a new run on a different number of ranks restarts from the newest complete step (the
   half-written one is ignored), finishes, and its final field must equal the reference
   bit for bit;
4. printed: checkpoint bandwidth, how much of the checkpoint time the simulation did not
   wait for (overlap), and the files each checkpoint created.

Run with ``make demo`` or ``make demo RANKS=4`` (or ``python examples/checkpoint_demo.py``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ALPHA = 0.1  # explicit scheme, stable for alpha <= 1/6 in 3-D
BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}


def initial_field(shape) -> np.ndarray:
    """A hot blob off-centre and a warm plane: smooth, so it compresses, but not trivial."""
    z, y, x = (np.linspace(-1, 1, n)[idx] for n, idx in
               zip(shape, [np.s_[:, None, None], np.s_[None, :, None], np.s_[None, None, :]]))
    t = 100.0 * np.exp(-((z - 0.3) ** 2 + (y + 0.2) ** 2 + x ** 2) / 0.05)
    return t + 20.0 * np.exp(-(x - 0.5) ** 2 / 0.01)


def step_padded(p: np.ndarray) -> np.ndarray:
    """One explicit step on a block padded with one ghost layer per side; returns the interior.

    The same expression, element for element, whatever the decomposition: results are
    identical bit for bit between 1 and N ranks.
    """
    c = p[1:-1, 1:-1, 1:-1]
    lap = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1] + p[1:-1, 2:, 1:-1]
           + p[1:-1, 1:-1, :-2] + p[1:-1, 1:-1, 2:] - 6.0 * c)
    return c + ALPHA * lap


def slab(rank: int, size: int, nz: int) -> slice:
    cuts = np.linspace(0, nz, size + 1).round().astype(int)
    return slice(int(cuts[rank]), int(cuts[rank + 1]))


class Simulation:
    """This rank's slab of the field, with ghost planes refreshed from the neighbours."""

    def __init__(self, shape, comm, local: np.ndarray | None = None):
        self.shape, self.comm = tuple(shape), comm
        self.rank = 0 if comm is None else comm.Get_rank()
        self.size = 1 if comm is None else comm.Get_size()
        self.zs = slab(self.rank, self.size, shape[0])
        self.region = (self.zs, slice(None), slice(None))
        nz = self.zs.stop - self.zs.start
        self.padded = np.zeros((nz + 2, shape[1] + 2, shape[2] + 2))  # zero: fixed boundary
        self.field[...] = initial_field(shape)[self.region] if local is None else local

    @property
    def field(self) -> np.ndarray:
        return self.padded[1:-1, 1:-1, 1:-1]

    def halo(self) -> None:
        if self.comm is None:
            return
        from mpi4py import MPI

        up = self.rank - 1 if self.rank > 0 else MPI.PROC_NULL
        down = self.rank + 1 if self.rank < self.size - 1 else MPI.PROC_NULL
        p = self.padded
        send, recv = np.ascontiguousarray(p[-2]), np.empty_like(p[0])
        self.comm.Sendrecv(send, dest=down, recvbuf=recv, source=up)
        if up != MPI.PROC_NULL:
            p[0] = recv
        send = np.ascontiguousarray(p[1])
        self.comm.Sendrecv(send, dest=up, recvbuf=recv, source=down)
        if down != MPI.PROC_NULL:
            p[-1] = recv

    def advance(self) -> None:
        self.halo()
        self.field[...] = step_padded(self.padded)


def reference(shape, steps: int) -> np.ndarray:
    sim = Simulation(shape, None)
    for _ in range(steps):
        sim.advance()
    return sim.field.copy()


# -- the worker: one rank of the simulation ---------------------------------------------
def worker(args) -> int:
    import zarrhpc
    from zarrhpc.checkpoint import Checkpointer

    comm = None
    if os.environ.get("PMI_RANK") is not None or os.environ.get("PMI_SIZE") is not None:
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
    rank = 0 if comm is None else comm.Get_rank()
    shape = tuple(int(s) for s in args.shape.split(","))
    chunks = tuple(int(s) for s in args.chunks.split(","))
    kill_step = args.crash_at

    class CrashingStore(zarrhpc.LocalStore):
        """Kills this process (SIGKILL, no clean-up) when it is about to commit one step:
        every rank's data of that step is written, its commit marker is not."""

        def _set(self, key, data):
            if kill_step is not None and key == f"step_{kill_step:08d}/zarr.json" and (
                    b'"committed": true' in bytes(data) or b'"committed":true' in bytes(data)):
                if comm is not None:  # for the driver to remove after the kill
                    from zarrhpc.testing import killed_jobs

                    Path(args.dir + ".shm").write_text(
                        "\n".join(killed_jobs.shm_segments([os.getpid()])))
                os.kill(os.getpid(), signal.SIGKILL)
            super()._set(key, data)

    ck = Checkpointer(CrashingStore(args.dir), comm, keep_last=3)
    size = 1 if comm is None else comm.Get_size()
    start = 0
    if args.restart:
        snap = ck.load(region=(slab(rank, size, shape[0]), slice(None), slice(None)))
        sim, start = Simulation(shape, comm, snap["temperature"]), snap.step
        ignored = ck.uncommitted()  # collective, like every Checkpointer call under MPI
        if rank == 0:
            print(f"  restart on {size} rank(s): newest complete step {start} (ignored, not "
                  f"committed: {ignored})", flush=True)
    else:
        sim = Simulation(shape, comm)
    saves, waited, handle = [], 0.0, None
    t_run = time.perf_counter()

    def report(h):
        saves.append(h.stats)
        if rank == 0 and args.timings:  # after each save: run 1 gets killed
            Path(args.timings).write_text(json.dumps({"saves": saves, "waited": waited}))
        if rank == 0:
            st = h.stats
            print(f"  step {h.step:4d}: checkpoint {np.prod(shape) * 8 / 1e9 / st['seconds']:6.2f} "
                  f"GB/s ({st['seconds'] * 1e3:.0f} ms in the background), "
                  f"{st['files_created']} files", flush=True)

    for step in range(start + 1, args.steps + 1):
        sim.advance()
        if step % args.every == 0:
            t0 = time.perf_counter()
            previous = handle
            # the field is copied before save_async returns: the next steps overwrite it
            handle = ck.save_async(step, {"temperature": sim.field}, {"time": step * ALPHA},
                                   region=sim.region, shape=shape, chunks=chunks,
                                   compressors=BLOSC, policy="node" if size > 1 else None)
            waited += time.perf_counter() - t0
            if previous is not None:
                report(previous)
    t0 = time.perf_counter()
    ck.close()  # waits for the last save
    waited += time.perf_counter() - t0
    if handle is not None:
        report(handle)
    if rank == 0 and args.timings:
        Path(args.timings).write_text(json.dumps(
            {"saves": saves, "waited": waited, "wall": time.perf_counter() - t_run}))
    return 0


# -- the driver -------------------------------------------------------------------------
def launch(args, ranks: int, *extra) -> subprocess.Popen:
    cmd = [sys.executable, __file__, "--worker", "--dir", args.dir, "--shape", args.shape,
           "--chunks", args.chunks, "--steps", str(args.steps), "--every", str(args.every), *extra]
    env = dict(os.environ)
    if ranks > 1:
        found = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
        if found is None:
            sys.exit("mpiexec not found: pip install 'zarrhpc[mpi]' (mpi4py and the mpich wheel)")
        # -m mpi4py: an exception on one rank aborts the job rather than hanging the others
        cmd = [found, "-n", str(ranks), sys.executable, "-m", "mpi4py", *cmd[1:]]
        cpus = len(os.sched_getaffinity(0))
        env.setdefault("ZARRHPC_NUM_THREADS", str(max(1, cpus // ranks)))
        # the ranks act as 2 nodes: each writes its shards of the field together
        env.setdefault("ZARRHPC_RANKS_PER_NODE", str(max(1, -(-ranks // 2))))
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    try:
        proc.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:  # never leave a stuck job behind
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        sys.exit(f"FAILED: the run did not finish in {args.timeout} s")
    return proc


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default="demo_data/checkpoints")
    p.add_argument("--ranks", type=int, default=1, help="MPI ranks (1: no MPI)")
    p.add_argument("--shape", default="192,160,160", help="global field (default 37 MiB float64)")
    p.add_argument("--chunks", default="32,80,80")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--every", type=int, default=5, help="checkpoint every k steps")
    p.add_argument("--kill-step", type=int, default=20, help="the checkpoint that gets killed")
    p.add_argument("--restart-ranks", type=int, default=0,
                   help="ranks of the restarted run (default: --ranks - 1, at least 1)")
    p.add_argument("--timeout", type=float, default=900, help="seconds allowed per run")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--restart", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--crash-at", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--timings", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    # the demo reports the interrupted step itself: no log line about it on top
    logging.getLogger("zarrhpc.checkpoint").setLevel(logging.ERROR)
    if args.worker:
        return worker(args)

    from zarrhpc.checkpoint import Checkpointer

    shape = tuple(int(s) for s in args.shape.split(","))
    if args.kill_step % args.every or not args.every <= args.kill_step < args.steps:
        sys.exit("--kill-step must be a checkpoint step before the last step")
    shutil.rmtree(args.dir, ignore_errors=True)
    gb = np.prod(shape) * 8 / 1e9
    print(f"3-D heat diffusion {shape} float64 ({gb * 1e3:.0f} MB), {args.steps} steps, "
          f"checkpoint every {args.every} with blosc lz4, chunks {args.chunks}, "
          f"{args.ranks} rank(s) in z slabs")

    t0 = time.perf_counter()
    want = reference(shape, args.steps)
    print(f"reference run, uninterrupted, no I/O: {time.perf_counter() - t0:.1f} s")

    nodes = f" as {min(2, args.ranks)} simulated nodes" if args.ranks > 1 else ""
    print(f"run 1 on {args.ranks} rank(s){nodes}: killed (SIGKILL) inside the checkpoint of "
          f"step {args.kill_step}"
          + ("; mpiexec's BAD TERMINATION report of it is expected" if args.ranks > 1 else ""))
    t1 = Path(args.dir + ".t1.json")
    first = launch(args, args.ranks, "--crash-at", str(args.kill_step), "--timings", str(t1))
    if first.returncode == 0:
        print("FAILED: the run was not killed", file=sys.stderr)
        return 1
    shm = Path(args.dir + ".shm")
    if shm.exists():  # MPI's shared memory of the killed job
        from zarrhpc.testing import killed_jobs

        killed_jobs.remove(shm.read_text().split())
        shm.unlink()
    ck = Checkpointer(args.dir)
    print(f"  killed (exit status {first.returncode}); committed steps {ck.steps()}, "
          f"uncommitted {ck.uncommitted()}")

    again = args.restart_ranks if args.restart_ranks else max(1, args.ranks - 1)
    print(f"run 2: restart on {again} rank(s) from the newest complete step")
    t2 = Path(args.dir + ".t2.json")
    second = launch(args, again, "--restart", "--timings", str(t2))
    if second.returncode != 0:
        print("FAILED: the restarted run failed", file=sys.stderr)
        return 1
    snap = ck.load()
    if snap.step != args.steps or not np.array_equal(snap["temperature"], want):
        print("FAILED: the restarted run differs from the uninterrupted run", file=sys.stderr)
        return 1
    print(f"OK: step {snap.step} after kill + restart equals the uninterrupted run bit for bit "
          f"(max {want.max():.3f}, mean {want.mean():.4f})")
    runs = [json.loads(t.read_text()) for t in (t1, t2) if t.exists()]
    stats = [st for r in runs for st in r["saves"]]
    times = [st["seconds"] for st in stats]
    stored = sum(f.stat().st_size for f in Path(args.dir, f"step_{snap.step:08d}").rglob("*"))
    print(f"checkpoint bandwidth: median {gb / statistics.median(times):.2f} GB/s, "
          f"best {gb / min(times):.2f} GB/s over {len(times)} saves; "
          f"stored {stored / 1e6:.0f} MB per step (ratio {gb * 1e9 / stored:.1f}x)")
    run2 = runs[-1]
    spent = sum(st["seconds"] for st in run2["saves"])
    hidden = max(0.0, spent - run2["waited"])
    print(f"overlap (run 2): checkpoints took {spent:.2f} s in the background, the simulation "
          f"waited {run2['waited']:.2f} s for them: {100 * hidden / spent:.0f}% hidden "
          f"(run wall time {run2['wall']:.2f} s)")
    for name, n, r in (("run 1", args.ranks, runs[0]), ("run 2", again, run2)):
        if not r["saves"]:
            continue
        st = r["saves"][-1]
        kind = "node-aggregated shards" if n > 1 else "one file per chunk"
        print(f"files per checkpoint, {name} ({n} rank(s), {kind}): {st['files_created']} "
              f"files, {st['dirs_created']} directories, {st['renames']} renames")
    for t in (t1, t2):
        t.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
