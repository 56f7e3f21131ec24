"""Bad input on some ranks raises a clear error on every rank and never hangs (3 real ranks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.mpi

NRANKS = 3


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, run_mpi):
    root = tmp_path_factory.mktemp("errors")
    # no ZARRHPC_NUM_THREADS: the ranks share the node's CPUs by themselves
    run_mpi(NRANKS, str(Path(__file__).with_name("errors_worker.py")), str(root), timeout=120,
            env={"ZARRHPC_NUM_THREADS": ""})
    return [json.loads((root / f"errors_{r}.json").read_text()) for r in range(NRANKS)]


def test_one_rank_with_a_bad_block_makes_every_rank_raise(outcomes):
    assert outcomes[1]["wrong_block_shape"]["type"] == "SelectionError"
    assert "block shape (2, 10) does not match region shape (4, 10)" in outcomes[1]["wrong_block_shape"]["msg"]
    for r in (0, 2):
        assert outcomes[r]["wrong_block_shape"]["type"] == "CollectiveError"
        assert "rank 1 failed" in outcomes[r]["wrong_block_shape"]["msg"]


def test_a_bad_region_on_one_rank_names_it_everywhere(outcomes):
    assert outcomes[2]["bad_region"]["type"] == "SelectionError"
    for r in (0, 1):
        assert outcomes[r]["bad_region"]["type"] == "CollectiveError"
        assert "rank 2 failed" in outcomes[r]["bad_region"]["msg"] and "0:99" in outcomes[r]["bad_region"]["msg"]


@pytest.mark.parametrize(("scenario", "error", "text"), [
    ("overlapping_regions", "SelectionError", "rank 0 .* and rank 1 .* overlap"),
    ("open_missing", "ArrayNotFoundError", "No array found in store .* at path nope"),
    ("memory_store", "UnsupportedError", "MemoryStore is private to one process"),
    ("read_only_write", "ReadOnlyError", "opened read-only"),
])
def test_same_error_on_every_rank(outcomes, scenario, error, text):
    import re

    for r in range(NRANKS):
        got = outcomes[r][scenario]
        assert not got["ok"] and got["type"] == error and re.search(text, got["msg"]), (r, got)


def test_write_owned(outcomes):
    for r in range(NRANKS):
        assert outcomes[r]["write_owned_aligned"] == {"ok": True, "result": True}
        refused = outcomes[r]["write_owned_refused"]
        assert refused["type"] == "ValueError" and "use zarrhpc.mpi.write" in refused["msg"]


def test_zero_dimensional_array(outcomes):
    assert outcomes[0]["zero_d"] == {"ok": True, "result": 3.5}
    assert all(outcomes[r]["zero_d"] == {"ok": True, "result": [0]} for r in (1, 2))


def test_ranks_on_one_node_share_its_cpus(outcomes):
    for r in range(NRANKS):
        before, inside, after, explicit, cpus = outcomes[r]["threads_shared"]["result"]
        assert before == after == cpus  # the default, restored after the collective call
        assert inside == max(1, cpus // NRANKS)
        assert explicit == 1


def test_checkpoint_save_with_bad_arguments_on_one_rank(outcomes):
    got = outcomes[1]["checkpoint_missing_region"]
    assert got["type"] == "ValueError" and "each rank passes its region" in got["msg"]
    for r in (0, 2):
        got = outcomes[r]["checkpoint_missing_region"]
        assert got["type"] == "CollectiveError" and "rank 1 failed" in got["msg"]


def test_a_rank_that_cannot_pack_its_pieces_stops_the_exchange_everywhere(outcomes):
    got = outcomes[0]["pack_fails"]
    assert got["type"] == "MemoryError" and "no room to pack" in got["msg"]
    for r in (1, 2):
        got = outcomes[r]["pack_fails"]
        assert got["type"] == "CollectiveError" and "rank 0 failed" in got["msg"], got


def test_ranks_that_disagree_on_ownership_all_raise(outcomes):
    for r in range(NRANKS):
        got = outcomes[r]["ownership_differs"]
        assert not got["ok"] and got["type"] == "CollectiveError", (r, got)
    assert any("do all ranks pass the same array and ownership" in outcomes[r]["ownership_differs"]["msg"]
               for r in range(NRANKS))


@pytest.mark.parametrize(("scenario", "failing", "error", "text"), [
    ("write_fails_late", 1, "OSError", "no space left on device"),  # after the exchange
    ("read_bad_out", 2, "SelectionError", "out: expected an ndarray (4, 10)"),
])
def test_a_failure_in_the_last_phase_reaches_every_rank(outcomes, scenario, failing, error, text):
    got = outcomes[failing][scenario]
    assert not got["ok"] and got["type"] == error and text in got["msg"], got
    for r in set(range(NRANKS)) - {failing}:
        got = outcomes[r][scenario]
        assert not got["ok"] and got["type"] == "CollectiveError", (r, got)
        assert f"rank {failing} failed: {error}: " in got["msg"] and text in got["msg"], (r, got)
