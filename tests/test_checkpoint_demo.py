"""The checkpoint/restart demo (`make demo`) end to end, on a small field: killed inside
a checkpoint, restarted, and equal to the uninterrupted run; on one process and on 2 ranks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEMO = str(Path(__file__).parents[1] / "examples" / "checkpoint_demo.py")


@pytest.mark.parametrize("ranks", [1, pytest.param(2, marks=pytest.mark.mpi)])
def test_demo_is_killed_restarts_and_matches(tmp_path, ranks):
    if ranks > 1:
        pytest.importorskip("mpi4py", reason="the [mpi] extra is not installed")
    shm = Path("/dev/shm")
    before = set(shm.iterdir()) if shm.is_dir() else set()
    proc = subprocess.run(
        [sys.executable, DEMO, "--dir", str(tmp_path / "ck"), "--ranks", str(ranks),
         "--shape", "24,12,10", "--chunks", "8,6,5", "--steps", "12", "--every", "3",
         "--kill-step", "9", "--timeout", "120"],
        capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "committed steps [3, 6], uncommitted [9]" in out
    assert "newest complete step 6 (ignored, not committed: [9])" in out
    assert f"restart on {max(1, ranks - 1)} rank(s)" in out
    assert "overlap (run 2)" in out and "files per checkpoint, run 2" in out
    assert "OK: step 12 after kill + restart equals the uninterrupted run bit for bit" in out
    assert "checkpoint bandwidth" in out
    if shm.is_dir():  # the killed job's MPI shared memory was removed
        new = [p for p in set(shm.iterdir()) - before if p.name.startswith("mpich_shm_")]
        # on a shared machine other jobs come and go: only a file no live process maps
        # is left over
        assert not [p for p in new if p.exists() and not _mapped(p)]
    assert not list(tmp_path.glob("ck.*"))  # timings and segment lists cleaned up


def _mapped(path: Path) -> bool:
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            if str(path) in maps.read_text():
                return True
        except OSError:  # the process ended meanwhile
            continue
    return False
