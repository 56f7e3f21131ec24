"""Fast byte-level fuzzing of every parser that reads store bytes (no hypothesis engine).

Why: the hypothesis fuzzer (test_fuzz_parsers.py) spends most of each input in its own
engine (drawing, bookkeeping) and builds and opens a whole store per input: about 5 ms
an input, while the read itself takes 0.1-1 ms. This driver mutates the same seeds
(fuzz_seeds.py) with a plain ``random.Random`` and keeps each chunk parser's array open,
swapping only the damaged value in, so 10^5 inputs per parser take minutes, under
AddressSanitizer + UBSan too (``make fuzz-asan FUZZ_INPUTS=100000``).

Life cycle
----------
- The parent (``python tests/reliability/fuzz_fast.py --inputs N``) runs one worker
  process per parser (``--jobs`` at a time) and reads back its counts (one JSON line).
- A worker makes input ``i`` of its parser from ``Random(f"{seed}/{parser}/{i}")``: a
  value of the seed store (a chunk, a shard, a metadata document, the zip archive) hit by
  1-6 mutations (bit flips, random bytes and runs, truncation, insertions, deletions,
  splices from another value, interesting integers -- 0, -1, 2^31-1, 2^63-1, sizes just
  past the buffer -- in 1/2/4/8-byte little-endian fields; metadata also gets JSON-level
  mutations). It reads the store as a user would: whole, part, orthogonal, points, one
  element, the Python codec chain directly, and a share through the native engine's own
  file reads (a LocalStore on a tmpfs directory: the file and in-memory reads of the
  same bytes must agree). Input ``i`` is fully determined by (seed, parser, i): any
  input can be made again. The mutations are in fuzz_mutate.py.
- Checks per input: only zarrhpc error classes escape (else: "foreign", saved); the
  chunks that were not damaged read back right (else: "wrong", saved); every 64 inputs
  the undamaged store reads back right (a decoder left in a bad state by a failure:
  "wrong"); a watchdog thread flags an input running past ``--hang-seconds`` (5 s): it
  is run again when it ends and is a hang if it is slow twice (saved); one stuck 60 s is
  saved and the worker exits.
- Before each input the worker writes its index to a small mapped file; when a worker
  dies (a crash, an ASan/UBSan abort) the parent reads that index, saves the input, counts
  a crash (a sanitizer report when its stderr holds one) and starts a new worker at the
  next index. Sanitizer reports that did not stop the worker are counted from its stderr.
- Saved inputs go to ``--corpus`` (default /tmp/zarrhpc-fuzz-corpus): ``NAME.bin`` (the
  damaged value) and ``NAME.json`` (parser, key, read, seed, index, what happened, the
  replay command ``python tests/reliability/fuzz_fast.py --replay NAME.json``).
- The parent prints a table per parser, writes ``--stats`` (JSON) and exits 1 if any
  input crashed, hanged, raised a foreign exception or read wrong data.
"""

from __future__ import annotations

import argparse
import glob
import json
import mmap
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fuzz_seeds as fs  # noqa: E402
from fuzz_mutate import mutate, mutate_json  # noqa: E402

CHUNK_PARSERS = ["blosc", "blosc-blocks", "zstd", "gzip", "crc32c", "shard-index", "v2-blosc", "v2-zlib",
                 "vlen-v2", "vlen-v3"]
PARSERS = CHUNK_PARSERS + ["metadata", "zip", *fs.DRAFTS]
SEED_OF = {"shard-index": "sharded"}
READS = ["whole"] * 6 + ["part", "oindex", "vindex", "point", "decode", "decode"]
LOCAL_SHARE = 0.1  # chunk inputs read through the engine's own file reads (tmpfs)
CLEAN_EVERY = 64
STUCK_SECONDS = 60.0


# -- targets: one per parser ----------------------------------------------------------

def _chunk_coords(key: str) -> tuple:
    tail = key.split("/", 1)[1]
    if tail.startswith("c/") or tail.startswith("c."):
        tail = tail[2:]
    return tuple(int(x) for x in re.findall(r"\d+", tail))


