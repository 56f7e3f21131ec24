"""Collective writes at the array's edge on real ranks, against zarr-python and the serial path.

A collective write is every rank's ``a[region] = block``. Chunks and shards cut by the
array's edge keep, in zarr-python, what lies past the edge unless one write covers the
chunk's in-array part; after a shrink then a grow those elements show again. Before the
fix the two-phase write replaced an edge chunk assembled from several ranks' pieces (or
from one partial piece) by a fresh one, and the node-aggregated write rebuilt edge shards
without their inner chunks past the edge: both lost those elements, with no error
(``mpiexec -n 2``: 4 of 21 programs differed).

Programs (`zarrhpc.testing.differential_mpi`): plain, zstd, v2 and sharded layouts with
ragged edges; collective writes whose regions leave gaps, under every ownership policy
(``node`` with two simulated nodes of two ranks); collective shrinks and grows; a job
restarted on another rank count. The final store, read by zarr-python, must equal the
same program run by zarr-python and by serial zarrhpc (each collective write as the ranks'
writes one after the other).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing import differential_mpi

zarr = pytest.importorskip("zarr")

pytestmark = [pytest.mark.mpi, pytest.mark.filterwarnings("ignore::UserWarning")]

SCRIPT = differential_mpi.__file__
LONG = bool(os.environ.get("ZARRHPC_LONG"))
COUNT = 12 if LONG else 2  # programs per layout


def _check(root, nranks: int) -> None:
    programs = json.loads((root / "programs.json").read_text())
    assert len(programs) == COUNT * len(differential_mpi.LAYOUTS)
    bad = []
    for program in programs:
        got = zarr.open_array(str(root / program["name"]), mode="r")[...]
        want = differential_mpi.reference(zarr, zarr.storage.MemoryStore(), program,
                                          nranks)[...]
        serial = differential_mpi.reference(zarrhpc, zarrhpc.storage.MemoryStore(), program,
                                            nranks)[...]
        assert np.array_equal(serial, want), program  # the serial path is zarr-python's
        if not np.array_equal(got, want):
            bad.append((program["name"], program["ops"], got.tolist(), want.tolist()))
    assert not bad, bad


@pytest.mark.parametrize("nranks", [2, 3])
def test_collective_edges_match_zarr_python(tmp_path, run_mpi, nranks):
    run_mpi(nranks, SCRIPT, str(tmp_path), str(nranks), str(COUNT),
            env={"ZARRHPC_RANKS_PER_NODE": "2"}, timeout=600)
    _check(tmp_path, nranks)


@pytest.mark.parametrize(("first", "then"), [(2, 3), (3, 2)])
def test_restart_on_another_rank_count(tmp_path, run_mpi, first, then):
    env = {"ZARRHPC_RANKS_PER_NODE": "2"}
    for phase, n in ((1, first), (2, then)):
        run_mpi(n, SCRIPT, str(tmp_path), str(10 + first), str(COUNT), str(phase), str(first),
                str(then), env=env, timeout=600)
    _check(tmp_path, then)
