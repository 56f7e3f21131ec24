"""pytest plugin that runs dask's own zarr tests with zarrhpc as the Zarr library.

Loaded by ``upstream.py`` (``-p dask_plugin``). With ``DASK_SUITE_LIB=zarrhpc`` it switches,
for the whole run, what a dask user who wrote ``import zarrhpc as zarr`` meets:

- the tests' ``zarr = pytest.importorskip("zarr")`` gives ``zarrhpc`` as
  :mod:`zarrhpc.testing.zarr_switch` presents it (a ``minversion`` and ``zarr.__version__``
  are zarr-python's, whose API zarrhpc follows), so every array and store
  the tests make (``zarr.array``, ``zarr.zeros_like``, ``zarr.create_array``,
  ``zarr.storage.LocalStore``) is zarrhpc's and every check they make with ``zarr``
  (``zarr.open_group``, ``z.shards``) reads through zarrhpc;
- ``dask.array.from_zarr`` / ``to_zarr`` and ``Array.to_zarr`` are
  ``zarrhpc.dask.from_zarr`` / ``to_zarr`` (dask's own take only zarr-python arrays);
  ``da.from_array`` and ``da.store`` stay dask's and get zarrhpc arrays.

With ``DASK_SUITE_LIB=zarr`` nothing is switched (the baseline).
"""

from __future__ import annotations

import os

import pytest


def _importorskip(original):
    def importorskip(modname, minversion=None, reason=None, **kwargs):
        if modname != "zarr":
            return original(modname, minversion=minversion, reason=reason, **kwargs)
        original("zarr", minversion=minversion, reason=reason, **kwargs)  # its version
        from zarrhpc.testing import zarr_switch

        zarr_switch.install()  # the alias package, no file switched
        return zarr_switch.switched("zarr")

    return importorskip


def pytest_configure(config):
    if os.environ.get("DASK_SUITE_LIB", "zarrhpc") != "zarrhpc":
        return
    import dask.array as da
    import dask.array.core as core

    import zarrhpc.dask as zd

    pytest.importorskip = _importorskip(pytest.importorskip)
    for module in (da, core):
        module.from_zarr = zd.from_zarr
        module.to_zarr = zd.to_zarr


def pytest_report_header(config):
    return f"dask suite: zarr = {os.environ.get('DASK_SUITE_LIB', 'zarrhpc')}"