class ChunkTarget:
    """A chunk parser: array ``a`` opened once on a MemoryStore and on a LocalStore in a
    tmpfs directory; an input replaces one chunk (or shard) value."""

    def __init__(self, name: str, tmp: str):
        import zarrhpc
        from zarrhpc.storage import LocalStore

        self.name = name
        kind = SEED_OF.get(name, name)
        self.docs = fs.seed_store(kind)
        self.want = fs.expected(kind)
        self.keys = sorted(k for k in self.docs if k.startswith("a/") and not fs.is_metadata(k))
        self.mem = fs.memory_store(self.docs)
        self.arr = zarrhpc.open_array(self.mem, path="a", mode="r")
        self.root = os.path.join(tmp, f"store-{name}")
        local = LocalStore(self.root)
        for k, v in self.docs.items():
            local.set(k, v)
        self.larr = zarrhpc.open_array(LocalStore(self.root, read_only=True), path="a",
                                       mode="r")
        self.region = self.arr.shards or self.arr.chunks
        self.tail = 80 if name != "shard-index" else 16 * 4 + 4 + 8

    def make(self, rng: random.Random) -> tuple[str, bytes, str]:
        key = rng.choice(self.keys)
        others = [self.docs[k] for k in self.keys]
        bad = mutate(rng, self.docs[key], others, self.tail)
        if rng.random() < LOCAL_SHARE:
            read = rng.choice(("local", "local-part"))
        else:
            read = rng.choice(READS)
        return key, bad, read

    def run(self, key: str, bad: bytes, read: str) -> str | None:
        """Read with ``key`` damaged; a wrong-data message, else None (errors escape)."""
        if read.startswith("local"):
            return self._run_local(key, bad, read)
        self.mem.set(key, bad)
        try:
            a = self.arr
            if read == "whole":
                return self._check(key, a[...])
            if read == "part":
                np.asarray(a[3:11, 5:20])
            elif read == "oindex":
                np.asarray(a.oindex[[0, 5, 9, 15], [1, 8, 17, 23]])
            elif read == "vindex":
                np.asarray(a.vindex[[0, 15, 7], [23, 0, 9]])
            elif read == "point":
                c = _chunk_coords(key)
                a[tuple(min(x * r + 3, s - 1) for x, r, s in zip(c, self.region, a.shape))]
            else:
                a._prep.pipeline.decode(bad, key)
        finally:
            self.mem.set(key, self.docs[key])
        return None

    def _run_local(self, key: str, bad: bytes, read: str) -> str | None:
        """The same bytes read by the engine from a file (its own reads: pread, and for
        a small part of a blosc chunk only the blocks wanted) and from memory: when both
        give values they are the same. The file read may fail where the in-memory one
        does not (a corrupt block offset table: it reads only the blocks the table
        names, the in-memory read has every byte), never the other way round."""
        if read == "local":
            sel = (Ellipsis,)
        else:  # a few elements inside the damaged chunk
            c = _chunk_coords(key)
            sel = tuple(slice(x * r + 1, x * r + 3) for x, r in zip(c, self.region))
        path = os.path.join(self.root, key)
        with open(path, "wb") as f:
            f.write(bad)
        self.mem.set(key, bad)
        try:
            local, in_memory = _outcome(self.larr, sel), _outcome(self.arr, sel)
        finally:
            with open(path, "wb") as f:
                f.write(self.docs[key])
            self.mem.set(key, self.docs[key])
        if isinstance(local, Exception):
            raise local
        if isinstance(in_memory, Exception):
            return (f"{self.name}: {key!r} damaged: the file read gives "
                    f"{_show(local)}, the in-memory read {_show(in_memory)}")
        if not np.array_equal(local, in_memory):
            return f"{self.name}: {key!r} damaged: file and in-memory reads differ"
        return self._check(key, local) if read == "local" else None

    def _check(self, key: str, got) -> str | None:
        """The chunks (shards) not damaged must read back right."""
        c = _chunk_coords(key)
        mask = np.ones(self.want.shape, bool)
        mask[tuple(slice(x * r, (x + 1) * r) for x, r in zip(c, self.region))] = False
        if not np.array_equal(np.asarray(got)[mask], self.want[mask]):
            return f"{self.name}: undamaged chunks read wrong with {key!r} damaged"
        return None

    def clean(self) -> str | None:
        """The undamaged store reads back right (nothing left broken by a failure)."""
        for a in (self.arr, self.larr):
            if not np.array_equal(a[...], self.want):
                return f"{self.name}: the undamaged store reads wrong after failures"
        return None


def _outcome(a, sel):
    """``a[sel]``, or the zarrhpc error it raised."""
    from zarrhpc.errors import ZarrhpcError

    try:
        return np.asarray(a[sel])
    except ZarrhpcError as exc:
        return exc


