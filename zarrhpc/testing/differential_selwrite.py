"""Differential programs on selection writes (coordinate, orthogonal, mask, block, basic).

Why: the native selection writes (``csrc/zh_sel_write.c``: points, orthogonal lists, the
mask pass) merge values into chunks that exist, partly exist or are missing, erase chunks
left all fill unless ``write_empty_chunks``, and hand chunks they cannot do (sharded
arrays, types Python converts) back to ``core/_select``; each of those roads must store
what numpy stores for the same assignment, for every dtype family and layout.

Life cycle of one program (``run_program(seed, root)``):

- Draw a layout (1-4 dimensions of 0..13, edge chunks, v2 C/F order or v3 with a
  transpose codec or big-endian bytes, shards or none, a compressor and sometimes a
  filter), a dtype (bool, ints, floats, complex, datetime/timedelta with NaT, structured,
  fixed and variable strings, ml_dtypes' bfloat16 and float8s), a fill value (default, 7,
  NaN, -0.0, NaT) and ``write_empty_chunks`` either way. Write a random box (chunks then
  exist, partly or not at all) and take zarrhpc's whole read as the model.
- Run random writes through a fresh handle: ``vindex[...] =`` / ``set_coordinate_selection``
  (broadcast index arrays, repeated and negative indices), ``oindex[...] =`` /
  ``set_orthogonal_selection`` (ints, stepped slices, repeated/negative lists, booleans),
  ``vindex[mask] =`` / ``set_mask_selection``, ``blocks[...] =`` and basic slices, with a
  scalar, one value per element, a broadcast value, or a value in F order / reversed.
  numpy applies the same assignment to the model; the whole array, read again by a fresh
  handle, must equal it (bytes for types without NaN; floats by value with NaN equal).
- At the end zarr-python reads the array (types it knows) and must agree; with
  ``write_empty_chunks=False`` no stored chunk may read all fill.

Outcome: ``writes`` (assignments compared), ``problems`` (one line each). The test is
tests/reliability/test_selwrite_differential.py (a short run in ``make test`` with a
planted-wrong-value self-check; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings

import numpy as np

import zarrhpc

__all__ = ["Outcome", "run_program"]

_DTYPES = ["?", "i1", "u1", "<i2", ">u2", "<i4", ">i4", "<u4", "<i8", "<u8", "<f2", "<f4",
           ">f8", "<f8", "<c8", ">c16", "<M8[s]", "<m8[ms]", "S3", "<U2", "str",
           [("a", "<i2"), ("b", ">f4")], "bfloat16", "float8_e4m3fn", "float8_e5m2"]
#: types zarr-python 3.1 does not read
_ZARR_PYTHON_LACKS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


@dataclasses.dataclass
class Outcome:
    writes: int = 0
    problems: list = dataclasses.field(default_factory=list)


def _dtype(spec):
    if spec == "str":
        return np.dtype("T") if hasattr(np.dtypes, "StringDType") else np.dtype("O")
    if isinstance(spec, str) and spec in _ZARR_PYTHON_LACKS:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, spec))
    return np.dtype(spec)


def _same(x, y) -> bool:
    """Equal in shape, type and values: bytes for ints, records and times (NaT kept),
    values for floats (NaN equal NaN; -0.0 equal 0.0, as zarr-python's fill test), strings
    by text."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return False
    if x.dtype.kind in "TO" or y.dtype.kind in "TO":
        return [str(v) for v in x.ravel()] == [str(v) for v in y.ravel()]
    if x.dtype != y.dtype:
        return False
    if _is_float(x.dtype):
        wide = np.complex128 if x.dtype.kind == "c" else np.float64
        return np.array_equal(x.astype(wide), y.astype(wide), equal_nan=True)
    return x.tobytes() == y.tobytes()


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" or (dtype.isbuiltin == 2 and dtype.names is None
                                  and "float" in dtype.name)


