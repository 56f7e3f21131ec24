"""Random programs on layouts the other differential tests leave out, against numpy.

Each program writes and reads one array many times (every selection form: basic with
steps and integers, orthogonal, coordinate, mask, blocks), shrinks and grows it, and
reads into caller buffers (``out=``) that are not C-contiguous (strided views,
F-ordered, transposed). Every read is compared with a numpy model; at the end
zarr-python reads the store and must see what zarrhpc sees. Layouts:

- variable-length strings: v3 ``string`` plain and inside shards, v2 object arrays
  (``vlen-utf8``) in C and F order;
- numeric v2 arrays in F order (compressed), and v3 sharded with a transpose;
- structured dtypes (v2 and v3) with ``fields=`` reads and writes of one field;
- the rectilinear chunk grid (zarr-python cannot read it: the model alone).

Cells a shrink then a grow expose again hold what zarr-python's rule leaves there
(edge chunks keep what lay past the edge); they are compared between zarrhpc and
zarr-python only.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage import LocalStore, MemoryStore
from zarrhpc.testing.differential import resize_model

zarr = pytest.importorskip("zarr")

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::FutureWarning")]

STRUCT = [("a", "<i4"), ("b", "<f8"), ("c", "S3")]
LAYOUTS = {
    "str-v3": dict(shape=(9, 7), chunks=(4, 3), dtype=str, fill_value=""),
    "str-sharded": dict(shape=(9, 7), chunks=(2, 3), shards=(4, 6), dtype=str, fill_value=""),
    "str-v2-C": dict(shape=(9, 7), chunks=(4, 3), dtype=str, fill_value="", zarr_format=2),
    "str-v2-F": dict(shape=(9, 7), chunks=(4, 3), dtype=str, fill_value="", zarr_format=2,
                     order="F"),
    "i4-v2-F": dict(shape=(9, 7), chunks=(4, 3), dtype="<i4", fill_value=-1, zarr_format=2,
                    order="F", compressors={"id": "zstd", "level": 1}),
    "f8-v2-F-be": dict(shape=(6, 5, 4), chunks=(4, 2, 3), dtype=">f8", fill_value=-1.5,
                       zarr_format=2, order="F", compressors=None),
    "i2-sharded-T": dict(shape=(9, 7), chunks=(2, 3), shards=(4, 6), dtype="<i2",
                         fill_value=-1, filters=[{"name": "transpose",
                                                  "configuration": {"order": [1, 0]}}]),
    "struct-v2": dict(shape=(9, 7), chunks=(4, 3), dtype=STRUCT, zarr_format=2),
    "struct-v2-F": dict(shape=(9, 7), chunks=(4, 3), dtype=STRUCT, zarr_format=2, order="F"),
    "struct-v3": dict(shape=(9, 7), chunks=(4, 3), dtype=STRUCT),
    "rect": dict(shape=(10, 7), chunks=[[1, 3, 2, 4], [3, 1, 3]], dtype="<i4", fill_value=-1),
    "rect-1d": dict(shape=(11,), chunks=[[4, 1, 2, 4]], dtype="<u2", fill_value=7),
}
POOL = np.array(["", "a", "héllo", "xyz", "ñ\x00b", "a longer string than fifteen bytes"],
                dtype=object)


def _model_dtype(lay):
    return np.dtype(object) if lay["dtype"] is str else np.dtype(lay["dtype"])


def _fill(lay):
    dt = _model_dtype(lay)
    if dt.kind == "V":
        return np.zeros((), dtype=dt)
    return lay.get("fill_value", 0)


def _values(rng, lay, shape, field=None):
    n = int(np.prod(shape))
    dt = _model_dtype(lay)
    if field is not None:
        dt = dt[field]
    if dt.kind == "O":
        return POOL[[rng.randrange(len(POOL)) for _ in range(n)]].reshape(shape)
    if dt.kind == "V":
        out = np.zeros(n, dtype=dt)
        for name in dt.names:
            out[name] = _values(rng, dict(lay, dtype=dt[name]), (n,))
        return out.reshape(shape)
    if dt.kind == "S":
        return np.array([b"", b"ab", b"q\x00", b"xyz"], dtype=dt)[
            [rng.randrange(4) for _ in range(n)]].reshape(shape)
    if dt.kind == "f":
        return (np.array([rng.randrange(-40, 40) for _ in range(n)]) / 4).astype(dt).reshape(shape)
    return np.array([rng.randrange(0, 300) for _ in range(n)]).astype(dt).reshape(shape)


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "OT" or b.dtype.kind in "OT":
        return [str(x) for x in a.ravel()] == [str(x) for x in b.ravel()]
    return a.tobytes() == b.astype(a.dtype).tobytes() if a.dtype.kind == "V" else bool(
        np.array_equal(a, b))


def _edges(arr, shape):
    chunks = arr.shards or arr.chunks  # blocks are shards in a sharded array
    if chunks and isinstance(chunks[0], tuple):  # rectilinear: the edges per axis
        return [list(c) for c in chunks]
    return [[c] * -(-n // c) if n else [c] for n, c in zip(shape, chunks)]


def _selection(rng, kind, shape, edges):
    if kind == "basic":
        sel = []
        for n in shape:
            if n and rng.random() < 0.2:
                sel.append(rng.randrange(-n, n))
                continue
            a, b = sorted(rng.randrange(0, n + 1) for _ in range(2))
            sel.append(slice(a, b, rng.choice([1, 1, 2, 3])))
        return tuple(sel)
    if kind == "oindex":
        sel = []
        for n in shape:
            if rng.random() < 0.5 or not n:
                a, b = sorted(rng.randrange(0, n + 1) for _ in range(2))
                sel.append(slice(a, b))
            else:  # distinct, any order
                sel.append(np.array(rng.sample(range(n), rng.randrange(1, n + 1))))
        return tuple(sel)
    if kind == "vindex":
        cells = [tuple(rng.randrange(n) for n in shape) for _ in range(rng.randrange(1, 8))]
        cells = list(dict.fromkeys(cells))  # distinct points: a write is then well defined
        return tuple(np.array([c[d] for c in cells]) for d in range(len(shape)))
    if kind == "mask":
        return np.array([rng.random() < 0.4 for _ in range(int(np.prod(shape)))]).reshape(shape)
    sel = []  # blocks
    for e, n in zip(edges, shape):
        nb = max(1, len([x for x in np.cumsum([0] + e[:-1]) if x < n]))
        a = rng.randrange(nb)
        sel.append(slice(a, rng.randrange(a + 1, nb + 1)))
    return tuple(sel)


def _block_slices(sel, edges, shape):
    out = []
    for s, e, n in zip(sel, edges, shape):
        starts = np.cumsum([0] + e)
        out.append(slice(int(starts[s.start]), min(int(starts[s.stop]), n)))
    return tuple(out)


def _model_sel(kind, sel, edges, shape):
    if kind == "oindex":
        return np.ix_(*[np.arange(n)[s] if isinstance(s, slice) else s
                        for s, n in zip(sel, shape)])
    if kind == "blocks":
        return _block_slices(sel, edges, shape)
    return sel


def _accessor(arr, kind):
    return {"basic": arr, "oindex": arr.oindex, "vindex": arr.vindex, "mask": arr.vindex,
            "blocks": arr.blocks}[kind]


_GETTERS = {"basic": "get_basic_selection", "oindex": "get_orthogonal_selection",
            "vindex": "get_coordinate_selection", "mask": "get_mask_selection"}
_SETTERS = {"basic": "set_basic_selection", "oindex": "set_orthogonal_selection",
            "vindex": "set_coordinate_selection", "mask": "set_mask_selection"}


def _strided_out(rng, shape, dtype):
    """A buffer of ``shape`` that is not C-contiguous (when it has 2+ elements)."""
    how = rng.choice(["step", "F", "T"])
    if how == "step" and shape:
        base = np.zeros((shape[0] * 2 + 1,) + tuple(shape[1:]), dtype=dtype)
        return base[1::2]
    if how == "T" and len(shape) > 1:
        return np.zeros(tuple(shape)[::-1], dtype=dtype).T
    return np.zeros(shape, dtype=dtype, order="F")


def _run(seed, tmp_path):
    rng = random.Random(seed)
    name = rng.choice(sorted(LAYOUTS))
    lay = LAYOUTS[name]
    local = rng.random() < 0.5
    store = LocalStore(str(tmp_path / f"a{seed}")) if local else MemoryStore()
    arr = zarrhpc.create_array(store, **lay)
    dt = _model_dtype(lay)
    model = np.full(arr.shape, _fill(lay), dtype=dt)
    loose = np.zeros(model.shape, dtype=bool)
    largest = model.shape
    log = [name, "local" if local else "memory"]
    for _step in range(30):
        shape = model.shape
        edges = _edges(arr, shape)
        what = rng.random()
        kind = rng.choice(["basic", "oindex", "vindex", "mask", "blocks"])
        if not all(shape) and kind != "basic":
            kind = "basic"
        sel = _selection(rng, kind, shape, edges)
        msel = _model_sel(kind, sel, edges, shape)
        field = None
        if dt.kind == "V" and kind != "blocks" and rng.random() < 0.6:
            field = rng.choice(dt.names)
        log.append((kind, field, "write" if what < 0.45 else "read"))
        if what < 0.45:
            target = np.asarray(model[msel][field] if field else model[msel])
            value = _values(rng, lay, target.shape, field)
            if rng.random() < 0.2 and value.size:
                value = value.reshape(-1)[0]  # a scalar, broadcast
            if field:
                getattr(arr, _SETTERS[kind])(sel, value, fields=field)
                view = model[field]
                view[msel] = value
            else:  # (a field write leaves a loose cell's other fields loose)
                _accessor(arr, kind)[sel] = value
                model[msel] = value
                loose[msel] = False
        elif what < 0.85:
            want = model[msel]
            if field:
                want = want[field]
            if kind != "blocks" and (field or rng.random() < 0.5):
                out = None
                if rng.random() < 0.5 and dt.kind != "O" and want.ndim:
                    odt = arr.dtype[field] if field else arr.dtype
                    out = _strided_out(rng, want.shape, odt)
                got = getattr(arr, _GETTERS[kind])(sel, out=out, fields=field)
                if out is not None:
                    got = out
            else:
                got = _accessor(arr, kind)[sel]
            keep = ~np.asarray(loose[msel])
            assert _same(np.asarray(got)[keep], np.asarray(want)[keep]), (seed, log, sel)
        else:
            new = tuple(max(1, n + rng.randrange(-3, 3)) for n in shape)
            arr.resize(new)
            model, loose, largest = resize_model(model, loose, largest, new, _fill(lay))
            log.append(("resize", new))
    final = zarrhpc.open_array(store, mode="r")[...]
    assert _same(final[~loose], model[~loose]), (seed, log)
    if name.startswith("rect") or name == "struct-v3":  # zarr-python reads neither
        return
    if not local:  # zarr-python reads the same bytes from its own store
        zstore = zarr.storage.MemoryStore()
        for key in store.list():
            zstore._store_dict[key] = zarr.core.buffer.cpu.Buffer.from_bytes(bytes(store.get(key)))
    else:
        zstore = str(tmp_path / f"a{seed}")
    theirs = zarr.open_array(zstore, mode="r")[...]
    assert _same(theirs, final), (seed, log)


@pytest.mark.parametrize("seed", range(2000 if os.environ.get("ZARRHPC_LONG") else 120))
def test_random_programs(tmp_path, seed):
    _run(seed, tmp_path)