def _show(outcome) -> str:
    if isinstance(outcome, Exception):
        return f"{type(outcome).__name__}: {outcome}"[:300]
    return f"data {outcome.ravel()[:6]}"


class StoreTarget:
    """A parser reached by opening a whole store: metadata documents of every seed, or
    any value of a draft store. An input builds a MemoryStore with one value damaged."""

    def __init__(self, name: str, tmp: str):
        self.name = name
        if name == "metadata":
            self.stores = {k: fs.seed_store(k) for k in fs.SEEDS}
            self.keys = [(k, key) for k, docs in self.stores.items()
                         for key in sorted(docs) if fs.is_metadata(key)]
        else:
            self.stores = {name: fs.draft_seed(name)}
            self.keys = [(name, key) for key in sorted(self.stores[name])]
        self.draft_path = fs.DRAFTS[name][1] if name in fs.DRAFTS else None

    def make(self, rng: random.Random) -> tuple[str, bytes, str]:
        kind, key = rng.choice(self.keys)
        value = self.stores[kind][key]
        bad = None
        if fs.is_metadata(key) and rng.random() < 0.5:
            bad = mutate_json(rng, value)
        if bad is None:
            bad = mutate(rng, value, list(self.stores[kind].values()))
        return f"{kind}:{key}", bad, "store"

    def run(self, key: str, bad: bytes, read: str) -> int:
        """The number of zarrhpc errors the reads met."""
        kind, key = key.split(":", 1)
        store = fs.memory_store(self.stores[kind], key, bad)
        if self.draft_path is not None:
            return fs.read_draft(store, self.draft_path)
        return fs.read_all(store)

    def clean(self) -> str | None:
        for kind, docs in self.stores.items():
            store = fs.memory_store(docs)
            n = (fs.read_draft(store, self.draft_path) if self.draft_path is not None
                 else fs.read_all(store))
            if n:
                return f"{self.name}: the undamaged {kind} store fails to read"
        return None


class ZipTarget:
    """The zip parser: the zstd seed as an archive on tmpfs, damaged anywhere (its
    directory and end records, at the tail, more often)."""

    def __init__(self, name: str, tmp: str):
        self.name = name
        self.raw = fs.zip_bytes(fs.seed_store("zstd"), tmp)
        self.path = os.path.join(tmp, "fuzz.zip")

    def make(self, rng: random.Random) -> tuple[str, bytes, str]:
        return "archive", mutate(rng, self.raw, [self.raw], tail=400), "store"

    def run(self, key: str, bad: bytes, read: str) -> int:
        """The number of zarrhpc errors the reads met."""
        from zarrhpc.errors import ZarrhpcError
        from zarrhpc.storage.zip import ZipStore

        with open(self.path, "wb") as f:
            f.write(bad)
        try:
            store = ZipStore(self.path)
        except ZarrhpcError:
            return 1
        try:
            return fs.read_all(store)
        finally:
            store.close()

    def clean(self) -> str | None:
        self.run("archive", self.raw, "store")
        return None


def make_target(name: str, tmp: str):
    if name in CHUNK_PARSERS:
        return ChunkTarget(name, tmp)
    if name == "zip":
        return ZipTarget(name, tmp)
    return StoreTarget(name, tmp)


def rng_for(seed: int, parser: str, index: int) -> random.Random:
    return random.Random(f"{seed}/{parser}/{index}")


# -- the worker -----------------------------------------------------------------------

def save(corpus: str, parser: str, seed: int, index: int, key: str, bad: bytes, read: str,
         what: str, detail: str = "") -> str:
    """Save one input to ``corpus``; the path of its JSON record."""
    os.makedirs(corpus, exist_ok=True)
    name = os.path.join(corpus, f"{parser}-{seed}-{index}-{what}")
    with open(name + ".bin", "wb") as f:
        f.write(bad)
    rec = {"parser": parser, "seed": seed, "index": index, "key": key, "read": read,
           "what": what, "detail": detail[-4000:],
           "replay": f"{sys.executable} {os.path.abspath(__file__)} --replay {name}.json"}
    with open(name + ".json", "w") as f:
        json.dump(rec, f, indent=1)
    return name + ".json"


