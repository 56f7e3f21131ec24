"""Differential testing of long-lived handles: two worlds, one program, one numpy model.

Where :mod:`zarrhpc.testing.differential` reopens the array before every operation, this
harness keeps Array objects alive across a program, as a dask worker or an xarray backend
keeps them: several handles on one array, each written, read, resized and reopened in
turn, so that what a handle caches (prepared forms, shard-key and shard-index caches,
metadata, open archives, named memory stores) meets what another handle changed.

Life cycle: a hypothesis strategy draws a layout (the one of ``differential.layouts``)
plus a store kind (``local``, ``memory://name``, ``memory`` object, ``zip``, ``cache``: one
small CacheStore over a directory, odd handles through a view of it) and a
``write_empty_chunks`` setting per handle, then a program of operations, each through
one handle: reads and writes in every form (basic with any step, orthogonal, coordinate,
mask, blocks, scalar broadcast, ``out=``), resize (shrink then grow), append, reopen. The
program runs twice:

- world **Z**: zarr-python on a local directory, every handle a zarr-python Array: the
  reference, including what it does with stale metadata;
- world **H**: zarrhpc on the drawn store kind, every handle a zarrhpc Array (on a local
  store some handles are zarr-python's, writing under zarrhpc's caches).

Every read is compared between the worlds exactly (values, or the builtin class of the
error), and with the numpy model when the handle's shape is the array's (cells a shrink
left to zarr-python's discretion, ``loose``, excepted); after every change a fresh open
of each world reads the whole array. At the end the stored chunk keys must be the same.

Operations whose outcome is zarr-python's choice rather than a fact of the data are not
drawn: resizes and appends go through handles that see the current shape (zarrhpc
erases stale chunks past the old shape on growth, zarr-python keeps them); writes through
a stale handle only when its shape lies within the array's. A selection zarr-python
refuses where numpy accepts it (negative steps) is skipped in both worlds.
"""

from __future__ import annotations

import os
import uuid

import numpy as np
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.testing.differential import (
    _accessor,
    _builtin_class,
    _invalid_selection,
    _sel_basic,
    _sel_blocks,
    _sel_coord,
    _sel_mask,
    _sel_ortho,
    _to_zarrhpc,
    _values,
    _values_full,
    create_kwargs,
    duplicate_targets,
    fill_array,
    layouts,
    model_read,
    model_write,
    same_values,
)

__all__ = ["Program", "STORE_KINDS", "programs", "run_program"]

STORE_KINDS = ["local", "local", "memory-url", "memory", "zip", "cache"]


class Program(dict):
    """A layout, a store kind, handles and operations (a dict with a readable repr)."""


@st.composite
def programs(draw, max_ops: int = 10, big: bool = False, kinds=tuple(STORE_KINDS)):
    """A program (see the module docstring); ``kinds``: the store kinds to draw from
    (``"s3"``: a bucket of the S3 server given to `run_program`)."""
    lay = draw(layouts(big=big))
    kind = draw(st.sampled_from(list(kinds)))
    nh = draw(st.integers(2, 3))
    libs = ["zarrhpc"] + [draw(st.sampled_from(["zarrhpc", "zarr"])) if kind == "local"
                          else "zarrhpc" for _ in range(nh - 1)]
    wec = [draw(st.booleans()) for _ in range(nh)]
    shapes = [lay["shape"]] * nh  # what each handle sees
    current = lay["shape"]
    ops = []
    for _ in range(draw(st.integers(1, max_ops))):
        h = draw(st.integers(0, nh - 1))
        op = _operation(draw, lay, shapes[h], current, h)
        if op["kind"] in ("resize", "append"):
            # every other handle keeps its (now stale) shape
            shapes[h] = current = op["new_shape"]
        elif op["kind"] == "reopen":
            shapes[h] = current
            op["wec"] = draw(st.booleans())
        ops.append(op)
    return Program(lay=lay, kind=kind, libs=libs, wec=wec, ops=ops)


