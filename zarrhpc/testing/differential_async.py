"""Differential programs on the async API: gathered calls on one store vs a sequential run.

Why: ``zarrhpc.api.asynchronous`` runs every awaited call in a worker thread of the event
loop, so ``asyncio.gather`` puts reads, writes, resizes, appends and attribute updates of
one array side by side, on several handles of it, beside synchronous calls. Whatever
order the calls take, the result must be what some sequential order gives; the programs
only gather calls whose effects commute (disjoint boxes, distinct points, distinct
attribute keys, appended rows compared as a set, a grow beside writes inside the old
shape), so that result is known.

Life cycle of one program (``run_program(seed, root)``):

- Draw an array (1-3 dimensions, v2 or v3, sharded or not, a compressor, a dtype) and
  create it with the async API; open 1-3 more async handles of it (same store, path).
- Phase 1: gather writes of disjoint random boxes (``setitem``, ``oindex.setitem``,
  ``vindex.setitem`` of a box's points) spread over the handles, attribute updates with
  distinct keys and reads of random boxes (each element read must be its value before
  or after the phase's write of it).
- Phase 2: synchronous writes of random boxes and a sync attribute update.
- Phase 3 (first axis grows): gather appends of distinct rows with attribute updates;
  the appended rows, as a set, must be the ones sent.
- Phase 4: gather a grow (resize) with writes inside the old shape and reads.
- The stored array (a fresh synchronous handle), its attributes and zarr-python's read
  must equal the numpy model.

Outcome: ``calls`` (awaited calls run), ``problems`` (one line each). The test is
tests/reliability/test_async_differential.py (a short run in ``make test`` with a
planted-wrong-value self-check; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import asyncio
import dataclasses
import warnings

import numpy as np

import zarrhpc
import zarrhpc.api.asynchronous as za

__all__ = ["Outcome", "run_program"]


@dataclasses.dataclass
class Outcome:
    calls: int = 0
    problems: list = dataclasses.field(default_factory=list)


def _layout(rng):
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(2, 13 if ndim < 3 else 7)) for _ in range(ndim))
    chunks = tuple(int(rng.integers(1, s + 1)) for s in shape)
    fmt = int(rng.choice([2, 3]))
    kw = {"shape": shape, "chunks": chunks, "zarr_format": fmt,
          "dtype": str(rng.choice(["i4", "<f8", ">i2", "u1"])), "fill_value": 0}
    if fmt == 3 and rng.random() < 0.3:
        kw["shards"] = tuple(c * int(rng.integers(1, 3)) for c in chunks)
    if rng.random() < 0.5:
        kw["compressors"] = None
    return kw


def _disjoint_boxes(rng, shape, n):
    """Up to ``n`` boxes that share no element (cut one by one out of the whole)."""
    boxes, taken = [], np.zeros(shape, bool)
    for _ in range(4 * n):
        if len(boxes) == n:
            break
        lo = [int(rng.integers(0, s)) for s in shape]
        box = tuple(slice(a, int(rng.integers(a + 1, s + 1))) for a, s in zip(lo, shape))
        if not taken[box].any():
            taken[box] = True
            boxes.append(box)
    return boxes


def _points(box):
    grids = np.meshgrid(*(np.arange(b.start, b.stop) for b in box), indexing="ij")
    return tuple(g.ravel() for g in grids)


class _Program:
    def __init__(self, seed, root):
        self.rng = np.random.default_rng(seed)
        self.root = root
        self.out = Outcome()
        self.kw = _layout(self.rng)
        self.label = f"seed {seed} {self.kw}"
        self.attrs: dict = {}
        self.tag = 1

    def values(self, shape):
        self.tag += 1
        base = self.tag * 7 % 97 + 1
        return (base + np.arange(int(np.prod(shape))).reshape(shape) % 5).astype(self.kw["dtype"])

    async def write(self, h, box, value):
        how = str(self.rng.choice(["setitem", "oindex", "vindex"]))
        if how == "setitem":
            await h.setitem(box, value)
        elif how == "oindex":
            await h.oindex.setitem(tuple(np.arange(b.start, b.stop) for b in box), value)
        else:
            await h.vindex.setitem(_points(box), value.ravel())
        return how

    async def read(self, h, box, before, after):
        got = await h.getitem(box)
        ok = (got == before[box]) | (got == after[box])
        if not ok.all():
            self.out.problems.append(f"{self.label}: a read beside writes gave "
                                     f"{got[~ok][:3]!r}, neither the old nor the new value")

    async def phase(self, handles, model, shape, extra=()):
        """Gathered disjoint writes, attribute updates and reads; the model follows."""
        before = model.copy()
        calls = []
        for box in _disjoint_boxes(self.rng, shape, int(self.rng.integers(1, 9))):
            value = self.values(model[box].shape)
            model[box] = value
            calls.append(self.write(handles[int(self.rng.integers(len(handles)))], box, value))
        for _ in range(int(self.rng.integers(0, 4))):
            key = f"k{len(self.attrs)}"
            self.attrs[key] = len(self.attrs)
            # one handle: each handle's attributes are its own snapshot (zarr-python's too)
            calls.append(handles[0].update_attributes({key: self.attrs[key]}))
        after = model
        for _ in range(int(self.rng.integers(0, 3))):
            box = tuple(slice(0, s) for s in shape)
            calls.append(self.read(handles[0], box, before, after))
        calls = list(extra) + calls
        self.rng.shuffle(calls)
        self.out.calls += len(calls)
        await asyncio.gather(*calls)

    async def handles(self, n):
        return [await za.open_array(self.root, mode="r+") for _ in range(n)]

    async def run(self):
        kw = self.kw
        a = await za.create_array(self.root, **kw)
        n = int(self.rng.integers(1, 4))
        handles = [a] + await self.handles(n - 1)
        model = np.zeros(kw["shape"], kw["dtype"])
        await self.phase(handles, model, model.shape)
        if not self.check(model, "phase 1 (gathered writes)"):
            return
        sync = zarrhpc.open_array(self.root, mode="r+")  # phase 2: the sync API beside
        for box in _disjoint_boxes(self.rng, model.shape, 2):
            value = self.values(model[box].shape)
            sync[box] = value
            model[box] = value
        self.attrs["sync"] = 1
        sync.attrs["sync"] = 1
        if not self.check(model, "phase 2 (sync writes)"):
            return
        handles = await self.handles(n)  # opened again: the sync API changed the attributes
        rows = [self.values((1,) + model.shape[1:]) for _ in range(int(self.rng.integers(1, 5)))]
        calls = [handles[0].append(r) for r in rows]  # one handle grows its own shape
        key = f"k{len(self.attrs)}"
        self.attrs[key] = 0
        calls.append(handles[0].update_attributes({key: 0}))
        self.out.calls += len(calls)
        await asyncio.gather(*calls)
        stored = np.asarray(zarrhpc.open_array(self.root)[...])
        new = stored[model.shape[0]:].astype(model.dtype)  # v3 reads '>i2' natively
        want = sorted(r.astype(model.dtype).tobytes() for r in rows)
        if stored.shape[0] != model.shape[0] + len(rows) or sorted(
                new[i:i + 1].tobytes() for i in range(len(new))) != want:
            self.out.problems.append(f"{self.label}: appended rows differ: shape "
                                     f"{stored.shape}, {len(rows)} rows sent")
            return
        model = np.concatenate([model, new])
        handles = await self.handles(n)
        grown = tuple(s + int(self.rng.integers(0, 3)) for s in model.shape)
        old_shape = model.shape
        await self.phase(handles, model, old_shape, extra=[handles[0].resize(grown)])
        full = np.zeros(grown, model.dtype)
        full[tuple(slice(0, s) for s in old_shape)] = model
        self.check(full, "phase 4 (a grow beside writes)")

    def check(self, model, what) -> bool:
        b = zarrhpc.open_array(self.root)
        got = np.asarray(b[...])
        if got.shape != model.shape or not np.array_equal(got, model):
            self.out.problems.append(f"{self.label} {what}: the stored array differs from "
                                     f"the sequential run")
            return False
        if dict(b.attrs) != self.attrs:
            self.out.problems.append(f"{self.label} {what}: stored attributes "
                                     f"{dict(b.attrs)} vs {self.attrs}")
            return False
        import zarr

        theirs = np.asarray(zarr.open_array(self.root, mode="r")[...])
        if not np.array_equal(theirs, model):
            self.out.problems.append(f"{self.label} {what}: zarr-python reads otherwise")
            return False
        return True


def run_program(seed: int, root: str) -> Outcome:
    """One program (module docstring) in the empty directory ``root``."""
    prog = _Program(seed, root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asyncio.run(prog.run())
    return prog.out
