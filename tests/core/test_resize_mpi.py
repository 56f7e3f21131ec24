"""zarrhpc.mpi.resize with real ranks (mpiexec -n 2), as the tests in tests/mpi/ run."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mpi4py")


def _mpiexec() -> str:
    found = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpiexec")
    if found is None:
        pytest.skip("no mpiexec: install the [mpi] extra (pip install mpich)")
    return found


@pytest.mark.parametrize("nranks", [1, 2])
def test_collective_resize(tmp_path, nranks):
    worker = Path(__file__).with_name("resize_mpi_worker.py")
    env = {**os.environ, "ZARRHPC_NUM_THREADS": "1"}
    proc = subprocess.run(
        [_mpiexec(), "-n", str(nranks), sys.executable, "-m", "mpi4py", str(worker),
         str(tmp_path / "a.zarr")], capture_output=True, text=True, timeout=120, env=env,
        check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "RESIZE-OK" in proc.stdout
