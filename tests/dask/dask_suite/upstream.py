"""Run dask's own zarr tests (``dask/array/tests/test_array_core.py``: ``from_zarr``,
``to_zarr``, shards, ``from_array`` of a Zarr array; ``test_xarray.py``'s zarr test) with
zarrhpc as the Zarr library, or, for the baseline, with zarr-python.

Usage (not part of ``make test``)::

    python tests/dask/dask_suite/upstream.py --lib zarrhpc --json /tmp/dask-zarrhpc.json
    python tests/dask/dask_suite/upstream.py --lib zarr --json /tmp/dask-zarr.json

The tests are the installed dask's own (its wheel ships ``dask/array/tests``), so nothing
is fetched; ``dask_plugin.py`` does the switch (its docstring says what is switched).
Selected: every test of those modules whose id names zarr (``-k`` to change).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).parent
MODULES = ["array/tests/test_array_core.py", "array/tests/test_xarray.py"]
INI = """[pytest]
markers =
    slow: slow
    network: network
    gpu: gpu
    array_expr: array-expr
    normal_and_array_expr: normal and array-expr
filterwarnings =
    error:::dask
    ignore::DeprecationWarning
    ignore::FutureWarning
"""


def _xr_runner():
    """The xarray suite runner (its pytest driver and report: one place)."""
    spec = importlib.util.spec_from_file_location(
        "_xr_upstream", HERE.parent.parent / "xarray" / "xarray_suite" / "upstream.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(lib: str, select: str = "zarr", extra=()) -> dict:
    """``{test id: (outcome, detail)}`` of the selected tests run against ``lib``."""
    import dask

    os.environ["DASK_SUITE_LIB"] = lib
    root = pathlib.Path(dask.__file__).parent
    return _xr_runner().run_modules([root / m for m in MODULES], "dask_plugin", INI, select,
                                    extra, HERE)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", choices=["zarr", "zarrhpc"], default="zarrhpc")
    p.add_argument("-k", dest="select", default="zarr", help="pytest -k expression")
    p.add_argument("--json", help="write every test's outcome here")
    args, extra = p.parse_known_args(argv)
    _xr_runner().report(run(args.lib, args.select, extra), args.json)


if __name__ == "__main__":
    sys.exit(main())