class Watchdog(threading.Thread):
    """Flags the running input once it passes ``hang`` seconds; saves it and ends the
    process when it passes STUCK_SECONDS (native code that never returns)."""

    def __init__(self, hang: float, on_stuck):
        super().__init__(daemon=True)
        self.hang, self.on_stuck = hang, on_stuck
        self.t0 = None
        self.slow = self.stop = False

    def run(self) -> None:
        while not self.stop:
            time.sleep(min(0.25, self.hang / 4))
            t0 = self.t0
            if t0 is None:
                continue
            dt = time.perf_counter() - t0
            if dt >= self.hang:
                self.slow = True
            if dt >= max(STUCK_SECONDS, 4 * self.hang):
                self.on_stuck()


def _inject(inject: dict, index: int) -> None:
    """Test hooks (``--inject kind:index``): prove the driver sees what it must."""
    what = inject.get(index)
    if what == "crash":
        import ctypes
        ctypes.string_at(0)  # a segfault, as a native bug would give
    elif what == "hang":
        time.sleep(inject["hang_seconds"])
    elif what == "foreign":
        raise ValueError("injected foreign exception")
    elif what == "wrong":
        raise _Wrong("injected wrong data")


class _Wrong(Exception):
    pass


def run_worker(parser: str, seed: int, start: int, count: int, corpus: str, tmp: str,
               hang: float = 5.0, current: str | None = None, inject=None) -> dict:
    """Fuzz inputs ``start .. start+count-1`` of ``parser`` in this process; the counts."""
    from zarrhpc.errors import ZarrhpcError

    zarr_warnings = _zarrhpc_warning_classes()
    inject = inject or {}
    target = make_target(parser, tmp)
    cur = None
    if current:
        with open(current, "r+b") as f:
            cur = mmap.mmap(f.fileno(), 16)
    counts = {"parser": parser, "start": start, "inputs": 0, "zarrhpc_errors": 0,
              "foreign": 0, "wrong": 0, "hangs": 0, "slow_once": 0, "max_seconds": 0.0,
              "clean_checks": 0, "saved": []}
    state: dict = {}

    def stuck() -> None:
        counts["hangs"] += 1
        path = save(corpus, parser, seed, state["index"], *state["input"], "hang",
                    f"still running after {STUCK_SECONDS} s")
        sys.stderr.write(f"fuzz_fast: input stuck, saved {path}\n")
        import faulthandler
        faulthandler.dump_traceback(all_threads=True)
        os._exit(4)

    dog = Watchdog(hang, stuck)
    dog.start()

    def one(index: int, key, bad, read) -> float:
        t0 = time.perf_counter()
        dog.slow, dog.t0 = False, t0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                _inject(inject, index)
                result = target.run(key, bad, read)
            if isinstance(result, str):  # chunk targets: what read wrong
                raise _Wrong(result)
            counts["zarrhpc_errors"] += bool(result)
        except (ZarrhpcError, *zarr_warnings):
            counts["zarrhpc_errors"] += 1
        finally:
            dog.t0 = None
        return time.perf_counter() - t0

    t_start = time.perf_counter()
    for index in range(start, start + count):
        if cur is not None:
            struct.pack_into("<qd", cur, 0, index, time.time())
        key, bad, read = target.make(rng_for(seed, parser, index))
        state.update(index=index, input=(key, bad, read))
        counts["inputs"] += 1
        try:
            dt = one(index, key, bad, read)
            if dog.slow or dt >= hang:
                # a loaded machine (or ASan) can stall one input; a hang stays slow
                counts["slow_once"] += 1
                if one(index, key, bad, read) >= hang:
                    counts["hangs"] += 1
                    counts["saved"].append(save(corpus, parser, seed, index, key, bad, read,
                                                "hang", f"slow twice (> {hang} s)"))
            counts["max_seconds"] = max(counts["max_seconds"], round(dt, 3))
            if (index + 1) % CLEAN_EVERY == 0 or index == start + count - 1:
                counts["clean_checks"] += 1
                problem = target.clean()
                if problem:
                    raise _Wrong(problem)
        except _Wrong as exc:
            counts["wrong"] += 1
            counts["saved"].append(save(corpus, parser, seed, index, key, bad, read,
                                        "wrong", str(exc)))
        except Exception as exc:  # a foreign exception: anything not zarrhpc's
            counts["foreign"] += 1
            detail = "".join(traceback.format_exception(exc))
            counts["saved"].append(save(corpus, parser, seed, index, key, bad, read,
                                        "foreign", detail))
    counts["seconds"] = round(time.perf_counter() - t_start, 2)
    dog.stop = True
    return counts


def _zarrhpc_warning_classes() -> tuple:
    from zarrhpc import errors

    return tuple(v for v in vars(errors).values()
                 if isinstance(v, type) and issubclass(v, Warning))


