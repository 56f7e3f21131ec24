"""Hypothesis strategies for orthogonal, coordinate, mask and block selections."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.codecs import ShardingCodec
from zarrhpc.storage import LocalStore, MemoryStore

__all__ = [
    "block_selections",
    "coordinate_selections",
    "layouts",
    "make_array",
    "mask_selections",
    "numpy_oindex",
    "numpy_outer_index",
    "orthogonal_selections",
]

DTYPES = ["i2", "<f8", ">u4", "bool", "c8", "u1"]


def _ortho_item(draw, n: int):
    kinds = ["slice", "intarray", "boolarray"] + (["int"] if n else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        step = st.one_of(st.none(), st.integers(-4, 4).filter(lambda s: s != 0))
        return slice(draw(bound), draw(bound), draw(step))
    if kind == "boolarray":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=2 * n + 2))
    return np.array(idx, dtype=draw(st.sampled_from([np.int64, np.int32, np.intp])))


@st.composite
def orthogonal_selections(draw, shape: tuple[int, ...]):
    """One item per dimension: ints, slices (any step), int arrays (repeats, negatives),
    boolean arrays."""
    return tuple(_ortho_item(draw, n) for n in shape)


@st.composite
def coordinate_selections(draw, shape: tuple[int, ...]):
    """Integer arrays that broadcast together (all dimensions must be non-empty)."""
    ndim = len(shape)
    bshape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=2)))
    sel = []
    for n in shape:
        # each index array has a shape that broadcasts to bshape
        sub = tuple(1 if draw(st.booleans()) else k for k in bshape)
        vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(sub)),
                             max_size=int(np.prod(sub))))
        sel.append(np.array(vals, dtype=np.int64).reshape(sub))
    if ndim == 1 and draw(st.booleans()):
        return sel[0]
    return tuple(sel)


@st.composite
def mask_selections(draw, shape: tuple[int, ...]):
    n = int(np.prod(shape))
    bits = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(bits, dtype=bool).reshape(shape)


@st.composite
def block_selections(draw, shape: tuple[int, ...], chunks: tuple[int, ...]):
    """Block indices or step-1 slices of blocks, inside the block grid."""
    sel = []
    for n, c in zip(shape, chunks):
        nb = -(-n // c)
        if draw(st.booleans()):
            sel.append(draw(st.integers(-nb, nb - 1)))
        else:
            a = draw(st.integers(0, nb - 1))
            b = draw(st.integers(a, nb + 1))
            sel.append(slice(a, b))
    return tuple(sel)


def numpy_outer_index(sel, shape):
    """numpy's form of an orthogonal selection: ``(np.ix_ index, dropped axes)``.

    The oracle of the orthogonal tests: ``a[index]`` reads (or assigns) the selection
    with integer-indexed axes kept as length 1; ``dropped[i]`` marks those axes.
    """
    idx = []
    for s, n in zip(sel, shape):
        if isinstance(s, slice):
            idx.append(np.arange(n)[s])
        elif isinstance(s, np.ndarray) and s.dtype == bool:
            idx.append(np.flatnonzero(s))
        else:
            idx.append(np.atleast_1d(np.asarray(s)))
    return np.ix_(*idx), [isinstance(s, (int, np.integer)) for s in sel]


def numpy_oindex(a: np.ndarray, sel) -> np.ndarray:
    """``a.oindex[sel]`` computed with numpy alone."""
    index, dropped = numpy_outer_index(sel, a.shape)
    out = a[index] if sel else a[()]
    return out.reshape([n for n, d in zip(out.shape, dropped) if not d])


@st.composite
def layouts(draw, min_len=0):
    """An array layout: 1-4-D shape (edge chunks, size-0 axes unless ``min_len``), dtype,
    order, v2/v3, plain/sharded/nested sharding, compressed or not, memory or local."""
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(min_len, 7 if ndim < 3 else 4)) for _ in range(ndim))
    kind = draw(st.sampled_from(["plain", "plain", "sharded", "nested"]))
    fmt = 2 if kind == "plain" and draw(st.booleans()) else 3
    inner = tuple(draw(st.integers(1, 2)) for _ in range(ndim))
    chunks = tuple(i * draw(st.integers(1, 2)) for i in inner)
    shards = tuple(c * draw(st.integers(1, 2)) for c in chunks) if kind != "plain" else None
    return {"shape": shape, "chunks": chunks, "shards": shards, "kind": kind, "fmt": fmt, "inner": inner,
                "dtype": draw(st.sampled_from(DTYPES)), "order": draw(st.sampled_from("CF")),
                "compressed": draw(st.booleans()), "local": draw(st.booleans())}


def make_array(layout, tmp):
    """A zarrhpc array for ``layout`` (from :func:`layouts`) holding random small ints,
    and a numpy copy of its contents."""
    store = LocalStore(tmp) if layout["local"] else MemoryStore()
    kw = {"shape": layout["shape"], "chunks": layout["chunks"], "dtype": layout["dtype"],
          "zarr_format": layout["fmt"], "fill_value": 0}
    if layout["fmt"] == 3:  # a v3 array's memory order is a config setting (zarr-python)
        kw["config"] = {"order": layout["order"]}
    else:
        kw["order"] = layout["order"]
    if layout["fmt"] == 3:
        kw["compressors"] = ({"name": "zstd", "configuration": {"level": 1}}
                             if layout["compressed"] else None)
    else:
        kw["compressors"] = ({"id": "zstd", "level": 1} if layout["compressed"] else None)
    if layout["shards"] is not None:
        kw["shards"] = layout["shards"]
    if layout["kind"] == "nested":
        kw["serializer"] = ShardingCodec(layout["inner"])
        kw["compressors"] = None
    a = zarrhpc.create_array(store, **kw)
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 5, size=layout["shape"]).astype(layout["dtype"])
    a[...] = ref
    return a, ref
