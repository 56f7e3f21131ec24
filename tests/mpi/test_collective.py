"""Collective writes and reads on real ranks (mpiexec -n 2, 3, 4), checked against numpy.

One mpiexec job per rank count runs every case (tests/mpi/mpi_worker.py); each case below
then checks what that job stored: the array equals a serial numpy write of the global
array (read with zarrhpc, and with zarr-python for compressed cases), every chunk was
written by exactly one rank, once, and that rank is the chunk's owner, and every rank's
collective read (both methods) returned its block.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import zarrhpc

pytestmark = pytest.mark.mpi

_spec = importlib.util.spec_from_file_location("zh_mpi_worker", Path(__file__).with_name("mpi_worker.py"))
worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(worker)

RANKS = (2, 3, 4)
CASES = [(n, case) for n in RANKS for case in worker.make_cases(n)]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, run_mpi):
    """nranks -> (store root, {case name: result}), each job run once, on first use."""
    done = {}

    def get(nranks):
        if nranks not in done:
            root = tmp_path_factory.mktemp(f"ranks{nranks}")
            run_mpi(nranks, str(Path(worker.__file__)), str(root))
            results = json.loads((root / "results.json").read_text())
            done[nranks] = (root, {r["name"]: r for r in results})
        return done[nranks]

    return get


def touched_units(case, nranks) -> set[tuple[int, ...]]:
    """Grid coordinates of every unit some rank's region touches."""
    unit = case["shards"] or case["chunks"]
    out = set()
    for reg in worker.regions(case, nranks):
        if any(s.stop <= s.start for s in reg):
            continue
        ranges = [range(s.start // u, -(-s.stop // u)) for s, u in zip(reg, unit)]
        out.update(itertools.product(*ranges))
    return out


@pytest.mark.parametrize(("nranks", "case"), CASES, ids=[f"n{n}-{c['name']}" for n, c in CASES])
def test_collective_write_equals_serial_numpy(jobs, nranks, case):
    root, results = jobs(nranks)
    res = results[case["name"]]
    if res["status"].startswith("unsupported"):
        pytest.skip(res["status"])
    assert res["status"] == "ok"
    want = worker.expected(case, nranks)
    got = zarrhpc.open_array(root, path=case["name"])[...]
    np.testing.assert_array_equal(got, want)
    if case["codec"] != "none":
        zarr = pytest.importorskip("zarr")
        np.testing.assert_array_equal(zarr.open_array(str(root), path=case["name"], mode="r")[...], want)

    # each touched chunk written (stored or erased) exactly once, by its owner, and no other
    writers = {}
    for rank, keys in res["writes"].items():
        for key in keys:
            coords = tuple(int(i) for i in key.split("/"))
            assert coords not in writers, f"chunk {coords} written twice (ranks {writers[coords]}, {rank})"
            writers[coords] = int(rank)
    owner = {tuple(c): int(r) for r, chunks in res["owners"].items() for c in chunks}
    assert set(writers) == touched_units(case, nranks)
    assert all(owner[c] == r for c, r in writers.items())


@pytest.mark.parametrize(("nranks", "case"), CASES, ids=[f"n{n}-{c['name']}" for n, c in CASES])
def test_collective_read_returns_each_block(jobs, nranks, case):
    _, results = jobs(nranks)
    res = results[case["name"]]
    if res["status"].startswith("unsupported"):
        pytest.skip(res["status"])
    assert res["reads"] == {"direct": [True] * nranks, "owners": [True] * nranks}