def _operation(draw, lay, shape, current, h):
    ndim = len(shape)
    fresh = tuple(shape) == tuple(current)
    can_write = all(s <= c for s, c in zip(shape, current))
    forms = ["basic", "ortho"]
    if ndim and all(shape):
        forms += ["coord", "mask", "blocks"]
    kinds = ["read"] * 3 + ["reopen"]
    if can_write:
        kinds += ["write"] * 3
    if fresh and ndim:
        kinds += ["resize", "append"]
    kind = draw(st.sampled_from(kinds))
    op = {"kind": kind, "h": h}
    if kind in ("read", "write"):
        form = op["form"] = draw(st.sampled_from(forms))
        chunks = lay["shards"] or lay["chunks"]
        op["sel"] = {"basic": lambda: _sel_basic(draw, shape),
                     "ortho": lambda: _sel_ortho(draw, shape),
                     "coord": lambda: _sel_coord(draw, shape),
                     "mask": lambda: _sel_mask(draw, shape),
                     "blocks": lambda: _sel_blocks(draw, shape, chunks)}[form]()
        if ndim and draw(st.integers(0, 11)) == 0:
            op["sel"] = _invalid_selection(draw, form, shape)
        if kind == "read":
            op["out"] = form in ("basic", "ortho") and draw(st.integers(0, 3)) == 0
        else:
            try:
                tshape = _model_read(np.zeros(shape, "i1"), op, lay).shape
                dup = _repeats(op["sel"], shape) if form == "ortho" else \
                    duplicate_targets({"kind": "write_" + form, "sel": op["sel"]}, shape,
                                      lay).any()
            except Exception:  # noqa: BLE001 - an invalid selection: both must refuse
                tshape, dup = (), False
            if dup:  # which of a repeated index's values lands is not defined: a read
                op["kind"], op["out"] = "read", False
                return op
            op["value"] = _values(draw, lay, tshape)
    elif kind == "resize":
        op["new_shape"] = tuple(draw(st.integers(0, 8 if ndim < 3 else 5)) for _ in shape)
    elif kind == "append":
        axis = op["axis"] = draw(st.integers(0, ndim - 1))
        dshape = list(shape)
        dshape[axis] = draw(st.integers(0, 4))
        op["data"] = _values_full(lay, tuple(dshape), draw(st.integers(0, 2**31 - 1)))
        new = list(shape)
        new[axis] += dshape[axis]
        op["new_shape"] = tuple(new)
    return op


def _repeats(sel, shape) -> bool:
    """An orthogonal selection naming an index twice on some dimension."""
    for s, n in zip(sel if isinstance(sel, tuple) else (sel,), shape):
        if isinstance(s, np.ndarray) and s.dtype != bool and s.size:
            if len(np.unique(s % max(n, 1))) < s.size:
                return True
    return False


def _model_read(model, op, lay):
    return model_read(model, {"kind": "read_" + op["form"], "sel": op["sel"]}, lay)


def _model_write(model, op, lay, value):
    model_write(model, {"kind": "write_" + op["form"], "sel": op["sel"], "value": value}, lay)


# ---------------------------------------------------------------------------- worlds


class Mismatch(AssertionError):
    pass


