"""pytest plugin that runs a downstream library's own tests with zarrhpc as its Zarr.

Loaded by ``upstream.py`` (``-p ds_plugin``) in the downstream venv. ``DS_LIB`` says which
Zarr the stack uses; ``DS_ROOTS`` (``os.pathsep``-separated) names the directories whose
files are switched: the library's installed package and its test directory.

With ``DS_LIB=zarrhpc`` the whole stack a user switches by writing ``import zarrhpc as zarr``:

- every ``import zarr`` made by the library or its tests gives zarrhpc
  (:mod:`zarrhpc.testing.zarr_switch`, the switch zarr-python's suite runner uses too);
  a zarr-python name zarrhpc does not have is a placeholder whose use is counted as
  "internal" (the library or test reaches into zarr-python's internals);
- xarray's zarr engine is zarrhpc's (``tests/xarray/xarray_suite/xr_plugin.py``'s switch) and
  dask's ``from_zarr`` / ``to_zarr`` are ``zarrhpc.dask``'s (``tests/dask/dask_suite``'s).

With ``DS_LIB=zarr`` nothing is switched (the baseline). Every outcome is written to
``DS_OUT`` (JSON) with the zarr-python suite runner's collector.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).parent
LIB = os.environ.get("DS_LIB", "zarrhpc")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, HERE.parent / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_collector = _load("_zp_upstream", "api/zarr_python_suite/upstream.py")._Collector()

if LIB == "zarrhpc":
    from zarrhpc.testing import zarr_switch

    _roots = [r for r in os.environ.get("DS_ROOTS", "").split(os.pathsep) if r]
    # a switched module imported before the switch (by a plugin loaded first) is bound to
    # zarr-python: the run would test a mixture
    _early = sorted(name for name, m in list(sys.modules.items())
                    if str(getattr(m, "__file__", None) or "").startswith(tuple(_roots)))
    if _early:
        raise pytest.UsageError(f"imported before the zarr switch: {_early[:5]}")
    zarr_switch.install(*_roots)


def pytest_configure(config):
    config.pluginmanager.register(_collector, "ds_collector")
    if LIB != "zarrhpc":
        return
    os.environ["XR_SUITE_LIB"] = os.environ["DASK_SUITE_LIB"] = "zarrhpc"
    _load("_dask_plugin", "dask/dask_suite/dask_plugin.py").pytest_configure(config)
    if importlib.util.find_spec("xarray") is not None:
        xr_plugin = _load("_xr_plugin", "xarray/xarray_suite/xr_plugin.py")
        xr_plugin.pytest_configure(config)


def pytest_collection_finish(session):
    if LIB == "zarrhpc":
        zarr_switch.collection_done()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if LIB == "zarrhpc" and call.excinfo is not None and report.failed:
        cause = zarr_switch.internal_cause(call.excinfo.value)
        if cause:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"internal: {cause}")
    return report


def pytest_sessionfinish(session):
    out = os.environ.get("DS_OUT")
    if out:
        pathlib.Path(out).write_text(json.dumps(_collector.outcomes, indent=1))


def pytest_report_header(config):
    return f"downstream suite: zarr = {LIB}"
