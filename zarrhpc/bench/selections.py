"""W8-W11 of ``zarrhpc bench``: the selection workloads, zarrhpc and its peers side by side.

Every peer writes the standard float32 array (``Sizes.shape``, chunks ``Sizes.chunks``)
with each codec into its own directory; each selection is checked once against numpy,
then timed in rounds (every peer once per round, the order turning from round to round,
so that all see the same machine). Reported: the median milliseconds per selection.

- W8 vindex: ``Sizes.vpoints`` random points (coordinate selection)
- W9 oindex: ``Sizes.oindex_n`` random indices per axis (unsorted, no repeats)
- W10 mask: a boolean mask of the whole shape with ``Sizes.mask_frac`` of it set
- W11 sharded vindex: W8's points on W5's sharded array (shards ``Sizes.w5_shards``,
  inner chunks ``Sizes.w5_chunks``, blosc lz4)
- W8w / W9w / W10w: the writes of W8 (``Sizes.vpoints`` distinct random points), W9
  (``Sizes.oindex_n`` indices per axis) and W10 (the 1 % mask), random values, on the
  same arrays after the reads; each peer's array is read back whole once and checked
  against numpy's assignment, then the same write is timed in rounds.
- W11w sharded vindex write: W8w's distinct points, random values, into W11's sharded
  array (after its reads), checked and timed as W8w.

Peers without a selection API for a case (h5py, raw file I/O) are skipped with a reason.

Floor rows (W8, W11; references, not peers): zarrhpc's array fetched and decoded on the
native engine exactly as its point read does, in parallel, with no selection work (the
projection made beforehand, nothing gathered): ``floor`` decodes every touched chunk
whole (what every peer does, and the cheapest whole-chunk read of those bytes),
``floor-blocks`` only the blosc blocks (uncompressed: the byte runs) the points need,
as our read does. ``zarrhpc`` minus ``floor-blocks`` is our selection work.
"""

from __future__ import annotations

import os
import time

import numpy as np

from zarrhpc.bench.peers import Unavailable

__all__ = ["SELECTION_WORKLOADS", "run_selections"]

SELECTION_WORKLOADS = ("W8", "W9", "W10", "W11", "W8w", "W9w", "W10w", "W11w")
#: the codecs the selection workloads run with (issue 15: uncompressed and blosc lz4)
SELECTION_CODECS = ("none", "blosc-lz4")


def _cases(sizes, shape, rng, workloads):
    cases = []
    if "W8" in workloads:
        coords = tuple(rng.integers(0, n, sizes.vpoints) for n in shape)
        cases.append(("W8", "vindex", "vindex", coords))
    if "W9" in workloads:
        idx = tuple(rng.choice(n, min(n, sizes.oindex_n), replace=False) for n in shape)
        cases.append(("W9", "oindex", "oindex", idx))
    if "W10" in workloads:
        mask = rng.random(shape, dtype=np.float32) < sizes.mask_frac
        cases.append(("W10", "mask", "mask", mask))
    return cases