class World:
    """One store and the handles of a program on it."""

    def __init__(self, prog, root, reference: bool, s3=None):
        import zarr

        self.zarr = zarr
        self.options = None
        self.lay = prog["lay"]
        self.reference = reference
        self.kind = "local" if reference else prog["kind"]
        self.libs = ["zarr"] * len(prog["libs"]) if reference else list(prog["libs"])
        self.path = os.path.join(root, "z.zarr" if reference else "h.zarr")
        if self.kind == "zip":
            self.path = os.path.join(root, "h.zip")
        elif self.kind == "memory-url":
            self.path = f"memory://hunt-{uuid.uuid4().hex}"
        elif self.kind == "memory":
            self.path = zarrhpc.storage.MemoryStore()
        elif self.kind == "s3":  # every handle its own store object on the URL
            bucket, self.options = s3
            self.path = f"s3://{bucket}/{uuid.uuid4().hex}"
        elif self.kind == "cache":  # one small CacheStore over a directory; odd handles
            from zarrhpc.storage.cache import CacheStore  # through a view sharing it

            self.source = os.path.join(root, "h.zarr")
            self.path = CacheStore(zarrhpc.storage.LocalStore(self.source),
                                   cache_store=zarrhpc.storage.MemoryStore(), max_size=1500)
        self._create()
        self.handles = [self.open(i, prog["wec"][i]) for i in range(len(self.libs))]

    def _create(self):
        kw = create_kwargs(self.lay)
        if self.reference:
            self.zarr.create_array(self.path, **kw)
        else:
            zarrhpc.create_array(self.path, storage_options=self.options,
                                 **_to_zarrhpc(kw))

    def open(self, i, wec: bool):
        if self.libs[i] == "zarr":
            # zarr-python 3.1 ignores open_array's ``config``: its with_config does not
            a = self.zarr.open_array(self.path, mode="r+")
            return a.with_config({"write_empty_chunks": wec})
        path = self.path
        if self.kind == "cache" and i % 2:
            path = path.with_read_only(False)
        return zarrhpc.open_array(path, mode="r+", config={"write_empty_chunks": wec},
                                  storage_options=self.options)

    def fresh_reads(self):
        """The whole array through fresh opens: ``[(who, ok, value or exc)]``."""
        libs = ["zarr"] if self.reference else (
            ["zarrhpc", "zarr"] if self.kind in ("local", "cache") else ["zarrhpc"])
        out = []
        for lib in libs:
            mod = self.zarr if lib == "zarr" else zarrhpc
            path = self.source if lib == "zarr" and self.kind == "cache" else self.path
            try:
                kw = {} if lib == "zarr" else {"storage_options": self.options}
                out.append((lib, True, mod.open_array(path, mode="r", **kw)[...]))
            except Exception as exc:  # noqa: BLE001
                out.append((lib, False, exc))
        return out

    def close(self):
        """Close the handles' stores (a zip archive is finished when its store closes)."""
        for a in self.handles:
            close = getattr(getattr(a, "store", None), "close", None)
            if close is not None and self.kind == "zip":
                close()

    def chunk_keys(self):
        if self.kind not in ("local", "cache"):
            return None
        root = self.source if self.kind == "cache" else self.path
        return sorted(os.path.relpath(os.path.join(d, f), root)
                      for d, _, fs in os.walk(root) for f in fs
                      if f not in ("zarr.json", ".zarray", ".zattrs", ".zgroup"))

    def apply(self, op):
        """``(ok, value or exception)`` of the operation through its handle."""
        a = self.handles[op["h"]]
        try:
            kind = op["kind"]
            if kind == "read":
                if op.get("out") and not self.reference and self.libs[op["h"]] == "zarrhpc":
                    return True, _read_out(a, op)
                return True, _accessor(a, op["form"])[op["sel"]]
            if kind == "write":
                _accessor(a, op["form"])[op["sel"]] = op["value"]
            elif kind == "resize":
                a.resize(op["new_shape"])
            elif kind == "append":
                a.append(op["data"], axis=op["axis"])
            elif kind == "reopen":
                self.handles[op["h"]] = self.open(op["h"], op["wec"])
            return True, None
        except Exception as exc:  # noqa: BLE001
            return False, exc


