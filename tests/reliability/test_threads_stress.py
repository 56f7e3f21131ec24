"""Threads: one Array (and a second handle on the same path) read and written from several
Python threads at once, as dask's threaded scheduler does, while the engine's own worker
threads run; ``sys.setswitchinterval(1e-6)`` makes the interpreter switch threads as often
as it can, to shake out races in what zarrhpc fills lazily (prepared forms, shard-key
caches, scratch buffers, the zip archive's and memory stores' dicts).

Layouts: local, memory, zip, CacheStore (over local and memory; the second handle
through a view sharing its cache) and remote (two store objects on one URL of the
loopback S3 server) stores; plain, blosc, sharded, v2 F order, strings. Each thread owns a set of
whole shards (whole chunks when not sharded), as a dask task owns its block, and loops: write random values through a random form (basic, orthogonal,
points, mask, scalar broadcast, through the shared handle or its own), then read its
region back through a random form (or into ``out=``) and compare with its own numpy
model. Other threads read across everybody's regions at the same time (unchecked:
those reads may see a neighbour mid-write) to keep the read paths busy. At the end the
whole array, read by a fresh open and by zarr-python when the store is a directory,
must be every thread's model.

``make test`` runs a second or so per layout; ``ZARRHPC_STRESS_SECONDS=N`` (or
``ZARRHPC_LONG=1``: 60 s) runs each layout that long.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid

import numpy as np
import pytest

import zarrhpc

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
SECONDS = float(os.environ.get("ZARRHPC_STRESS_SECONDS", "60" if LONG else "1.0"))
SHAPE = (30, 21)
NTHREADS = 4
BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 1,
                                            "shuffle": "shuffle", "typesize": 4,
                                            "blocksize": 64}}
LAYOUTS = {
    "plain-local": dict(store="local", chunks=(4, 3)),
    "blosc-local": dict(store="local", chunks=(8, 6), compressors=BLOSC),
    "sharded-local": dict(store="local", chunks=(2, 3), shards=(8, 6)),
    "sharded-blosc-local": dict(store="local", chunks=(4, 3), shards=(8, 6),
                                compressors=BLOSC),
    "v2-F-local": dict(store="local", chunks=(4, 3), zarr_format=2, order="F"),
    "plain-memory": dict(store="memory", chunks=(4, 3)),
    "sharded-memory": dict(store="memory", chunks=(2, 3), shards=(8, 6)),
    "sharded-zip": dict(store="zip", chunks=(2, 3), shards=(8, 6)),
    "strings-local": dict(store="local", chunks=(4, 3), dtype="str"),
    "v2-strings-memory": dict(store="memory", chunks=(4, 3), dtype="str", zarr_format=2),
    # a CacheStore (small: entries evicted all the time) over a directory or memory; the
    # second handle through a view sharing its cache
    "plain-cache-local": dict(store="cache-local", chunks=(4, 3)),
    "sharded-cache-local": dict(store="cache-local", chunks=(2, 3), shards=(8, 6)),
    "sharded-cache-memory": dict(store="cache-memory", chunks=(2, 3), shards=(8, 6)),
    # two remote store objects on one URL (each with its tail cache), the moto server
    "plain-s3": dict(store="s3", chunks=(4, 3)),
    "sharded-s3": dict(store="s3", chunks=(2, 3), shards=(8, 6)),
}


def _values(rng, dtype, shape):
    if dtype == "str":
        pool = np.array(["", "a", "héllo", "xyz", "ñb", "fifteen chars!!"], dtype=object)
        return pool[rng.integers(0, len(pool), shape)]
    return rng.integers(-1000, 1000, shape).astype(dtype)


def _regions(grid_shape, unit):
    """The units (shards or chunks) of the grid dealt to the threads round robin."""
    cells = [(i, j) for i in range(grid_shape[0]) for j in range(grid_shape[1])]
    owned = [[] for _ in range(NTHREADS)]
    for k, c in enumerate(cells):
        owned[k % NTHREADS].append(tuple(slice(c[d] * unit[d], min((c[d] + 1) * unit[d],
                                                                    SHAPE[d]))
                                         for d in range(2)))
    return owned


def _worker(tid, arrays, owned, model, dtype, deadline, errors, counts):
    rng = np.random.default_rng(1000 + tid)
    try:
        while time.monotonic() < deadline and not errors:
            region = owned[rng.integers(len(owned))]
            a = arrays[rng.integers(len(arrays))]
            shape = tuple(s.stop - s.start for s in region)
            form = rng.integers(5)
            vals = _values(rng, dtype, shape)
            if form == 0:  # basic
                a[region] = vals
                model[region] = vals
            elif form == 1:  # scalar broadcast
                a[region] = vals.flat[0]
                model[region] = vals.flat[0]
            elif form == 2:  # orthogonal: a random subset of rows and columns
                rows = np.flatnonzero(rng.random(shape[0]) < 0.6) + region[0].start
                cols = np.flatnonzero(rng.random(shape[1]) < 0.6) + region[1].start
                sub = vals[:len(rows), :len(cols)]
                a.oindex[rows, cols] = sub
                model[np.ix_(rows, cols)] = sub
            elif form == 3:  # points
                n = int(rng.integers(1, 12))
                r = rng.integers(region[0].start, region[0].stop, n)
                c = rng.integers(region[1].start, region[1].stop, n)
                keep = np.unique(r * 1000 + c, return_index=True)[1]
                r, c, v = r[keep], c[keep], vals.reshape(-1)[:len(keep)]
                a.vindex[r, c] = v
                model[r, c] = v
            else:  # a mask inside the region
                mask = np.zeros(SHAPE, bool)
                mask[region] = rng.random(shape) < 0.4
                v = vals.reshape(-1)[:int(mask.sum())]
                a.vindex[mask] = v
                model[mask] = v
            counts[tid] += 1
            # read back: own region, random form
            b = arrays[rng.integers(len(arrays))]
            how = rng.integers(4)
            if how == 0:
                got = b[region]
            elif how == 1:
                got = b.oindex[np.arange(region[0].start, region[0].stop), region[1]]
            elif how == 2 and dtype != "str":
                got = np.empty(shape, dtype=dtype)
                b.get_basic_selection(region, out=got)
            else:
                rr, cc = np.meshgrid(np.arange(region[0].start, region[0].stop),
                                     np.arange(region[1].start, region[1].stop),
                                     indexing="ij")
                got = b.vindex[rr, cc]
            want = model[region]
            if not np.array_equal(np.asarray(got), want):
                errors.append(f"thread {tid}: {region} read {got!r}, wrote {want!r}")
            # an unchecked read across everybody's regions (a remote shard replaced by
            # its owner while read is refused, If-Match: not wrong data)
            r0 = int(rng.integers(0, SHAPE[0]))
            try:
                b[r0:r0 + 7, ::2]
            except zarrhpc.errors.StoreError as exc:
                if "replaced by another writer" not in str(exc):
                    raise
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(f"thread {tid}: {type(exc).__name__}: {exc}")


@pytest.fixture(scope="module")
def s3_server():
    pytest.importorskip("moto.server")
    from zarrhpc.testing.servers import S3Server

    with S3Server() as server:
        server.create_bucket("zarrhpc-hunt-threads")
        yield server


def open_url_again(store):
    from zarrhpc.storage.remote import open_url

    return open_url(store.url, storage_options=store.storage_options)


def _store(kind, tmp_path, request=None):
    if kind == "local":
        return str(tmp_path / "a.zarr")
    if kind == "s3":
        server = request.getfixturevalue("s3_server")
        from zarrhpc.storage.remote import open_url

        return open_url(f"s3://zarrhpc-hunt-threads/{uuid.uuid4().hex}",
                        storage_options=server.storage_options(server.endpoint))
    if kind == "memory":
        return zarrhpc.storage.MemoryStore()
    if kind.startswith("cache-"):
        from zarrhpc.storage.cache import CacheStore

        source = (zarrhpc.storage.LocalStore(str(tmp_path / "a.zarr")) if kind == "cache-local"
                  else zarrhpc.storage.MemoryStore())
        return CacheStore(source, cache_store=zarrhpc.storage.MemoryStore(), max_size=4096)
    return zarrhpc.storage.ZipStore(str(tmp_path / "a.zip"), mode="a")


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_threads_share_an_array(tmp_path, name, request):
    spec = dict(LAYOUTS[name])
    kind = spec.pop("store")
    dtype = spec.pop("dtype", "<i4")
    store = _store(kind, tmp_path, request)
    a = zarrhpc.create_array(store, shape=SHAPE, dtype=dtype, fill_value="" if dtype == "str"
                             else 0, **spec)
    # the second handle: another store object on the same URL for a remote store
    other = store
    if kind == "s3":
        other = open_url_again(store)
    elif kind.startswith("cache-"):
        other = store.with_read_only(False)
    b = zarrhpc.open_array(other, mode="r+")
    unit = spec.get("shards") or spec["chunks"]
    grid = tuple(-(-n // u) for n, u in zip(SHAPE, unit))
    owned = _regions(grid, unit)
    model = np.full(SHAPE, "" if dtype == "str" else 0,
                    dtype=object if dtype == "str" else dtype)
    errors: list = []
    counts = [0] * NTHREADS
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with zarrhpc.config.set(threads=2):
            deadline = time.monotonic() + SECONDS
            threads = [threading.Thread(target=_worker, args=(t, [a, b], owned[t], model,
                                                              dtype, deadline, errors,
                                                              counts))
                       for t in range(NTHREADS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[:3]
    assert all(counts), counts
    fresh = zarrhpc.open_array(store, mode="r")[...]
    assert np.array_equal(fresh, model)
    if kind == "local":
        zarr = pytest.importorskip("zarr")
        assert np.array_equal(zarr.open_array(store, mode="r")[...], model)
    if kind == "zip":
        store.close()
