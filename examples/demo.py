"""zarrhpc demo: write a 3-D float field with blosc, reopen it, verify it, report GB/s.

Run with ``make demo`` (or ``python examples/demo.py --dir DIR``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import numpy as np

import zarrhpc


def make_field(shape: tuple[int, int, int]) -> np.ndarray:
    """A smooth temperature-like field plus a little noise (compressible, not trivial)."""
    nz, ny, nx = shape
    z = np.linspace(0, 4 * np.pi, nz, dtype=np.float32)[:, None, None]
    y = np.linspace(0, 2 * np.pi, ny, dtype=np.float32)[None, :, None]
    x = np.linspace(0, 2 * np.pi, nx, dtype=np.float32)[None, None, :]
    field = np.empty(shape, dtype=np.float32)
    np.add(np.sin(z) * np.cos(y), np.sin(2 * x), out=field)
    rng = np.random.default_rng(42)
    field += rng.standard_normal((1, ny, nx), dtype=np.float32) * 0.01
    return field


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--dir", default="demo_data", help="directory for the store")
    p.add_argument("--shape", default="512,512,256", help="field shape (default 256 MiB float32)")
    p.add_argument("--chunks", default="64,64,64")
    p.add_argument("--repeat", type=int, default=3, help="timed repetitions (median is reported)")
    args = p.parse_args(argv)
    shape = tuple(int(s) for s in args.shape.split(","))
    chunks = tuple(int(s) for s in args.chunks.split(","))
    root = Path(args.dir)
    if root.exists():
        shutil.rmtree(root)

    print(f"zarrhpc {zarrhpc.__version__}: threads={zarrhpc.config.get('threads')}")
    field = make_field(shape)
    gb = field.nbytes / 1e9
    print(f"field: float32 {shape} = {field.nbytes / 2**20:.0f} MiB, chunks {chunks}, blosc lz4 shuffle")

    compressor = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}
    writes, reads = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        a = zarrhpc.create_array(root, name="field", shape=shape, chunks=chunks, dtype="float32",
                                 compressors=compressor, dimension_names=("z", "y", "x"),
                                 attributes={"units": "K"}, overwrite=True)
        a[...] = field
        writes.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        b = zarrhpc.open_array(root, path="field")
        back = b[...]
        reads.append(time.perf_counter() - t0)
        if not np.array_equal(back, field):
            print("FAILED: data read back differs from data written", file=sys.stderr)
            return 1

    stored = sum(f.stat().st_size for f in (root / "field").rglob("*") if f.is_file())
    tw, tr = float(np.median(writes)), float(np.median(reads))
    print(f"verified: read back equals written ({b.nchunks} chunks, "
          f"stored {stored / 2**20:.0f} MiB, ratio {field.nbytes / stored:.1f}x)")
    print(f"write: {gb / tw:6.2f} GB/s  (median of {args.repeat}: {tw * 1e3:.0f} ms)")
    print(f"read : {gb / tr:6.2f} GB/s  (median of {args.repeat}: {tr * 1e3:.0f} ms)")
    print(zarrhpc.open_group(root).tree())
    return 0


if __name__ == "__main__":
    sys.exit(main())
