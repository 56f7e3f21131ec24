"""Random SIGKILLs during every kind of write; then check the store.

A writer subprocess writes generation after generation (generation g writes the value g
into a fixed region of every chunk) and prints each generation once its writes
returned; this process kills it at a random moment, then checks that

- the store opens (metadata old or new);
- every chunk's written region holds one generation, all of it (never a mix within a
  chunk: a torn chunk), and the rest of the chunk is untouched;
- no chunk holds a generation older than the last one reported done (lost data);
- `zarrhpc verify --repair` removes the temporary files the killed writer left.

Usable without pytest or asv::

    python tests/reliability/kill_writers.py --kills 200          # every write kind
    python tests/reliability/kill_writers.py --kills 20 --kinds zip,sharded
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

KINDS = ("plain", "partial", "sharded", "sharded_partial", "v2", "zip", "consolidate",
         "resize", "append", "convert")
SHAPE, CHUNKS = (64, 48), (16, 16)
# convert: a v2 store whose chunks `zarrhpc convert --in-place` must re-encode (F order,
# delta filter, zlib); a kill leaves the old v2 array or the new v3 one, same data
CONVERT_SHAPE, CONVERT_CHUNKS = (128, 128), (8, 8)

WRITER = r"""
import sys, numpy as np, zarrhpc
kind, path, SHAPE0 = sys.argv[1], sys.argv[2], 64
zipped = kind == "zip"
store = zarrhpc.storage.ZipStore(path, mode="a") if zipped else path
if kind == "convert":
    import contextlib, io
    from zarrhpc import cli
    print(0, flush=True)
    with contextlib.redirect_stdout(io.StringIO()):  # the lines below are the harness's
        cli.main(["convert", path, "--to", "v3", "--in-place", "--no-verify"])
    print(1, flush=True)
    sys.exit(0)
a = zarrhpc.open_array(store, path="a" if kind == "consolidate" else None, mode="r+")
# append: generation g appends one chunk row of value g; numbering goes on across runs
g = a.shape[0] // 16 if kind == "append" else 0
while True:
    g += 1
    if kind == "append":
        a.append(np.full((16, a.shape[1]), g, "i4"), axis=0)
    elif kind == "resize":
        a.resize((SHAPE0 + 16 * (g % 2), a.shape[1]))  # grow and shrink by a chunk row
        a[...] = g
    elif kind in ("partial", "sharded_partial"):
        for i in range(0, a.shape[0], 16):
            a[i:i + 5, :] = g  # partial chunks: 5 of their 16 rows
    else:
        a[...] = g
    if kind == "consolidate":
        zarrhpc.consolidate_metadata(path)
    if zipped:
        store.flush()
    print(g, flush=True)
