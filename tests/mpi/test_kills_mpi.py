"""A short run of the MPI kill harness (tests/mpi/kill_mpi.py): every rank of a 4-rank job
SIGKILLed at random moments during collective writes, node-aggregated writes and resizes;
`make test-mpi-long` runs many more."""

from __future__ import annotations

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.scripts import load_script

kill_mpi = load_script(__file__.replace("test_kills_mpi.py", "kill_mpi.py"))


@pytest.mark.mpi
@pytest.mark.parametrize("kind", kill_mpi.KINDS)
def test_sigkill_of_every_rank_leaves_whole_chunks_and_loses_nothing(tmp_path, kind):
    pytest.importorskip("mpi4py")
    counts = kill_mpi.run([kind], kills=2, seed=3, tmp=str(tmp_path), max_delay=0.6)[kind]
    assert counts["stores"] == 2
    assert counts["open_failed"] == 0, counts["errors"]
    assert counts["torn"] == 0 and counts["lost"] == 0, counts
    assert counts["chunks"] >= 2 * 12  # every chunk of each store (12 or 18) was checked
    assert counts["repaired"] == counts["leftover_temp_files"]  # verify --repair removed all


@pytest.mark.parametrize("kind", ["collective", "node"])
def test_the_checker_sees_torn_and_lost_chunks(tmp_path, kind):
    store = str(tmp_path / "s")
    kill_mpi._create(kind, store)
    a = zarrhpc.open_array(store, mode="r+")
    a[...] = 5
    assert kill_mpi._check(kind, store, 5, 48)["torn"] == 0
    assert kill_mpi._check(kind, store, 5, 48)["lost"] == 0
    assert kill_mpi._check(kind, store, 6, 48)["lost"] == 48 // 8 * 3  # all older
    a[0:3, 0:5] = 6  # part of one chunk: torn
    got = kill_mpi._check(kind, store, 5, 48)
    assert got["torn"] == (2 if kind == "node" else 1), got  # node: its shard too
    a[...] = 5
    a[16:32, :] = 7  # one whole shard (node) of a newer generation: fine
    assert kill_mpi._check(kind, store, 5, 48) == {
        "torn": 0, "lost": 0, "open_failed": 0, "chunks": 18}
    a[8:16, :] = 4  # older than the last generation reported
    got = kill_mpi._check(kind, store, 5, 48)
    assert got["lost"] == 3 and got["torn"] == (1 if kind == "node" else 0), got  # its shard
    assert np.asarray(a[8:16, :]).min() == 4


def test_only_whole_generation_lines_count():
    # a kill can cut rank 0's line in two as mpiexec forwards it, and mpiexec then prints
    # its own banner: "rows 4" of "rows 48" made the checker count chunks as lost
    cut = "generation 12 rows 32 done\ngeneration 13 rows 4\n=====\n=   EXIT CODE: 9\n"
    assert kill_mpi.generations(cut) == [(12, 32)]
    whole = "generation 12 rows 32 done\ngeneration 13 rows 48 done\n"
    assert kill_mpi.generations(whole) == [(12, 32), (13, 48)]
    assert kill_mpi.generations("generation 1 rows 3") == []
