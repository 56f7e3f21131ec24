"""Checkpoints past one node on real ranks: node-aggregated shards and their file counts,
N-to-M restarts, asynchronous saves, two tiers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import zarr

from zarrhpc.checkpoint import Checkpointer
from zarrhpc.testing.scripts import load_script

pytestmark = pytest.mark.mpi

WORKER = str(Path(__file__).with_name("ckpt2_worker.py"))
TWO_NODES = {"ZARRHPC_RANKS_PER_NODE": "2"}


w = load_script(WORKER)


def test_written_on_4_ranks_loads_on_1_2_3_6(tmp_path, run_mpi):
    run_mpi(4, WORKER, "write", str(tmp_path), env=TWO_NODES)
    stats = [json.loads((tmp_path / "stats" / str(r)).read_text()) for r in range(4)]
    assert all(s == stats[0] for s in stats)  # job totals, the same on every rank
    st = stats[0]
    # node-aggregated shards: one shard per node (+ zarr.json) with shards_per_node=1; with
    # 2 (the default) the regions of each node's 2 ranks (9, 9, 10, 9 rows) are whole
    # shards where they can be: 8 rows (4-row chunks), 5 shards; per chunk: one file each
    assert st["node_raw"]["files_in_array"] == 3
    node_blosc = zarr.open_array(str(tmp_path / "step_00000004" / "node_blosc"), mode="r")
    assert node_blosc.shards == (8, 30, 11)  # whole axes rounded up to chunks
    assert st["node_blosc"]["files_in_array"] == 1 + 5
    assert st["plain_raw"]["files_in_array"] == 1 + 10 * 6 - 6  # 6 all-fill chunks left out
    for name in w.NAMES:
        s = st[name]
        assert s["renames"] == s["files_created"] and s["fsyncs"] == s["files_created"] - 2 + s["dirs_created"]
        assert s["bytes_written"] > 0 and s["seconds"] > 0
    assert st["plain_raw"]["files_created"] >= 15 * st["node_raw"]["files_created"] / 2
    for step, name in enumerate(w.NAMES, 1):  # zarr-python reads what was written
        got = zarr.open_array(str(tmp_path / f"step_{step:08d}" / name), mode="r")[...]
        assert got.tobytes() == w.field(step, name).tobytes()
    assert zarr.open_array(str(tmp_path / "step_00000003" / "node_raw"), mode="r").shards is not None
    for m in (1, 2, 3, 6):
        run_mpi(m, WORKER, "read", str(tmp_path))
        assert sorted(p.name for p in tmp_path.glob(f"read_{m}_*")) == [f"read_{m}_{r}" for r in range(m)]
    ck = Checkpointer(tmp_path)  # and one process without MPI
    for step, name in enumerate(w.NAMES, 1):
        assert ck.load(step)[name].tobytes() == w.field(step, name).tobytes()


def test_async_saves_on_two_nodes(tmp_path, run_mpi):
    run_mpi(4, WORKER, "async", str(tmp_path), env=TWO_NODES)
    ck = Checkpointer(tmp_path)
    assert ck.steps() == [1, 2, 3]
    np.testing.assert_array_equal(ck.load()["T"], w.field(3))
    # shards=(8, 10, 11) given, 2 nodes: the node policy, one file per shard (5 x 3)
    shards = [p for p in (tmp_path / "step_00000003" / "T").rglob("*") if p.is_file()
              and p.name != "zarr.json"]
    assert len(shards) == 15
    assert zarr.open_array(str(tmp_path / "step_00000003" / "T"), mode="r").shards == (8, 10, 11)


def test_two_tiers(tmp_path, run_mpi):
    run_mpi(3, WORKER, "tiers", str(tmp_path), env=TWO_NODES)
    assert Checkpointer(tmp_path / "durable").steps() == [1, 3, 4]
    assert Checkpointer(tmp_path / "fast").steps() == [0, 1, 2, 3, 4]
