"""Decode the chunks of a read while the rest are still being fetched (remote stores).

A basic read whose chunks come from a store the native engine cannot open itself (an
object store) is cut into *units*: runs of consecutive tasks of the chunk plan that share
their leading dimensions' pieces, so that each unit is itself a product plan the engine
takes as is. Every chunk key goes to `Store.iter_values` at once (a remote store keeps
``concurrency`` requests in flight on its own threads); as the answers arrive, a unit
whose chunks are all in is handed to the engine (GIL released, ``nthreads`` threads) while
the other fetches go on, and its buffers are dropped once decoded. Chunks the engine hands
back are decoded in Python from the bytes already fetched (no second request).

Life cycle: `read_fetched` is called by `zarrhpc.core._read` for one request; nothing
outlives the call (abandoning the iterator on an error stops further requests).
"""

from __future__ import annotations

import copy

import numpy as np

from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core._read import decode_chunk_into, raise_engine_error

__all__ = ["read_fetched", "unit_size"]

#: Most tasks in one unit: small enough that decoding starts after a few arrivals,
#: large enough that the engine's per-call cost stays negligible.
_UNIT_TASKS = 8


def unit_size(plan) -> int:
    """Tasks per unit: leading dimensions are fixed to one piece each, one after the
    other, until the product of the other dimensions' piece counts is at most
    ``_UNIT_TASKS`` (or every dimension is fixed); that product is the unit's size."""
    size = plan.ntasks
    for pieces in plan.per_dim:
        if size <= _UNIT_TASKS:
            break
        size //= len(pieces)
    return size


def _unit_plan(plan, first: int, size: int):
    """The sub-plan of tasks ``first .. first + size - 1`` (one unit)."""
    sub = copy.copy(plan)
    per_dim = []
    rest = plan.ntasks
    t = first
    for pieces in plan.per_dim:
        if rest <= size:
            per_dim.append(pieces)
            continue
        rest //= len(pieces)
        k, t = divmod(t, rest)
        per_dim.append(pieces[k:k + 1])
    sub.per_dim = per_dim
    sub.ntasks = size
    return sub


def read_fetched(prep, engine, plan, full: np.ndarray, nthreads: int) -> None:
    """Fill ``full`` with every task of ``plan``, decoding units as their chunks arrive."""
    keys = [prep.chunk_key(c) for c in plan.iter_coords()]
    size = unit_size(plan)
    sources: list = [None] * plan.ntasks
    missing = [size] * (plan.ntasks // size)
    for t, value in prep.store.iter_values(keys):
        sources[t] = value
        u = t // size
        missing[u] -= 1
        if missing[u] == 0:
            _decode_unit(prep, engine, plan, full, sources, u * size, size, nthreads)


def _decode_unit(prep, engine, plan, full, sources: list, first: int, size: int,
                 nthreads: int) -> None:
    sub = _unit_plan(plan, first, size)
    chunk_sources = sources[first:first + size]
    status, err_task, code, msg = engine.read(
        full, sub.arrays(), sub.steps, sources=chunk_sources, nthreads=min(nthreads, size))
    if code:
        raise_engine_error(prep, sub, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = sub.projection(int(t))
        decode_chunk_into(prep, prep.chunk_key(p.chunk_coords), full[p.out_selection],
                          p.chunk_selection, chunk_sources[int(t)])
    sources[first:first + size] = [None] * size  # decoded: let the bytes go
