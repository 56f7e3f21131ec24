"""Random decompositions on 2 to 6 ranks through the public surface (tests/mpi/fuzz_worker.py).

Each job draws its cases from a fixed seed (so a failure replays with the same command):
random arrays, codecs, formats and shards, random unaligned regions, every ownership
policy; zarr-python reads what the ranks wrote. A longer run is one command:
``mpiexec -n 5 python -m mpi4py tests/mpi/fuzz_worker.py DIR SEED 500``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.mpi

WORKER = str(Path(__file__).with_name("fuzz_worker.py"))


@pytest.mark.parametrize("nranks", [2, 3, 4, 5, 6])
def test_random_decompositions_equal_numpy_and_read_in_zarr_python(tmp_path, run_mpi, nranks):
    pytest.importorskip("zarr")
    ncases = 30
    run_mpi(nranks, WORKER, str(tmp_path), str(nranks), str(ncases), timeout=300)
    report = json.loads((tmp_path / "fuzz.json").read_text())
    assert len(report) == ncases
    policies = {r["case"]["policy"] for r in report}
    assert policies == {"block", "cyclic", "decomposition"}
    failed = [r for r in report if r["failures"]]
    assert not failed, json.dumps(failed[:3], indent=1)
