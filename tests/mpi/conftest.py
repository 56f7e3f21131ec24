"""Start real MPI jobs from pytest: find mpiexec (the venv's, from the mpich wheel) and run.

Test modules get `run_mpi` as a fixture and load the job scripts with `load_script`
(the tests folder is not a package).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def mpiexec() -> str:
    """The mpiexec beside this Python (the ``mpich`` wheel puts it there), else on PATH."""
    pytest.importorskip("mpi4py", reason="the [mpi] extra (mpi4py, mpich) is not installed")
    found = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec: install the [mpi] extra (pip install mpich)")
    return found


def mpi_command(nranks: int, *args: str) -> list[str]:
    # hydra starts more ranks than cores without complaint; ranks spin less when they yield
    return [mpiexec(), "-n", str(nranks), sys.executable, *args]


def mpi_env() -> dict:
    env = dict(os.environ)
    env.setdefault("ZARRHPC_NUM_THREADS", "1")  # ranks already oversubscribe 2 cores
    return env


def _run_mpi(nranks: int, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run(mpi_command(nranks, *args), capture_output=True, text=True,
                          timeout=timeout, env=mpi_env())
    if proc.returncode != 0:
        raise AssertionError(f"mpiexec -n {nranks} {' '.join(args)} failed "
                             f"({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def load_script(name: str):
    """Import a script of this folder by path (tests are not a package)."""
    spec = importlib.util.spec_from_file_location(f"zh_mpi_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def run_mpi():
    """``run_mpi(nranks, script, *args)``: run a job, fail with its output if it fails."""
    return _run_mpi
