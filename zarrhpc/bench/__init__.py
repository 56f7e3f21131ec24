"""``zarrhpc bench``: the standard workloads, zarrhpc and its peers side by side.

Every installed peer (zarr-python, zarr-python with the zarrs pipeline, tensorstore,
h5py, raw numpy file I/O, and zarrhpc itself writing Zarr v2) writes the same data with the same chunks and codec into its
own directory under ``--dir``; every read is checked against the written data once, then
timed. Reported: the median of ``--repeat`` runs, in GB/s (bytes of the array or
selection per second) or in microseconds per operation, and zarrhpc's ratio to the
fastest peer (raw file I/O is a reference, not a peer).

Workloads (full size; ``--quick`` scales them down):
- W1/W2: write/read float32 (512, 512, 512), chunks (64, 64, 64), each codec
- W3: read [100:400, 37:300, 5:500] of the W1 array
- W4: 2000 random single-element reads and 2000 random (8, 8, 8) block reads
- W5: sharded float32 (512, 512, 512), shards (256, 256, 256), inner chunks (32, 32, 32),
  blosc lz4: write (the peers in rounds, one write each per round), read, the W3
  sub-volume, 2000 random single elements
- W6: open the W1 array 1000 times
- W7: float64 (4096, 4096), chunks (64, 64), uncompressed: write and read
- W8-W11: vindex, oindex, mask and sharded vindex (zarrhpc.bench.selections)
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from zarrhpc.bench.peers import CODECS, PEERS, Unavailable
from zarrhpc.bench.selections import SELECTION_WORKLOADS, run_selections

__all__ = ["Result", "Sizes", "default_dir", "format_table", "run"]


@dataclass
class Sizes:
    shape: tuple = (512, 512, 512)
    chunks: tuple = (64, 64, 64)
    region: tuple = (slice(100, 400), slice(37, 300), slice(5, 500))
    points: int = 2000
    block: tuple = (8, 8, 8)
    opens: int = 1000
    w7_shape: tuple = (4096, 4096)
    w7_chunks: tuple = (64, 64)
    w5_shards: tuple = (256, 256, 256)
    w5_chunks: tuple = (32, 32, 32)
    vpoints: int = 100_000
    oindex_n: int = 64
    mask_frac: float = 0.01

    @classmethod
    def quick(cls) -> Sizes:
        return cls((128, 128, 128), (32, 32, 32), (slice(25, 100), slice(9, 75), slice(1, 125)),
                   200, (8, 8, 8), 100, (1024, 1024), (32, 32), (64, 64, 64), (16, 16, 16),
                   vpoints=10_000, oindex_n=16)


@dataclass
class Result:
    workload: str
    codec: str
    op: str
    peer: str
    unit: str  # "GB/s" or "us"
    median: float | None
    samples: list = field(default_factory=list)
    note: str = ""


def default_dir() -> str:
    """/dev/shm when it exists (page cache only), else the system's temporary directory."""
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def _field(shape, dtype, seed=0) -> np.ndarray:
    """A smooth field with a little noise: compressible like simulation output."""
    rng = np.random.default_rng(seed)
    axes = [np.sin(np.arange(n) / (13.0 + 4 * i)) for i, n in enumerate(shape)]
    out = np.zeros(shape, dtype=dtype)
    for i, ax in enumerate(axes):
        out += ax.reshape([-1 if j == i else 1 for j in range(len(shape))]).astype(dtype)
    out += (rng.standard_normal(shape[-1]) * 1e-3).astype(dtype)
    return out


def _time(fn, repeat: int, setup=None) -> tuple[list[float], object]:
    times, value = [], None
    for _ in range(repeat):
        if setup is not None:
            setup()
        value = None  # release the previous result first, as a loop of reads would
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return times, value


