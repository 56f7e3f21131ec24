"""Checkpointer without MPI: save/steps/latest/load, retention, commit marker, crashes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import zarrhpc
from zarrhpc.checkpoint import Checkpointer
from zarrhpc.errors import CheckpointError, ContainsGroupError, StoreError


def fields(step: int) -> dict:
    return {"T": np.arange(300.0).reshape(10, 30) + step, "n": np.arange(7, dtype="i4") * step}


@pytest.fixture(params=["local", "memory"])
def store(request, tmp_path):
    return tmp_path / "ck" if request.param == "local" else zarrhpc.MemoryStore()


def test_save_then_load_round_trips(store):
    ck = Checkpointer(store)
    assert ck.steps() == [] and ck.latest() is None
    ck.save(5, fields(5), {"time": 1.25, "note": "first"})
    ck.save(10, fields(10), {"time": 2.5})
    assert ck.steps() == [5, 10] and ck.latest() == 10
    snap = ck.load()
    assert snap.step == 10 and snap.attrs == {"time": 2.5}
    for name, value in fields(10).items():
        np.testing.assert_array_equal(snap[name], value)
        assert snap[name].dtype == value.dtype
    old = ck.load(5, names=["T"], region=(slice(2, 4), slice(5, 9)))
    assert list(old.arrays) == ["T"] and old.attrs["note"] == "first"
    np.testing.assert_array_equal(old["T"], fields(5)["T"][2:4, 5:9])


def test_layout_is_plain_zarr_with_root_attribute(tmp_path):
    zarr = pytest.importorskip("zarr")
    ck = Checkpointer(tmp_path, keep_last=None)
    ck.save(3, fields(3), compressors={"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}})
    ck.save(4, fields(4), chunks={"T": (5, 7), "n": (3,)})
    root = zarr.open_group(str(tmp_path), mode="r")
    assert root.attrs["zarrhpc_checkpoint"] == {"latest": 4, "format": 1}
    assert sorted(root.group_keys()) == ["step_00000003", "step_00000004"]
    assert root["step_00000004"].attrs["zarrhpc_checkpoint"]["committed"] is True
    assert root["step_00000004/T"].chunks == (5, 7)
    np.testing.assert_array_equal(root["step_00000003/T"][...], fields(3)["T"])


def test_keep_last_deletes_older_steps(tmp_path):
    ck = Checkpointer(tmp_path, keep_last=2)
    for step in range(0, 50, 10):
        ck.save(step, fields(step))
    assert ck.steps() == [30, 40]
    assert not (tmp_path / "step_00000000").exists()
    np.testing.assert_array_equal(ck.load(30)["n"], fields(30)["n"])


class FailingStore(zarrhpc.MemoryStore):
    """Raises on the n-th chunk write of a given step (a crash inside save)."""

    def __init__(self, step_prefix: str, after: int):
        super().__init__()
        self.prefix, self.after, self.count = step_prefix, after, 0

    def _set(self, key, data):
        if key.startswith(self.prefix) and "/c/" in key:
            self.count += 1
            if self.count > self.after:
                raise StoreError(f"{key}: disk full (simulated)")
        super()._set(key, data)


def test_interrupted_save_is_ignored_and_reported(caplog):
    store = FailingStore("step_00000002/", after=1)
    ck = Checkpointer(store)
    ck.save(1, fields(1))
    with pytest.raises(StoreError, match="disk full"):
        ck.save(2, fields(2))
    with caplog.at_level("WARNING", logger="zarrhpc.checkpoint"):
        assert ck.latest() == 1
    assert "step 2" in caplog.text and "not committed" in caplog.text
    assert ck.uncommitted() == [2]
    with pytest.raises(CheckpointError, match="not committed"):
        ck.load(2)
    np.testing.assert_array_equal(ck.load()["T"], fields(1)["T"])
    # the restarted run saves step 2 again: the half-written one is replaced
    store.after = 10**9
    ck.save(2, fields(2))
    assert ck.steps() == [1, 2] and ck.uncommitted() == []
    np.testing.assert_array_equal(ck.load()["T"], fields(2)["T"])


def test_committed_step_is_not_overwritten_silently(store):
    ck = Checkpointer(store)
    ck.save(1, fields(1))
    with pytest.raises(ContainsGroupError, match="already committed"):
        ck.save(1, fields(2))
    np.testing.assert_array_equal(ck.load(1)["T"], fields(1)["T"])
    ck.save(1, fields(2), overwrite=True)
    np.testing.assert_array_equal(ck.load(1)["T"], fields(2)["T"])


def test_bad_arguments_have_clear_errors(store):
    ck = Checkpointer(store)
    with pytest.raises(ValueError, match="non-negative integer"):
        ck.save(-1, fields(0))
    with pytest.raises(ValueError, match="at least one"):
        ck.save(1, {})
    with pytest.raises(ValueError, match="reserved"):
        ck.save(1, fields(1), {"zarrhpc_checkpoint": 1})
    with pytest.raises(ValueError, match="keep_last"):
        Checkpointer(store, keep_last=0)
    with pytest.raises(CheckpointError, match="no committed checkpoint"):
        ck.load()
    ck.save(1, fields(1))
    with pytest.raises(CheckpointError, match="missing"):
        ck.load(7)
    with pytest.raises(CheckpointError, match="no array 'x'"):
        ck.load(names=["x"])


def test_process_killed_inside_save_restarts_from_previous_step(tmp_path):
    """A real SIGKILL in the middle of a step's chunk writes (one process, no MPI)."""
    script = textwrap.dedent(f"""
        import os, signal, numpy as np, zarrhpc
        from zarrhpc.checkpoint import Checkpointer

        class Killer(zarrhpc.LocalStore):
            n = 0
            def _set(self, key, data):
                super()._set(key, data)
                if key.startswith("step_00000002/") and "/c/" in key:
                    Killer.n += 1
                    if Killer.n == 3:
                        os.kill(os.getpid(), signal.SIGKILL)

        ck = Checkpointer(Killer({str(tmp_path)!r}))
        for step in (1, 2):
            ck.save(step, {{"T": np.arange(4000.0).reshape(40, 100) * step}}, chunks=(10, 10))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    ck = Checkpointer(tmp_path)
    assert ck.steps() == [1] and ck.uncommitted() == [2]
    np.testing.assert_array_equal(ck.load()["T"], np.arange(4000.0).reshape(40, 100))
    doc = json.loads((tmp_path / "zarr.json").read_text())
    assert doc["attributes"]["zarrhpc_checkpoint"]["latest"] == 1
