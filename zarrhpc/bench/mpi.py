"""Collective write/read benchmark: ``mpiexec -n 4 python -m mpi4py -m zarrhpc.bench.mpi``.

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
import json
import shutil
import statistics
import sys
from pathlib import Path

import numpy as np

from zarrhpc.bench.mpi_rounds import (  # noqa: F401 - re-exported
    BLOSC,
    _clean,
    _max,
    field_block,
    round_order,
    slabs,
    timed,
    timed_rounds,
)
from zarrhpc.mpi._comm import _mpi


def main(argv=None) -> int:
    MPI = _mpi()  # only zarrhpc.mpi imports mpi4py

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
                   help="skip the checkpoint section (zarrhpc.bench.mpi_checkpoint: policies, "
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
        from zarrhpc.bench import mpi_checkpoint as bench_checkpoint

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
