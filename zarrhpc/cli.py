"""The ``zarrhpc`` command: ``info``, ``tree`` and ``verify`` of a store or node.

    zarrhpc info  STORE [--path P]     array or group properties
    zarrhpc tree  STORE [--path P]     the hierarchy below a group
    zarrhpc verify STORE [--path P] [--repair]   decode every chunk of every array, report
                                       errors and interrupted writes' temporary files
    zarrhpc bench [--quick] [--json]   the standard workloads, zarrhpc and peers side by side
    zarrhpc convert SRC [DST] --to v3 [--in-place] [--no-verify]
                                       move a v2 or 2022-draft hierarchy to Zarr v3
"""

from __future__ import annotations

import argparse
import sys

import zarrhpc
from zarrhpc.errors import ZarrhpcError


def _open(args):
    return zarrhpc.open(args.store, path=args.path, mode="r")


def _cmd_info(args) -> int:
    print(_open(args).info)
    return 0


def _cmd_tree(args) -> int:
    node = _open(args)
    if isinstance(node, zarrhpc.Array):
        print(f"{node.name} {node.shape} {node.dtype}")
    else:
        print(node.tree())
    return 0


def _verify_array(a) -> tuple[int, list[str]]:
    """Decode every chunk of ``a``; return (chunks checked, error messages)."""
    errors, n = [], 0
    for coords in a._grid.all_chunk_coords():
        region = a._grid.chunk_region(coords)
        n += 1
        try:
            a[region]
        except ZarrhpcError as exc:
            errors.append(str(exc))
    return n, errors


def _leftovers(store_path: str) -> list[str]:
    """Temporary files a killed writer left in a directory store (readers ignore them)."""
    import os

    from zarrhpc.storage.local import _is_temp_name

    found = []
    if os.path.isdir(store_path):
        for dirpath, dirnames, filenames in os.walk(store_path):
            found += [os.path.join(dirpath, f) for f in filenames if _is_temp_name(f)]
            found += [os.path.join(dirpath, d) for d in dirnames if _is_temp_name(d)]
    return sorted(found)


def _cmd_verify(args) -> int:
    import os

    leftovers = _leftovers(args.store)
    if leftovers:
        verb = "removed" if args.repair else "found (remove with --repair)"
        print(f"{len(leftovers)} temporary files of interrupted writes {verb}:")
        for f in leftovers:
            print(f"  {f}")
            if args.repair:
                try:
                    os.unlink(f)
                except FileNotFoundError:
                    pass
    node = _open(args)
    arrays = [(node.path, node)] if isinstance(node, zarrhpc.Array) else [
        (m.path, m) for _, m in node.members(max_depth=None) if isinstance(m, zarrhpc.Array)
    ]
    bad = 0
    for path, a in arrays:
        n, errors = _verify_array(a)
        status = "ok" if not errors else f"{len(errors)} bad"
        print(f"/{path}: {n} chunks {status}")
        for e in errors:
            print(f"  {e}")
        bad += len(errors)
    return 1 if bad else 0


def _bench_mpi(args) -> int:
    """``zarrhpc bench --mpi``: the collective-write benchmark under mpiexec."""
    import os
    import shutil
    import subprocess

    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    mpiexec = here if os.path.exists(here) else shutil.which("mpiexec")
    if mpiexec is None:
        print("zarrhpc bench --mpi: no mpiexec found (pip install 'zarrhpc[mpi]')", file=sys.stderr)
        return 2
    cmd = [mpiexec, "-n", str(args.ranks), sys.executable, "-m", "mpi4py", "-m",
           "zarrhpc.bench.mpi", "--repeat", str(args.repeat or 6)]
    if args.quick:
        cmd += ["--size-mib", "64"]
    from zarrhpc.bench import default_dir

    cmd += ["--dir", os.path.join(args.dir or default_dir(), f"zarrhpc-bench-mpi-{os.getpid()}")]
    if args.json:
        cmd += ["--json", "/dev/stdout"]
    return subprocess.call(cmd)