class _Runner:
    def __init__(self, root, peers, repeat, log):
        self.root, self.peers, self.repeat, self.log = root, peers, repeat, log
        self.results: list[Result] = []

    def add(self, workload, codec, op, peer, unit, samples, note=""):
        med = statistics.median(samples) if samples else None
        r = Result(workload, codec, op, peer.name if hasattr(peer, "name") else peer, unit,
                   med, list(samples), note)
        self.results.append(r)
        if med is not None:
            self.log(f"  {r.workload:3} {r.codec:9} {r.op:12} {r.peer:18} {med:10.2f} {unit}")
        else:
            self.log(f"  {r.workload:3} {r.codec:9} {r.op:12} {r.peer:18}  skipped: {note}")
        return r

    def throughput(self, workload, codec, op, peer, nbytes, fn, check=None, setup=None):
        try:
            if check is not None:
                got = fn()
                if not np.array_equal(np.asarray(got), check):
                    raise AssertionError(f"{peer.name} {workload} {codec} {op}: wrong data read")
                del got  # a loop of reads holds one result at a time, not two
            times, _ = _time(fn, self.repeat, setup)
        except Unavailable as exc:
            return self.add(workload, codec, op, peer, "GB/s", [], str(exc))
        return self.add(workload, codec, op, peer, "GB/s", [nbytes / t / 1e9 for t in times])

    def throughput_rounds(self, workload, codec, op, peers, nbytes, fn, setup) -> dict:
        """Like :meth:`throughput` for several peers at once, in rounds: every peer runs
        once per round, so that all see the same machine (a shared machine's load drifts
        over a minute; peer after peer, the ratio would drift with it), and the order
        turns from round to round.

        ``fn(peer)`` and ``setup(peer)`` give each peer's callables. Returns peer name ->
        Result; a peer that raises Unavailable is skipped with its reason.
        """
        calls, samples, notes = {}, {p.name: [] for p in peers}, {}
        for peer in peers:
            try:
                calls[peer.name] = (fn(peer), setup(peer))
            except Unavailable as exc:
                notes[peer.name] = str(exc)
        for i in range(self.repeat):
            names = list(calls)  # each round starts with the next peer: none always goes first
            for name in names[i % len(names):] + names[:i % len(names)]:
                call, prepare = calls[name]
                try:
                    (t,), _ = _time(call, 1, prepare)
                except Unavailable as exc:
                    del calls[name]
                    notes[name] = str(exc)
                    continue
                samples[name].append(nbytes / t / 1e9)
        return {peer.name: self.add(workload, codec, op, peer, "GB/s",
                                    [] if peer.name in notes else samples[peer.name],
                                    notes.get(peer.name, ""))
                for peer in peers}

    def per_op(self, workload, codec, op, peer, items, fn, check):
        """Median over repeats of the mean microseconds per item; checked once."""
        for item, want in zip(items, check):
            if not np.array_equal(np.asarray(fn(item)), want):
                raise AssertionError(f"{peer.name} {workload} {codec} {op}: wrong data at {item}")
        samples = []
        for _ in range(self.repeat):
            t0 = time.perf_counter()
            for item in items:
                fn(item)
            samples.append((time.perf_counter() - t0) / len(items) * 1e6)
        return self.add(workload, codec, op, peer, "us", samples)


def _points(sizes: Sizes, shape, rng):
    pts = [tuple(int(rng.integers(0, n)) for n in shape) for _ in range(sizes.points)]
    blocks = []
    for _ in range(sizes.points):
        lo = [int(rng.integers(0, n - b + 1)) for n, b in zip(shape, sizes.block)]
        blocks.append(tuple(slice(a, a + b) for a, b in zip(lo, sizes.block)))
    return pts, blocks