def _layout(rng: np.random.Generator) -> dict:
    ndim = int(rng.integers(1, 5))
    top = 14 if ndim < 3 else 7
    shape = tuple(int(rng.integers(0, 3)) if rng.random() < 0.07 else int(rng.integers(1, top))
                  for _ in range(ndim))
    chunks = tuple(int(rng.integers(1, max(2, s + 2))) for s in shape)
    if rng.random() < 0.4:  # long last axis: the mask pass applies from 8
        chunks = chunks[:-1] + (int(rng.integers(8, 14)),)
    spec = _DTYPES[int(rng.integers(len(_DTYPES)))]
    dtype = _dtype(spec)
    fmt = int(rng.choice([2, 3]))
    kw = {"shape": shape, "chunks": chunks, "dtype": dtype, "zarr_format": fmt,
          "write_empty_chunks": bool(rng.random() < 0.4)}
    if fmt == 2 and rng.random() < 0.4:
        kw["order"] = "F"
    comp = str(rng.choice(["none", "zstd", "blosc", "gzip", "default"]))
    if comp == "none":
        kw["compressors"] = None
    elif comp == "zstd":
        kw["compressors"] = {"id": "zstd", "level": 1} if fmt == 2 else [
            {"name": "zstd", "configuration": {"level": 1, "checksum": bool(rng.random() < .5)}}]
    elif comp == "gzip":
        kw["compressors"] = {"id": "gzip", "level": 1} if fmt == 2 else [
            {"name": "gzip", "configuration": {"level": 1}}]
    elif comp == "blosc":
        kw["compressors"] = {"id": "blosc", "cname": "lz4", "clevel": 5,
                             "shuffle": int(rng.integers(0, 3)), "blocksize": 0} if fmt == 2 \
            else [{"name": "blosc", "configuration": {
                "cname": "zstd", "clevel": 3, "shuffle": str(rng.choice(
                    ["noshuffle", "shuffle", "bitshuffle"])), "typesize": max(
                        1, dtype.itemsize), "blocksize": 0}}]
    fixed = dtype.kind not in "TO"
    if fmt == 3 and fixed and ndim > 1 and rng.random() < 0.25:
        order = [int(i) for i in rng.permutation(ndim)]
        kw["filters"] = [{"name": "transpose", "configuration": {"order": order}}]
    if fmt == 3 and fixed and dtype.itemsize > 1 and rng.random() < 0.3:
        kw["serializer"] = {"name": "bytes", "configuration": {"endian": "big"}}
    if fmt == 3 and all(shape) and rng.random() < 0.25:
        kw["shards"] = tuple(c * int(rng.integers(1, 3)) for c in chunks)
    if dtype.kind in "iu" and rng.random() < 0.4:
        kw["fill_value"] = 7
    elif _is_float(dtype) and rng.random() < 0.5:
        kw["fill_value"] = float(rng.choice([np.nan, -0.0, 7.0]))
    elif dtype.kind in "Mm" and rng.random() < 0.5:
        kw["fill_value"] = np.array("NaT", dtype)[()]
    return kw


def _values(rng: np.random.Generator, dtype: np.dtype, shape: tuple) -> np.ndarray:
    return np.asarray(_values_of(rng, dtype, shape), dtype=dtype)


def _values_of(rng, dtype, shape):
    if dtype.names:
        data = np.zeros(shape, dtype)
        data["a"] = rng.integers(-100, 100, shape)
        data["b"] = rng.integers(-8, 8, shape) / 4
        return data
    if dtype.kind == "S":
        return rng.integers(65, 91, (*shape, 3), dtype="u1").view("S3").reshape(shape)
    if dtype.kind in "UTO":
        return np.array(["ab", "c", "", "xy", "é"], dtype=dtype if dtype.kind != "O" else "O")[
            rng.integers(0, 5, shape)]
    if dtype.kind in "Mm":
        out = np.asarray(rng.integers(-10**6, 10**9, shape)).astype(dtype)
        out[rng.random(shape) < 0.1] = np.array("NaT", dtype)
        return out
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape,
                            endpoint=True).astype(dtype)
    # floats: small halves, zeros of both signs, some NaN, all exact in float8
    out = np.asarray(rng.integers(-8, 8, shape) / 2, dtype=np.float64)
    out[rng.random(shape) < 0.05] = -0.0
    if dtype.kind != "c" and dtype.name not in ("float8_e4m3fn",):
        out[rng.random(shape) < 0.05] = np.nan
    if dtype.kind == "c":
        return (out + 1j * (rng.integers(-4, 4, shape) / 2)).astype(dtype)
    return out.astype(dtype)


def _index_list(rng, n: int) -> np.ndarray:
    k = int(rng.integers(0, 2 * n + 1))
    idx = rng.integers(-n, n, k) if n else np.zeros(0, int)
    return idx.astype(rng.choice(["i8", "i4", "u8"])) if (idx >= 0).all() else idx


def _ortho_sel(rng, shape):
    sel = []
    for n in shape:
        r = rng.random()
        if r < 0.3 and n:
            sel.append(_index_list(rng, n) if rng.random() < .8 else
                       rng.permutation(n)[:int(rng.integers(1, n + 1))])
        elif r < 0.45:
            sel.append(rng.random(n) < 0.5)
        elif r < 0.55 and n:
            sel.append(int(rng.integers(-n, n)))
        else:
            start = int(rng.integers(0, n + 1))
            step = int(rng.choice([1, 1, 2, 3]))
            sel.append(slice(start, int(rng.integers(start, n + 1)), step))
    return tuple(sel)


