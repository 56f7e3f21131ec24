"""Differential programs on boolean-mask selections (``vindex[mask]``, ``get/set_mask_selection``).

Why: a mask read goes through the engine's per-chunk mask pass (``core/_select.read_mask``,
``csrc/zh_mask.c``: SSE2 counts, ranks per block of rows, bits per row segment) when the
array is unsharded on a store the engine opens and its chunks are at least 8 wide along the
last axis, and through the point path otherwise; the two must agree with numpy everywhere:
edge chunks, size-0 axes, missing chunks (fill values), F order and big-endian v2 chunks,
sharded and nested-sharded arrays (point path), every dtype family, masks that are
all-False, all-True, one-True, not C contiguous, in F order, and ``out=``.

Life cycle of one program (``run_program(seed, root)``):

- Draw a layout (v2 C/F order or v3, 1-4 dimensions of 0..22, chunks with the last axis
  usually >= 8, a compressor, sometimes shards or a shard inside a shard, a fill value) and
  a dtype; zarrhpc creates the array and writes random values to a random box (the rest
  stays fill). The model is zarrhpc's whole read, checked against numpy's values of the box.
- Draw masks and read each with ``vindex``, ``get_mask_selection`` or ``get_mask_selection(
  out=)`` (a fresh array): the result must equal ``model[mask]`` in dtype, shape and bytes.
  With ``peers`` zarr-python reads the same mask and must agree.
- Write through ``set_mask_selection`` / ``vindex[mask] =`` (a scalar or one value per
  selected element) and compare the whole array with the model.
- A mask of integers 0/1 (two dimensions or more) raises what zarr-python raises.

Outcome: ``reads`` (selections compared), ``native`` (of them, read by the mask pass),
``problems`` (one line each). The tests are tests/reliability/test_mask_differential.py
(a short run in ``make test``; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

import zarrhpc
import zarrhpc.core.array as _array

__all__ = ["Outcome", "run_program"]

_DTYPES = ["u1", "i2", "<u4", ">i4", "<f4", ">f8", "f2", "c8", "?", "M8[s]", "S3", "U2",
           [("a", "<i2"), ("b", ">f4")]]


@dataclasses.dataclass
class Outcome:
    reads: int = 0
    native: int = 0
    problems: list = dataclasses.field(default_factory=list)


def _same(x, y) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype.names or x.dtype.kind in "MmV":
        return x.tobytes() == y.tobytes()
    if x.dtype.kind in "fc":
        return np.array_equal(x, y, equal_nan=True)
    return np.array_equal(x, y)


def _layout(rng: np.random.Generator) -> dict:
    ndim = int(rng.integers(1, 5))
    top = 23 if ndim < 3 else 11
    shape = tuple(int(rng.integers(0, 4)) if rng.random() < 0.08 else int(rng.integers(1, top))
                  for _ in range(ndim))
    chunks = tuple(int(rng.integers(1, max(2, s + 3))) for s in shape)
    if rng.random() < 0.8:
        chunks = chunks[:-1] + (int(rng.integers(8, 20)),)
    dtype = np.dtype(_DTYPES[int(rng.integers(len(_DTYPES)))])
    fmt = int(rng.choice([2, 3]))
    kw = {"shape": shape, "chunks": chunks, "dtype": dtype, "zarr_format": fmt}
    if fmt == 2 and rng.random() < 0.4:
        kw["order"] = "F"
    comp = str(rng.choice(["none", "zstd", "blosc"]))
    if comp == "none":
        kw["compressors"] = None
    elif comp == "blosc":
        kw["compressors"] = [{"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": dtype.itemsize,
            "blocksize": 0}}] if fmt == 3 else {"id": "blosc", "cname": "lz4", "clevel": 5,
                                                "shuffle": 1, "blocksize": 0}
    if fmt == 3 and all(shape) and rng.random() < 0.25:
        outer = tuple(c * int(rng.integers(1, 3)) for c in chunks)
        if rng.random() < 0.3:  # a shard inside a shard: chunks of the inner shard
            kw["chunks"] = tuple(c // 2 if c % 2 == 0 else c for c in chunks)
            kw["shards"] = chunks
            kw["_outer"] = outer
        else:
            kw["shards"] = outer
    if dtype.kind in "iuf" and rng.random() < 0.5:
        kw["fill_value"] = 7
    return kw


def _create(root: str, kw: dict):
    kw = dict(kw)
    outer = kw.pop("_outer", None)
    if outer is None:
        return zarrhpc.create_array(root, **kw)
    inner = {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(kw.pop("chunks")), "codecs": [{"name": "bytes",
                                                           "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                         {"name": "crc32c"}]}}
    kw["chunks"] = kw.pop("shards")
    kw["shards"] = outer
    kw["serializer"] = inner
    kw.pop("compressors", None)
    return zarrhpc.create_array(root, compressors=None, **kw)


def _values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    if dtype.names:
        data = np.zeros(shape, dtype)
        data["a"] = rng.integers(-100, 100, shape)
        data["b"] = rng.normal(size=shape)
        return data
    if dtype.kind == "S":
        return rng.integers(65, 91, (*shape, 3), dtype="u1").view("S3").reshape(shape)
    if dtype.kind == "U":
        return np.array(["ab", "c", "", "xy"])[rng.integers(0, 4, shape)]
    if dtype.kind == "M":
        return rng.integers(0, 10**9, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return (rng.normal(size=shape) * 100).astype(dtype)


def _mask(rng: np.random.Generator, shape: tuple) -> tuple[str, np.ndarray]:
    kind = str(rng.choice(["rand", "all", "none", "one", "strided", "F", "reversed"]))
    p = rng.random() ** 2
    if kind == "all":
        return kind, np.ones(shape, bool)
    if kind == "none":
        return kind, np.zeros(shape, bool)
    if kind == "one":
        m = np.zeros(shape, bool)
        if m.size:
            m.flat[int(rng.integers(m.size))] = True
        return kind, m
    if kind == "strided":  # a view: not C contiguous
        big = rng.random(tuple(2 * s for s in shape)) < p
        return kind, big[tuple(slice(None, None, 2) for _ in shape)]
    if kind == "F":
        return kind, np.asfortranarray(rng.random(shape) < p)
    if kind == "reversed":
        return kind, (rng.random(shape) < p)[::-1]
    return kind, rng.random(shape) < p


def run_program(seed: int, root: str, peers: bool = True, masks: int = 5) -> Outcome:
    """One program (module docstring) in the empty directory ``root``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_program(seed, root, peers, masks)


