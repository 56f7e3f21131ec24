"""Ownership arithmetic without MPI: policies, pieces, regions (numpy oracles, hypothesis)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.errors import SelectionError
from zarrhpc.mpi import Ownership
from zarrhpc.mpi.partition import Partition, check_disjoint, normalize_region, plan_pieces


def test_normalize_region():
    assert normalize_region(None, (4, 5)) is None
    assert normalize_region((slice(1, 3),), (4, 5)) == ((1, 3), (0, 5))
    assert normalize_region(slice(None, 2), (4,)) == ((0, 2),)
    for bad, match in [((slice(0, 4, 2),), "step must be 1"), ((slice(-1, 2),), "axis 0"),
                       ((slice(0, 9),), "<= 4"), ((slice(0, 1),) * 3, "3 slices"),
                       ((1, 2), "tuple of slices")]:
        with pytest.raises(SelectionError, match=match):
            normalize_region(bad, (4, 5))


def test_block_policy_is_contiguous_and_balanced():
    part = Partition((100,), (10,), 3, "block")
    owners = [part.owner((i,)) for i in range(10)]
    assert owners == sorted(owners) and set(owners) == {0, 1, 2}
    counts = np.bincount(owners)
    assert counts.max() - counts.min() <= 1
    assert part.owned(1) == [(i,) for i in range(10) if owners[i] == 1]


def test_cyclic_policy_is_round_robin_in_c_order():
    part = Partition((6, 9), (2, 3), 4, "cyclic")  # grid 3 x 3
    for flat, coords in enumerate(itertools.product(range(3), range(3))):
        assert part.owner(coords) == flat % 4


def test_more_ranks_than_chunks_leaves_some_ranks_without_chunks():
    part = Partition((10,), (5,), 4, "block")
    assert sum(len(part.owned(r)) for r in range(4)) == 2


def test_decomposition_gives_each_chunk_to_the_rank_covering_most():
    # rank 0 holds rows 0..6, rank 1 rows 6..12 of a 12 x 4 array in chunks of 4 x 4
    part = Partition((12, 4), (4, 4), 2, "decomposition", [((0, 6), (0, 4)), ((6, 12), (0, 4))])
    assert [part.owner((i, 0)) for i in range(3)] == [0, 0, 1]  # chunk 1: 2 rows each: tie -> 0
    part = Partition((12, 4), (4, 4), 2, "decomposition", [((0, 5), (0, 4)), ((5, 12), (0, 4))])
    assert [part.owner((i, 0)) for i in range(3)] == [0, 1, 1]


def test_decomposition_shares_out_the_units_a_boundary_cuts_in_half():
    # rows 0..6 and 6..12 of a 12 x 16 array in 4 x 4 chunks: the 4 chunks of chunk row 1
    # are tied; the lower rank taking all would give it 8 chunks against 4
    part = Partition((12, 16), (4, 4), 2, "decomposition", [((0, 6), (0, 16)), ((6, 12), (0, 16))])
    assert [part.owner((1, j)) for j in range(4)] == [0, 1, 0, 1]
    assert [len(part.owned(r)) for r in range(2)] == [6, 6]
    # a tie among ranks that already own unequal shares goes to the least loaded: rank 0
    # owns chunk row 0 (2 chunks), ranks 1 and 2 one chunk each of row 2
    part = Partition((12, 8), (4, 4), 3, "decomposition",
                     [((0, 6), (0, 8)), ((6, 12), (0, 4)), ((6, 12), (4, 8))])
    assert [part.owner((2, j)) for j in range(2)] == [1, 2]
    assert [part.owner((1, j)) for j in range(2)] == [1, 2]


def test_decomposition_falls_back_to_block_for_untouched_chunks():
    part = Partition((40,), (10,), 2, "decomposition", [((30, 40),), None])
    assert [part.owner((i,)) for i in range(4)] == [0, 0, 1, 0]


def test_bad_arguments():
    with pytest.raises(ValueError, match="policy"):
        Partition((4,), (2,), 2, "random")
    with pytest.raises(ValueError, match="one region per rank"):
        Partition((4,), (2,), 2, "decomposition", [((0, 4),)])
    with pytest.raises(SelectionError, match="outside the grid"):
        Partition((4,), (2,), 2).owner((2,))
    with pytest.raises(SelectionError, match="rank 0 .* rank 2 .* overlap"):
        check_disjoint([((0, 3), (0, 2)), ((3, 4), (0, 2)), ((2, 4), (1, 2))])
    check_disjoint([((0, 3),), None, ((3, 3),), ((3, 4),)])  # empty boxes never overlap


def test_ownership_unit_is_the_shard_when_the_array_is_sharded():
    sharded = SimpleNamespace(shape=(16, 16), chunks=(2, 2), shards=(8, 4))
    own = Ownership(sharded, None, "block")
    assert own.unit_shape == (8, 4) and own.grid_shape == (2, 4)
    assert own.owned_chunks() == [(i, j) for i in range(2) for j in range(4)]  # one rank
    assert own.region((1, 3)) == (slice(8, 16), slice(12, 16))
    plain = SimpleNamespace(shape=(16, 16), chunks=(2, 2), shards=None)
    assert Ownership(plain, None).grid_shape == (8, 8)


@st.composite
def decompositions(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 12), min_size=ndim, max_size=ndim)))
    unit = tuple(draw(st.integers(1, n + 2)) for n in shape)
    grid = [draw(st.integers(1, 3)) for _ in shape]
    cuts = [sorted(draw(st.lists(st.integers(0, n), min_size=g - 1, max_size=g - 1)))
            for n, g in zip(shape, grid)]
    boxes = [tuple((([0] + c + [n])[i], ([0] + c + [n])[i + 1]) for c, n, i in zip(cuts, shape, idx))
             for idx in itertools.product(*(range(g) for g in grid))]
    policy = draw(st.sampled_from(["block", "cyclic", "decomposition"]))
    return shape, unit, boxes, policy


@settings(max_examples=150, deadline=None)
@given(decompositions())
def test_pieces_tile_every_region_and_go_to_the_one_owner(dec):
    shape, unit, boxes, policy = dec
    nranks = len(boxes)
    part = Partition(shape, unit, nranks, policy, boxes)
    assert part.owners.min() >= 0 and part.owners.max() < nranks
    # oracle: label every element by its unit's owner, and by the rank holding it
    elem_owner = np.empty(shape, dtype=int)
    for coords in itertools.product(*(range(g) for g in part.grid_shape)):
        elem_owner[tuple(slice(a, b) for a, b in part.unit_box(coords))] = part.owners[coords]
    holder = np.full(shape, -1)
    for r, box in enumerate(boxes):
        holder[tuple(slice(a, b) for a, b in box)] = r
    seen = np.zeros(shape, dtype=int)
    for p in plan_pieces(part, boxes):
        sl = tuple(slice(a, b) for a, b in p.box)
        seen[sl] += 1
        assert (holder[sl] == p.holder).all() and (elem_owner[sl] == p.owner).all()
        assert p.whole == (p.box == part.unit_box(p.unit))
    np.testing.assert_array_equal(seen, (holder >= 0).astype(int))  # each element once
    if policy == "decomposition":
        for coords in itertools.product(*(range(g) for g in part.grid_shape)):
            sl = tuple(slice(a, b) for a, b in part.unit_box(coords))
            cover = np.bincount(holder[sl].ravel() + 1, minlength=nranks + 1)[1:]
            if cover.any():  # a rank covering most (ties: see the test above)
                assert cover[part.owners[coords]] == cover.max()
    # a rank's filtered plan is the global plan restricted to it, in the same order
    for r in range(nranks):
        mine = [p for p in plan_pieces(part, boxes) if r in (p.holder, p.owner)]
        assert plan_pieces(part, boxes, ranks={r}) == mine