def _apply_ortho(model, sel, value):
    """numpy's orthogonal assignment (slices and lists through np.ix_, last wins)."""
    idx = []
    for n, s in zip(model.shape, sel):
        if isinstance(s, slice):
            idx.append(np.arange(n)[s])
        elif isinstance(s, np.ndarray):
            idx.append(np.flatnonzero(s) if s.dtype == bool else s.astype(np.intp))
        else:
            idx.append(np.array([s], dtype=np.intp))
    shape = tuple(len(i) for i, s in zip(idx, sel) if not isinstance(s, int))
    full = tuple(len(i) for i in idx)
    v = np.broadcast_to(np.asarray(value, dtype=model.dtype), shape).reshape(full)
    model[np.ix_(*idx)] = v
    return shape


def _value(rng, dtype, shape, broadcast=True):
    """A value for a selection of ``shape``: scalar, full, broadcast, F order or reversed
    (point selections take a scalar or the selection's shape, as in zarr-python)."""
    r = rng.random()
    if r < 0.25 or not shape:
        return _values(rng, dtype, ())[()], "scalar"
    if r < 0.4 and len(shape) and broadcast:
        bshape = tuple(1 if rng.random() < 0.5 else s for s in shape)
        if rng.random() < 0.3:
            bshape = bshape[1:]
        return _values(rng, dtype, bshape), f"broadcast {bshape}"
    v = _values(rng, dtype, shape)
    if r < 0.55:
        return np.asfortranarray(v), "F order"
    if r < 0.7 and v.ndim:
        w = _values(rng, dtype, shape)
        w[...] = v[::-1][::-1] if v.size else v
        return w[::-1][::-1] if w.size else w, "reversed view"
    return v, "full"


