"""Checkpointer without MPI: asynchronous saves, the metadata budget, two tiers."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import zarrhpc
from zarrhpc.checkpoint import Checkpointer, SaveHandle


def fields(step: int) -> dict:
    return {"T": np.arange(300.0).reshape(10, 30) + step, "n": np.arange(7, dtype="i4") * step}


def test_save_reports_the_files_it_created(tmp_path):
    ck = Checkpointer(tmp_path, durable=True)
    stats = ck.save(1, fields(1), chunks={"T": (5, 10), "n": (7,)})
    step = tmp_path / "step_00000001"
    files = [p for p in step.rglob("*") if p.is_file()]
    dirs = [step] + [p for p in step.rglob("*") if p.is_dir()]
    assert set(stats) == {"files_created", "dirs_created", "renames", "fsyncs", "bytes_written",
                          "seconds"}
    assert len(files) == 1 + 2 + 6 + 1  # group, 2 arrays' zarr.json, 6 + 1 chunks
    assert stats["files_created"] == len(files) + 2 == stats["renames"]  # + the commit's 2
    assert stats["dirs_created"] == len(dirs)
    assert stats["fsyncs"] == len(files) + len(dirs)
    assert stats["bytes_written"] >= sum(p.stat().st_size for p in files)
    assert stats["seconds"] > 0
    assert Checkpointer(tmp_path, durable=False).save(2, fields(2))["fsyncs"] == 0


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_save_async_snapshots_before_returning(tmp_path, kind):
    store = tmp_path / "ck" if kind == "local" else zarrhpc.MemoryStore()
    ck = Checkpointer(store, keep_last=2)
    data = fields(0)
    handles = []
    for step in range(4):
        for name, value in fields(step).items():
            data[name][...] = value
        h = ck.save_async(step, data, {"step": step})
        assert isinstance(h, SaveHandle)
        for value in data.values():
            value[...] = -7  # the caller overwrites its arrays at once
        handles.append(h)
    stats = handles[-1].wait()
    assert handles[-1].done() and handles[-1].exception() is None and handles[-1].stats == stats
    assert stats["files_created"] > 0
    assert ck.steps() == [2, 3]
    for step in (2, 3):
        snap = ck.load(step)
        assert snap.attrs == {"step": step}
        for name, value in fields(step).items():
            np.testing.assert_array_equal(snap[name], value)


def test_save_async_reuses_its_snapshot_buffer_only_after_the_save_in_flight(tmp_path):
    class Slow(zarrhpc.LocalStore):  # step 1's chunks are stored slowly
        def _set(self, key, data):
            if key.startswith("step_00000001/x/c/"):
                time.sleep(0.1)
            super()._set(key, data)

    ck = Checkpointer(tmp_path)
    ck.store = Slow(tmp_path)
    x = np.arange(2**20, dtype="f8")  # 8 MiB: a pooled buffer from the block cache
    kw = {"chunks": (2**18,), "compressors": None}
    first = ck.save_async(1, {"x": x}, **kw)
    buf = ck._snapshots._buffers["x"]
    assert not np.shares_memory(buf, x)
    x[...] = -1  # the caller overwrites its array at once
    assert not first.done()
    second = ck.save_async(2, {"x": x}, **kw)  # the same buffer, once step 1 is saved
    assert first.done() and ck._snapshots._buffers["x"] is buf
    x[...] = -2
    second.wait()
    np.testing.assert_array_equal(ck.load(1)["x"], np.arange(2**20, dtype="f8"))
    np.testing.assert_array_equal(ck.load(2)["x"], np.full(2**20, -1.0))


def test_save_async_failure_reaches_wait_and_exception(tmp_path):
    ck = Checkpointer(tmp_path)
    ck.save(1, fields(1))

    class Broken(zarrhpc.LocalStore):
        def _set(self, key, data):
            if "/c/" in key:
                raise OSError(28, "No space left on device")
            super()._set(key, data)

    ck.store = Broken(tmp_path)
    h = ck.save_async(2, fields(2))
    assert isinstance(h.exception(), Exception)
    with pytest.raises(Exception, match="No space left"):
        h.wait()
    ck.store = zarrhpc.LocalStore(tmp_path)
    assert Checkpointer(tmp_path).steps() == [1] and Checkpointer(tmp_path).uncommitted() == [2]


def test_bad_arguments_are_refused_before_anything_runs(tmp_path):
    ck = Checkpointer(tmp_path)
    with pytest.raises(ValueError, match="step"):
        ck.save_async(-1, fields(1))
    with pytest.raises(TypeError, match="unexpected keyword"):
        ck.save_async(1, fields(1), chunk=(2, 2))
    with pytest.raises(ValueError, match="policy"):
        ck.save(1, fields(1), policy="nodes")
    with pytest.raises(ValueError, match="drain_every"):
        Checkpointer(tmp_path, fast=tmp_path / "f", drain_every=0)
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="shards_per_node"):
            Checkpointer(tmp_path, shards_per_node=bad)


def test_two_tiers_drain_every_kth_and_close_drains_the_newest(tmp_path):
    fast, durable = tmp_path / "fast", tmp_path / "durable"
    with Checkpointer(durable, fast=fast, drain_every=3) as ck:
        for step in range(5):
            ck.save_async(step, fields(step)) if step % 2 else ck.save(step, fields(step))
        assert ck.steps() == [0, 1, 2, 3, 4] and ck.latest() == 4
        assert Checkpointer(durable).steps() == [2]  # the 3rd save
        np.testing.assert_array_equal(ck.load()["T"], fields(4)["T"])
        np.testing.assert_array_equal(ck.load(2)["n"], fields(2)["n"])
    assert Checkpointer(durable).steps() == [2, 4]  # close() drained step 4
    # the fast tier lost: the durable one alone is a checkpoint
    import shutil

    shutil.rmtree(fast)
    ck = Checkpointer(durable, fast=fast)
    assert ck.latest() == 4
    np.testing.assert_array_equal(ck.load()["T"], fields(4)["T"])
    # the drained copy is the same files as the fast tier's, read by zarr-python too
    import zarr

    np.testing.assert_array_equal(zarr.open_array(str(durable / "step_00000004" / "T"))[...],
                                  fields(4)["T"])
    assert not [p for p in durable.rglob("*") if p.name.startswith(".zhtmp-")]
    assert os.path.exists(durable / "step_00000004" / "zarr.json")
