"""xarray and dask through zarrhpc vs through zarr-python, side by side in one run.

Workloads (one store per codec, written once, read by both in alternating rounds):
- X1: ``xr.open_dataset(store, engine=E, chunks=None).load()`` for E in "zarrhpc", "zarr":
  a float32 Dataset of 4 variables (each (n, 512, 512)), chunks (64, 64, 64), Zarr v3,
  consolidated, blosc lz4 (shuffle) and uncompressed;
- D1: ``da.from_array(zarrhpc_array, chunks=a.chunks).sum().compute()`` vs
  ``da.from_zarr(path).sum().compute()`` (zarr-python) on one variable, with dask's
  threaded scheduler and with its processes scheduler (``--schedulers``).

Reported: the median of ``--repeat`` rounds (default 3, at least 3), the two engines
interleaved round by round, in GB/s of decoded data and in seconds, and zarrhpc's
speed-up. Every result is checked against the other engine's once.

Run: ``python -m zarrhpc.bench.xarray_dask [--gib 2] [--repeat 3] [--dir /dev/shm]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

__all__ = ["main", "run"]

VARIABLES = ("t", "u", "v", "q")
CODECS = ("blosc-lz4", "none")


def _field(shape, seed: int) -> np.ndarray:
    """A smooth float32 field with a little noise (compresses like simulation output)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(shape, dtype="f4")
    for i, n in enumerate(shape):
        ax = np.sin(np.arange(n, dtype="f4") / (13.0 + 4 * i + seed))
        out += ax.reshape([-1 if j == i else 1 for j in range(len(shape))])
    out += (rng.standard_normal(shape[-1]) * 1e-3).astype("f4")
    return out


def _write(path: str, codec: str, nz: int) -> int:
    import xarray as xr

    import zarrhpc
    import zarrhpc.xarray

    shape = (nz, 512, 512)
    data = {name: (("z", "y", "x"), _field(shape, i)) for i, name in enumerate(VARIABLES)}
    ds = xr.Dataset(data, coords={"z": np.arange(nz), "y": np.arange(512),
                                  "x": np.arange(512)})
    comp = (zarrhpc.codecs.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")
            if codec == "blosc-lz4" else None)
    enc = {name: {"chunks": (64, 64, 64), "compressors": comp} for name in VARIABLES}
    zarrhpc.xarray.to_zarr(ds, path, mode="w", encoding=enc, zarr_format=3,
                           consolidated=True)
    return sum(ds[name].nbytes for name in VARIABLES)


def _time(fn) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(gib: float = 2.0, repeat: int = 3, directory: str | None = None, log=print,
        schedulers=("threads", "processes")) -> list:
    """Run the workloads; returns rows (workload, codec, engine, GB/s, seconds)."""
    repeat = max(3, repeat)
    import warnings

    import dask
    import dask.array as da
    import xarray as xr

    import zarrhpc

    warnings.filterwarnings("ignore", module="zarr")
    nz = max(64, int(gib * (1 << 30) / (4 * 4 * 512 * 512)) // 64 * 64)
    root = tempfile.mkdtemp(prefix="zarrhpc-xr-", dir=directory)
    rows = []
    try:
        for codec in CODECS:
            path = os.path.join(root, f"{codec}.zarr")
            nbytes = _write(path, codec, nz)
            log(f"{codec}: {nbytes / 2**30:.2f} GiB in 4 variables of ({nz}, 512, 512)")

            def load(engine, path=path):
                return xr.open_dataset(path, engine=engine, chunks=None).load()

            ref, ours = load("zarr"), load("zarrhpc")
            xr.testing.assert_identical(ref, ours)
            del ref, ours
            times = {"zarrhpc": [], "zarr": []}
            for _ in range(repeat):
                for engine in ("zarrhpc", "zarr"):
                    times[engine].append(_time(lambda engine=engine: load(engine)))
            for engine, ts in times.items():
                med = statistics.median(ts)
                rows.append(("X1 open_dataset().load()", codec, engine, nbytes / med / 1e9, med))

            var = os.path.join(path, "t")
            ours_arr = zarrhpc.open_array(var, mode="r")

            def ours_sum(a=ours_arr):
                return da.from_array(a, chunks=a.chunks).sum().compute()

            def ref_sum(var=var):
                return da.from_zarr(var).sum().compute()

            for scheduler in schedulers:
                with dask.config.set(scheduler=scheduler):
                    assert np.isclose(ours_sum(), ref_sum(), rtol=1e-5)
                    times = {"zarrhpc": [], "zarr": []}
                    for i in range(repeat):
                        # alternate which engine goes first: neither always gets a warm cache
                        order = [("zarrhpc", ours_sum), ("zarr", ref_sum)][::1 - 2 * (i % 2)]
                        for engine, fn in order:
                            times[engine].append(_time(fn))
                for engine, ts in times.items():
                    med = statistics.median(ts)
                    rows.append((f"D1 dask sum ({scheduler})", codec, engine,
                                 ours_arr.nbytes / med / 1e9, med))
            shutil.rmtree(path)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rows


def format_rows(rows) -> str:
    lines = [f"{'workload':<26} {'codec':<10} {'engine':<8} {'GB/s':>7} {'median s':>9} "
             f"{'speed-up':>8}"]
    by_key = {(w, c, e): (g, s) for w, c, e, g, s in rows}
    for w, c, e, g, s in rows:
        other = by_key.get((w, c, "zarr"))
        ratio = f"{other[1] / s:.2f}x" if e == "zarrhpc" and other else ""
        lines.append(f"{w:<26} {c:<10} {e:<8} {g:7.2f} {s:9.3f} {ratio:>8}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m zarrhpc.bench.xarray_dask",
                                description=__doc__.split("\n")[0])
    p.add_argument("--gib", type=float, default=2.0, help="dataset size in GiB (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="rounds (median reported)")
    p.add_argument("--schedulers", default="threads,processes",
                   help="dask schedulers for D1, comma-separated (default threads,processes)")
    p.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                   help="where the stores go (default /dev/shm)")
    args = p.parse_args(argv)
    rows = run(args.gib, args.repeat, args.dir, log=lambda m: print(m, file=sys.stderr),
               schedulers=tuple(args.schedulers.split(",")))
    print(format_rows(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
