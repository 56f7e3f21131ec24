"""Slab decompositions with whole-plane chunks (see slab_worker.py)."""

import json
from pathlib import Path

import pytest

from . import slab_worker

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("nranks", [2, 3, 4])
def test_slab_writes_equal_numpy(run_mpi, tmp_path, nranks):
    run_mpi(nranks, str(Path(slab_worker.__file__)), str(tmp_path))
    got = json.loads((tmp_path / "slabs.json").read_text())
    for name in ("raw", "zstd", "big-endian"):
        assert got[name]["equal"], name
        assert "2" not in got[name]["files"], f"{name}: the fill chunk was stored"
        assert got[name]["files"] == ["0", "1", "3", "4"], name
    assert got["raw"]["raw"] is True
