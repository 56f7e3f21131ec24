"""Stress: random reads of W5-like sharded blosc arrays, rewritten in place between rounds.

The one-off "zarrhpc W5 blosc-lz4 element: wrong data at (20, 5, 5)" of a full-suite run
(tests/test_bench.py) had no reproducer. This drives the read paths it could have taken --
the engine's single-element read (one blosc block per inner chunk), small blocks, whole
shards, vindex -- from several threads at once, over arrays that are rewritten in place
between rounds (the same paths, the same sizes when the codec is ``none``, the file
times set back to what they were, so any cache trusting size and times would serve the
old bytes), with arrays of other chunk key encodings at the same prefix in other stores
(a cause found: tests/reliability/test_stale_caches.py), and compares every value with
numpy.

``make test`` runs a few rounds; ``ZARRHPC_STRESS_SECONDS=600`` runs that long.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage import LocalStore

SHAPE, SHARDS, CHUNKS = (24, 24, 24), (16, 16, 16), (4, 4, 4)
CODECS = {
    "blosc-lz4": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle", "typesize": 4,
                                                     "blocksize": 0}},
    "blosc-zstd-bit": {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 1,
                                                          "shuffle": "bitshuffle",
                                                          "typesize": 4, "blocksize": 0}},
    "none": None,
}
ENCODINGS = [{"name": "default", "separator": "/"}, {"name": "default", "separator": "."},
             {"name": "v2", "separator": "."}]


def _field(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    axes = [np.sin(np.arange(n) / (13.0 + 4 * i) + seed) for i, n in enumerate(SHAPE)]
    out = np.zeros(SHAPE, np.float32)
    for i, ax in enumerate(axes):
        out += ax.reshape([-1 if j == i else 1 for j in range(3)]).astype(np.float32)
    return out + (rng.standard_normal(SHAPE) * 1e-3).astype(np.float32)


def _times(root: str) -> dict:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            st = os.stat(p)
            out[p] = (st.st_size, st.st_atime_ns, st.st_mtime_ns)
    return out


def _rewrite(path: str, data: np.ndarray) -> None:
    """Write ``data`` over the array at ``path`` (the same metadata), then set every file's
    times back to the old ones where the size stayed the same."""
    before = _times(path)
    a = zarrhpc.open_array(path, mode="r+")
    a[...] = data
    for p, (size, _, _) in _times(path).items():
        if p in before and before[p][0] == size:
            os.utime(p, ns=(before[p][1], before[p][2]))


def _reader(arrays, want, rng_seed, n, errors):
    rng = np.random.default_rng(rng_seed)
    try:
        for _ in range(n):
            k = int(rng.integers(len(arrays)))
            a, data = arrays[k], want[k]
            kind = int(rng.integers(4))
            if kind == 0:  # one element (the engine's point read)
                p = tuple(int(i) for i in rng.integers(0, 24, 3))
                got, exp = a[p], data[p]
            elif kind == 1:  # a small block
                lo = [int(i) for i in rng.integers(0, 20, 3)]
                sel = tuple(slice(x, x + 4) for x in lo)
                got, exp = a[sel], data[sel]
            elif kind == 2:  # points
                idx = tuple(rng.integers(0, 24, (3, 16)))
                got, exp = a.vindex[idx], data[idx]
            else:  # whole
                got, exp = a[...], data
            if not np.array_equal(got, exp):
                errors.append(f"array {k} kind {kind}: wrong data")
                return
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(f"{type(exc).__name__}: {exc}")


def _round(arrays, want, threads, reads, seed):
    errors: list = []
    ts = [threading.Thread(target=_reader, args=(arrays, want, seed * 100 + i, reads, errors))
          for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("codec", list(CODECS))
def test_random_reads_of_rewritten_sharded_arrays(tmp_path, codec):
    seconds = float(os.environ.get("ZARRHPC_STRESS_SECONDS", "0"))
    paths, want = [], []
    for n, enc in enumerate(ENCODINGS):
        # one array per store root (the same key prefix ""), another key encoding each
        path = str(tmp_path / f"s{n}")
        data = _field(n)
        a = zarrhpc.create_array(LocalStore(path), shape=SHAPE, dtype="f4", chunks=CHUNKS,
                                 shards=SHARDS, compressors=CODECS[codec],
                                 chunk_key_encoding=enc, fill_value=0)
        a[...] = data
        paths.append(path)
        want.append(data)
    kept = [zarrhpc.open_array(p, mode="r") for p in paths]  # handles held across rewrites
    deadline = time.monotonic() + seconds
    rnd = 0
    while rnd < 4 or time.monotonic() < deadline:
        rnd += 1
        for n in range(len(ENCODINGS)):
            # the same values permuted along an axis: the same compressed sizes, mostly
            data = np.roll(want[n], 1 + rnd % 5, axis=rnd % 3)
            if rnd % 4 == 0:
                data = data.copy()
                data[16:, :16, :16] = 0  # an edge shard's inner chunks left out (fill)
            _rewrite(paths[n], data)
            want[n] = data
        fresh = [zarrhpc.open_array(p, mode="r") for p in paths]
        with zarrhpc.config.set(threads=2):
            _round(kept + fresh, want + want, threads=3, reads=40, seed=rnd)
