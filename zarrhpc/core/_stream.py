"""Decode the chunks of a read while the rest are still being fetched (remote stores).

A basic read whose chunks come from a store the native engine cannot open itself (an
object store) is cut into *units*: runs of consecutive tasks of the chunk plan that share
their leading dimensions' pieces, so that each unit is itself a product plan the engine
takes as is. Every chunk key goes to `Store.iter_values` at once (a remote store keeps
``concurrency`` requests in flight on its own threads); as the answers arrive, a unit
whose chunks are all in is yielded to `zarrhpc.core._read`, which hands it to the engine
(GIL released, ``nthreads`` threads) while the other fetches go on; its buffers are
dropped once decoded. Chunks the engine hands back are decoded in Python from the bytes
already fetched (no second request).

Sharded reads do the same with the inner chunks (`arrived_units` over
`Store.iter_ranges`: a unit is decoded once the coalesced requests holding its inner chunks
are in).

Life cycle: `fetched_units` is iterated by the read path for one request; nothing
outlives the iteration (abandoning it on an error stops further requests).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["arrived_units", "fetched_units", "unit_size"]

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


def fetched_units(prep, plan) -> Iterator[tuple[Any, list]]:
    """Yield ``(unit plan, its chunks' bytes)`` for every unit of ``plan``, each as soon
    as all its chunks have arrived (None: a chunk not stored)."""
    keys = [prep.chunk_key(c) for c in plan.iter_coords()]
    return arrived_units(plan, prep.store.iter_values(keys))


def arrived_units(plan, arrivals: Iterable[tuple[int, Any]]) -> Iterator[tuple[Any, list]]:
    """Yield ``(unit plan, its tasks' sources)`` for every unit of ``plan`` as soon as
    ``arrivals`` (``(task, source)`` pairs, each task once, any order) has brought all
    of its tasks' sources."""
    size = unit_size(plan)
    sources: list = [None] * plan.ntasks
    missing = [size] * (plan.ntasks // size)
    for t, value in arrivals:
        sources[t] = value
        u = t // size
        missing[u] -= 1
        if missing[u] == 0:
            first = u * size
            yield _unit_plan(plan, first, size), sources[first:first + size]
            sources[first:first + size] = [None] * size  # decoded: let the bytes go