def _cmd_bench(args) -> int:
    import json

    if args.mpi:
        return _bench_mpi(args)
    if args.xarray:  # xarray/dask through zarrhpc vs zarr-python (zarrhpc/bench/xarray_dask.py)
        from zarrhpc.bench.xarray_dask import main as xarray_main

        return xarray_main(["--repeat", str(args.repeat or 3)] + (
            ["--gib", "0.25"] if args.quick else []) + (["--dir", args.dir] if args.dir else []))

    from zarrhpc import config
    from zarrhpc.bench import format_table, results_json, run

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    def split(v):
        return [x for x in v.split(",") if x] if v else None

    with config.set(threads=args.threads) if args.threads else config.set():
        results = run(quick=args.quick, peers=split(args.peers), codecs=split(args.codecs),
                      workloads=split(args.workloads), repeat=args.repeat or 3,
                      directory=args.dir, durable=args.durable, log=log)
    if args.json:
        print(json.dumps({"threads": config.get("threads"), "results": results_json(results)},
                         indent=1))
    else:
        print(format_table(results))
    return 0


def _cmd_convert(args) -> int:
    if (args.dst is None) != args.in_place:
        print("zarrhpc convert: give DST, or --in-place without DST", file=sys.stderr)
        return 2
    node = zarrhpc.convert(args.src, args.dst, to=args.to, in_place=args.in_place,
                           verify=not args.no_verify, progress=None if args.progress is None
                           else args.progress)
    where = args.src if args.in_place else args.dst
    checked = "" if args.no_verify else ", verified"
    print(f"{where}: converted to Zarr v3{checked}")
    if isinstance(node, zarrhpc.Group):
        print(node.tree())
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="zarrhpc", description="Inspect Zarr stores.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, func, text in [
        ("info", _cmd_info, "show an array's or group's properties"),
        ("tree", _cmd_tree, "show the hierarchy below a group"),
        ("verify", _cmd_verify, "decode every chunk and report corrupt ones"),
    ]:
        sp = sub.add_parser(name, help=text)
        sp.add_argument("store", help="store path (a directory)")
        sp.add_argument("--path", default=None, help="node path inside the store")
        if name == "verify":
            sp.add_argument("--repair", action="store_true",
                            help="remove the temporary files of interrupted writes")
        sp.set_defaults(func=func)
    b = sub.add_parser("bench", help="run the standard workloads on zarrhpc and its peers")
    b.add_argument("--quick", action="store_true", help="small sizes (seconds, not minutes)")
    b.add_argument("--xarray", action="store_true",
                   help="xr.open_dataset and dask sums: zarrhpc vs zarr-python")
    b.add_argument("--json", action="store_true", help="print results as JSON")
    b.add_argument("--peers", help="comma-separated: zarrhpc,zarr-python,zarr-python+zarrs,"
                   "tensorstore,h5py,raw (default: all installed)")
    b.add_argument("--codecs", help="comma-separated: none,blosc-lz4,zstd-1,gzip-1")
    b.add_argument("--workloads", help="comma-separated: W1..W7, and the selections W8 (vindex), W9 (oindex), W10 (mask), W11 (sharded vindex), W8w/W9w/W10w/W11w (their writes)")
    b.add_argument("--repeat", type=int, default=None,
                   help="runs per measurement (median; default 3, and 6 rounds for --mpi)")
    b.add_argument("--dir", help="where the data goes (default /dev/shm)")
    b.add_argument("--threads", type=int, help="zarrhpc worker threads")
    b.add_argument("--durable", action="store_true",
                   help="also time zarrhpc writes with durable=True (fsync)")
    b.add_argument("--mpi", action="store_true",
                   help="the collective-write benchmark under mpiexec (zarrhpc.bench.mpi): "
                   "4 ranks, 1 GiB float64, vs h5py and zarr-python")
    b.add_argument("--ranks", type=int, default=4, help="ranks for --mpi")
    b.set_defaults(func=_cmd_bench)
    sp = sub.add_parser("convert", help="convert a v2 or 2022-draft hierarchy to Zarr v3")
    sp.add_argument("src", help="the store to convert (a directory)")
    sp.add_argument("dst", nargs="?", default=None, help="a new directory for the v3 store")
    sp.add_argument("--to", default="v3", choices=["v3"], help="target format")
    sp.add_argument("--in-place", action="store_true",
                    help="rewrite SRC itself (only metadata where chunks can stay)")
    sp.add_argument("--no-verify", action="store_true",
                    help="skip reading both sides back at the end")
    sp.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                    help="progress bar on stderr (default: when stderr is a terminal)")
    sp.set_defaults(func=_cmd_convert)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except ZarrhpcError as exc:
        print(f"zarrhpc {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