def run(*, quick=False, peers=None, codecs=None, workloads=None, repeat=3, directory=None,
        durable=False, log=print, sizes: Sizes | None = None) -> list[Result]:
    """Run the workloads; return one Result per (workload, codec, op, peer).

    ``peers`` are names from PEERS or Peer objects; ``sizes`` overrides the standard ones.
    """
    sizes = sizes or (Sizes.quick() if quick else Sizes())
    names = peers or list(PEERS)
    codecs = codecs or list(CODECS)
    workloads = set(workloads or ["W1", "W2", "W3", "W4", "W5", "W6", "W7", *SELECTION_WORKLOADS])
    instances = []
    for name in names:
        peer = PEERS[name]() if isinstance(name, str) else name
        try:
            peer.available()
        except Unavailable as exc:
            log(f"peer {name}: skipped ({exc})")
            continue
        instances.append(peer)
    if durable and "zarrhpc" in names:
        instances.insert(1, PEERS["zarrhpc"](durable=True))
    root = tempfile.mkdtemp(prefix="zarrhpc-bench-", dir=directory or default_dir())
    r = _Runner(root, instances, repeat, log)
    try:
        _run_3d(r, sizes, codecs, workloads)
        if "W5" in workloads:
            _run_w5(r, sizes)
        if "W7" in workloads:
            _run_w7(r, sizes)
        run_selections(r, sizes, codecs, workloads)
        _memcpy(r, sizes)
    finally:
        for p in instances:
            p.clear(root)
    return r.results


def _run_3d(r: _Runner, sizes: Sizes, codecs, workloads) -> None:
    if not workloads & {"W1", "W2", "W3", "W4", "W6"}:
        return
    data = _field(sizes.shape, np.float32)
    nbytes = data.nbytes
    region_want = data[sizes.region]
    rng = np.random.default_rng(42)
    pts, blocks = _points(sizes, sizes.shape, rng)
    pt_want = [data[p] for p in pts]
    blk_want = [data[b] for b in blocks]
    for codec in codecs:
        for peer in r.peers:
            path = os.path.join(r.root, f"{peer.name}-{codec}")
            try:
                if "durable" in peer.name and codec != "none":
                    continue
                res = r.throughput("W1", codec, "write", peer, nbytes,
                                   lambda: peer.write(path, data, sizes.chunks, codec),
                                   setup=lambda: peer.clear(path))
                if res.median is None or "durable" in peer.name:
                    continue
                h = peer.open(path)
                if "W2" in workloads:
                    if peer.name == "raw":
                        r.throughput("W2", codec, "read", peer, nbytes,
                                     lambda: peer.read_full(path, data.shape, data.dtype), data)
                    else:
                        r.throughput("W2", codec, "read", peer, nbytes,
                                     lambda: peer.read(h, Ellipsis), data)
                    if peer.name == "zarrhpc":
                        out = np.empty_like(data)
                        r.throughput("W2", codec, "read(out=)", peer, nbytes,
                                     lambda: h.read(Ellipsis, out=out), data)
                if "W3" in workloads:
                    r.throughput("W3", codec, "subvolume", peer, region_want.nbytes,
                                 lambda: peer.read(h, sizes.region), region_want)
                if "W4" in workloads:
                    r.per_op("W4", codec, "element", peer, pts, lambda p: peer.read(h, p), pt_want)
                    r.per_op("W4", codec, "block8", peer, blocks, lambda b: peer.read(h, b),
                             blk_want)
                if "W6" in workloads and codec == codecs[0] and peer.name != "raw":
                    r.per_op("W6", codec, "open", peer, [path] * sizes.opens, peer.open,
                             [None] * 0)
            finally:
                peer.clear(path)


def _run_w5(r: _Runner, sizes: Sizes) -> None:
    """Sharded blosc lz4: write, read, sub-volume and single elements."""
    data = _field(sizes.shape, np.float32, seed=5)
    region_want = data[sizes.region]
    pts, _ = _points(sizes, sizes.shape, np.random.default_rng(55))
    pt_want = [data[p] for p in pts]
    codec = "blosc-lz4"
    peers = [peer for peer in r.peers if "durable" not in peer.name]
    paths = {peer.name: os.path.join(r.root, f"{peer.name}-w5") for peer in peers}

    def writer(peer):
        path = paths[peer.name]
        return lambda: peer.write(path, data, sizes.w5_chunks, codec, shards=sizes.w5_shards)

    # the writes in rounds (the target is a ratio of write speeds); then each peer's reads
    writes = r.throughput_rounds("W5", codec, "write", peers, data.nbytes, writer,
                                 lambda peer: lambda: peer.clear(paths[peer.name]))
    for peer in peers:
        path = paths[peer.name]
        try:
            if writes[peer.name].median is None:
                continue
            h = peer.open(path)  # what the last round wrote
            r.throughput("W5", codec, "read", peer, data.nbytes,
                         lambda: peer.read(h, Ellipsis), data)
            r.throughput("W5", codec, "subvolume", peer, region_want.nbytes,
                         lambda: peer.read(h, sizes.region), region_want)
            r.per_op("W5", codec, "element", peer, pts, lambda p: peer.read(h, p), pt_want)
        finally:
            peer.clear(path)


