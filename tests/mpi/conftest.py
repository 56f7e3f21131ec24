"""Start real MPI jobs from pytest: find mpiexec (the venv's, from the mpich wheel) and run.

Fixtures: `run_mpi` (run a job to completion, fail with its output), `mpi_command` (the
command line, for jobs a test starts and kills itself), `mpi_env`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _mpiexec() -> str:
    """The mpiexec beside this Python (the ``mpich`` wheel puts it there), else on PATH."""
    pytest.importorskip("mpi4py", reason="the [mpi] extra (mpi4py, mpich) is not installed")
    found = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec: install the [mpi] extra (pip install mpich)")
    return found


def _mpi_command(nranks: int, *args: str) -> list[str]:
    # MPICH's hydra starts more ranks than cores without any flag; `-m mpi4py` aborts the
    # whole job when one rank raises, instead of leaving the others waiting
    return [_mpiexec(), "-n", str(nranks), sys.executable, "-m", "mpi4py", *args]


def _mpi_env() -> dict:
    env = dict(os.environ)
    env.setdefault("ZARRHPC_NUM_THREADS", "1")  # the ranks already oversubscribe the cores
    return env


def _run_mpi(nranks: int, *args: str, timeout: float = 120, env: dict | None = None
             ) -> subprocess.CompletedProcess:
    proc = subprocess.run(_mpi_command(nranks, *args), capture_output=True, text=True,
                          timeout=timeout, env={**_mpi_env(), **(env or {})}, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"mpiexec -n {nranks} {' '.join(args)} failed "
                             f"({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@pytest.fixture(scope="session")
def run_mpi():
    """``run_mpi(nranks, script, *args)``: run a job; fail with its output if it fails."""
    return _run_mpi


@pytest.fixture(scope="session")
def mpi_command():
    """``mpi_command(nranks, script, *args)``: the command line of a job."""
    return _mpi_command


@pytest.fixture(scope="session")
def mpi_env():
    """``mpi_env()``: the environment for a job."""
    return _mpi_env