def _write_cases(sizes, shape, rng, workloads):
    cases = []
    if "W8w" in workloads:  # distinct points: peers differ on which repeated write wins
        size = int(np.prod(shape))
        flat = rng.choice(size, min(sizes.vpoints, size // 2), replace=False)
        coords = np.unravel_index(flat, shape)
        cases.append(("W8w", "vindex-write", "vindex", coords, len(flat)))
    if "W9w" in workloads:
        idx = tuple(rng.choice(n, min(n, sizes.oindex_n), replace=False) for n in shape)
        cases.append(("W9w", "oindex-write", "oindex", idx, tuple(len(i) for i in idx)))
    if "W10w" in workloads:
        mask = rng.random(shape, dtype=np.float32) < sizes.mask_frac
        cases.append(("W10w", "mask-write", "mask", mask, int(mask.sum())))
    return [(w, op, kind, sel, rng.random(n, dtype=np.float32)) for w, op, kind, sel, n in cases]


def _time_write_rounds(r, workload, codec, op, handles, kind, sel, value, want) -> None:
    """Each peer writes once and its whole array is checked against ``want``; then the
    same write is timed in turning rounds (ms per call)."""
    samples, notes, live = {name: [] for name in handles}, {}, {}
    for name, (peer, h) in handles.items():
        try:
            peer.select_write(h, kind, sel, value)
            if not np.array_equal(np.asarray(peer.read(h, Ellipsis)), want):
                raise AssertionError(f"{name} {workload} {codec} {op}: wrong data written")
            live[name] = (lambda p=peer, h=h: p.select_write(h, kind, sel, value))
        except Unavailable as exc:
            notes[name] = str(exc)
    _rounds(r, live, samples)
    for name in handles:
        r.add(workload, codec, op, name, "ms", samples[name], notes.get(name, ""))


def _want(data, kind, sel):
    if kind == "oindex":
        return data[np.ix_(*sel)]
    return data[sel]


def _floors(handles, coords) -> dict:
    """The floor rows' calls (see the module docstring) on zarrhpc's array of
    ``handles``, for the points ``coords``; none without zarrhpc."""
    if "zarrhpc" not in handles:
        return {}
    from zarrhpc.core._select import read_floor
    from zarrhpc.indexing import coordinate_projection

    h = handles["zarrhpc"][1]
    prep = h._prep  # the bench measures the engine beneath the API (as bench/remote.py)
    proj = coordinate_projection(coords, h.shape, prep.chunks)
    flat = prep.empty((proj.npoints,), "C")
    return {"floor": lambda: read_floor(prep, proj, flat, whole=True),
            "floor-blocks": lambda: read_floor(prep, proj, flat, whole=False)}


def _time_rounds(r, workload, codec, op, calls: dict, want, floors=None) -> None:
    """Check every peer's call once, then time them in turning rounds (ms per call),
    with the unchecked ``floors`` (name -> call) in the same rounds."""
    floors = floors or {}
    calls = {**calls, **floors}
    samples, notes = {name: [] for name in calls}, {}
    live = {}
    for name, call in calls.items():
        try:
            got = call()
            if name in floors:
                live[name] = call
                continue
            if not np.array_equal(np.asarray(got), want):
                raise AssertionError(f"{name} {workload} {codec} {op}: wrong data read")
            del got
            live[name] = call
        except Unavailable as exc:
            notes[name] = str(exc)
    _rounds(r, live, samples)
    for name in calls:
        r.add(workload, codec, op, name, "ms", samples[name], notes.get(name, ""))


def _rounds(r, live: dict, samples: dict) -> None:
    """Every call once per round, ``r.repeat`` rounds, the order turning (ms per call)."""
    names = list(live)
    for i in range(r.repeat):
        order = names[i % len(names):] + names[:i % len(names)] if names else []
        for name in order:
            t0 = time.perf_counter()
            live[name]()
            samples[name].append((time.perf_counter() - t0) * 1e3)


def run_selections(r, sizes, codecs, workloads) -> None:
    """W8-W10 (and their writes) on the standard array for each codec, W11 on the
    sharded one."""
    from zarrhpc.bench import _field

    peers = [p for p in r.peers if "durable" not in p.name]
    if workloads & {"W8", "W9", "W10", "W8w", "W9w", "W10w"}:
        data = _field(sizes.shape, np.float32, seed=8)
        rng = np.random.default_rng(88)
        cases = _cases(sizes, sizes.shape, rng, workloads)
        writes = _write_cases(sizes, sizes.shape, np.random.default_rng(89), workloads)
        for codec in [c for c in codecs if c in SELECTION_CODECS]:
            handles, paths = {}, {}
            try:
                for peer in peers:
                    path = paths[peer.name] = os.path.join(r.root, f"{peer.name}-sel-{codec}")
                    try:
                        peer.write(path, data, sizes.chunks, codec)
                        handles[peer.name] = (peer, peer.open(path))
                    except Unavailable as exc:
                        r.log(f"  {peer.name} {codec}: skipped ({exc})")
                for workload, op, kind, sel in cases:
                    want = _want(data, kind, sel)
                    calls = {name: (lambda p=p, h=h, k=kind, s=sel: p.select(h, k, s))
                             for name, (p, h) in handles.items()}
                    floors = _floors(handles, sel) if kind == "vindex" else None
                    _time_rounds(r, workload, codec, op, calls, want, floors)
                if writes:
                    want = data.copy()
                    whandles = {}
                    for name, (p, _h) in handles.items():
                        whandles[name] = (p, p.open_writable(paths[name]))
                    for workload, op, kind, sel, value in writes:
                        want[np.ix_(*sel) if kind == "oindex" else sel] = value
                        _time_write_rounds(r, workload, codec, op, whandles, kind, sel,
                                           value, want)
                    del want, whandles
            finally:
                for peer in peers:
                    if peer.name in paths:
                        peer.clear(paths[peer.name])
        del data
    if workloads & {"W11", "W11w"}:
        data = _field(sizes.shape, np.float32, seed=11)
        rng = np.random.default_rng(111)
        coords = tuple(rng.integers(0, n, sizes.vpoints) for n in sizes.shape)
        want = data[coords]
        handles, paths = {}, {}
        try:
            for peer in peers:
                path = paths[peer.name] = os.path.join(r.root, f"{peer.name}-w11")
                try:
                    peer.write(path, data, sizes.w5_chunks, "blosc-lz4", shards=sizes.w5_shards)
                    handles[peer.name] = (peer, peer.open(path))
                except Unavailable as exc:
                    r.log(f"  {peer.name} W11: skipped ({exc})")
            if "W11" in workloads:
                calls = {name: (lambda p=p, h=h: p.select(h, "vindex", coords))
                         for name, (p, h) in handles.items()}
                _time_rounds(r, "W11", "blosc-lz4", "sharded-vindex", calls, want,
                             _floors(handles, coords))
            if "W11w" in workloads:
                (_, _, kind, sel, value), = _write_cases(
                    sizes, sizes.shape, np.random.default_rng(112), {"W8w"})
                data[sel] = value
                whandles = {name: (p, p.open_writable(paths[name]))
                            for name, (p, _h) in handles.items()}
                _time_write_rounds(r, "W11w", "blosc-lz4", "sharded-vindex-write", whandles,
                                   kind, sel, value, data)
        finally:
            for peer in peers:
                if peer.name in paths:
                    peer.clear(paths[peer.name])