def _run_w7(r: _Runner, sizes: Sizes) -> None:
    data = _field(sizes.w7_shape, np.float64, seed=7)
    for peer in r.peers:
        path = os.path.join(r.root, f"{peer.name}-w7")
        try:
            res = r.throughput("W7", "none", "write", peer, data.nbytes,
                               lambda: peer.write(path, data, sizes.w7_chunks, "none"),
                               setup=lambda: peer.clear(path))
            if res.median is None or "durable" in peer.name:
                continue
            h = peer.open(path)
            if peer.name == "raw":
                r.throughput("W7", "none", "read", peer, data.nbytes,
                             lambda: peer.read_full(path, data.shape, data.dtype), data)
            else:
                r.throughput("W7", "none", "read", peer, data.nbytes,
                             lambda: peer.read(h, Ellipsis), data)
        finally:
            peer.clear(path)


def _memcpy(r: _Runner, sizes: Sizes) -> None:
    data = _field(sizes.shape, np.float32)
    warm = np.empty_like(data)
    np.copyto(warm, data)
    r.throughput("mem", "none", "copyto-fresh", "numpy", data.nbytes,
                 lambda: np.copyto(np.empty_like(data), data))
    r.throughput("mem", "none", "copyto-warm", "numpy", data.nbytes,
                 lambda: np.copyto(warm, data))


#: the peers zarrhpc's ratio is taken against (raw file I/O is the reference)
PEER_NAMES = ("zarr-python", "zarr-python+zarrs", "tensorstore", "h5py")


def format_table(results: list[Result]) -> str:
    """One row per (workload, codec, op): every peer's median and zarrhpc's ratios.

    Ratios are speedups (above 1: zarrhpc is faster): throughput over throughput, or
    time per operation of the other over zarrhpc's.
    """
    peers = []
    for res in results:
        if res.peer not in peers:
            peers.append(res.peer)
    rows: dict[tuple, dict] = {}
    units = {}
    for res in results:
        key = (res.workload, res.codec, res.op)
        rows.setdefault(key, {})[res.peer] = res.median
        units[key] = res.unit
    with_v2 = "zarrhpc-v2" in peers
    head = ["workload", "codec", "op", "unit", *peers, "vs best peer", "vs raw"]
    if with_v2:
        head.append("v2 vs v3")
    lines = [head]
    for key, vals in rows.items():
        unit = units[key]
        cells = [*key, unit]
        for p in peers:
            v = vals.get(p)
            cells.append("-" if v is None else (f"{v:.2f}" if unit == "GB/s" else f"{v:.1f}"))
        ours = vals.get("zarrhpc")
        others = [v for p, v in vals.items() if v is not None and p in PEER_NAMES]
        for ref in (others, [vals["raw"]] if vals.get("raw") else []):
            if ours and ref:
                best = max(ref) if unit == "GB/s" else min(ref)
                ratio = ours / best if unit == "GB/s" else best / ours
                cells.append(f"{ratio:.2f}x")
            else:
                cells.append("")
        if with_v2:
            v2 = vals.get("zarrhpc-v2")
            if ours and v2:
                cells.append(f"{(v2 / ours if unit == 'GB/s' else ours / v2):.2f}x")
            else:
                cells.append("")
        lines.append(cells)
    widths = [max(len(str(row[i])) for row in lines) for i in range(len(head))]
    out = []
    for j, row in enumerate(lines):
        out.append("  ".join(str(c).rjust(w) if j and i >= 4 else str(c).ljust(w)
                             for i, (c, w) in enumerate(zip(row, widths))))
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def results_json(results: list[Result]) -> list[dict]:
    return [asdict(r) for r in results]
