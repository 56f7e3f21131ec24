"""pytest plugin that runs xarray's own zarr tests with zarrhpc as the zarr engine.

Loaded by ``upstream.py`` (``-p xr_plugin``). With ``XR_SUITE_LIB=zarrhpc`` it switches,
for the whole run, what xarray's public API does for Zarr:

- reading: xarray's ``ZarrBackendEntrypoint`` (``engine="zarr"``, ``xr.open_zarr``,
  guessed ``.zarr`` paths) hands ``open_dataset`` to ``ZarrhpcBackendEntrypoint``, and
  ``open_datatree`` / ``open_groups_as_dict`` to its counterparts;
- writing: ``xarray.backends.writers.to_zarr`` (what ``Dataset.to_zarr`` and
  ``DataArray.to_zarr`` call) and ``_datatree_to_zarr`` become ``zarrhpc.xarray.to_zarr``
  and ``zarrhpc.xarray.datatree_to_zarr``;
- xarray's zarr-python data store (``xarray.backends.ZarrStore``, which a test only
  reaches by using it directly) raises a skip naming it: such tests test xarray's own
  zarr-python glue, not what a user's Dataset I/O does (counted as "internal");
- the async tests (``load_async``) that check each lazy variable is read by one awaited
  call of zarr-python's ``AsyncArray.getitem`` (``AsyncOIndex``/``AsyncVIndex.getitem`` for
  outer/vectorized keys), by ``unittest.mock.patch.object`` on that method, count the
  backend array's own awaited read of the same kind instead
  (``ZarrhpcBackendArray._async_getitem`` / ``_async_oindex`` / ``_async_vindex``): the same
  check, one read per lazy variable and kind, on the code that reads. A test that counts
  zarr-python's ``AsyncGroup.getitem`` (metadata look-ups inside zarr-python) is internal.

Stores the tests make with zarr-python (``zarr.storage.MemoryStore``, ``LocalStore``,
wrappers) are passed on as they are: zarrhpc's xarray layer takes zarr-python stores.
The tests' own ``import zarr`` stays zarr-python, so where a test inspects a store with
zarr-python it checks what zarrhpc wrote. With ``XR_SUITE_LIB=zarr`` nothing is switched
(the baseline).
"""

from __future__ import annotations

import os

import pytest


def _internal(what):
    def refuse(*args, **kwargs):
        pytest.skip(f"internal: {what}")

    return refuse


def _writer(func):
    """``func`` called as xarray calls its writer; arguments it does not take are
    dropped when they have xarray's default value (else a TypeError naming them)."""
    import inspect

    if func is None:
        def missing(*args, **kwargs):
            raise NotImplementedError("zarrhpc.xarray has no DataTree writer")

        return missing
    takes = inspect.signature(func).parameters
    defaults = {"safe_chunks": True, "align_chunks": False,
                "chunkmanager_store_kwargs": None, "write_inherited_coords": False}

    def write(*args, **kwargs):
        if kwargs.get("zarr_format") is None and kwargs.get("mode") in (None, "w", "w-") \
                and kwargs.get("append_dim") is None and kwargs.get("region") is None:
            # xarray's tests choose the format with zarr-python's config
            # (``default_zarr_format`` fixture); zarrhpc's writer reads zarrhpc's
            import zarr

            kwargs["zarr_format"] = zarr.config.get("default_zarr_format")
        for name in [k for k in kwargs if k not in takes]:
            if name in defaults and kwargs[name] == defaults[name]:
                del kwargs[name]
            else:
                raise TypeError(f"zarrhpc.xarray.{func.__name__} takes no {name!r}")
        return func(*args, **kwargs)

    return write


# tests that count calls of zarr-python internals with no zarrhpc counterpart
INTERNAL_TESTS = {"test_avoid_excess_metadata_calls": "counts zarr-python's "
                                                      "AsyncGroup.getitem calls"}


def _async_targets():
    """``{(zarr-python class, "getitem"): (our class, method)}`` for ``patch.object``."""
    import zarr
    from zarr.core import indexing

    from zarrhpc.xarray.backend import ZarrhpcBackendArray as ours

    pairs = {(zarr.AsyncArray, "getitem"): (ours, "_async_getitem")}
    for name, method in (("AsyncOIndex", "_async_oindex"), ("AsyncVIndex", "_async_vindex")):
        if hasattr(indexing, name):
            pairs[(getattr(indexing, name), "getitem")] = (ours, method)
    return pairs


def _redirect_async_patches():
    from unittest import mock

    targets = _async_targets()
    original = mock.patch.object

    def patch_object(target, attribute, *args, **kwargs):
        ours = targets.get((target, attribute))
        if ours is not None:
            target, attribute = ours
            if "side_effect" in kwargs:  # the test passes zarr-python's method through
                kwargs["side_effect"] = getattr(target, attribute)
        return original(target, attribute, *args, **kwargs)

    mock.patch.object = patch_object


def pytest_collection_modifyitems(config, items):
    """xarray's own conftest (not in its wheel): ``skip_if_param(reason=..., **params)``
    skips the parametrized cases whose parameters all match. Both libraries."""
    for item in items:
        for mark in item.iter_markers("skip_if_param"):
            params = getattr(getattr(item, "callspec", None), "params", {})
            wanted = {k: v for k, v in mark.kwargs.items() if k != "reason"}
            if wanted and all(params.get(k, object()) == v for k, v in wanted.items()):
                item.add_marker(pytest.mark.skip(reason=mark.kwargs.get("reason", "")))


def pytest_runtest_setup(item):
    if os.environ.get("XR_SUITE_LIB", "zarrhpc") != "zarrhpc":
        return
    reason = INTERNAL_TESTS.get(getattr(item, "originalname", item.name))
    if reason:
        pytest.skip(f"internal: {reason}")


def pytest_configure(config):
    if os.environ.get("XR_SUITE_LIB", "zarrhpc") != "zarrhpc":
        return
    _redirect_async_patches()
    import xarray.backends.writers as writers
    import xarray.backends.zarr as xzarr

    import zarrhpc.xarray as zx

    ours = zx.ZarrhpcBackendEntrypoint
    engine = xzarr.ZarrBackendEntrypoint
    # the functions themselves: xarray reads open_dataset's signature
    for name in ("open_dataset", "open_datatree", "open_groups_as_dict",
                 "open_dataset_parameters"):
        setattr(engine, name, getattr(ours, name))
    writers.to_zarr = _writer(zx.to_zarr)
    writers._datatree_to_zarr = _writer(getattr(zx, "datatree_to_zarr", None))
    xzarr.ZarrStore.open_group = classmethod(_internal("xarray.backends.ZarrStore"))
    xzarr.ZarrStore.open_store = classmethod(_internal("xarray.backends.ZarrStore"))
    xzarr.ZarrStore.__init__ = _internal("xarray.backends.ZarrStore")


def pytest_report_header(config):
    return f"xarray suite: zarr engine = {os.environ.get('XR_SUITE_LIB', 'zarrhpc')}"
