"""Differential testing against zarr-python: one store, two libraries, one numpy model.

Life cycle: a hypothesis strategy draws a :class:`Layout` (shape 0-4-D with edge chunks and
size-0 axes, dtype, fill value incl. NaN, order, v2/v3, chunk key encoding, sharding and
nested sharding, codecs) and a list of operations (basic/orthogonal/coordinate/mask/block
reads and writes, resize, append, attributes). :class:`Session` creates the array with one
library, then applies each operation with a library drawn per operation, reopening the
array from the store every time (so each library sees what the other wrote). After every
operation both libraries read the whole array and must agree with the numpy model (and with
each other); failing operations must fail in both libraries with the same builtin class.

The model is exact except for one documented zarr-python behaviour: shrinking an array
keeps its (now partial) edge chunks as they are, so growing it again may show the old
values there instead of the fill value.  Such cells are tracked in ``Session.loose`` and
compared only between the two libraries (which read the same bytes), not with the model.

Only the test helpers live here; the tests are tests/interop/test_differential_*.py.
zarr-python is imported lazily (this module imports without it).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import zarrhpc

__all__ = ["Layout", "Session", "layouts", "operations", "resize_model", "same_values",
           "BUILTIN_ERRORS"]

# the builtin classes an indexing / argument error is compared by (most specific first)
BUILTIN_ERRORS = (IndexError, KeyError, TypeError, ValueError, NotImplementedError)

NUMERIC = ["i1", "<i2", ">i4", "<i8", "u1", ">u2", "<u4", "<u8", "<f2", "<f4", ">f8",
           "bool", "<c8", ">c16"]
DATETIME = ["<M8[s]", "<m8[ms]"]


class Layout(dict):
    """Keyword form of one array layout (a dict with attribute-free, readable repr)."""


def _fill_for(draw, dtype: np.dtype):
    kind = dtype.kind
    if kind == "b":
        return draw(st.booleans())
    if kind in "iu":
        info = np.iinfo(dtype)
        return draw(st.sampled_from([0, 1, int(info.max), int(info.min)]))
    if kind == "f":
        return draw(st.sampled_from([0.0, -2.5, float("nan"), float("inf"), -0.0]))
    if kind == "c":
        return draw(st.sampled_from([0j, 1.5 - 2j, complex(float("nan"), 0)]))
    if kind in "mM":
        return draw(st.sampled_from([0, 17]))
    if kind == "U":
        return draw(st.sampled_from(["", "fill"]))
    return 0


@st.composite
def layouts(draw, extra_dtypes: bool = True, big: bool = False):
    """A random array layout, within what both zarr-python and zarrhpc create; ``big``:
    1-3-D arrays of up to 40 per axis and many chunks (the engine's multi-chunk paths)."""
    if big:
        ndim = draw(st.integers(1, 3))
        shape = tuple(draw(st.integers(1, 40 if ndim < 3 else 14)) for _ in range(ndim))
    else:
        ndim = draw(st.integers(0, 4))
        shape = tuple(draw(st.integers(0 if ndim else 1, 7 if ndim < 3 else 4))
                      for _ in range(ndim))
    fmt = draw(st.sampled_from([2, 3, 3]))
    dtypes = NUMERIC + (DATETIME if extra_dtypes else [])
    if extra_dtypes and fmt == 3:
        dtypes = dtypes + ["str"]
    if extra_dtypes and fmt == 2:
        dtypes = dtypes + ["<U3", "|S2", "str"]  # str: an object array, VLenUTF8
    dtype = draw(st.sampled_from(dtypes))
    kind = "plain"
    if fmt == 3 and dtype != "str" and ndim:
        kind = draw(st.sampled_from(["plain", "plain", "sharded", "nested"]))
    inner = tuple(draw(st.integers(1, (20 if ndim < 3 else 8) if big else 3))
                  for _ in range(ndim))
    chunks = tuple(i * draw(st.integers(1, 2)) for i in inner)
    shards = tuple(c * draw(st.integers(1, 2)) for c in chunks) if kind != "plain" else None
    npdt = np.dtype("O") if dtype == "str" else np.dtype(dtype)
    fill = _fill_for(draw, np.dtype("U") if dtype == "str" else npdt)
    codec = draw(st.sampled_from(["none", "zstd", "gzip", "blosc", "blosc-small", "crc32c"]
                                 if fmt == 3 else ["none", "zstd", "zlib", "blosc",
                                                   "blosc-small"]))
    if dtype == "str" and codec == "crc32c":
        codec = "none"
    sep = draw(st.sampled_from(["/", "."]))
    return Layout(shape=shape, chunks=chunks, shards=shards, kind=kind, inner=inner,
                  fmt=fmt, dtype=dtype, fill=fill, codec=codec, sep=sep,
                  order=draw(st.sampled_from("CF")) if fmt == 2 else "C",
                  endian=draw(st.sampled_from(["little", "big"])),
                  transpose=fmt == 3 and ndim > 1 and dtype != "str" and draw(st.booleans()),
                  index_location=draw(st.sampled_from(["end", "start"])),
                  creator=draw(st.sampled_from(["zarr", "zarrhpc"])))


def _codec_kwargs(lay) -> dict:
    """create_array keyword arguments (zarr-python 3 spelling) for the layout's codecs."""
    import numcodecs
    import zarr

    kw: dict = {}
    c = lay["codec"]
    if lay["fmt"] == 2:
        comp = {"none": None, "zstd": numcodecs.Zstd(level=1), "zlib": numcodecs.Zlib(level=1),
                "blosc": numcodecs.Blosc(cname="lz4", clevel=3,
                                         shuffle=numcodecs.Blosc.SHUFFLE),
                # many small internal blosc blocks per chunk: partial-block decoding
                "blosc-small": numcodecs.Blosc(cname="zstd", clevel=1,
                                               shuffle=numcodecs.Blosc.BITSHUFFLE,
                                               blocksize=64)}[c]
        kw["compressors"] = comp
        if lay["dtype"] != "str":  # an object array keeps its VLenUTF8 filter
            kw["filters"] = None
        return kw
    codecs = zarr.codecs
    comp = {"none": None, "zstd": codecs.ZstdCodec(level=1), "gzip": codecs.GzipCodec(level=1),
            "blosc": codecs.BloscCodec(cname="lz4", clevel=3, shuffle="shuffle"),
            "blosc-small": codecs.BloscCodec(cname="lz4", clevel=1, shuffle="noshuffle",
                                             blocksize=64),
            "crc32c": codecs.Crc32cCodec()}[c]
    kw["compressors"] = comp
    if lay["dtype"] != "str":
        ser = codecs.BytesCodec(endian=lay["endian"])
        if lay["kind"] == "nested":
            # behind a transpose the sharding codec sees the chunk's axes reversed
            inner = lay["inner"][::-1] if lay.get("transpose") else lay["inner"]
            ser = codecs.ShardingCodec(chunk_shape=inner,
                                       codecs=[codecs.BytesCodec(endian=lay["endian"])],
                                       index_location=lay.get("index_location", "end"))
        kw["serializer"] = ser
    if lay.get("transpose"):
        kw["filters"] = [codecs.TransposeCodec(order=tuple(range(len(lay["shape"])))[::-1])]
    return kw


def _dtype_arg(lay):
    if lay["dtype"] == "str":
        return "str"
    return np.dtype(lay["dtype"])


def create(lay, path):
    """Create the layout's array at ``path`` with its ``creator`` library."""
    import zarr

    kw = create_kwargs(lay)
    lib = zarr if lay["creator"] == "zarr" else zarrhpc
    if lib is zarrhpc:
        kw = _to_zarrhpc(kw)
    return lib.create_array(str(path), **kw)


def create_kwargs(lay) -> dict:
    """zarr-python's ``create_array`` keyword arguments for the layout (zarrhpc takes
    them through `_to_zarrhpc`)."""
    kw = dict(shape=lay["shape"], chunks=lay["chunks"], dtype=_dtype_arg(lay),
              fill_value=lay["fill"], zarr_format=lay["fmt"], overwrite=True,
              **_codec_kwargs(lay))
    if lay["shards"] is not None:
        kw["shards"] = lay["shards"]
    if lay["fmt"] == 2:
        kw["order"] = lay["order"]
        kw["chunk_key_encoding"] = {"name": "v2", "separator": lay["sep"]}
    else:
        kw["chunk_key_encoding"] = {"name": "default", "separator": lay["sep"]}
    return kw


def _to_zarrhpc(kw: dict) -> dict:
    """zarr-python codec objects -> their JSON dicts, which zarrhpc takes too."""
    out = dict(kw)
    for key in ("compressors", "serializer", "filters"):
        v = out.get(key)
        if v is None or isinstance(v, (str, dict, list)):
            continue
        if hasattr(v, "to_dict"):
            out[key] = v.to_dict()
        elif hasattr(v, "get_config"):
            out[key] = v.get_config()
    return out


def model_dtype(lay) -> np.dtype:
    return np.dtype("O") if lay["dtype"] == "str" else np.dtype(lay["dtype"])


def fill_array(lay, shape) -> np.ndarray:
    dt = model_dtype(lay)
    out = np.empty(shape, dtype=dt)
    fill = lay["fill"]
    if dt.kind in "mM":
        fill = np.array(fill).astype("i8").view(dt)
    out[...] = fill
    return out


def same_values(a, b) -> bool:
    """Equal shapes, dtypes of one kind, equal values with NaN == NaN (bitwise for floats
    is too strict: zarr-python writes a canonical NaN)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        if not np.array_equal(a, b, equal_nan=True):
            return False
        # -0.0 == 0.0: the sign of zeros must agree too (a chunk of -0.0 is not empty
        # under a 0.0 fill value)
        parts = (a, b) if a.dtype.kind == "f" else (a.real, b.real, a.imag, b.imag)
        return all(np.array_equal(np.signbit(x) & (x == 0), np.signbit(y) & (y == 0))
                   for x, y in zip(parts[::2], parts[1::2]))
    if a.dtype.kind == "O" or b.dtype.kind == "O":
        return [str(x) for x in a.ravel()] == [str(x) for x in b.ravel()]
    return bool(np.array_equal(a, b))


def resize_model(model: np.ndarray, loose: np.ndarray, largest: tuple, new: tuple, fill):
    """The numpy model of ``a.resize(new)``: ``(model, loose, largest)`` after it.

    ``loose`` marks the cells whose value is zarr-python's choice: exposed again by a grow
    after a shrink (inside ``largest``, the largest shape so far), where edge chunks keep
    what lay past the edge; cells never inside the array before are the fill value.
    """
    keep = tuple(slice(0, min(a, b)) for a, b in zip(model.shape, new))
    grown = np.full(new, fill, dtype=model.dtype)
    grown[keep] = model[keep]
    seen = np.zeros(new, dtype=bool)
    seen[tuple(slice(0, n) for n in largest)] = True
    seen[keep] = loose[keep]
    return grown, seen, tuple(max(a, b) for a, b in zip(largest, new))


# ---------------------------------------------------------------------------------- ops


def _values(draw, lay, shape):
    dt = model_dtype(lay)
    n = int(np.prod(shape))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    if dt.kind == "O":
        # at most 15 bytes: zarr-python 3.1 loses (or segfaults on) longer strings written
        # into part of a chunk (numpy StringDType's heap strings in its merge step)
        pool = np.array(["", "a", "héllo", "xyz", "ñ\x00b", "fifteen chars!!"], dtype=object)
        vals = pool[rng.integers(0, len(pool), n)]
    elif dt.kind == "U":
        vals = np.array(["", "ab", "é", "xyz"], dtype=dt)[rng.integers(0, 4, n)]
    elif dt.kind == "S":
        vals = np.array([b"", b"ab", b"\x00z", b"q"], dtype=dt)[rng.integers(0, 4, n)]
    elif dt.kind in "mM":
        vals = rng.integers(-1000, 1000, n).astype("i8").view(dt)
    elif dt.kind == "b":
        vals = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "c":
        vals = (rng.integers(-9, 9, n) + 1j * rng.integers(-9, 9, n)).astype(dt)
    elif dt.kind == "f":
        vals = rng.integers(-50, 50, n).astype(dt) / 4
        vals[rng.random(n) < 0.1] = np.nan
        vals[rng.random(n) < 0.1] = -0.0  # equal to a 0.0 fill by ==, not bit for bit
    else:
        info = np.iinfo(dt)
        vals = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dt)
    if draw(st.booleans()) and n:
        return vals[0]  # a scalar, broadcast
    return vals.reshape(shape)


def _sel_basic(draw, shape):
    sel = []
    for n in shape:
        if n and draw(st.booleans()):
            sel.append(draw(st.integers(-n, n - 1)))
        else:
            b = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            sel.append(slice(draw(b), draw(b), draw(st.sampled_from([None, 1, 2, 3, 7, -1,
                                                                     -2]))))
    form = draw(st.integers(0, 6))
    if form == 0 and sel:
        return Ellipsis
    if form == 1 and sel:  # fewer items than dimensions
        return tuple(sel[:draw(st.integers(0, len(sel) - 1))])
    if form == 2 and sel:  # an Ellipsis standing for some dimensions
        k = draw(st.integers(0, len(sel)))
        return tuple(sel[:k]) + (Ellipsis,) + tuple(sel[k + 1:])
    if form == 3 and len(sel) == 1:
        return sel[0]
    return tuple(sel)


def _sel_ortho(draw, shape):
    from zarrhpc.testing.strategies_select import orthogonal_selections

    return draw(orthogonal_selections(shape))


def _sel_coord(draw, shape):
    from zarrhpc.testing.strategies_select import coordinate_selections

    return draw(coordinate_selections(shape))


def _sel_mask(draw, shape):
    from zarrhpc.testing.strategies_select import mask_selections

    return draw(mask_selections(shape))


def _sel_blocks(draw, shape, chunks):
    from zarrhpc.testing.strategies_select import block_selections

    return draw(block_selections(shape, chunks))


def _invalid_selection(draw, kind, shape):
    """A selection both libraries must refuse (out of bounds, too many items, bad types,
    a zero step, a mask of the wrong shape)."""
    n0 = shape[0] if shape else 0
    pick = draw(st.integers(0, 5))
    if kind in ("basic", "ortho"):
        if pick == 0:
            return (n0 + draw(st.integers(0, 3)),) + (slice(None),) * (len(shape) - 1)
        if pick == 1:
            return (slice(None),) * len(shape) + (0,)
        if pick == 2:
            return (1.5,) + (slice(None),) * (len(shape) - 1)
        if pick == 3:
            return (slice(None, None, 0),) + (slice(None),) * (len(shape) - 1)
        if pick == 4 and kind == "ortho":
            return (np.array([n0 + 1]),) + (slice(None),) * (len(shape) - 1)
        return ("a",) + (slice(None),) * (len(shape) - 1)
    if kind == "coord":
        if pick < 3:
            return tuple(np.array([n + draw(st.integers(0, 2))]) for n in shape)
        return tuple(np.array([0]) for _ in shape) + (np.array([0]),)
    if kind == "mask":
        return np.zeros(tuple(n + 1 for n in shape), dtype=bool)
    # blocks
    return tuple(-(-n // 1) + 5 for n in shape)


@st.composite
def operation(draw, lay, shape):
    """One operation on an array of the given current shape."""
    ndim = len(shape)
    kinds = ["read_basic", "write_basic", "read_ortho", "write_ortho", "attrs"]
    if ndim and all(shape):
        kinds += ["read_coord", "write_coord", "read_mask", "write_mask"]
    if ndim:
        kinds += ["resize", "append"]
    if ndim and all(shape):
        kinds += ["read_blocks", "write_blocks"]
    kind = draw(st.sampled_from(kinds))
    lib = draw(st.sampled_from(["zarr", "zarrhpc"]))
    op = {"kind": kind, "lib": lib}
    chunks = lay["shards"] or lay["chunks"]
    if kind.endswith("basic"):
        op["sel"] = _sel_basic(draw, shape)
    elif kind.endswith("ortho"):
        op["sel"] = _sel_ortho(draw, shape)
    elif kind.endswith("coord"):
        op["sel"] = _sel_coord(draw, shape)
    elif kind.endswith("mask"):
        op["sel"] = _sel_mask(draw, shape)
    elif kind.endswith("blocks"):
        op["sel"] = _sel_blocks(draw, shape, chunks)
    elif kind == "resize":
        op["shape"] = tuple(draw(st.integers(0, 8 if ndim < 3 else 5)) for _ in shape)
    elif kind == "append":
        # zarr-python 3.1 appends along a negative axis wrongly (the array keeps its
        # shape and the data overwrites its end): only zarrhpc gets negative axes
        axis = draw(st.integers(-ndim if lib == "zarrhpc" else 0, ndim - 1))
        ashape = list(shape)
        ashape[axis] = draw(st.integers(0, 4))
        op["axis"] = axis
        op["data_shape"] = tuple(ashape)
        op["seed"] = draw(st.integers(0, 2**31 - 1))
    elif kind == "attrs":
        op["attrs"] = draw(st.dictionaries(st.text("abc", min_size=1, max_size=3),
                                           st.one_of(st.integers(-5, 5), st.text(max_size=3),
                                                     st.lists(st.integers(0, 3), max_size=3)),
                                           max_size=3))
    sub = kind.split("_")[-1]
    if sub in ("basic", "ortho", "coord", "mask", "blocks") and ndim and \
            draw(st.integers(0, 9)) == 0:
        op["sel"] = _invalid_selection(draw, sub, shape)
    if kind.startswith("write"):
        op["draw_values"] = True
    return op


@st.composite
def operations(draw, lay, max_ops: int = 6):
    """A sequence of operations, values drawn against the shape each step will see."""
    shape = lay["shape"]
    ops = []
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(operation(lay, shape))
        if op["kind"] == "resize":
            shape = op["shape"]
        elif op["kind"] == "append":
            shape = list(shape)
            axis = op["axis"] % len(shape)
            shape[axis] += op["data_shape"][axis]
            shape = tuple(shape)
            op["data"] = _values_full(lay, op["data_shape"], op["seed"])
        if op.pop("draw_values", False):
            try:
                tshape = _model_sel_shape(op, shape, lay)
            except Exception:  # noqa: BLE001 - an invalid selection: both must refuse it
                tshape = ()
            op["value"] = _values(draw, lay, tshape)
        ops.append(op)
    return ops


def _values_full(lay, shape, seed):
    dt = model_dtype(lay)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt.kind == "O":
        vals = np.array([f"s{v}" for v in rng.integers(0, 99, n)], dtype=object)
    elif dt.kind in "US":
        vals = np.array([str(v) for v in rng.integers(0, 99, n)], dtype=dt)
    elif dt.kind in "mM":
        vals = rng.integers(-99, 99, n).astype("i8").view(dt)
    elif dt.kind == "b":
        vals = rng.integers(0, 2, n).astype(bool)
    else:
        vals = rng.integers(0, 99, n).astype(dt)
    return vals.reshape(shape)


def _blocks_to_slices(sel, shape, chunks):
    out = []
    for s, n, c in zip(sel, shape, chunks):
        nb = -(-n // c)
        if isinstance(s, (int, np.integer)):
            if not -nb <= s < nb:
                raise IndexError("block index out of range")
            s = s % nb
            out.append(slice(s * c, min((s + 1) * c, n)))
        else:
            a, b, _ = s.indices(nb)
            out.append(slice(a * c, min(b * c, n)))
    return tuple(out)


def model_index(op, shape, lay):
    """The numpy form of the operation's selection: (kind, index) for ``arr[index]``."""
    from zarrhpc.testing.strategies_select import numpy_outer_index

    kind = op["kind"].split("_")[1]
    sel = op["sel"]
    if kind == "basic":
        return "plain", sel
    if kind == "ortho":
        if len(sel) != len(shape):
            raise IndexError("selection arity")
        for s, n in zip(sel, shape):  # numpy skips the bounds check of an empty result
            if isinstance(s, (int, np.integer)) and not -n <= s < n:
                raise IndexError("index out of bounds")
            if isinstance(s, np.ndarray) and s.dtype != bool and s.size and \
                    not ((-n <= s) & (s < n)).all():
                raise IndexError("index out of bounds")
        for s, n in zip(sel, shape):
            if isinstance(s, np.ndarray) and s.dtype == bool and len(s) != n:
                raise IndexError("mask length")
        index, dropped = numpy_outer_index(sel, shape)
        return "outer", (index, dropped)
    if kind == "coord":
        return "plain", sel
    if kind == "mask":
        return "plain", sel
    if kind == "blocks":
        return "plain", _blocks_to_slices(sel, shape, lay["shards"] or lay["chunks"])
    raise AssertionError(kind)


def model_read(model, op, lay):
    how, index = model_index(op, model.shape, lay)
    if how == "outer":
        idx, dropped = index
        out = np.asarray(model[idx] if idx else model[()])
        return out.reshape([n for n, d in zip(out.shape, dropped) if not d])
    return model[index]


def model_write(model, op, lay):
    how, index = model_index(op, model.shape, lay)
    value = op["value"]
    if how == "outer":
        idx, dropped = index
        target = np.asarray(model[idx] if idx else model[()])
        v = np.asarray(value)
        tshape = [n for n, d in zip(target.shape, dropped) if not d]
        v = np.broadcast_to(v, tshape).reshape(target.shape) if v.ndim else v
        if idx:
            model[idx] = v
        else:
            model[()] = v
        return
    model[index] = value


def duplicate_targets(op, shape, lay) -> np.ndarray:
    """Cells a write selection hits more than once: which of the values lands there is
    not defined (numpy happens to keep the last; zarr-python does not always)."""
    hits = np.zeros(shape, dtype=np.int64)
    how, index = model_index(op, shape, lay)
    if how == "outer":
        index = index[0]
    if not isinstance(index, tuple):
        index = (index,)
    if index and all(isinstance(i, np.ndarray) and i.dtype != bool for i in index):
        np.add.at(hits, index, 1)
    return hits > 1


def _model_sel_shape(op, shape, lay):
    tmp = np.zeros(shape, dtype=np.int8)
    return model_read(tmp, op, lay).shape


# ------------------------------------------------------------------------------ session


def _accessor(arr, kind):
    return {"basic": arr, "ortho": arr.oindex, "coord": arr.vindex, "mask": arr.vindex,
            "blocks": arr.blocks}[kind]


class Mismatch(AssertionError):
    pass


class Session:
    """One array in one store, operated on alternately by zarr-python and zarrhpc."""

    def __init__(self, lay, path):
        self.lay = lay
        self.path = str(path)
        create(lay, self.path)
        self.model = fill_array(lay, lay["shape"])
        self.loose = np.zeros(lay["shape"], dtype=bool)
        self.attrs: dict = {}
        self.log: list = []
        self.zarr_refusals = 0

    def open(self, lib):
        import zarr

        if lib == "zarr":
            return zarr.open_array(self.path, mode="r+")
        return zarrhpc.open_array(self.path, mode="r+")

    def _check(self, what, ok_a, got_a, ok_b, got_b, expect_ok, expected, loose=None):
        """Compare the outcomes of zarr-python (``a``) and zarrhpc (``b``), and with the
        model where it is defined.  zarr-python refusing a selection numpy takes (negative
        steps, empty selections on size-0 axes) is tolerated when zarrhpc gives numpy's
        answer; it is counted in ``self.zarr_refusals``."""
        if not ok_a and ok_b and expect_ok:
            self.zarr_refusals += 1
            self._against_model(what, got_b, expected, loose)
            return
        if ok_a != ok_b:
            raise Mismatch(f"{what}: zarr ok={ok_a} ({got_a!r}) vs zarrhpc ok={ok_b} "
                           f"({got_b!r})")
        if not ok_a:
            ca = _builtin_class(got_a)
            same_named = _same_named_class(got_a)
            if not isinstance(got_b, ca) or (same_named is not None and
                                             not isinstance(got_b, same_named)):
                raise Mismatch(f"{what}: error class zarr {type(got_a).__name__}({got_a}) "
                               f"vs zarrhpc {type(got_b).__name__}({got_b})")
            return
        if not same_values(got_a, got_b):
            raise Mismatch(f"{what}: zarr {got_a!r} != zarrhpc {got_b!r}")
        if expect_ok and expected is not None:
            if np.shape(got_b) == (1,) and np.shape(expected) == ():
                # zarr-python's vindex with 0-d index arrays returns shape (1,); zarrhpc
                # follows it
                expected = np.reshape(expected, (1,))
                loose = None if loose is None else np.reshape(loose, (1,))
            self._against_model(what, got_b, expected, loose)
        elif not expect_ok:
            raise Mismatch(f"{what}: both libraries read {got_b!r}, numpy refuses")

    def _against_model(self, what, got_b, expected, loose):
        if loose is not None and np.any(loose):
            got = np.array(got_b, copy=True)
            got[loose] = expected[loose]
        else:
            got = got_b
        if not same_values(got, expected):
            raise Mismatch(f"{what}: zarrhpc read {got_b!r}, model {expected!r}")

    def read_all(self, what):
        res = {}
        for lib in ("zarr", "zarrhpc"):
            try:
                res[lib] = (True, self.open(lib)[...])
            except Exception as exc:  # noqa: BLE001
                res[lib] = (False, exc)
        self._check(what + " / full read", *res["zarr"], *res["zarrhpc"], True, self.model,
                    self.loose)

    def apply(self, op):
        self.log.append(op)
        kind = op["kind"]
        what = f"op {len(self.log)} {op}"
        if kind.startswith("read"):
            sub = kind.split("_")[1]
            try:
                expected = model_read(self.model, op, self.lay)
                exp_ok = True
                loose = model_read(self.loose, op, self.lay)
            except Exception:  # noqa: BLE001
                expected, exp_ok, loose = None, False, None
            res = {}
            for lib in ("zarr", "zarrhpc"):
                try:
                    res[lib] = (True, _accessor(self.open(lib), sub)[op["sel"]])
                except Exception as exc:  # noqa: BLE001
                    res[lib] = (False, exc)
            self._check(what, *res["zarr"], *res["zarrhpc"], exp_ok, expected, loose)
            return
        if kind.startswith("write"):
            sub = kind.split("_")[1]
            model, loose = self.model.copy(), self.loose.copy()
            try:
                model_write(model, op, self.lay)
                model_write(loose, dict(op, value=False), self.lay)
                loose |= duplicate_targets(op, self.model.shape, self.lay)
                exp_ok = True
            except Exception:  # noqa: BLE001 - numpy refuses: both libraries must
                exp_ok = False
            first = op["lib"]
            second = "zarrhpc" if first == "zarr" else "zarr"
            res = {}
            for lib in (first, second):
                try:
                    _accessor(self.open(lib), sub)[op["sel"]] = op["value"]
                    res[lib] = (True, None)
                except Exception as exc:  # noqa: BLE001
                    res[lib] = (False, exc)
                if res[lib][0]:
                    break  # one library wrote it; the full reads below check both
            if res[first][0]:
                if not exp_ok:
                    raise Mismatch(f"{what}: {first} wrote but numpy refuses")
            elif res[second][0]:
                if second == "zarr" or not exp_ok:
                    raise Mismatch(f"{what}: zarr wrote, zarrhpc raised {res[first][1]!r}"
                                   if second == "zarr" else
                                   f"{what}: zarrhpc wrote, zarr raised "
                                   f"{res[first][1]!r} and numpy refuses")
                self.zarr_refusals += 1
            else:
                self._check(what, *res["zarr"], *res["zarrhpc"], False, None)
                if exp_ok:
                    raise Mismatch(f"{what}: both refuse a write numpy takes: "
                                   f"{res['zarrhpc'][1]!r}")
                self.read_all(what)
                return
            self.model, self.loose = model, loose
            self.read_all(what)
            return
        if kind == "resize":
            arr = self.open(op["lib"])
            old = self.model.shape
            arr.resize(op["shape"])
            new = fill_array(self.lay, op["shape"])
            loose = np.zeros(op["shape"], dtype=bool)
            common = tuple(slice(0, min(a, b)) for a, b in zip(old, op["shape"]))
            new[common] = self.model[common]
            loose[common] = self.loose[common]
            # cells beyond the old shape but inside a kept edge chunk: either value
            chunks = self.lay["shards"] or self.lay["chunks"]
            for ax, (o, n, c) in enumerate(zip(old, op["shape"], chunks)):
                if n > o and o % c:
                    idx = [slice(None)] * len(old)
                    idx[ax] = slice(o, min(n, -(-o // c) * c))
                    loose[tuple(idx)] = True
            self.model, self.loose = new, loose
            self.read_all(what)
            return
        if kind == "append":
            first = op["lib"]
            second = "zarrhpc" if first == "zarr" else "zarr"
            res = {}
            for lib in (first, second):
                try:
                    self.open(lib).append(op["data"], axis=op["axis"])
                    res[lib] = (True, None)
                    break
                except Exception as exc:  # noqa: BLE001
                    res[lib] = (False, exc)
            if not res[first][0]:
                if second == "zarr" and res[second][0]:
                    raise Mismatch(f"{what}: zarr appended, zarrhpc raised {res[first][1]!r}")
                if not res[second][0]:
                    raise Mismatch(f"{what}: both refuse: {res}")
                self.zarr_refusals += 1  # zarr-python refuses negative axes, numpy takes
            self.model = np.concatenate([self.model, op["data"]], axis=op["axis"])
            self.loose = np.concatenate([self.loose, np.zeros(op["data"].shape, bool)],
                                        axis=op["axis"])
            self.read_all(what)
            return
        if kind == "attrs":
            arr = self.open(op["lib"])
            arr.attrs.update(op["attrs"])
            self.attrs.update(op["attrs"])
            for lib in ("zarr", "zarrhpc"):
                got = dict(self.open(lib).attrs)
                if got != self.attrs:
                    raise Mismatch(f"{what}: {lib} attrs {got} != {self.attrs}")
            return
        raise AssertionError(kind)


def _same_named_class(exc):
    """zarrhpc.errors' class of the name of zarr-python's exception class, if it has one
    (``except zarr.errors.BoundsCheckError`` must work with ``import zarrhpc as zarr``)."""
    import zarrhpc.errors

    if not type(exc).__module__.startswith("zarr."):
        return None
    return getattr(zarrhpc.errors, type(exc).__name__, None)


def _builtin_class(exc):
    for cls in BUILTIN_ERRORS:
        if isinstance(exc, cls):
            return cls
    return type(exc)
