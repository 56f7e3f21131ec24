"""Fast fuzzing of state kept across blosc chunks: damaged chunk, then good ones, one thread.

The engine keeps per worker thread a c-blosc2 decoder context and scratch buffers that
live from chunk to chunk (csrc/zh_codecs.c); a damaged chunk must leave nothing behind
that changes how a later chunk decodes, and a damaged chunk that decodes at all must not
return what a buffer held before (another chunk's bytes, the caller's array).

Per input ``i`` (fully determined by ``(seed, i)``): a stored chunk of one of the
configurations below, hit by 1-6 byte-level mutations (fuzz_mutate.py), replaces the
chunk of a "damaged" array; the damaged array is read through a random path (whole,
slice, one element, points) twice, into outputs prefilled with other bytes: both reads
must fail with a zarrhpc error or return the same values; then random reads of the good
arrays (the same configurations, in memory and in files, threads=1: the same worker
thread) must equal numpy. Counted: inputs, zarrhpc errors, "foreign" exceptions, "wrong"
good reads, "unstable" damaged reads (the two reads differ).

Run: ``python tests/reliability/fuzz_blosc_state.py --inputs 20000`` (exit 1 on any
foreign, wrong or unstable); tests/reliability/test_fuzz_blosc_state.py runs a few hundred.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from fuzz_mutate import mutate  # noqa: E402

import zarrhpc  # noqa: E402
from zarrhpc.errors import ZarrhpcError  # noqa: E402


def _blosc(cname, shuffle, typesize, blocksize=0, clevel=5):
    return {"name": "blosc", "configuration": {"cname": cname, "clevel": clevel,
                                               "shuffle": shuffle, "typesize": typesize,
                                               "blocksize": blocksize}}


#: name -> (dtype, shape, chunks, shards, codec)
CONFIGS = {
    "lz4-own": ("f4", (96, 96), (64, 64), None, _blosc("lz4", "shuffle", 4)),
    "zstd-bit": ("i4", (40, 40), (16, 16), None, _blosc("zstd", "bitshuffle", 4, 256)),
    "blosclz-u1": ("u1", (300,), (128,), None, _blosc("blosclz", "noshuffle", 1)),
    "lz4-split": ("i2", (64, 64), (32, 32), None, _blosc("lz4", "shuffle", 2, 512)),
    "odd-ts": ("i2", (24, 24), (8, 8), None, _blosc("lz4", "bitshuffle", 3, 126)),
    "w5": ("f4", (24, 24, 24), (4, 4, 4), (16, 16, 16), _blosc("lz4", "shuffle", 4)),
}


def _data(name: str) -> np.ndarray:
    dtype, shape, *_ = CONFIGS[name]
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    n = int(np.prod(shape))
    base = np.sin(np.arange(n) / 7.0) * 100 + rng.integers(0, 3, n)
    return base.astype(dtype).reshape(shape)


class Fixture:
    """The good and damaged arrays of every configuration, in memory and in files."""

    def __init__(self, tmp: str):
        self.good: list = []  # (name, array, data)
        self.bad: dict = {}  # (name, where) -> (array, store, key)
        self.chunks: dict = {}  # name -> list of stored good chunk values (the seeds)
        for name, (dtype, shape, chunks, shards, codec) in CONFIGS.items():
            data = _data(name)
            for where in ("memory", "local"):
                store = zarrhpc.MemoryStore() if where == "memory" else \
                    zarrhpc.LocalStore(os.path.join(tmp, f"{name}"))
                arrays = []
                for role in ("good", "bad"):
                    a = zarrhpc.create_array(store, name=role, shape=shape, dtype=dtype,
                                             chunks=chunks, shards=shards, compressors=codec,
                                             fill_value=0)
                    a[...] = data
                    arrays.append(a)
                self.good.append((name, arrays[0], data))
                keys = sorted(k for k in store.list_prefix("bad/c"))
                self.bad[(name, where)] = (arrays[1], store, keys)
                if where == "memory":
                    self.chunks[name] = [bytes(store.get(k)) for k in keys]

    def others(self) -> list:
        return [c for v in self.chunks.values() for c in v]


def _selection(rng: random.Random, shape: tuple):
    kind = rng.randrange(4)
    if kind == 0:
        return "whole", Ellipsis
    if kind == 1:
        return "point", tuple(rng.randrange(n) for n in shape)
    if kind == 2:
        lo = [rng.randrange(n) for n in shape]
        return "slice", tuple(slice(a, min(n, a + rng.randrange(1, 9))) for a, n in
                              zip(lo, shape))
    idx = tuple(np.array([rng.randrange(n) for _ in range(5)]) for n in shape)
    return "points", idx


def _read(a, kind, sel, fill):
    if kind == "points":
        return np.asarray(a.vindex[sel])
    shape = np.empty(a.shape, dtype=bool)[sel].shape
    out = np.full(shape, fill, dtype=a.dtype)
    return np.array(a.read(sel, out=out), copy=True)


def run(inputs: int, seed: int = 0, start: int = 0, tmp: str | None = None) -> dict:
    counts = {"inputs": 0, "zarrhpc_errors": 0, "foreign": 0, "wrong": 0, "unstable": 0,
              "good_reads": 0, "examples": []}
    with tempfile.TemporaryDirectory(dir=tmp) as d, zarrhpc.config.set(threads=1):
        fx = Fixture(d)
        others = fx.others()
        for i in range(start, start + inputs):
            rng = random.Random(f"{seed}/{i}")
            name, where = rng.choice(sorted(fx.bad))
            a, store, keys = fx.bad[(name, where)]
            key = rng.choice(keys)
            good_value = fx.chunks[name][keys.index(key)]
            damaged = mutate(rng, good_value, others)
            store.set(key, damaged)
            counts["inputs"] += 1
            kind, sel = _selection(rng, a.shape)
            results = []
            for fill in (0x55, 0xAA) if kind != "points" else (0,):
                try:
                    results.append(_read(a, kind, sel, np.array(fill).astype(a.dtype)))
                except ZarrhpcError:
                    results.append("error")
                except Exception as exc:  # noqa: BLE001 - counted and reported
                    results.append("foreign")
                    counts["foreign"] += 1
                    _example(counts, i, name, where, kind, f"{type(exc).__name__}: {exc}")
            if any(isinstance(r, str) and r == "error" for r in results):
                counts["zarrhpc_errors"] += 1
            if len(results) == 2 and not isinstance(results[0], str) and \
                    not isinstance(results[1], str) and \
                    not np.array_equal(results[0], results[1], equal_nan=a.dtype.kind == "f"):
                counts["unstable"] += 1
                _example(counts, i, name, where, kind, "two reads of a damaged chunk differ")
            store.set(key, good_value)
            # the good arrays, read on the same worker thread
            for _ in range(2):
                gname, g, data = rng.choice(fx.good)
                gkind, gsel = _selection(rng, g.shape)
                try:
                    got = _read(g, gkind, gsel, np.array(0x33).astype(g.dtype))
                except Exception as exc:  # noqa: BLE001
                    got = f"{type(exc).__name__}: {exc}"
                counts["good_reads"] += 1
                if isinstance(got, str) or not np.array_equal(got, data[gsel]):
                    counts["wrong"] += 1
                    _example(counts, i, gname, "good", gkind, "a good chunk read wrong after "
                             f"damaged {name} ({where}): {got if isinstance(got, str) else ''}")
    return counts


def _example(counts, i, name, where, kind, what):
    if len(counts["examples"]) < 20:
        counts["examples"].append({"input": i, "config": name, "store": where, "read": kind,
                                   "what": what})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--inputs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0)
    args = p.parse_args(argv)
    counts = run(args.inputs, args.seed, args.start)
    print(json.dumps(counts, indent=1))
    return 1 if counts["foreign"] or counts["wrong"] or counts["unstable"] else 0


if __name__ == "__main__":
    sys.exit(main())
