"""Differential programs on blosc chunk frames written by other encoders.

Why: zarrhpc decodes blosc chunks on four paths -- c-blosc2 on the whole chunk, c-blosc2's
item ranges, the engine's own reader of one-stream-a-block lz4 frames
(``csrc/zh_blosc1.c zh_blosc1_decode_range``) and the lean ``a[int]`` / ``a[slices]``
engine calls (``Engine.read_element`` / ``read_box``) -- and the last two choose by
fields of the frame's header.  The frames zarrhpc writes itself are tested elsewhere;
these programs put frames of every other writer into the chunk files: c-blosc1 through
numcodecs (every cname, shuffle, typesize, block size, memcpyed frames) and c-blosc2
through python-blosc2 (split modes, filters, block sizes), then read every chunk through
every path and compare with what the reference decoder makes of the same bytes.

Life cycle of one program (``run_program(seed, root)``):

- Draw a layout: v2 (C or F order, either byte order) or v3 (unsharded), a dtype (numeric,
  complex, fixed bytes, structured), 1-3 dimensions with edge chunks, and a blosc writer
  with its settings.  zarrhpc creates the array and writes random values; each chunk file
  is then replaced by the chosen writer's frame of the same decoded bytes.
- With probability ``damage`` one chunk's header, block offset table or a block's size
  field is made to lie (interesting integers, or the field of another frame).
- Read back from the LocalStore (the engine's file reads, partial block reads) and from a
  MemoryStore of the same bytes: ``a[...]``, single elements, random boxes, an orthogonal
  selection.  For undamaged frames also zarr-python where its decoder (c-blosc1) reads
  the frame.
- Oracle (in a child process): c-blosc1's (numcodecs) decode of a c-blosc1 frame, else
  python-blosc2's ``decompress`` (c-blosc2; it reads partial bit-shuffle groups of
  c-blosc1 frames otherwise than c-blosc1 does, and zarrhpc follows c-blosc1 there).  A read of a chunk the oracle decodes must give those values or raise a
  zarrhpc error; a whole-chunk read of a chunk it refuses must raise; a partial read of a
  refused chunk must raise or give the values written (the lie did not reach the
  elements read).  Anything else is "wrong"; an exception outside zarrhpc's classes is
  "foreign".

The tests are tests/reliability/test_blosc_frames_differential.py (a short run in
``make test``; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import glob
import os
import struct
from dataclasses import dataclass, field

import numpy as np

import zarrhpc
from zarrhpc.errors import ZarrhpcError
from zarrhpc.storage import MemoryStore

__all__ = ["Outcome", "run_program"]

DTYPES = ["u1", "<i2", ">i2", "<u4", ">i4", "<f4", ">f8", "<i8", "<c8", ">c16", "|S3",
          "|S5", [("a", "<i2"), ("b", ">f4")], [("x", "u1"), ("y", "<f8"), ("z", "|S3")]]
CNAMES = ["lz4", "lz4hc", "zstd", "blosclz", "zlib"]
INTERESTING = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 255, 256, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0xFFFFFFF0]


@dataclass
class Outcome:
    """What one program saw: counts and the first problems (with what to replay)."""

    reads: int = 0
    raised: int = 0
    damaged: int = 0
    peer_reads: int = 0
    damage_log: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _layout(rng: np.random.Generator) -> dict:
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 40 if ndim == 1 else 14)) for _ in range(ndim))
    chunks = tuple(int(rng.integers(1, s + 1)) for s in shape)
    if rng.random() < 0.5:  # bigger chunks: several blosc blocks per chunk
        chunks = tuple(min(s, c * int(rng.integers(2, 6))) for s, c in zip(shape, chunks))
    if ndim == 1 and rng.random() < 0.5:
        shape = (int(rng.integers(200, 3000)),)
        chunks = (int(rng.integers(100, shape[0] + 1)),)
    dt = DTYPES[int(rng.integers(len(DTYPES)))]
    fmt = 2 if (isinstance(dt, list) or rng.random() < 0.6) else 3
    if fmt == 3 and isinstance(dt, str) and dt[0] == ">":
        dt = "<" + dt[1:]
    return dict(shape=shape, chunks=chunks, dtype=np.dtype(dt), fmt=fmt,
                order="F" if fmt == 2 and rng.random() < 0.4 else "C")


def _values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    n = int(np.prod(shape)) * dtype.itemsize
    raw = rng.integers(0, 256, n, dtype=np.uint8)
    if rng.random() < 0.6:  # compressible: runs and small values
        raw[rng.random(n) < 0.7] = 0
    out = raw.view(dtype).reshape(shape).copy()
    if dtype.kind in "fc":  # no NaN payloads: equality below compares bytes anyway
        out = np.where(np.isfinite(out), out, 0).astype(dtype)
    return out


def _writer(rng: np.random.Generator, itemsize: int):
    """A function bytes -> blosc frame, and its description."""
    kind = rng.choice(["numcodecs", "numcodecs", "blosc2", "zarrhpc"])
    cname = str(rng.choice(CNAMES))
    clevel = int(rng.integers(0, 10))
    shuffle = int(rng.integers(0, 3))
    blocksize = int(rng.choice([0, 0, 16, 64, 100, 128, 256, 1000, 1024, 4096, 65536]))
    # the frame's typesize: usually the item size, sometimes another one (a v3 codec's
    # configured typesize, or a writer that compressed a byte view)
    ts = itemsize if rng.random() < 0.7 else int(rng.choice([1, 2, 3, 4, 8, 16]))
    if kind == "zarrhpc":  # the frames zarrhpc writes itself (lz4, one stream a block)
        return None, f"zarrhpc {'lz4hc' if clevel > 6 else 'lz4'} shuffle={shuffle} " \
                     f"bs={blocksize or 64}"
    if kind == "numcodecs":
        from numcodecs.blosc import compress

        def enc(raw: bytes) -> bytes:
            arr = np.frombuffer(raw, dtype=f"V{ts}") if len(raw) % ts == 0 and ts <= 255 \
                else np.frombuffer(raw, "u1")
            return bytes(compress(arr, cname.encode(), clevel, shuffle, blocksize))
        return enc, f"numcodecs {cname} clevel={clevel} shuffle={shuffle} ts={ts} bs={blocksize}"
    import blosc2

    split = [blosc2.SplitMode.ALWAYS_SPLIT, blosc2.SplitMode.NEVER_SPLIT,
             blosc2.SplitMode.AUTO_SPLIT, blosc2.SplitMode.FORWARD_COMPAT_SPLIT][
        int(rng.integers(4))]
    filt = [blosc2.Filter.NOFILTER, blosc2.Filter.SHUFFLE, blosc2.Filter.BITSHUFFLE][shuffle]
    codec = {"lz4": blosc2.Codec.LZ4, "lz4hc": blosc2.Codec.LZ4HC, "zstd": blosc2.Codec.ZSTD,
             "blosclz": blosc2.Codec.BLOSCLZ, "zlib": blosc2.Codec.ZLIB}[cname]
    ts2 = min(ts, 255)

    def enc2(raw: bytes) -> bytes:
        return bytes(blosc2.compress2(raw, typesize=ts2, clevel=clevel, filters=[filt],
                                      codec=codec, blocksize=blocksize, splitmode=split))
    return enc2, f"blosc2 {cname} clevel={clevel} filter={shuffle} ts={ts2} bs={blocksize} " \
                 f"split={split.name}"


def _damage(rng: np.random.Generator, frame: bytes) -> tuple[bytes, str]:
    """The frame with one header field, block offset or block size made to lie."""
    b = bytearray(frame)
    n = len(b)
    what = int(rng.integers(6))
    if what == 0 or n < 20:  # typesize or flags
        pos = int(rng.choice([2, 3]))
        b[pos] = int(rng.integers(256)) if rng.random() < 0.5 else b[pos] ^ (1 << int(
            rng.integers(8)))
        return bytes(b), f"byte {pos} -> {b[pos]}"
    if what in (1, 2, 3):  # nbytes, blocksize, cbytes
        pos = 4 * what
        old = struct.unpack_from("<I", b, pos)[0]
        new = int(rng.choice(INTERESTING + [old + 1, max(old - 1, 0), old * 2, old // 2,
                                            old + 8, n, n - 1]))
        struct.pack_into("<I", b, pos, new & 0xFFFFFFFF)
        return bytes(b), f"field at {pos}: {old} -> {new & 0xFFFFFFFF}"
    # an entry of the block offset table (after the 16-byte header; blosc2's extended
    # header is 32 bytes), or the size field a block starts with
    hdr = 32 if (b[2] & 0x05) == 0x05 else 16
    nbytes, bs = struct.unpack_from("<ii", b, 4)
    nblocks = max(1, (nbytes + bs - 1) // bs) if bs > 0 else 1
    k = int(rng.integers(nblocks))
    pos = hdr + 4 * k
    if pos + 4 > n:
        return bytes(b), "none (short frame)"
    if what == 5:
        start = struct.unpack_from("<I", b, pos)[0]
        if start + 4 <= n:
            pos = start
    old = struct.unpack_from("<I", b, pos)[0]
    new = int(rng.choice(INTERESTING + [old + 1, max(old - 1, 0), old + 4, max(old - 4, 0),
                                        n - 4, n]))
    struct.pack_into("<I", b, pos, new & 0xFFFFFFFF)
    return bytes(b), f"word at {pos}: {old} -> {new & 0xFFFFFFFF}"


_ORACLE_LOOP = r"""
import os, struct, sys
import blosc2
import numcodecs.blosc
numcodecs.blosc.use_threads = False  # a fresh c-blosc1 context per call
# answers on a private copy of stdout: the C library may print on file descriptor 1
inp, outp = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
while True:
    head = inp.read(4)
    if len(head) < 4:
        break
    frame = inp.read(struct.unpack("<I", head)[0])
    res = None
    if len(frame) >= 16 and frame[2] & 0x05 != 0x05:
        try:  # a c-blosc1 frame: c-blosc1's reading (c-blosc2 differs on a few)
            res = bytes(numcodecs.blosc.decompress(frame))
        except Exception:
            res = None
    if res is None:
        try:
            res = bytes(blosc2.decompress2(frame))  # (its own context per call)
        except Exception:
            res = None
    outp.write(struct.pack("<i", -1 if res is None else len(res)) + (res or b""))
    outp.flush()
