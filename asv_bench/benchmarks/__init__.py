"""asv benchmarks of zarrhpc; modules mirror the package (kernels.py: zarrhpc._kernels)."""