# -- the parent -----------------------------------------------------------------------

REPORT = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|"
                    r"UndefinedBehaviorSanitizer")


def _spawn(args, parser: str, start: int, count: int, current: str, log) -> subprocess.Popen:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", parser,
           "--seed", str(args.seed), "--start", str(start), "--inputs", str(count),
           "--corpus", args.corpus, "--tmp", args.tmp, "--hang-seconds", str(args.hang_seconds),
           "--current", current]
    for spec in args.inject or ():
        cmd += ["--inject", spec]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)


class Job:
    """One parser's inputs, run by as many workers as crashes require."""

    def __init__(self, args, parser: str):
        self.args, self.parser = args, parser
        self.next = 0
        self.total = {"parser": parser, "inputs": 0, "zarrhpc_errors": 0, "foreign": 0,
                      "wrong": 0, "hangs": 0, "slow_once": 0, "max_seconds": 0.0,
                      "clean_checks": 0, "crashes": 0, "sanitizer_reports": 0, "saved": [],
                      "seconds": 0.0}
        fd, self.current = tempfile.mkstemp(prefix=f"cur-{parser}-", dir=args.tmp)
        os.write(fd, b"\0" * 16)
        os.close(fd)
        self.log_path = os.path.join(args.tmp, f"worker-{parser}.log")
        self.log = open(self.log_path, "w+")
        self.proc = None
        self.t0 = None

    def start(self) -> None:
        if self.t0 is None:
            self.t0 = time.perf_counter()
        self.log.seek(0)
        self.log.truncate()
        self.proc = _spawn(self.args, self.parser, self.next, self.args.inputs - self.next,
                           self.current, self.log)

    def poll(self) -> bool:
        """True when every input of this parser has run."""
        killed = False
        if self.proc.poll() is None:
            idx, t = self._current()
            if not (t and time.time() - t > STUCK_SECONDS + 30):
                return False
            self.proc.kill()  # stuck in native code that holds the GIL
            self.proc.wait()
            killed = True
        out = self.proc.stdout.read()
        self.proc.stdout.close()
        self.log.flush()
        self.log.seek(0)
        err = self.log.read()
        reports = len(REPORT.findall(err))
        self.total["sanitizer_reports"] += reports
        if self.proc.returncode == 0 and out.strip():
            counts = json.loads(out.strip().splitlines()[-1])
            self._add(counts)
            return True
        # the worker died: the input it was on is a crash or a hang (saved), go on after
        # it; of its counts only what it saved to the corpus survives (zarrhpc errors,
        # slow inputs and timings are lost)
        idx, _ = self._current()
        self.total["inputs"] += idx + 1 - self.next
        for what in ("foreign", "wrong", "hang"):
            for rec in glob.glob(os.path.join(self.args.corpus,
                                              f"{self.parser}-{self.args.seed}-*-{what}.json")):
                if self.next <= int(rec.rsplit("-", 2)[-2]) < idx:
                    self.total["hangs" if what == "hang" else what] += 1
                    self.total["saved"].append(rec)
        if killed or self.proc.returncode == 4:  # 4: its watchdog saw the input stuck
            self.total["hangs"] += 1
            what = "hang"
        else:
            self.total["crashes"] += 1
            what = "sanitizer" if reports else "crash"
        if what != "hang" or killed:
            key, bad, read = make_target(self.parser, self.args.tmp).make(
                rng_for(self.args.seed, self.parser, idx))
            self.total["saved"].append(save(
                self.args.corpus, self.parser, self.args.seed, idx, key, bad, read, what,
                f"worker exit {self.proc.returncode}\n{err[-3500:]}"))
        self.next = idx + 1
        if (self.next >= self.args.inputs
                or self.total["crashes"] + self.total["hangs"] >= self.args.max_crashes):
            return True
        self.start()
        return False

    def _current(self) -> tuple[int, float]:
        with open(self.current, "rb") as f:
            return struct.unpack("<qd", f.read(16))

    def _add(self, counts: dict) -> None:
        for k in ("inputs", "zarrhpc_errors", "foreign", "wrong", "hangs", "slow_once",
                  "clean_checks"):
            self.total[k] += counts[k]
        self.total["max_seconds"] = max(self.total["max_seconds"], counts["max_seconds"])
        self.total["saved"] += counts["saved"]

    def finish(self) -> dict:
        self.total["seconds"] = round(time.perf_counter() - self.t0, 1)
        self.log.close()
        os.unlink(self.current)
        return self.total