"""


class _Oracle:
    """The reference decoders in a child process: c-blosc2 crashes on some lying frames
    (python-blosc2 4.14 ``decompress``: a segmentation fault), which must not end the
    program; a crash counts as a refusal and a new child answers the next frame.  Each
    call decodes with a fresh context: ``blosc2.decompress`` (the global one) decodes
    later good frames to wrong bytes after it refused a lying one (python-blosc2 4.14: a
    c-blosc1 frame whose flags claim the extended header); ``decompress2`` does not."""

    def __init__(self) -> None:
        self.proc = None
        self.crashes = 0

    def _start(self) -> None:
        import subprocess
        import sys

        self.proc = subprocess.Popen([sys.executable, "-c", _ORACLE_LOOP],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def __call__(self, frame: bytes, size: int) -> bytes | None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            self.proc.stdin.write(struct.pack("<I", len(frame)) + frame)
            self.proc.stdin.flush()
            head = self.proc.stdout.read(4)
            if len(head) < 4:
                raise BrokenPipeError
            n = struct.unpack("<i", head)[0]
            res = self.proc.stdout.read(n) if n >= 0 else None
        except (BrokenPipeError, OSError):
            self.crashes += 1
            self.proc.wait()
            self.proc = None
            return None
        return res if res is not None and len(res) == size else None

    def close(self) -> None:
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass  # the child died: its pipe's last bytes cannot be flushed
            self.proc.wait()
            self.proc = None


_ORACLE = _Oracle()


def _oracle(frame: bytes, size: int) -> bytes | None:
    return _ORACLE(frame, size)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _chunk_files(root: str, fmt: int) -> dict[str, str]:
    """Chunk key -> file path, for the array at root."""
    out = {}
    for p in glob.glob(os.path.join(root, "**", "*"), recursive=True):
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        if os.path.isfile(p) and not rel.startswith(".z") and not rel.endswith("zarr.json"):
            out[rel] = p
    return out


def _chunk_box(key: str, fmt: int, chunks: tuple) -> tuple:
    parts = key.split("/")[1:] if fmt == 3 else key.split(".")
    return tuple(slice(int(c) * s, (int(c) + 1) * s) for c, s in zip(parts, chunks))


def _decoded(raw: bytes, lay: dict) -> np.ndarray:
    """A chunk's decoded bytes as the chunk's values (full chunk shape)."""
    dt = lay["dtype"]
    order = lay["order"]
    return np.frombuffer(raw, dtype=dt).reshape(lay["chunks"], order=order)


def _selections(rng: np.random.Generator, shape: tuple, chunks: tuple) -> list:
    sels: list = [Ellipsis]
    for _ in range(4):
        sels.append(tuple(int(rng.integers(s)) for s in shape))
    for _ in range(4):
        box = []
        for s, c in zip(shape, chunks):
            a = int(rng.integers(s))
            b = int(rng.integers(a + 1, min(s, a + 2 * c) + 1))
            box.append(slice(a, b))
        sels.append(tuple(box))
    # one chunk exactly (the lean box path over one whole chunk)
    sels.append(tuple(slice(c * int(rng.integers(-(-s // c))),
                            c * int(rng.integers(-(-s // c))) + c) for s, c in zip(shape, chunks)))
    return sels


def _check_read(out: Outcome, label: str, read, sel, want: np.ndarray, loose: np.ndarray,
                exact: np.ndarray) -> None:
    """One read: `want` -- what the read must give (the oracle's values where it decoded,
    the written values elsewhere); `loose` -- True where the oracle refused the chunk
    (there a read may raise or give the written values); `exact` -- True where the
    oracle refused and the read covers the whole chunk (must raise)."""
    out.reads += 1
    try:
        got = np.asarray(read(sel))
    except ZarrhpcError:
        out.raised += 1
        return
    except Exception as e:  # noqa: BLE001 -- a class outside zarrhpc's is the finding
        out.problems.append(f"{label} {sel!r}: foreign {type(e).__name__}: {e}")
        return
    key = sel if sel is Ellipsis else tuple(sel) + (Ellipsis,)  # 0-d arrays keep the dtype
    w = want[key]
    if np.asarray(exact[sel]).any():
        out.problems.append(f"{label} {sel!r}: read a chunk the oracle refuses without error")
        return
    if got.shape != w.shape or got.dtype != w.dtype:
        out.problems.append(f"{label} {sel!r}: shape/dtype {got.shape} {got.dtype} vs "
                            f"{w.shape} {w.dtype}")
        return
    if got.size == 0:
        return
    gb = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, -1)
    wb = np.ascontiguousarray(w).reshape(-1).view(np.uint8).reshape(w.size, -1)
    bad = ~(gb == wb).all(axis=1)
    if bad.any():
        out.problems.append(f"{label} {sel!r}: {int(bad.sum())} of {got.size} elements "
                            f"differ (loose there: {bool(np.asarray(loose[sel]).reshape(-1)[bad].all())})")


def run_program(seed: int, root: str, damage: float = 0.5, peers: bool = True) -> Outcome:
    """One program (see the module docstring); root: an empty directory."""
    try:
        return _run_program(seed, root, damage, peers)
    finally:
        _ORACLE.close()


def _run_program(seed: int, root: str, damage: float, peers: bool) -> Outcome:
    rng = np.random.default_rng(seed)
    lay = _layout(rng)
    dt, shape, chunks, fmt = lay["dtype"], lay["shape"], lay["chunks"], lay["fmt"]
    enc, desc = _writer(rng, dt.itemsize)
    out = Outcome()
    path = os.path.join(root, f"p{seed}")
    comp: dict
    # zarrhpc's own frames: its writer's settings from the description
    own = dict(tok.split("=") for tok in desc.split()[2:]) if enc is None else {}
    cname = desc.split()[1] if enc is None else "lz4"
    shuffle = int(own.get("shuffle", 1))
    bs = int(own.get("bs", 0))
    if fmt == 2:
        comp = dict(compressors={"id": "blosc", "cname": cname, "clevel": 5,
                                 "shuffle": shuffle, "blocksize": bs}, order=lay["order"])
    else:
        comp = dict(compressors={"name": "blosc", "configuration": {
            "cname": cname, "clevel": 5, "typesize": dt.itemsize, "blocksize": bs,
            "shuffle": ["noshuffle", "shuffle", "bitshuffle"][shuffle]}})
    x = _values(rng, dt, shape)
    a = zarrhpc.create_array(path, shape=shape, chunks=chunks, dtype=dt, zarr_format=fmt,
                             fill_value=None if dt.kind == "V" else 0, **comp)
    a[...] = x
    csize = int(np.prod(chunks)) * dt.itemsize
    want = x.copy()
    loose = np.zeros(shape, bool)
    exact = np.zeros(shape, bool)
    files = _chunk_files(path, fmt)
    mem: dict[str, bytes] = {}
    frames_ok_for_peer = not desc.startswith("blosc2")
    for key, p in sorted(files.items()):
        raw = _oracle(_read(p), csize)
        assert raw is not None, f"seed {seed}: zarrhpc's own chunk {key} unreadable"
        frame = enc(raw) if enc is not None else _read(p)
        box = _chunk_box(key, fmt, chunks)
        if rng.random() < damage:
            frame, how = _damage(rng, frame)
            out.damaged += 1
            out.damage_log.append(f"{key}: {how}")
            frames_ok_for_peer = False
            dec = _oracle(frame, csize)
            if dec is None:
                loose[box] = True
                # an edge chunk read whole needs only the blocks inside the array: the
                # lie may be past them
                if all(b.stop <= n for b, n in zip(box, shape)):
                    exact[box] = True  # refined below: only whole-chunk reads must raise
            else:
                vals = _decoded(dec, lay)
                region = want[box]
                want[box] = vals[tuple(slice(0, r) for r in region.shape)]
        with open(p, "wb") as f:
            f.write(frame)
        mem_key = key
        mem[mem_key] = frame
    for meta in (".zarray", "zarr.json", ".zattrs"):
        mp = os.path.join(path, meta)
        if os.path.exists(mp):
            mem[meta] = _read(mp)
    local = zarrhpc.open_array(path, mode="r")
    memory = zarrhpc.open_array(MemoryStore(mem), mode="r")
    sels = _selections(rng, shape, chunks)
    # the oracle's refusals: every read touching such a chunk may raise; one that gives
    # values must give the written ones, except a read covering the whole refused chunk
    # (the whole frame decoded), which must raise
    for label, arr in (("local", local), ("memory", memory)):
        for sel in sels:
            ex = _whole_chunks_refused(sel, shape, chunks, exact)
            _check_read(out, f"seed {seed} [{desc}] {label}", arr.__getitem__, sel, want,
                        loose, ex)
        idx = tuple(np.unique(rng.integers(0, s, 3)) for s in shape)
        out.reads += 1
        try:
            got = arr.oindex[idx]
            w = want[np.ix_(*idx)]
            if got.tobytes() != w.tobytes() and not loose[np.ix_(*idx)].all():
                out.problems.append(f"seed {seed} [{desc}] {label} oindex {idx}: differs")
        except ZarrhpcError:
            out.raised += 1
    if peers and frames_ok_for_peer and fmt in (2, 3):
        import zarr

        z = zarr.open_array(path, mode="r")
        out.peer_reads += 1
        if z[...].tobytes() != x.tobytes():
            out.problems.append(f"seed {seed} [{desc}] zarr-python reads other values")
    return out


def _whole_chunks_refused(sel, shape: tuple, chunks: tuple, refused: np.ndarray) -> np.ndarray:
    """A mask, True where sel covers a refused chunk whole (there a read must raise)."""
    m = np.zeros(shape, bool)
    if sel is Ellipsis:
        sel = tuple(slice(None) for _ in shape)
    if any(isinstance(s, int) for s in sel):
        return m
    grid = [range(-(-s // c)) for s, c in zip(shape, chunks)]
    for idx in np.ndindex(*[len(g) for g in grid]):
        box = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
        if not refused[box].all():
            continue
        covered = all(sl.indices(s)[0] <= b.start and sl.indices(s)[1] >= b.stop
                      for sl, b, s in zip(sel, box, shape))
        if covered:
            m[box] = True
    return m
