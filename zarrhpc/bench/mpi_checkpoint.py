"""Checkpoint benchmark past one node, with a simulated parallel file system.

``mpiexec -n 4 python -m mpi4py -m zarrhpc.bench.mpi_checkpoint`` (also part of
``zarrhpc bench --mpi``). The ranks act as ``--nodes`` simulated nodes
(``ZARRHPC_RANKS_PER_NODE``); each holds an unaligned slab of a float64 field.

1. Measured, interleaved rounds (`zarrhpc.bench.mpi_rounds.timed_rounds`), each a
   `Checkpointer.save` of the field with 64^3 inner chunks under three policies:
   ``per-chunk files`` (one file per chunk), ``per-rank shards`` (the node policy with one
   rank per node), ``node-aggregated shards`` (the node policy on the simulated nodes,
   the checkpointer's default of up to 2 shards per node: each written by its group of
   the node's ranks) and ``node-aggregated, 1 per node`` (``shards_per_node=1``: all the
   node's ranks write one file).
   Printed: GB/s, the files, directories and renames each save reported, and the speed
   ratio against per-chunk files (median of per-round ratios).
2. Overlap: ``--steps`` steps of "compute" then checkpoint, synchronous against
   `Checkpointer.save_async`. The compute is a sleep as long as the median synchronous
   save: it stands for work that does not use these cores (GPU kernels, waiting on other
   nodes); CPU-bound compute on a machine where ranks outnumber cores cannot overlap.
3. Projection (`SimulatedPFS`): the per-node figures measured in 1. (bytes and metadata
   operations per node, per-node bandwidth) replayed at 1, 16, 256 and 4096 nodes
   against one metadata server modelled as a token bucket shared by every node.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from zarrhpc.bench.mpi_rounds import BLOSC, _clean, _max, field_block, slabs, timed_rounds
from zarrhpc.mpi._comm import _mpi
from zarrhpc.mpi.aggregate import last_profile

__all__ = ["SimulatedPFS", "main", "run"]

POLICIES = ("per-chunk files", "per-rank shards", "node-aggregated shards",
            "node-aggregated, 1 per node")


@dataclass
class SimulatedPFS:
    """A parallel file system reduced to what limits checkpoints at scale.

    ``ops_per_s``: the metadata server's rate (creates, renames, mkdirs), one token per
    operation, shared by every node; ``burst``: the bucket's depth; ``node_bandwidth``:
    bytes/s each node writes, independently of the others (the object servers scale).
    """

    ops_per_s: float = 10_000.0
    burst: float = 100.0
    node_bandwidth: float = 1e9

    def checkpoint_seconds(self, nodes: int, files: int, ops_per_file: float,
                           bytes_per_node: float) -> float:
        """Time for ``nodes`` nodes to each write ``files`` files of equal size.

        Every node works through its files in turn: the file's metadata operations (a
        token each, the server serving all nodes' requests first come first served),
        then its bytes at the node's bandwidth. Nodes are alike, so the server sees their
        requests interleaved: the k-th operation of the job may start at
        ``(k - burst) / ops_per_s`` at the earliest. Simulated for the node served last.
        """
        if files == 0:
            return bytes_per_node / self.node_bandwidth
        per_file = bytes_per_node / files / self.node_bandwidth
        t, k = 0.0, 0
        ops = max(1, round(ops_per_file))
        for _ in range(files):
            for _ in range(ops):
                k += nodes  # this node's turn comes after every other node's
                t = max(t, (k - self.burst) / self.ops_per_s)
            t += per_file
        return t


def main(argv=None) -> int:
    run(argv)
    return 0


def run(argv=None) -> dict:
    """Run the benchmark (collective); returns the results (rank 0: with the projection)."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size-mib", type=int, default=1024)
    p.add_argument("--chunk", type=int, default=64, help="inner chunk edge (cubes)")
    p.add_argument("--nodes", type=int, default=2, help="simulated nodes")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--steps", type=int, default=8, help="steps of the overlap run")
    p.add_argument("--compressors", choices=["none", "blosc", "both"], default="both")
    p.add_argument("--ops-per-s", type=float, default=10_000.0,
                   help="simulated metadata server rate, shared by all nodes")
    p.add_argument("--node-bandwidth", type=float, default=None,
                   help="simulated GB/s per node (default: measured here)")
    p.add_argument("--dir", default="bench_ckpt_data")
    p.add_argument("--json", default=None)
    p.add_argument("--policies", default=None,
                   help="comma-separated numbers (1-4) of the policies to run, e.g. 1,3 "
                        "(per-chunk files, per-rank shards, node-aggregated, 1 per node); "
                        "the first one run is the reference of the ratios")
    p.add_argument("--profile", action="store_true",
                   help="print each rank's seconds per phase of the shard writes (median)")
    args = p.parse_args(argv)
    chosen = POLICIES
    if args.policies:
        try:
            chosen = tuple(POLICIES[int(i) - 1] for i in args.policies.split(","))
        except (ValueError, IndexError):
            p.error(f"--policies: numbers 1-{len(POLICIES)} separated by commas, "
                    f"got {args.policies!r}")

    MPI = _mpi()  # only zarrhpc.mpi imports mpi4py

    from zarrhpc.checkpoint import Checkpointer
    from zarrhpc.mpi import nodes as zn

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    k = max(1, -(-size // args.nodes))
    os.environ[zn.ENV] = str(k)  # read when the nodes are first asked for
    per_rank = comm.Dup()  # one rank per node on this communicator
    zn._MAPS[zn._key(per_rank)] = zn.NodeMap.blocks(size, 1, rank)
    nnodes = zn.node_map(comm).nnodes

    n2 = 256
    n0 = max(size, args.size_mib * 2**20 // (8 * n2 * n2))
    shape = (n0, n2, n2)
    region = (slabs(n0, size, args.chunk)[rank], slice(None), slice(None))
    block = field_block(shape, region, rank)
    nbytes = 8 * int(np.prod(shape))
    chunks = (args.chunk,) * 3
    root = Path(args.dir)
    if rank == 0:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    comm.Barrier()
    results = {"ranks": size, "nodes": nnodes, "shape": shape, "GiB": nbytes / 2**30,
               "chunks": chunks, "modes": {}}
    modes = ["none", "blosc"] if args.compressors == "both" else [args.compressors]
    for mode in modes:
        comp = None if mode == "none" else BLOSC
        stats, phases = {}, {name: [] for name in chosen if name != POLICIES[0]}

        def saver(name, c, policy, per_node=2, stats=stats, comp=comp, phases=phases):
            def run(i):
                ck = Checkpointer(root / f"p{POLICIES.index(name)}_{i}", c,
                                  shards_per_node=per_node)
                stats[name] = ck.save(0, {"T": block}, region=region, shape=shape,
                                      chunks=chunks, compressors=comp, policy=policy)
                if i >= 0 and name in phases:
                    phases[name].append(dict(last_profile(), save=stats[name]["seconds"]))
            return run

        fns = {POLICIES[0]: saver(POLICIES[0], comm, "decomposition"),
               POLICIES[1]: saver(POLICIES[1], per_rank, "node"),
               POLICIES[2]: saver(POLICIES[2], comm, "node"),
               POLICIES[3]: saver(POLICIES[3], comm, "node", 1)}
        fns = {name: fns[name] for name in chosen}
        times, cpu = timed_rounds(comm, fns, args.repeat, root)
        ref = times[chosen[0]]
        row = {}
        for name in chosen:
            st = stats[name]
            row[name] = {
                "GB/s": nbytes / 1e9 / statistics.median(times[name]),
                "seconds": statistics.median(times[name]),
                "cpu seconds per rank": statistics.median(cpu[name]),
                "speed vs per-chunk": statistics.median(r / t for r, t in zip(ref, times[name])),
                **{key: st[key] for key in ("files_created", "dirs_created", "renames",
                                            "fsyncs", "bytes_written")}}
        overlap = _overlap(comm, Checkpointer, root, block, region, shape, chunks, comp,
                           row[POLICIES[2]]["seconds"], args.steps, args.repeat
                           ) if args.steps and POLICIES[2] in row else None
        results["modes"][mode] = {"policies": row, "overlap": overlap,
                                  "round_seconds": times}
        if rank == 0:
            _print_mode(size, nnodes, shape, nbytes, chunks, mode, args.repeat, row, overlap)
        if args.profile:
            _print_phases(comm, phases)
    if rank == 0:
        results["projection"] = _projection(results, args, nnodes)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
        shutil.rmtree(root, ignore_errors=True)
    per_rank.Free()
    return results


def _overlap(comm, Checkpointer, root, block, region, shape, chunks, comp, save_s, steps,
             repeat) -> dict:
    """Compute + checkpoint wall time over ``steps`` steps, synchronous vs asynchronous."""
    compute = save_s
    walls = {"sync": [], "async": []}
    for i in range(repeat):
        for how in (("sync", "async") if i % 2 == 0 else ("async", "sync")):
            with Checkpointer(root / f"ov_{how}", comm, keep_last=2) as ck:
                comm.Barrier()
                t0 = time.perf_counter()
                for step in range(steps):
                    time.sleep(compute)  # the simulation's step, off these cores
                    fn = ck.save if how == "sync" else ck.save_async
                    fn(step, {"T": block}, region=region, shape=shape, chunks=chunks,
                       compressors=comp, policy="node")
                if ck._job is not None:
                    ck._job.wait()
                walls[how].append(comm.allreduce(time.perf_counter() - t0, op=_max()))
            _clean(comm, root, "")
    ratio = statistics.median(s / a for s, a in zip(walls["sync"], walls["async"]))
    return {"compute_s": compute, "steps": steps, "sync_s": statistics.median(walls["sync"]),
            "async_s": statistics.median(walls["async"]), "speedup": ratio,
            "bound": 2 * steps / (steps + 1)}


def _print_phases(comm, phases: dict) -> None:
    """Each rank's median seconds per phase of `zarrhpc.mpi.aggregate.write_node`."""
    every = comm.gather(phases, root=0)
    if comm.Get_rank() != 0:
        return
    for name in phases:
        print(f"  phases of {name} (median seconds per rank; save = whole Checkpointer.save):")
        for r, mine in enumerate(every):
            runs = mine[name]
            keys = list(runs[0]) if runs else []
            med = {k: statistics.median(run.get(k, 0.0) for run in runs) for k in keys}
            print(f"    rank {r}: " + "  ".join(f"{k} {v:.3f}" for k, v in med.items()))
    sys.stdout.flush()


def _print_mode(size, nnodes, shape, nbytes, chunks, mode, repeat, row, overlap) -> None:
    print(f"{size} ranks as {nnodes} simulated nodes, {shape} float64 = {nbytes / 2**30:.2f} GiB, "
          f"inner chunks {chunks}, compressors: {mode}; median of {repeat} rounds")
    for name, r in row.items():
        print(f"  {name:28s} {r['GB/s']:6.2f} GB/s  {r['speed vs per-chunk']:5.2f}x   files "
              f"{r['files_created']:6d}  dirs {r['dirs_created']:5d}  renames {r['renames']:6d}"
              f"  cpu/rank {r['cpu seconds per rank']:.2f} s")
    if overlap is None:
        return
    print(f"  overlap: {overlap['steps']} steps, compute {overlap['compute_s']:.2f} s each: "
          f"sync {overlap['sync_s']:.2f} s, async {overlap['async_s']:.2f} s -> "
          f"{overlap['speedup']:.2f}x (bound {overlap['bound']:.2f}x)")
    sys.stdout.flush()


def _projection(results, args, nnodes) -> dict:
    """Checkpoint seconds at 1..4096 nodes per policy, from the measured per-node figures."""
    out = {}
    for mode, res in results["modes"].items():
        out[mode] = {}
        for name, r in res["policies"].items():
            bw = (args.node_bandwidth * 1e9 if args.node_bandwidth
                  else r["bytes_written"] / nnodes / r["seconds"])
            pfs = SimulatedPFS(ops_per_s=args.ops_per_s, node_bandwidth=bw)
            files = max(1, round(r["files_created"] / nnodes))
            ops = (r["files_created"] + r["renames"] + r["dirs_created"]) / r["files_created"]
            out[mode][name] = {str(n): pfs.checkpoint_seconds(n, files, ops,
                                                              r["bytes_written"] / nnodes)
                               for n in (1, 16, 256, 4096)}
        print(f"projected checkpoint seconds ({mode}; metadata server {args.ops_per_s:.0f} "
              "ops/s shared, per-node bytes, files and bandwidth as measured):")
        print(f"  {'nodes':28s}" + "".join(f"{n:>10d}" for n in (1, 16, 256, 4096)))
        for name, row in out[mode].items():
            print(f"  {name:28s}" + "".join(f"{row[str(n)]:10.2f}" for n in (1, 16, 256, 4096)))
    return out


if __name__ == "__main__":
    sys.exit(main())
