"""Coalescing byte ranges of one object into few requests, and splitting the answers.

Pure functions, no I/O. The remote stores use them in ``_get_partial_values``: the inner
chunks of a shard wanted by one read are usually neighbours in the shard, so fetching
them as a few larger ranges costs fewer round trips than one request per inner chunk.

`coalesce` groups ``[start, stop)`` ranges (any order, overlaps and repeats allowed)
into spans: two ranges share a span when the gap between them is at most ``gap`` bytes
and the span stays within ``max_span`` bytes (a span holding one range larger than that
is allowed: ranges are never cut). `split` gives each range's bytes back from the bytes
fetched for its span, which may be shorter than asked when the object ends early.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Span", "coalesce", "split"]


class Span(NamedTuple):
    """One request: bytes ``[start, stop)`` covering the ranges ``members`` (their indices)."""

    start: int
    stop: int
    members: tuple


def coalesce(ranges: list[tuple[int, int]], gap: int, max_span: int) -> list[Span]:
    """Group ``[start, stop)`` ranges into spans (see the module docstring).

    Parameters
    ----------
    ranges : list of (int, int)
        ``0 <= start <= stop``.
    gap : int
        Largest number of unwanted bytes between two ranges fetched in one span.
    max_span : int
        A span grows past this size only to hold a single range.

    Returns
    -------
    list of Span
        In increasing ``start`` order; every range index appears in exactly one span.
    """
    order = sorted(range(len(ranges)), key=lambda i: ranges[i])
    spans: list[Span] = []
    cur_start = cur_stop = -1
    members: list[int] = []
    for i in order:
        start, stop = ranges[i]
        if members and start - cur_stop <= gap and max(stop, cur_stop) - cur_start <= max_span:
            cur_stop = max(cur_stop, stop)
            members.append(i)
            continue
        if members:
            spans.append(Span(cur_start, cur_stop, tuple(members)))
        cur_start, cur_stop, members = start, stop, [i]
    if members:
        spans.append(Span(cur_start, cur_stop, tuple(members)))
    return spans


def split(span: Span, data, ranges: list[tuple[int, int]]) -> list[tuple[int, memoryview]]:
    """``(index, bytes)`` of each member of ``span`` from ``data``, the bytes fetched for it.

    ``data`` may be shorter than the span (the object ends inside it): each range then
    gets what there is, possibly nothing.
    """
    view = memoryview(data)
    n = view.nbytes
    out = []
    for i in span.members:
        start, stop = ranges[i]
        a = min(start - span.start, n)
        b = min(stop - span.start, n)
        out.append((i, view[a:b]))
    return out
