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
import json
import os
import pathlib
import sys
import tempfile

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


def _zp_runner():
    """The zarr-python suite runner (its outcome collector and summary: one place)."""
    spec = importlib.util.spec_from_file_location(
        "_zp_upstream", HERE.parent.parent / "api" / "zarr_python_suite" / "upstream.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(lib: str, select: str = "zarr", extra=()) -> dict:
    """``{test id: (outcome, detail)}`` of the selected tests run against ``lib``."""
    import dask
    import pytest

    os.environ["DASK_SUITE_LIB"] = lib
    sys.path.insert(0, str(HERE))
    root = pathlib.Path(dask.__file__).parent
    col = _zp_runner()._Collector()
    with tempfile.TemporaryDirectory(prefix="dask-suite-") as tmp:
        ini = pathlib.Path(tmp) / "pytest.ini"
        ini.write_text(INI)
        old = os.getcwd()
        os.chdir(tmp)
        try:
            pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p",
                         "dask_plugin", "-c", str(ini), "--rootdir", tmp, "-k", select,
                         *extra, *[str(root / m) for m in MODULES]], plugins=[col])
        finally:
            os.chdir(old)
    return col.outcomes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", choices=["zarr", "zarrhpc"], default="zarrhpc")
    p.add_argument("-k", dest="select", default="zarr", help="pytest -k expression")
    p.add_argument("--json", help="write every test's outcome here")
    args, extra = p.parse_known_args(argv)
    outcomes = run(args.lib, args.select, extra)
    summary = _zp_runner().summarize(outcomes, width=70)
    print(json.dumps(summary, indent=1))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"summary": summary,
                                                       "outcomes": outcomes}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
