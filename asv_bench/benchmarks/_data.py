"""Shared by the benchmark modules: scratch directories and reproducible test data."""

import os
import shutil
import tempfile

import numpy as np

SEED = 20240601
MIB = 1 << 20

#: The bytes->bytes codecs of the standard workloads (issue 3), as v3 JSON.
COMPRESSORS = {
    "none": None,
    "blosc-lz4": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                    "shuffle": "shuffle"}},
    "zstd-1": {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
    "gzip-1": {"name": "gzip", "configuration": {"level": 1}},
}


def scratch_dir():
    """A new temporary directory, in memory (/dev/shm) when the machine has one, so
    that benchmarks time zarrhpc and the page cache rather than a disk."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="zarrhpc-asv-", dir=base)


def remove(path):
    shutil.rmtree(path, ignore_errors=True)


def field(shape, dtype="f4", seed=SEED):
    """A smooth field plus a little noise: compresses like simulation output."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 1, shape[-1], dtype="f8")
    data = ramp + rng.standard_normal(shape) * 0.01
    return data.astype(dtype)


def touched(shape, dtype):
    """An output array whose pages are already mapped (a one-sample --quick run would
    otherwise time the page faults of the first write)."""
    out = np.empty(shape, dtype)
    out.reshape(-1).view(np.uint8).fill(0)
    return out