def _run_program(seed: int, root: str, peers: bool, masks: int) -> Outcome:
    rng = np.random.default_rng(seed)
    out = Outcome()
    kw = _layout(rng)
    label = f"seed {seed} {kw}"
    a = _create(root, kw)
    shape, dtype = a.shape, np.dtype(kw["dtype"])
    data = _values(rng, dtype, shape)
    box = tuple(slice(int(rng.integers(0, s + 1)), None) if rng.random() < 0.3 else slice(None)
                for s in shape)
    a[box] = data[box]
    model = np.asarray(a[...]).copy()
    if not _same(model[box], data[box].astype(model.dtype)):
        out.problems.append(f"{label}: the box written reads back otherwise")
        return out
    native = [0]
    real = _array.read_mask

    def counting(*args, **kwargs):
        got = real(*args, **kwargs)
        native[0] += got is not None
        return got

    _array.read_mask = counting
    try:
        for _ in range(masks):
            kind, m = _mask(rng, shape)
            _check_read(out, f"{label} mask {kind}", root, m, model, rng, peers)
        for _ in range(2):
            kind, m = _mask(rng, shape)
            b = zarrhpc.open_array(root, mode="r+")
            n = int(m.sum())
            value = _values(rng, dtype, (n,)).astype(model.dtype) if rng.random() < 0.7 \
                else model.reshape(-1)[:1].copy()[0] if model.size else None
            if value is None:
                continue
            if rng.random() < 0.5:
                b.vindex[m] = value
            else:
                b.set_mask_selection(m, value)
            model[m] = value
            got = zarrhpc.open_array(root, mode="r")[...]
            out.reads += 1
            if not _same(got, model):
                out.problems.append(f"{label} write mask {kind}: the array differs from numpy")
                return out
            _check_read(out, f"{label} after write, mask {kind}", root, m, model, rng, peers)
    finally:
        _array.read_mask = real
    out.native += native[0]
    if peers and len(shape) >= 2 and all(shape):
        _int_mask(out, label, root, rng, shape)
    return out


def _check_read(out: Outcome, label: str, root: str, m: np.ndarray, model: np.ndarray,
                rng: np.random.Generator, peers: bool) -> None:
    want = model[m]
    b = zarrhpc.open_array(root, mode="r")
    how = str(rng.choice(["vindex", "get", "out"]))
    if how == "out":
        buf = np.empty(want.shape, model.dtype)
        got = b.get_mask_selection(m, out=buf)
        if want.size and not (np.shares_memory(got, buf) and _same(buf, want)):
            out.problems.append(f"{label}: out= not filled in place {buf.ravel()[:4]!r} vs "
                                f"{want.ravel()[:4]!r} (returned {np.asarray(got).ravel()[:4]!r})")
    else:
        got = b.vindex[m] if how == "vindex" else b.get_mask_selection(m)
    out.reads += 1
    if not _same(got, want):
        out.problems.append(f"{label} ({how}): differs from numpy "
                            f"{np.asarray(got).ravel()[:4]!r} vs {want.ravel()[:4]!r}")
        return
    if peers:
        import zarr

        try:
            theirs = zarr.open_array(root, mode="r").vindex[m]
        except TypeError as exc:  # zarr-python 3.1: structured dtypes in shards
            if "unhashable" in str(exc):
                return
            raise
        if not _same(np.asarray(theirs).astype(want.dtype), want):
            out.problems.append(f"{label}: zarr-python reads otherwise")


def _int_mask(out: Outcome, label: str, root: str, rng: np.random.Generator,
              shape: tuple) -> None:
    import zarr

    m = (rng.random(shape) < 0.5).astype("i1")
    raised = []
    for lib in (zarrhpc, zarr):
        try:
            lib.open_array(root, mode="r").vindex[m]
            raised.append(None)
        except Exception as exc:  # noqa: BLE001 - the classes are compared
            raised.append(exc)
    ours, theirs = raised
    if (ours is None) != (theirs is None) or (
            theirs is not None and type(ours).__name__ != type(theirs).__name__):
        out.problems.append(f"{label}: an integer mask: zarrhpc {ours!r}, zarr-python "
                            f"{theirs!r}")
