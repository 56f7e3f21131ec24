"""Compiled kernels (private). Knows nothing about Zarr; imports only zarrhpc.errors."""

try:
    from zarrhpc._kernels.strided import copy_into, fill
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "zarrhpc's compiled kernels are missing: build the package first "
        "(`make build`, or `pip install .`)"
    ) from exc

__all__ = ["copy_into", "fill"]