def run_program(seed: int, root: str, peers: bool = True, writes: int = 8) -> Outcome:
    """One program (module docstring) in the empty directory ``root``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_program(seed, root, peers, writes)


def _run_program(seed: int, root: str, peers: bool, nwrites: int) -> Outcome:
    rng = np.random.default_rng(seed)
    out = Outcome()
    kw = _layout(rng)
    label = f"seed {seed} {kw}"
    try:
        a = zarrhpc.create_array(root, **kw)
    except (ValueError, TypeError, NotImplementedError) as exc:  # a layout refused clearly
        if "transpose" in str(kw.get("filters")) or "fill_value" in kw:
            return out
        out.problems.append(f"{label}: create refused: {exc!r}")
        return out
    shape, dtype = a.shape, a.dtype
    data = _values(rng, dtype, shape)
    box = tuple(slice(int(rng.integers(0, s + 1)), None) if rng.random() < 0.4 else slice(None)
                for s in shape)
    written = rng.random() < 0.8  # else every chunk is missing
    if written:
        a[box] = data[box]
    model = np.asarray(zarrhpc.open_array(root, mode="r")[...]).copy()
    if written and not _same(model[box], data[box]):
        out.problems.append(f"{label}: the box written reads back otherwise")
        return out
    for step in range(nwrites):
        b = zarrhpc.open_array(root, mode="r+")
        what = _one_write(rng, b, model, dtype)
        if what is None:
            continue
        got = np.asarray(zarrhpc.open_array(root, mode="r")[...])
        out.writes += 1
        if not _same(got, model):
            bad = _first_difference(got, model)
            out.problems.append(f"{label} step {step} {what}: differs from numpy at {bad}")
            return out
    if peers:
        _check_peers(out, label, root, model, dtype, kw)
    return out


def _first_difference(got, model):
    if got.shape != model.shape:
        return f"shape {got.shape} vs {model.shape}"
    for i in np.ndindex(model.shape):
        if not _same(got[i][None] if got.ndim else got, model[i][None] if model.ndim else model):
            return f"{i}: {got[i]!r} vs {model[i]!r}"
    return "dtype"


def _one_write(rng, b, model, dtype):
    shape = model.shape
    kind = str(rng.choice(["coord", "ortho", "mask", "block", "basic"]))
    if kind == "coord":
        if not all(shape) or not shape:
            return None
        n = int(rng.integers(0, 12))
        if rng.random() < 0.3 and len(shape) >= 1:  # index arrays that broadcast
            idx = tuple(rng.integers(-s, s, (n, 1) if i % 2 == 0 else (1, 3))
                        for i, s in enumerate(shape))
        else:
            idx = tuple(rng.integers(-s, s, n) for s in shape)
            if n and rng.random() < 0.3:  # a repeated point
                j = int(rng.integers(n))
                idx = tuple(np.append(i, i[j]) for i in idx)
        sshape = np.broadcast_shapes(*(i.shape for i in idx))
        value, vk = _value(rng, dtype, sshape, broadcast=False)
        if rng.random() < 0.5:
            b.vindex[idx] = value
        else:
            b.set_coordinate_selection(idx, value)
        model[idx] = value
        return f"coordinate {[i.tolist() for i in idx]} {vk}"
    if kind == "ortho":
        if not shape:
            return None
        sel = _ortho_sel(rng, shape)
        sshape = tuple(len(np.arange(n)[s]) if isinstance(s, slice) else
                       int(s.sum()) if isinstance(s, np.ndarray) and s.dtype == bool else
                       len(s) for n, s in zip(shape, sel) if not isinstance(s, int))
        value, vk = _value(rng, dtype, sshape)
        if rng.random() < 0.5:
            b.oindex[sel] = value
        else:
            b.set_orthogonal_selection(sel, value)
        _apply_ortho(model, sel, value)
        return f"orthogonal {sel!r} {vk}"
    if kind == "mask":
        if not shape:
            return None
        m = rng.random(shape) < rng.random() ** 2
        if rng.random() < 0.2:
            m = np.asfortranarray(m)
        n = int(m.sum())
        value, vk = _value(rng, dtype, (n,), broadcast=False)
        if rng.random() < 0.5:
            b.vindex[m] = value
        else:
            b.set_mask_selection(m, value)
        model[m] = value
        return f"mask of {n} {vk}"
    if kind == "block":
        if not shape or not all(shape):
            return None
        blocks = b.shards or b.chunks  # zarr-python's blocks are shards when sharded
        grid = [-(-s // c) for s, c in zip(shape, blocks)]
        bi = tuple(int(rng.integers(0, g)) for g in grid)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(bi, blocks, shape))
        value, vk = _value(rng, dtype, model[sl].shape)
        b.blocks[bi] = value
        model[sl] = value
        return f"block {bi} {vk}"
    sl = tuple(slice(int(rng.integers(0, s + 1)), None, int(rng.choice([1, 2])))
               for s in shape)
    value, vk = _value(rng, dtype, model[sl].shape)
    b[sl] = value
    model[sl] = value
    return f"basic {sl} {vk}"


def _check_peers(out, label, root, model, dtype, kw) -> None:
    import zarr

    big_struct = dtype.names and "big" in str(kw.get("serializer"))
    if dtype.name not in _ZARR_PYTHON_LACKS and not big_struct:
        # zarr-python 3.1 writes and reads struct fields in their numpy byte order, not
        # the bytes codec's endian as zarr-extensions' struct says (zarrhpc follows it)
        try:
            theirs = np.asarray(zarr.open_array(root, mode="r")[...])
        except TypeError as exc:  # zarr-python 3.1: structured types in shards
            if "unhashable" not in str(exc):
                raise
        else:
            if not _same(theirs.astype(model.dtype) if theirs.dtype.kind not in "TO" else theirs,
                         model):
                out.problems.append(f"{label}: zarr-python reads otherwise: "
                                    f"{_first_difference(theirs, model)}")
    if kw.get("write_empty_chunks") or "shards" in kw or not model.size:
        return
    fill = zarrhpc.open_array(root, mode="r").fill_value
    grid = [-(-s // c) for s, c in zip(model.shape, kw["chunks"])]
    sep = "." if kw["zarr_format"] == 2 else "/"
    meta = json.load(open(os.path.join(root, ".zarray" if kw["zarr_format"] == 2
                                       else "zarr.json")))
    sep = meta.get("dimension_separator", sep)
    for g in np.ndindex(*grid):
        name = sep.join(map(str, g))
        path = os.path.join(root, name if kw["zarr_format"] == 2 else "c/" + name)
        if not os.path.exists(path):
            continue
        sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(g, kw["chunks"]))
        part = model[sl]
        if _same(part, np.full(part.shape, fill, dtype=model.dtype)) and \
                not _has_negative_zero(part, fill):
            out.problems.append(f"{label}: chunk {g} is stored though all fill")
            return


def _has_negative_zero(part, fill) -> bool:
    if part.dtype.kind != "f":
        return False
    return bool((np.signbit(part) != np.signbit(np.asarray(fill, part.dtype))).any())
