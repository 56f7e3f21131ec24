"""Load a worker script (a file that mpiexec runs) as a module, for its pure helpers.

The MPI tests start scripts such as ``tests/mpi/ckpt_worker.py`` under mpiexec and check
their results with the same pure functions (the data of a step, a rank's region): the
test imports the script by path, which works under pytest's ``importlib`` import mode.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["load_script"]


def load_script(path, name: str | None = None):
    """Import the Python file ``path`` as a module named ``name`` (default: its stem)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(name or f"zh_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
