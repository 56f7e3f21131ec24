"""Dependencies point down only (STYLE.md): checked on the import statements."""

import ast
import re
from pathlib import Path

import pytest

import zarrhpc

PKG = Path(zarrhpc.__file__).parent

# layer -> zarrhpc subpackages it must not import
FORBIDDEN = {
    "_kernels": {"metadata", "indexing", "codecs", "storage", "core", "config"},
    "metadata": {"indexing", "codecs", "storage", "core", "_kernels", "config"},
    "storage": {"metadata", "indexing", "codecs", "core", "_kernels"},
    "indexing": {"codecs", "storage", "core", "metadata"},
    "codecs": {"storage", "core", "metadata", "indexing"},
}


def zarrhpc_imports(path: Path) -> set[str]:
    """The zarrhpc subpackages a module imports (first component after 'zarrhpc.')."""
    if path.suffix == ".pyx":  # Cython: not Python syntax, but imports are one per line
        pattern = r"^\s*(?:from|c?import)\s+zarrhpc\.(\w+)"
        return set(re.findall(pattern, path.read_text(), flags=re.M))
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "zarrhpc" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_down(layer):
    sources = [p for p in (PKG / layer).rglob("*") if p.suffix in (".py", ".pyx")]
    assert sources
    for path in sources:
        bad = zarrhpc_imports(path) & FORBIDDEN[layer]
        assert not bad, f"{path.relative_to(PKG)} imports zarrhpc.{sorted(bad)}"


def test_top_level_does_not_import_mpi():
    assert "mpi" not in zarrhpc_imports(PKG / "__init__.py")
