"""Read a variable-length string array end to end: zarrhpc against zarr-python.

``python -m zarrhpc.bench.strings [N] [--dir DIR]`` writes N short strings (default 10 M,
chunks of 100 000, zstd level 1) with zarr-python as a v3 ``string`` array (vlen-utf8) and
as a v2 object array (VLenUTF8), checks that both libraries read the same values, then
times ``a[:]`` in interleaved rounds (the order turns every round) and prints the medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np

import zarrhpc
from zarrhpc.bench import default_dir


def _write(zarr, path: str, words, fmt: int) -> None:
    import numcodecs

    compressors = zarr.codecs.ZstdCodec(level=1) if fmt == 3 else numcodecs.Zstd(level=1)
    z = zarr.create_array(path, shape=words.shape, chunks=(100_000,), dtype=str,
                          zarr_format=fmt, compressors=compressors)
    z[:] = words


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", nargs="?", type=int, default=10_000_000)
    p.add_argument("--dir", default=None)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    import zarr

    rng = np.random.default_rng(0)
    words = np.array([f"s{i}" for i in rng.integers(0, 100_000, args.n)],
                     dtype=np.dtypes.StringDType())
    root = tempfile.mkdtemp(dir=args.dir or default_dir())
    for fmt in (3, 2):
        path = f"{root}/v{fmt}.zarr"
        _write(zarr, path, words, fmt)
        peers = {"zarrhpc": zarrhpc.open_array(path, mode="r"),
                 "zarr-python": zarr.open_array(path, mode="r")}
        if not (peers["zarrhpc"][:] == peers["zarr-python"][:]).all():
            raise SystemExit(f"v{fmt}: zarrhpc and zarr-python read different values")
        times: dict[str, list[float]] = {name: [] for name in peers}
        for r in range(args.repeat):
            order = list(peers) if r % 2 == 0 else list(reversed(peers))
            for name in order:
                t0 = time.perf_counter()
                peers[name][:]
                times[name].append(time.perf_counter() - t0)
        med = {name: statistics.median(v) for name, v in times.items()}
        print(f"v{fmt} {args.n} strings, zstd: zarrhpc {med['zarrhpc']:.3f} s, zarr-python "
              f"{med['zarr-python']:.3f} s, {med['zarr-python'] / med['zarrhpc']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
