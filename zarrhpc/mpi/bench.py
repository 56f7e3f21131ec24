"""Collective write/read benchmark: ``mpiexec -n 4 python -m mpi4py -m zarrhpc.mpi.bench``.

Every rank holds a slab of a float64 field (slab boundaries not on chunk boundaries);
each method is timed from a barrier to the last rank's finish, repeated, and the median
aggregate bandwidth (global bytes / wall time) printed and, with ``--json``, saved. The
write methods run in turn within each repetition (`round_order`), and each speedup is the
median of the per-repetition ratios (the machine's load drifts; interleaving keeps the
pairs fair). Each write row also shows the median CPU time per rank: with more ranks than
cores the wall time follows it, and it tells what a method costs apart from waiting.

- ``zarrhpc collective``: `zarrhpc.mpi.write` (two-phase, each chunk written once);
- ``h5py per rank (a)``: every rank writes its slab to its own HDF5 file: contiguous when
  uncompressed (h5py's default and its fastest: one write), else chunked like the array;
- ``h5py per rank, same chunks (a')``: uncompressed only, chunked like the array, for
  what the chunk layout itself costs (h5py then reorganises the bytes too);
- ``h5py gathered``: ``Gatherv`` to rank 0, which writes one HDF5 file;
- ``zarr-python gathered``: the same with zarr-python (one writer: the lock-free way to
  avoid its lost updates on shared chunks);
- reads: `zarrhpc.mpi.read` with ``method="direct"`` and ``method="owners"``, into a
  buffer allocated once.

Compressed runs use blosc lz4 + shuffle everywhere (h5py through hdf5plugin when
installed, else its compressed rows are skipped).

Two chunk layouts (``--layouts``): ``cubes`` (64^3, 2 MiB: good for sub-volume reads; a
chunk is 4096 rows of 512 bytes in a rank's block, gathered before it is written) and
``slabs`` (64 planes by the whole plane, 32 MiB: what a slab decomposition would choose;
every chunk inside a rank's block is one contiguous run, written with no copy).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

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
    from mpi4py import MPI

    return MPI.MAX


def main(argv=None) -> int:
    from mpi4py import MPI

    from zarrhpc import mpi as zmpi

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size-mib", type=int, default=1024, help="global field size")
    p.add_argument("--chunk", type=int, default=64, help="chunk edge along the slab axis")
    p.add_argument("--layouts", default="cubes,slabs",
                   help="comma-separated chunk layouts: cubes (chunk^3: sub-volume friendly) "
                        "and slabs (chunk x whole planes: every chunk one contiguous run of a "
                        "rank's block, as a slab decomposition would choose)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default="bench_mpi_data")
    p.add_argument("--compressors", choices=["none", "blosc", "both"], default="both")
    p.add_argument("--json", default=None, help="write the medians here (rank 0)")
    p.add_argument("--no-checkpoint", action="store_true",
                   help="skip the checkpoint section (zarrhpc.mpi.bench_checkpoint: policies, "
                        "asynchronous overlap, simulated parallel file system)")
    args = p.parse_args(argv)

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n2 = 256
    layouts = {"cubes": (args.chunk,) * 3, "slabs": (args.chunk, n2, n2)}
    wanted = args.layouts.split(",")
    if any(w not in layouts for w in wanted):
        p.error(f"--layouts: expected names from {sorted(layouts)}, got {args.layouts!r}")
    n0 = max(size, args.size_mib * 2**20 // (8 * n2 * n2))
    shape = (n0, n2, n2)
    regions = [(s, slice(None), slice(None)) for s in slabs(n0, size, args.chunk)]
    region = regions[rank]
    block = field_block(shape, region, rank)
    nbytes = 8 * int(np.prod(shape))
    root = Path(args.dir)
    if rank == 0:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    comm.Barrier()
    counts = [(r[0].stop - r[0].start) * n2 * n2 for r in regions]
    gathered = np.empty(shape) if rank == 0 else None

    def gather():
        comm.Gatherv(block, [gathered, counts] if rank == 0 else None, root=0)

    try:
        import h5py
    except ImportError:  # pragma: no cover
        h5py = None
    try:
        import hdf5plugin
    except ImportError:
        hdf5plugin = None
    try:
        import zarr
    except ImportError:  # pragma: no cover
        zarr = None

    results = {"ranks": size, "shape": shape, "GiB": nbytes / 2**30,
               "chunks": {name: layouts[name] for name in wanted},
               "rows": {name: {} for name in wanted}, "speedup": {name: {} for name in wanted},
               "round_seconds": {name: {} for name in wanted},
               "cpu_seconds_per_rank": {name: {} for name in wanted}}

    def bench_mode(layout, mode):
        chunks = layouts[layout]
        comp = None if mode == "none" else BLOSC
        writers = {}

        def collective(i):
            a = zmpi.create_array(comm, root / f"zh_{mode}_{i}.zarr", shape=shape, dtype="f8",
                                  chunks=chunks, compressors=comp, overwrite=True)
            zmpi.write(a, region, block, comm)

        writers["zarrhpc collective"] = collective
        h5_kwargs = {} if comp is None else (
            hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE)
            if hdf5plugin is not None else None)
        if h5py is not None and h5_kwargs is not None:
            def per_rank(i, chunked=comp is not None):
                with h5py.File(root / f"h5_{mode}_{i}_{rank}.h5", "w") as f:
                    if not chunked or block.size == 0:
                        f.create_dataset("T", data=block)
                    else:
                        f.create_dataset("T", data=block, **h5_kwargs,
                                         chunks=tuple(min(c, n) for c, n in zip(chunks, block.shape)))

            def h5_gathered(i):
                gather()
                if rank == 0:
                    with h5py.File(root / f"h5_{mode}_{i}.h5", "w") as f:
                        f.create_dataset("T", data=gathered,
                                         chunks=None if comp is None else chunks,
                                         **h5_kwargs)

            writers["h5py per rank (a)"] = per_rank
            if comp is None:  # (a) is contiguous then: the same chunks too, for the layout's cost
                writers["h5py per rank, same chunks (a')"] = lambda i: per_rank(f"{i}c", True)
            writers["h5py gathered (b)"] = h5_gathered
        if zarr is not None:
            def zarr_gathered(i):
                gather()
                if rank == 0:
                    codecs = None if comp is None else [zarr.codecs.BloscCodec(
                        cname="lz4", clevel=5, shuffle="shuffle")]
                    z = zarr.create_array(str(root / f"zp_{mode}_{i}.zarr"), shape=shape, dtype="f8",
                                          chunks=chunks, compressors=codecs,
                                          overwrite=True)
                    z[...] = gathered

            writers["zarr-python gathered (c)"] = zarr_gathered
        times, cpu = timed_rounds(comm, writers, args.repeat, root, keep=f"zh_{mode}_0.zarr",
                             slow=frozenset(n for n in writers if "gathered" in n))
        rows = {name: statistics.median(t) for name, t in times.items()}
        arr = zmpi.open_array(comm, root / f"zh_{mode}_0.zarr", mode="r")
        # into one buffer, touched already: a new one per read would time the allocator
        # (fresh memory on this VM is slow to touch, and varies run to run)
        out = np.zeros_like(block)
        for method in ("direct", "owners"):
            rows[f"zarrhpc read {method}"] = timed(
                comm, lambda i, m=method, a=arr: zmpi.read(a, region, comm, method=m, out=out),
                args.repeat)
        del arr
        timed(comm, lambda i: None, 1, root)  # drop the array read above
        got = {k: nbytes / 1e9 / v for k, v in rows.items()}
        # speedup per round (same machine state for every method), then the median
        ours = times["zarrhpc collective"]
        speedup = {name: statistics.median(t / z for t, z in zip(theirs, ours))
                   for name, theirs in times.items() if name != "zarrhpc collective"}
        results["rows"][layout][mode] = got
        results["speedup"][layout][mode] = speedup
        results["round_seconds"][layout][mode] = times
        results["cpu_seconds_per_rank"][layout][mode] = {
            name: statistics.median(c) for name, c in cpu.items()}
        if rank == 0:
            print(f"{size} ranks, {shape} float64 = {nbytes / 2**30:.2f} GiB, chunks "
                  f"{chunks} ({layout}), compressors: {mode}; median of {args.repeat}")
            for name, gbps in got.items():
                used = (f"  cpu {1e3 * statistics.median(cpu[name]):6.1f} ms/rank"
                        if name in cpu else "")
                ratio = f"  (zarrhpc collective: {speedup[name]:.2f}x)" if name in speedup else ""
                print(f"  {name:32s} {gbps:7.2f} GB/s{used}{ratio}")
            sys.stdout.flush()

    modes = ["none", "blosc"] if args.compressors == "both" else [args.compressors]
    for layout in wanted:
        for mode in modes:
            bench_mode(layout, mode)

    if not args.no_checkpoint:
        from zarrhpc.mpi import bench_checkpoint

        if rank == 0:
            shutil.rmtree(root, ignore_errors=True)
        results["checkpoint"] = bench_checkpoint.run(
            ["--size-mib", str(args.size_mib), "--repeat", str(min(args.repeat, 3)),
             "--compressors", args.compressors, "--dir", str(root)])
    if rank == 0:
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