def _read_out(a, op):
    """A read into a caller's buffer (zarrhpc's ``out=``), prefilled with garbage."""
    probe = _accessor(a, op["form"])[op["sel"]]
    out = np.empty(np.shape(probe), dtype=a.dtype)
    if out.dtype.kind not in "OT" and out.size:
        out.reshape(-1).view(np.uint8)[...] = 0xA5
    if op["form"] == "basic":
        a.get_basic_selection(op["sel"], out=out)
    else:
        a.get_orthogonal_selection(op["sel"], out=out)
    return out


def run_program(prog, root, s3=None) -> dict:
    """Run ``prog`` in both worlds (see the module docstring); raises :class:`Mismatch`.
    ``s3``: ``(bucket, storage_options)`` of an S3 server for the ``"s3"`` store kind.
    Returns counters (operations skipped as zarr-python refusals)."""
    lay = prog["lay"]
    z = World(prog, root, reference=True)
    hw = World(prog, root, reference=False, s3=s3)
    model = fill_array(lay, lay["shape"])
    loose = np.zeros(lay["shape"], dtype=bool)
    shapes = [lay["shape"]] * len(prog["libs"])
    stats = {"refused": 0, "ops": 0}
    for n, op in enumerate(prog["ops"]):
        what = f"op {n} {op!r} (handles {prog['libs']}, store {prog['kind']})"
        hshape = shapes[op["h"]]
        # the handle's (possibly smaller) view of the array: numpy's answers when it
        # lies within the array (Ellipsis: a 0-d view, not a scalar)
        within = all(s <= c for s, c in zip(hshape, model.shape))
        view = tuple(slice(0, s) for s in hshape) + (Ellipsis,)
        if op["kind"] == "write":
            try:  # numpy's answer on the handle's (possibly smaller) view of the array
                new_model, new_loose = model.copy(), loose.copy()
                _model_write(new_model[view], op, lay, op["value"])
                _model_write(new_loose[view], op, lay, False)
                dup = duplicate_targets({"kind": "write_" + op["form"], "sel": op["sel"]},
                                        hshape, lay)
                new_loose[view] |= dup
                if tuple(hshape) != model.shape:
                    # a stale handle's write of its edge chunks may put the fill value
                    # past its edge (zarr-python does, on a step-1 slice reaching it):
                    # those cells are compared between the worlds only
                    chunks = lay["shards"] or lay["chunks"]
                    ext = tuple(slice(0, -(-s // c) * c) for s, c in zip(hshape, chunks))
                    past = np.zeros(model.shape, dtype=bool)
                    past[ext] = True
                    past[view] = False
                    new_loose |= past
                exp_ok = True
            except Exception:  # noqa: BLE001
                exp_ok = False
        exp_ok = exp_ok if op["kind"] == "write" else False
        if op["kind"] == "read" and within:
            try:
                exp = _model_read(model[view], op, lay)
                lz = _model_read(loose[view], op, lay)
                exp_ok = True
            except Exception:  # noqa: BLE001
                exp_ok = False
        ok_z, got_z = z.apply(op)
        if op["kind"] in ("read", "write") and not within and not ok_z and \
                type(got_z).__name__ == "NegativeStepError" and \
                hw.libs[op["h"]] == "zarrhpc":
            stats["refused"] += 1  # a stale handle: no model to check against
            if op["kind"] == "read":
                hw.apply(op)
            continue
        if op["kind"] in ("read", "write") and within and not ok_z and exp_ok and \
                hw.libs[op["h"]] == "zarrhpc":
            # zarr-python refuses what numpy takes (negative steps): a write is not run
            # in H; a read must give numpy's answer
            stats["refused"] += 1
            if op["kind"] == "read":
                ok_h, got_h = hw.apply(op)
                if not ok_h:
                    raise Mismatch(f"{what}: zarrhpc refuses a read numpy takes: {got_h!r}")
                _against_model(what, got_h, exp, lz)
            continue
        ok_h, got_h = hw.apply(op)
        stats["ops"] += 1
        if op["kind"] == "read" and not ok_z and ok_h and np.size(got_h) == 0 and \
                not exp_ok:
            # empty selections on size-0 axes: zarr-python and this harness's numpy
            # model refuse some that zarrhpc answers with an empty result
            stats["refused"] += 1
            continue
        _compare(what + " / result", ok_z, got_z, ok_h, got_h)
        if op["kind"] == "read":
            if ok_h and within:
                if not exp_ok:
                    raise Mismatch(f"{what}: both read {got_h!r}, numpy refuses")
                _against_model(what, got_h, exp, lz)
            continue
        if not ok_h:
            if op["kind"] == "write" and exp_ok and hw.libs[op["h"]] == "zarrhpc":
                raise Mismatch(f"{what}: both refuse a write numpy takes: {got_h!r}")
            continue
        if op["kind"] == "write":
            if not exp_ok:
                raise Mismatch(f"{what}: both wrote, numpy refuses")
            model, loose = new_model, new_loose
        elif op["kind"] in ("resize", "append"):
            model, loose = _resized(lay, model, loose, op)
            shapes[op["h"]] = op["new_shape"]
        elif op["kind"] == "reopen":
            shapes[op["h"]] = model.shape
            continue
        ref = z.fresh_reads()
        for who, ok, got in hw.fresh_reads() + ref:
            _compare(f"{what} / fresh {who} read", ref[0][1], ref[0][2], ok, got)
            if ok:
                _against_model(f"{what} / fresh {who} read", got, model, loose)
    hw.close()
    kz, kh = z.chunk_keys(), hw.chunk_keys()
    if kh is not None and kz != kh:
        raise Mismatch(f"stored chunks differ: zarr-python {kz} vs zarrhpc {kh}")
    return stats


def _resized(lay, model, loose, op):
    new = fill_array(lay, op["new_shape"])
    nloose = np.zeros(op["new_shape"], dtype=bool)
    if op["kind"] == "append":
        new = np.concatenate([model, op["data"]], axis=op["axis"])
        nloose = np.concatenate([loose, np.zeros(op["data"].shape, bool)], axis=op["axis"])
        return new, nloose
    common = tuple(slice(0, min(a, b)) for a, b in zip(model.shape, op["new_shape"]))
    new[common] = model[common]
    nloose[common] = loose[common]
    chunks = lay["shards"] or lay["chunks"]
    for ax, (o, n, c) in enumerate(zip(model.shape, op["new_shape"], chunks)):
        if n > o and o % c:  # beyond the old edge inside a kept edge chunk
            idx = [slice(None)] * len(o if isinstance(o, tuple) else model.shape)
            idx[ax] = slice(o, min(n, -(-o // c) * c))
            nloose[tuple(idx)] = True
    return new, nloose


def _compare(what, ok_a, got_a, ok_b, got_b):
    if ok_a != ok_b:
        raise Mismatch(f"{what}: zarr-python ok={ok_a} ({got_a!r}) vs zarrhpc ok={ok_b} "
                       f"({got_b!r})")
    if not ok_a:
        ca = _builtin_class(got_a)
        if not isinstance(got_b, ca):
            raise Mismatch(f"{what}: error class zarr-python {type(got_a).__name__}({got_a})"
                           f" vs zarrhpc {type(got_b).__name__}({got_b})")
        return
    if got_a is None and got_b is None:
        return
    if not same_values(got_a, got_b):
        raise Mismatch(f"{what}: zarr-python {got_a!r} != zarrhpc {got_b!r}")


def _against_model(what, got, expected, loose):
    if np.shape(got) == (1,) and np.shape(expected) == ():
        expected = np.reshape(expected, (1,))  # zarr-python's vindex of 0-d indices
        loose = np.reshape(loose, (1,))
    if np.any(loose):
        got = np.array(got, copy=True)
        got[loose] = expected[loose]
    if not same_values(got, expected):
        raise Mismatch(f"{what}: read {got!r}, model {expected!r}")
