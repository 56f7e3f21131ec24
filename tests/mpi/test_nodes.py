"""Nodes (real and simulated) and node-aggregated shards on real ranks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zarrhpc.mpi.nodes import NodeMap
from zarrhpc.mpi.partition import choose_shards, node_boxes, node_plan, writer_groups

WORKER = str(Path(__file__).with_name("node_worker.py"))


# -- pure arithmetic ----------------------------------------------------------------------
def test_simulated_nodes_are_blocks_of_k_ranks_the_last_smaller():
    m = NodeMap.blocks(7, 3, rank=6)
    assert m.node_of == (0, 0, 0, 1, 1, 1, 2) and m.nnodes == 3
    assert m.node == 2 and m.members() == [6] and m.members(1) == [3, 4, 5]


def test_node_plan_gives_each_node_whole_shards_and_its_ranks_the_inner_chunks():
    # 4 ranks, 2 nodes, unaligned slabs along axis 0
    shape, shards, chunks = (40, 6), (20, 6), (5, 3)
    cuts = [0, 9, 20, 31, 40]
    boxes = [((cuts[r], cuts[r + 1]), (0, 6)) for r in range(4)]
    plan = node_plan(shape, shards, chunks, (0, 0, 1, 1), boxes)
    assert plan.shard_node.tolist() == [[0], [1]]
    assert plan.shard_writer.tolist() == [[0], [2]]
    owners = plan.chunks.owners
    assert owners.shape == (8, 2)
    # each chunk of 5 rows to the rank of its node covering most of it (rows 5..9: rank 0
    # holds 5..8, rank 1 only 9; rows 30..34: rank 2 holds 30, rank 3 31..34)
    assert owners[:, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    # an inner chunk never goes to a rank of another node
    node_of = np.array([0, 0, 1, 1])
    assert (node_of[owners] == np.repeat(plan.shard_node, 4, axis=0)[:, :1]).all()


def test_node_plan_shares_out_chunks_no_rank_holds():
    plan = node_plan((12,), (12,), (2,), (0, 0, 0), [((0, 2),), None, None])
    assert plan.chunks.owners.tolist() == [0, 0, 1, 2, 0, 1]


def test_choose_shards_makes_each_node_whole_shards():
    nb = node_boxes([((0, 10), (0, 8)), ((10, 30), (0, 8)), ((30, 40), (0, 8)),
                     ((40, 60), (0, 8))], (0, 0, 1, 1))
    assert nb == [((0, 30), (0, 8)), ((30, 60), (0, 8))]
    assert choose_shards((60, 8), (5, 4), nb) == (30, 8)
    # no regular grid fits boundaries that are not multiples of the chunk
    assert choose_shards((61, 8), (5, 4), [((0, 31), (0, 8)), ((31, 61), (0, 8))]) == (30, 8)


def test_writer_groups_cut_each_node_into_at_most_k_groups():
    node_of = (0, 0, 0, 0, 1, 1, 1, 2)  # nodes of 4, 3 and 1 ranks
    assert writer_groups(node_of, 1) == [0, 0, 0, 0, 1, 1, 1, 2]
    assert writer_groups(node_of, 2) == [0, 0, 1, 1, 2, 2, 3, 4]
    assert writer_groups(node_of, 3) == [0, 0, 1, 2, 3, 4, 5, 6]
    assert writer_groups(node_of, 9) == list(range(8))  # never more than one per rank
    # a node's groups are regions that are whole shards when the cuts allow it
    boxes = [((0, 10), (0, 8)), ((10, 30), (0, 8)), ((30, 40), (0, 8)), ((40, 60), (0, 8))]
    groups = node_boxes(boxes, writer_groups((0, 0, 1, 1), 2))
    assert choose_shards((60, 8), (5, 4), groups) == (10, 8)
    with pytest.raises(ValueError, match="per_node"):
        writer_groups(node_of, 0)


# -- real ranks ----------------------------------------------------------------------------


@pytest.mark.mpi
@pytest.mark.parametrize("nranks,k", [(2, 1), (4, 2), (5, 3), (6, 2)])
def test_node_map_under_ranks_per_node(tmp_path, run_mpi, nranks, k):
    run_mpi(nranks, WORKER, "map", str(tmp_path), env={"ZARRHPC_RANKS_PER_NODE": str(k)})
    for r in range(nranks):
        got = json.loads((tmp_path / f"map_{r}.json").read_text())
        assert got["node_of"] == [i // k for i in range(nranks)] and got["simulated"]
        assert got["local"] == [i for i in range(nranks) if i // k == r // k]


@pytest.mark.mpi
def test_node_map_from_shared_memory(tmp_path, run_mpi):
    run_mpi(3, WORKER, "map", str(tmp_path), env={"ZARRHPC_RANKS_PER_NODE": ""})
    got = json.loads((tmp_path / "map_2.json").read_text())
    assert got["node_of"] == [0, 0, 0] and not got["simulated"]  # one machine: one node
    assert got["local"] == [0, 1, 2]


@pytest.mark.mpi
def test_bad_ranks_per_node_is_refused(tmp_path, run_mpi):
    run_mpi(2, WORKER, "map", str(tmp_path), env={"ZARRHPC_RANKS_PER_NODE": "0"})
    for r in range(2):
        msg = (tmp_path / f"error_{r}").read_text()
        assert msg == "ZARRHPC_RANKS_PER_NODE: expected a positive integer (ranks per " \
                      "simulated node), got '0'"


@pytest.mark.mpi
@pytest.mark.parametrize("nranks,k,seed,threads", [(2, 1, 1, "1"), (4, 2, 3, "1"), (5, 3, 4, "1"),
                                                   (6, 2, 5, "1"), (4, 2, 7, "2")])
def test_node_policy_equals_serial_write(tmp_path, run_mpi, nranks, k, seed, threads):
    # threads "2": every rank encodes ahead on two worker threads ("1": inline, but the
    # codecs other than blosc and the bytes codec still go through one worker thread)
    run_mpi(nranks, WORKER, str(tmp_path), str(seed), "6", timeout=300,
            env={"ZARRHPC_RANKS_PER_NODE": str(k), "ZARRHPC_NUM_THREADS": threads})
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(report) == 6
    assert not [r for r in report if r["failures"]], report
    # both ways of writing a shard ran: at the index writer's own offsets (one rank
    # writes it) and at places taken from the node's counters (several ranks write it)
    assert sum(r["solo"] for r in report) > 0
    if k > 1:
        assert sum(r["shared"] for r in report) > 0, report


def test_the_index_writer_is_the_rank_writing_most_of_the_shard():
    # rows 0..4 rank 0, 4..20 rank 1, 20..31 rank 2, 31..40 rank 3; chunks of 5 rows
    shape, shards, chunks = (40, 6), (20, 6), (5, 3)
    cuts = [0, 4, 20, 31, 40]
    boxes = [((cuts[r], cuts[r + 1]), (0, 6)) for r in range(4)]
    plan = node_plan(shape, shards, chunks, (0, 0, 1, 1), boxes)
    assert plan.chunks.owners[:, 0].tolist() == [0, 1, 1, 1, 2, 2, 3, 3]
    # shard 0: rank 1 writes 6 of its 8 inner chunks; shard 1: a tie, the node's first
    assert plan.shard_writer.tolist() == [[1], [2]]
    from zarrhpc.mpi.aggregate import _shared_shards

    assert _shared_shards(plan, (4, 2), [0, 1]) == [0, 1]
    one = node_plan(shape, shards, chunks, (0, 1, 2, 3), boxes)  # a node per rank
    assert _shared_shards(one, (4, 2), [0, 1]) == []


@pytest.mark.mpi
def test_a_rank_failing_mid_write_leaves_the_old_shards_and_no_temporary_files(tmp_path, run_mpi):
    run_mpi(4, WORKER, "fail", str(tmp_path), env={"ZARRHPC_RANKS_PER_NODE": "2"})
    assert (tmp_path / "fail_ok").read_text() == "ok"


def test_node_ownership_in_one_process_and_write_owned_refused():
    import zarrhpc
    from zarrhpc import mpi as zmpi

    arr = zarrhpc.create_array(zarrhpc.MemoryStore(), shape=(12, 8), chunks=(3, 4),
                               shards=(6, 8), dtype="f8")
    own = zmpi.Ownership(arr, None, "node")
    assert own.policy == "node" and own.owner((1, 0)) == 0
    assert own.owned_chunks() == [(i, j) for i in range(4) for j in range(2)]
    with pytest.raises(ValueError, match="node"):
        zmpi.write_owned(arr, (slice(0, 6), slice(None)), np.ones((6, 8)), own)
    plain = zarrhpc.create_array(zarrhpc.MemoryStore(), shape=(12, 8), chunks=(3, 4), dtype="f8")
    with pytest.raises(ValueError, match="sharded"):
        zmpi.Ownership(plain, None, "node")