def run(args) -> list[dict]:
    """Every parser's inputs, ``args.jobs`` workers at a time; the totals per parser."""
    pending = [Job(args, p) for p in args.parsers]
    running: list = []
    done: list = []
    while pending or running:
        while pending and len(running) < args.jobs:
            job = pending.pop(0)
            job.start()
            running.append(job)
        time.sleep(0.05)
        for job in list(running):
            if job.poll():
                running.remove(job)
                done.append(job.finish())
                if not args.quiet:
                    print(_row(done[-1]), flush=True)
    return sorted(done, key=lambda t: args.parsers.index(t["parser"]))


COLUMNS = ["inputs", "zarrhpc_errors", "crashes", "sanitizer_reports", "hangs", "foreign",
           "wrong", "slow_once", "max_seconds", "seconds"]


def _row(t: dict) -> str:
    return f"{t['parser']:<12}" + "".join(f"{t[c]:>11}" for c in COLUMNS)


def failed(totals: list[dict]) -> bool:
    return any(t[k] for t in totals
               for k in ("crashes", "sanitizer_reports", "hangs", "foreign", "wrong"))


def replay(path: str, tmp: str) -> int:
    """Run one saved input again in this process, with the exception shown."""
    with open(path) as f:
        rec = json.load(f)
    with open(path[:-5] + ".bin", "rb") as f:
        bad = f.read()
    target = make_target(rec["parser"], tmp)
    print(f"replaying {rec['parser']} input {rec['index']} ({rec['what']}): "
          f"key {rec['key']!r}, read {rec['read']!r}, {len(bad)} bytes", flush=True)
    t0 = time.perf_counter()
    try:
        problem = target.run(rec["key"], bad, rec["read"])
        if isinstance(problem, str):  # chunk targets name what read wrong
            print("wrong data:", problem)
        else:  # store targets count the reads that raised a zarrhpc error
            print(f"no wrong data ({problem or 0} reads raised a zarrhpc error)")
    except Exception:
        traceback.print_exc()
    print(f"{time.perf_counter() - t0:.3f} s")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1000, help="inputs per parser")
    ap.add_argument("--parsers", default=",".join(PARSERS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--corpus", default="/tmp/zarrhpc-fuzz-corpus")
    ap.add_argument("--tmp", default=None, help="scratch dir (default: /dev/shm)")
    ap.add_argument("--stats", default=None, help="write the totals here (JSON)")
    ap.add_argument("--hang-seconds", type=float, default=5.0)
    ap.add_argument("--max-crashes", type=int, default=20, help="per parser")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--replay", default=None, help="a saved input's .json")
    ap.add_argument("--inject", action="append", help=argparse.SUPPRESS)
    # worker mode (run by the parent)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--current", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.corpus = os.path.abspath(args.corpus)
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    if args.worker:
        inject = {}
        for spec in args.inject or ():
            what, idx = spec.split(":")
            inject[int(idx)] = what
        inject["hang_seconds"] = 2.5 * args.hang_seconds
        counts = run_worker(args.worker, args.seed, args.start, args.inputs, args.corpus,
                            args.tmp, args.hang_seconds, args.current, inject)
        print(json.dumps(counts), flush=True)
        return 0
    with tempfile.TemporaryDirectory(prefix="zarrhpc-fuzz-", dir=args.tmp or shm) as tmp:
        if args.replay:
            return replay(args.replay, tmp)
        args.tmp = tmp
        args.parsers = [p for p in args.parsers.split(",") if p]
        unknown = set(args.parsers) - set(PARSERS)
        if unknown:
            ap.error(f"unknown parsers {sorted(unknown)}; known: {PARSERS}")
        if not args.quiet:
            print(f"{'parser':<12}" + "".join(f"{c[:10]:>11}" for c in COLUMNS), flush=True)
        t0 = time.perf_counter()
        totals = run(args)
    if not args.quiet:
        n = sum(t["inputs"] for t in totals)
        print(f"{n} inputs in {time.perf_counter() - t0:.0f} s; saved inputs: "
              f"{sum(len(t['saved']) for t in totals)} (in {args.corpus})")
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump({"seed": args.seed, "inputs_per_parser": args.inputs,
                       "totals": totals}, f, indent=1)
    return 1 if failed(totals) else 0


if __name__ == "__main__":
    sys.exit(main())
