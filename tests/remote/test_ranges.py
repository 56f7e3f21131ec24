"""coalesce/split: every range gets exactly its bytes back, whatever the gaps and limits."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.storage._ranges import coalesce, split

ranges_st = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 60)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=30)


@settings(max_examples=300, deadline=None)
@given(ranges=ranges_st, gap=st.integers(0, 50), max_span=st.integers(1, 400),
       size=st.integers(0, 400))
def test_coalesce_then_split_gives_each_range(ranges, gap, max_span, size):
    data = bytes(i % 251 for i in range(size))
    spans = coalesce(ranges, gap, max_span)
    seen = []
    for span in spans:
        assert span.start <= span.stop
        fetched = data[span.start:span.stop]  # the object may end inside the span
        for i, got in split(span, fetched, ranges):
            start, stop = ranges[i]
            assert span.start <= start and stop <= span.stop
            assert bytes(got) == data[start:stop]
            seen.append(i)
        members = [ranges[i] for i in span.members]
        if len(members) > 1:
            assert span.stop - span.start <= max_span
    assert sorted(seen) == list(range(len(ranges)))
    for a, b in itertools.pairwise(spans):  # in order
        assert a.start <= b.start


def test_neighbours_merge_far_apart_do_not():
    ranges = [(0, 10), (10, 20), (25, 30), (1000, 1010)]
    spans = coalesce(ranges, gap=5, max_span=100)
    assert [(s.start, s.stop, s.members) for s in spans] == [(0, 30, (0, 1, 2)),
                                                             (1000, 1010, (3,))]
    assert len(coalesce(ranges, gap=0, max_span=100)) == 3
    assert len(coalesce(ranges, gap=10**6, max_span=15)) == 4
