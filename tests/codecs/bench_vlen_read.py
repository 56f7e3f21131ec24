"""Read a 10 M-element vlen-utf8 array (v3, zstd) and a v2 object array, beside zarr-python.

Run: ``.venv/bin/python tests/codecs/bench_vlen_read.py [n] [rounds]``

zarrhpc's side decodes every chunk through the array's codec pipeline on a thread pool
and assembles the result with numpy (what the dtype-generic read path does); zarr-python
reads ``a[:]``. Medians of ``rounds`` rounds, each peer timed in the same round.
"""

import concurrent.futures
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np

import zarrhpc


def _zarrhpc_read(path):
    a = zarrhpc.open_array(path)
    spec = a._metadata.to_spec()
    c = spec.chunk_shape[0]
    n = a.shape[0]
    prefix = spec.chunk_prefix if spec.chunk_prefix is not None else ""
    keys = [prefix + spec.chunk_key_encoding.encode((i,)) for i in range(-(-n // c))]
    bufs = a.store.get_values(keys)
    out = np.empty(n, dtype=a.dtype)

    def one(i):
        chunk = a._pipeline.decode(bufs[i], keys[i])
        out[i * c:(i + 1) * c] = chunk[: min(c, n - i * c)]

    workers = len(os.sched_getaffinity(0))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, range(len(keys))))
    return out


def main(n=10_000_000, rounds=3):
    import zarr

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(1000)] + ["", "é", "日本"], dtype=object)
    data = words[rng.integers(0, len(words), n)].astype(np.dtypes.StringDType())
    tmp = tempfile.mkdtemp()
    paths = {}
    for fmt in (3, 2):
        p = os.path.join(tmp, f"v{fmt}.zarr")
        z = zarr.create_array(p, shape=(n,), chunks=(1_000_000,), dtype=str, zarr_format=fmt,
                              compressors=[{"name": "zstd", "configuration": {"level": 1}}]
                              if fmt == 3 else {"id": "zstd", "level": 1})
        z[:] = data
        paths[fmt] = p
    for fmt, p in paths.items():
        times = {"zarr-python": [], "zarrhpc": []}
        for _ in range(rounds):
            t = time.perf_counter()
            ref = zarr.open_array(p)[:]
            times["zarr-python"].append(time.perf_counter() - t)
            t = time.perf_counter()
            got = _zarrhpc_read(p)
            times["zarrhpc"].append(time.perf_counter() - t)
            assert np.array_equal(got, ref)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"v{fmt} {'string/vlen-utf8' if fmt == 3 else '|O VLenUTF8'} n={n}: "
              f"zarr-python {med['zarr-python']:.3f} s, zarrhpc {med['zarrhpc']:.3f} s, "
              f"ratio {med['zarr-python'] / med['zarrhpc']:.2f}x")


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:]))
