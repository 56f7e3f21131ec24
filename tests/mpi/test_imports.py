"""mpi4py is optional: only zarrhpc.mpi imports it, and only when MPI is actually used."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import zarrhpc

PKG = Path(zarrhpc.__file__).parent


def test_only_zarrhpc_mpi_imports_mpi4py():
    for path in PKG.rglob("*.py"):
        if path.parent.name == "mpi":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "mpi4py" for n in names), path


def test_importing_zarrhpc_mpi_and_checkpoint_does_not_load_mpi4py():
    code = ("import sys, zarrhpc, zarrhpc.mpi, zarrhpc.checkpoint\n"
            "assert 'mpi4py' not in sys.modules, 'mpi4py imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    code = "import sys, zarrhpc; assert 'zarrhpc.mpi' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
