"""Run xarray's own zarr backend tests with zarrhpc as the zarr engine (or, for the
baseline, with zarr-python) and sort every outcome into a cause.

Usage (not part of ``make test``)::

    python tests/xarray/xarray_suite/upstream.py --lib zarrhpc --json /tmp/xr-zarrhpc.json
    python tests/xarray/xarray_suite/upstream.py --lib zarr --json /tmp/xr-zarr.json

The tests are the installed xarray's own (``xarray/tests/`` ships in its wheel, so they are
exactly the installed version's and nothing is fetched; ``--tests-dir`` points at another
copy of that directory, e.g. a checkout's ``xarray/tests`` at the same version). Selected:
every test of ``test_backends.py`` and ``test_backends_datatree.py`` whose id names zarr
(the ZarrBase-derived classes for a memory store, a directory, a store without
consolidated metadata and ``write_empty_chunks``, ``TestDataArrayToZarr``,
``TestZarrRegionAuto``, ``TestZarrDatatreeIO`` and the module-level zarr tests), for Zarr
formats 2 and 3 (xarray's ``default_zarr_format`` fixture).

``xr_plugin.py`` does the switch (its docstring says what is switched). Outcomes:

- ``passed`` / ``failed``: the test ran through xarray's public API on zarrhpc;
- ``skipped: internal``: the test used xarray's zarr-python data store
  (``xarray.backends.ZarrStore``) directly;
- other skips: xarray's own (a missing optional package, a zarr-python version).
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
MODULES = ["test_backends.py", "test_backends_datatree.py"]
# The markers and warning filters of xarray's own pytest configuration (its pyproject),
# which the installed package does not carry.
INI = """[pytest]
markers =
    flaky: flaky
    network: network
    slow: slow
    slow_hypothesis: slow hypothesis
    mypy: mypy
    asyncio: async
    skip_if_param: skip parametrized cases (xarray's conftest)
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
filterwarnings =
    ignore::DeprecationWarning
    ignore::FutureWarning
    ignore::PendingDeprecationWarning
    ignore::RuntimeWarning
    ignore::UserWarning
"""


def _zp_runner():
    """The zarr-python suite runner (its outcome collector and summary: one place)."""
    spec = importlib.util.spec_from_file_location(
        "_zp_upstream", HERE.parent.parent / "api" / "zarr_python_suite" / "upstream.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(tests_dir: pathlib.Path, lib: str, select: str = "zarr", extra=()) -> dict:
    """``{test id: (outcome, detail)}`` of the selected tests run against ``lib``."""
    os.environ["XR_SUITE_LIB"] = lib
    return run_modules([tests_dir / m for m in MODULES], "xr_plugin", INI, select, extra,
                       HERE)


def run_modules(paths, plugin: str, ini: str, select: str, extra, plugin_dir) -> dict:
    """pytest on ``paths`` from a scratch directory holding ``ini``, with ``plugin`` (a
    module in ``plugin_dir``) and the zarr-python runner's outcome collector; the dask
    suite runner uses it too."""
    import pytest

    sys.path.insert(0, str(plugin_dir))
    col = _zp_runner()._Collector()
    with tempfile.TemporaryDirectory(prefix="suite-") as tmp:
        ini_path = pathlib.Path(tmp) / "pytest.ini"
        ini_path.write_text(ini)
        old = os.getcwd()
        os.chdir(tmp)
        try:
            pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p",
                         plugin, "-c", str(ini_path), "--rootdir", tmp, "-k", select,
                         *extra, *[str(p) for p in paths]], plugins=[col])
        finally:
            os.chdir(old)
    return col.outcomes


def report(outcomes: dict, json_path=None) -> None:
    """Print the summary; write it and every outcome to ``json_path`` when given."""
    summary = summarize(outcomes)
    print(json.dumps(summary, indent=1))
    if json_path:
        pathlib.Path(json_path).write_text(json.dumps({"summary": summary,
                                                       "outcomes": outcomes}, indent=1))


def summarize(outcomes: dict) -> dict:
    return _zp_runner().summarize(outcomes, width=70)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", choices=["zarr", "zarrhpc"], default="zarrhpc")
    p.add_argument("--tests-dir", help="xarray's tests directory (default: the installed "
                                       "xarray's)")
    p.add_argument("-k", dest="select", default="zarr", help="pytest -k expression")
    p.add_argument("--json", help="write every test's outcome here")
    args, extra = p.parse_known_args(argv)
    if args.tests_dir:
        tests_dir = pathlib.Path(args.tests_dir)
    else:
        import xarray

        tests_dir = pathlib.Path(xarray.__file__).parent / "tests"
    report(run(tests_dir, args.lib, args.select, extra), args.json)


if __name__ == "__main__":
    sys.exit(main())
