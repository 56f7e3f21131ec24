"""Gathered async calls on one store vs a sequential run (zarrhpc.testing.differential_async):
disjoint box writes (setitem, oindex, vindex) over several handles, attribute updates,
reads beside writes, sync-API writes between, appends of distinct rows beside an attribute
update, a grow beside writes; final array, attributes and zarr-python's read vs numpy.
On the code before the metadata lock, 87 of 100 programs lost attribute updates.

Short in ``make test``; long: ``ZARRHPC_LONG=1`` (the numbers are in the hunt's notes)."""

import os

import numpy as np
import pytest

import zarrhpc.core.api_async as api_async
from zarrhpc.testing.differential_async import run_program

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
N = 600 if LONG else 6


@pytest.mark.parametrize("seed", range(N))
def test_gathered_calls_store_what_a_sequential_run_stores(tmp_path, seed):
    out = run_program(seed, str(tmp_path))
    assert out.calls >= 3
    assert not out.problems, out.problems[:3]


def test_the_harness_sees_a_wrong_value(tmp_path, monkeypatch):
    """An awaited setitem that stores one element changed is reported."""
    real = api_async.AsyncArray.setitem

    async def corrupting(self, selection, value, prototype=None):
        value = np.array(value, copy=True)
        value.reshape(-1)[:1] += 1
        await real(self, selection, value)

    monkeypatch.setattr(api_async.AsyncArray, "setitem", corrupting)
    problems = []
    for seed in range(20):
        problems += run_program(seed, str(tmp_path / str(seed))).problems
        if problems:
            break
    assert problems and "differs from the sequential run" in problems[0]