"""


def _create(kind: str, path: str) -> None:
    import zarrhpc

    kw = dict(shape=SHAPE, chunks=CHUNKS, dtype="i4", fill_value=-1)
    if kind.startswith("sharded"):
        kw["shards"] = (32, 48)
    if kind == "v2":
        kw["zarr_format"] = 2
    if kind == "zip":
        store = zarrhpc.storage.ZipStore(path, mode="w")
        zarrhpc.create_array(store, **kw)
        store.close()
        return
    if kind == "consolidate":
        zarrhpc.create_group(path).create_array("a", **kw)
        zarrhpc.consolidate_metadata(path)
        return
    if kind == "append":
        kw["shape"] = (0, SHAPE[1])
    if kind == "convert":
        a = zarrhpc.create_array(path, shape=CONVERT_SHAPE, chunks=CONVERT_CHUNKS, dtype="f4",
                                 zarr_format=2, order="F", fill_value=0,
                                 filters=[{"id": "delta", "dtype": "<f4"}],
                                 compressors={"id": "zlib", "level": 1})
        a[...] = _convert_data()
        return
    zarrhpc.create_array(path, **kw)


def _convert_data() -> np.ndarray:
    return np.arange(np.prod(CONVERT_SHAPE), dtype="f4").reshape(CONVERT_SHAPE) * 0.5


def _chunk_blocks(shape, chunks):
    for i in range(0, shape[0], chunks[0]):
        for j in range(0, shape[1], chunks[1]):
            yield (slice(i, i + chunks[0]), slice(j, j + chunks[1]))


def _check_special(kind: str, a, data: np.ndarray, done: int, out: dict, known: dict) -> None:
    """resize, append and convert: their own rules for whole and lost chunks."""
    if kind == "convert":
        want = _convert_data()
        for b in _chunk_blocks(CONVERT_SHAPE, CONVERT_CHUNKS):
            out["chunks"] += 1
            if not np.array_equal(data[b], want[b]):
                out["torn"] += 1  # old chunks decode to the old data, new ones to the new
        out["converted"] = int(a.metadata.zarr_format == 3)
        return
    if kind == "resize":
        # shape old or new; the first 64 rows as a plain write; the extra chunk row (when
        # there) whole, and fill (erased by a shrink about to be committed) or not stale
        if a.shape not in ((SHAPE[0], SHAPE[1]), (SHAPE[0] + 16, SHAPE[1])):
            out["torn"] += 1
        for b in _chunk_blocks(a.shape, CHUNKS):
            out["chunks"] += 1
            values = np.unique(data[b])
            if len(values) != 1:
                out["torn"] += 1
            elif b[0].start < SHAPE[0] and values[0] < done:
                out["lost"] += 1
            elif b[0].start >= SHAPE[0] and values[0] != -1 and values[0] < done:
                out["lost"] += 1  # stale chunk from before a shrink shown again
        return
    # append: chunk row k holds k + 1 (or fill when its append was cut between the resize
    # and the write: never reported done); rows reported done and rows seen before keep
    # their values; the shape covers every row reported done
    rows = a.shape[0] // 16
    if a.shape[0] % 16 or rows < done:
        out["lost"] += max(done - rows, 0) * (SHAPE[1] // 16)
        out["torn"] += bool(a.shape[0] % 16)
    start = known.get("start", 0)
    for b in _chunk_blocks(a.shape, CHUNKS):
        k = b[0].start // 16
        out["chunks"] += 1
        values = np.unique(data[b])
        if len(values) != 1 or values[0] not in (-1, k + 1):
            out["torn"] += 1
            continue
        v = int(values[0])
        if (start < k + 1 <= done and v != k + 1) or known.get((k, b[1].start), v) != v:
            out["lost"] += 1
        known[(k, b[1].start)] = v


def _check(kind: str, path: str, done: int, known: dict | None = None) -> dict:
    """Counts for one killed store: torn chunks, lost chunks, open failures. ``known``
    (append) carries what earlier checks of the same store saw."""
    import zarrhpc

    out = {"torn": 0, "lost": 0, "open_failed": 0, "chunks": 0}
    try:
        store = zarrhpc.storage.ZipStore(path) if kind == "zip" else path
        a = zarrhpc.open_array(store, path="a" if kind == "consolidate" else None, mode="r")
        data = np.asarray(a[...])
    except Exception as exc:  # noqa: BLE001 - counted and shown, never hidden
        out["open_failed"] = 1
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    if kind in ("resize", "append", "convert"):
        _check_special(kind, a, data, done, out, {} if known is None else known)
        return out
    partial = kind in ("partial", "sharded_partial")
    for i in range(0, SHAPE[0], CHUNKS[0]):
        for j in range(0, SHAPE[1], CHUNKS[1]):
            c = data[i:i + CHUNKS[0], j:j + CHUNKS[1]]
            out["chunks"] += 1
            values = np.unique(c)
            # a chunk is whole when all its elements hold one generation (partial: the
            # first 5 rows one generation, the rest one generation not newer)
            if partial:
                top, rest = np.unique(c[:5]), np.unique(c[5:])
                torn = len(top) != 1 or len(rest) != 1 or rest[0] > top[0]
                newest = top[0] if len(top) == 1 else -1
            else:
                torn = len(values) != 1
                newest = values[0] if len(values) == 1 else -1
            if torn:
                out["torn"] += 1
            elif newest < done:
                out["lost"] += 1
    return out


def run(kinds=KINDS, kills: int = 3, seed: int = 0, tmp: str | None = None,
        max_delay: float = 1.5) -> dict:
    """``kills`` random kills per write kind; a dict of counts per kind."""
    from zarrhpc import cli

    rng = random.Random(seed)
    results = {}
    own = tmp is None
    tmp = tmp or tempfile.mkdtemp(prefix="zh-kill-")
    try:
        for kind in kinds:
            tot = {"stores": 0, "torn": 0, "lost": 0, "open_failed": 0, "chunks": 0,
                   "leftover_temp_files": 0, "repaired": 0, "errors": []}
            if kind == "convert":
                tot["converted"] = 0
            path = os.path.join(tmp, kind + (".zip" if kind == "zip" else ""))
            fresh = True
            for k in range(kills):
                if fresh or k % 10 == 0:  # a fresh store now and then, else kills pile up
                    if os.path.isdir(path):
                        shutil.rmtree(path)
                    elif os.path.exists(path):
                        os.unlink(path)
                    _create(kind, path)
                    known = {}
                proc = subprocess.Popen([sys.executable, "-c", WRITER, kind, path],
                                        stdout=subprocess.PIPE, text=True)
                first = proc.stdout.readline()  # it runs; kill it inside a later write
                if kind == "append" and first.strip():
                    known["start"] = int(first) - 1  # rows past this one are this run's
                time.sleep(rng.uniform(0, max_delay) * rng.random())
                proc.send_signal(signal.SIGKILL)
                rest, _ = proc.communicate()
                gens = [int(x) for x in (first + rest).split()]
                done = gens[-1] if gens else 0
                counts = _check(kind, path, done, known)
                tot["stores"] += 1
                for name in ("torn", "lost", "open_failed", "chunks"):
                    tot[name] += counts[name]
                if kind == "convert":  # a finished conversion starts afresh
                    tot["converted"] += counts.get("converted", 0)
                    fresh = bool(counts.get("converted", 0) or counts["open_failed"])
                if "error" in counts:
                    tot["errors"].append(counts["error"])
                left = cli._leftovers(path)
                tot["leftover_temp_files"] += len(left)
                if left:
                    with open(os.devnull, "w") as devnull:
                        old, sys.stdout = sys.stdout, devnull
                        try:
                            cli.main(["verify", path, "--repair"])
                        finally:
                            sys.stdout = old
                    tot["repaired"] += len(left) - len(cli._leftovers(path))
            results[kind] = tot
    finally:
        if own:
            shutil.rmtree(tmp, ignore_errors=True)
    return results


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=200, help="kills per write kind")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    bad = 0
    for kind in args.kinds.split(","):  # each kind's line as soon as it is done
        t = run([kind], args.kills, args.seed)[kind]
        errs = t.pop("errors")
        print(f"{kind:16s} " + " ".join(f"{k}={v}" for k, v in t.items()), flush=True)
        for e in errs[:3]:
            print(f"    open failed: {e}", flush=True)
        bad += t["torn"] + t["lost"] + t["open_failed"] + t["leftover_temp_files"] - t["repaired"]
    sys.exit(1 if bad else 0)
