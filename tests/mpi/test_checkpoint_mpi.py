"""Checkpoints on real ranks, and a whole job SIGKILLed in the middle of a checkpoint."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import zarrhpc
from zarrhpc.checkpoint import Checkpointer
from zarrhpc.errors import CheckpointError
from zarrhpc.testing import killed_jobs
from zarrhpc.testing.scripts import load_script

pytestmark = pytest.mark.mpi

WORKER = str(Path(__file__).with_name("ckpt_worker.py"))


ck_worker = load_script(WORKER)


WORKER2 = str(Path(__file__).with_name("ckpt2_worker.py"))


def start_job(nranks: int, mode: str, root: Path, mpi_command, mpi_env, worker=WORKER,
              env=None) -> subprocess.Popen:
    # its own session, so that nothing of the job can outlive the test
    return subprocess.Popen(mpi_command(nranks, worker, mode, str(root)),
                            env={**mpi_env(), **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


def kill_job(job: subprocess.Popen, root: Path, nranks: int, delay: float = 0.0,
             timeout: float = 60) -> set[str]:
    """Wait until every rank has announced itself (and ``delay``), then SIGKILL every rank;
    returns the MPI shared-memory files it removed after the kill."""
    pids = root / "pids"
    deadline = time.monotonic() + timeout
    while len(list(pids.glob("[0-9]*"))) < nranks if pids.exists() else True:
        if job.poll() is not None:
            raise AssertionError(f"job ended early ({job.returncode}):\n{job.stdout.read().decode()}")
        if time.monotonic() > deadline:
            os.killpg(job.pid, signal.SIGKILL)
            raise AssertionError("ranks did not reach the kill point in time")
        time.sleep(0.02)
    time.sleep(delay)
    if job.poll() is not None:
        raise AssertionError(f"job ended early ({job.returncode}):\n{job.stdout.read().decode()}")
    # the job's shared-memory files removed: a killed job cannot (2-4 MiB of RAM each time)
    segments = killed_jobs.kill_job(job, [int(f.read_text()) for f in pids.glob("[0-9]*")])
    job.stdout.close()
    return segments


@pytest.mark.parametrize("nranks", [2, 3])
def test_sigkill_mid_checkpoint_restarts_from_previous_step(tmp_path, nranks, mpi_command, mpi_env,
                                                            run_mpi, caplog):
    job = start_job(nranks, "hang", tmp_path, mpi_command, mpi_env)
    segments = kill_job(job, tmp_path, nranks)
    from mpi4py import MPI

    if "MPICH" in MPI.Get_library_version():  # its shared memory was found and removed
        assert segments and not any(Path(s).exists() for s in segments)

    ck = Checkpointer(tmp_path)
    with caplog.at_level("WARNING", logger="zarrhpc.checkpoint"):
        assert ck.latest() == 2
    assert "step 3" in caplog.text and "not committed" in caplog.text
    assert ck.steps() == [1, 2] and ck.uncommitted() == [3]
    # step 3 was really half written: some of its chunks are there
    assert any(k.startswith("step_00000003/T/c/") for k in zarrhpc.LocalStore(tmp_path).list())
    with pytest.raises(CheckpointError, match="not committed"):
        ck.load(3)
    snap = ck.load()
    assert snap.step == 2
    np.testing.assert_array_equal(snap["T"], ck_worker.field(2))
    np.testing.assert_array_equal(snap["U"], ck_worker.field(2, "U"))

    # a restart under MPI reads step 2 back collectively and commits step 3
    run_mpi(nranks, WORKER, "restart", str(tmp_path))
    assert ck.steps() == [2, 3] and ck.uncommitted() == []
    np.testing.assert_array_equal(ck.load()["T"], ck_worker.field(3))
    assert zarrhpc.open_group(tmp_path).attrs["zarrhpc_checkpoint"]["latest"] == 3


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_a_random_moment(tmp_path, seed, mpi_command, mpi_env, run_mpi):
    job = start_job(2, "loop", tmp_path, mpi_command, mpi_env)
    # the ranks announce themselves once step 0 is committed; the kill comes at a random
    # moment of the saving loop after that
    kill_job(job, tmp_path, 2, delay=random.Random(seed).uniform(0.05, 0.8))
    ck = Checkpointer(tmp_path)
    committed = ck.steps()
    # keep_last=2, plus one when the kill fell between a commit and its retention pass
    assert committed and len(committed) <= 3
    assert committed == list(range(committed[0], committed[-1] + 1))
    for step in committed:
        snap = ck.load(step)
        np.testing.assert_array_equal(snap["T"], ck_worker.field(step))
        np.testing.assert_array_equal(snap["U"], ck_worker.field(step, "U"))
        assert snap.attrs == {"time": step * 0.25}
    # a restarted job goes on from the newest committed step, over the half-written one
    run_mpi(2, WORKER, "resume", str(tmp_path))
    assert ck.steps() == [committed[-1] + 1, committed[-1] + 2] and ck.uncommitted() == []
    np.testing.assert_array_equal(ck.load()["T"], ck_worker.field(committed[-1] + 2))


def test_retention_erases_retired_steps_from_every_rank(tmp_path, run_mpi):
    run_mpi(3, WORKER, "retention", str(tmp_path))
    ck = Checkpointer(tmp_path)
    assert ck.steps() == [3] and ck.uncommitted() == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("step_")) == ["step_00000003"]
    np.testing.assert_array_equal(ck.load()["T"], ck_worker.field(3))
    erased = [int((tmp_path / "erased" / str(r)).read_text()) for r in range(3)]
    # steps 0, 1, 2 retired: 2 arrays x 5 x 5 x 1 chunks each, shared out between the ranks
    assert sum(erased) == 3 * 2 * 25 and all(n > 0 for n in erased), erased


@pytest.mark.parametrize("nranks", [2, 3, 5])
def test_random_checkpoints_load_what_was_saved(tmp_path, run_mpi, nranks):
    # tests/mpi/ckpt_fuzz_worker.py: random arrays, regions and keep_last, random loads
    worker = str(Path(__file__).with_name("ckpt_fuzz_worker.py"))
    run_mpi(nranks, worker, str(tmp_path), str(nranks), "12", timeout=300)
    report = json.loads((tmp_path / "fuzz.json").read_text())
    assert len(report) == 12
    failed = [r for r in report if r["failures"]]
    assert not failed, json.dumps(failed[:3], indent=1)


ck2 = load_script(WORKER2)
TWO_NODES = {"ZARRHPC_RANKS_PER_NODE": "1"}  # 2 ranks = 2 simulated nodes


def test_sigkill_during_async_save_keeps_previous_step(tmp_path, mpi_command, mpi_env):
    job = start_job(2, "async_hang", tmp_path, mpi_command, mpi_env, WORKER2, TWO_NODES)
    segments = kill_job(job, tmp_path, 2)
    from mpi4py import MPI

    if "MPICH" in MPI.Get_library_version():
        assert segments and not any(Path(s).exists() for s in segments)
    ck = Checkpointer(tmp_path)
    assert ck.steps() == [1, 2] and ck.uncommitted() == [3]
    assert any(k.startswith("step_00000003/T/c/") for k in zarrhpc.LocalStore(tmp_path).list())
    snap = ck.load()
    assert snap.step == 2 and snap.attrs == {"step": 2}
    np.testing.assert_array_equal(snap["T"], ck2.field(2))


def test_sigkill_during_node_aggregated_async_save_keeps_previous_step(tmp_path, mpi_command,
                                                                      mpi_env):
    # 4 ranks as 2 nodes; every rank stops inside step 3's shard writes, then is killed
    job = start_job(4, "async_node_hang", tmp_path, mpi_command, mpi_env, WORKER2,
                    {"ZARRHPC_RANKS_PER_NODE": "2"})
    kill_job(job, tmp_path, 4)
    ck = Checkpointer(tmp_path)
    assert ck.steps() == [1, 2] and ck.uncommitted() == [3]
    store = zarrhpc.LocalStore(tmp_path)
    # the shards of step 3 exist only under temporary names: listings do not show them
    assert not any(k.startswith("step_00000003/T/c/") for k in store.list())
    assert any(p.is_file() for p in (tmp_path / "step_00000003" / "T").rglob("*")
               if p.name != "zarr.json")
    for step in (1, 2):  # the snapshots, not the caller's array overwritten at once
        snap = ck.load(step)
        assert snap.attrs == {"step": step}
        np.testing.assert_array_equal(snap["T"], ck2.field(step))


def test_sigkill_during_drain_leaves_both_tiers_loadable(tmp_path, mpi_command, mpi_env):
    job = start_job(2, "drain_hang", tmp_path, mpi_command, mpi_env, WORKER2, TWO_NODES)
    kill_job(job, tmp_path, 2)
    durable = Checkpointer(tmp_path / "durable")  # the fast tier lost: the durable alone
    assert durable.steps() == [1, 2] and durable.uncommitted() == [3]
    np.testing.assert_array_equal(durable.load()["T"], ck2.field(2))
    both = Checkpointer(tmp_path / "durable", fast=tmp_path / "fast")
    assert both.latest() == 3 and both.steps() == [1, 2, 3]
    snap = both.load()
    assert snap.step == 3
    np.testing.assert_array_equal(snap["T"], ck2.field(3))
    both.close()  # drains step 3 over the half-copied one
    assert Checkpointer(tmp_path / "durable").steps() == [1, 2, 3]
    np.testing.assert_array_equal(Checkpointer(tmp_path / "durable").load()["T"], ck2.field(3))
