"""conftest.py for a copy of zarr-python's tests run by ``upstream.py`` (copied there as
``tests/conftest.py``; zarr-python's own conftest is kept as ``tests/_zp_conftest.py``).

With ``ZP_SUITE_LIB=zarrhpc`` every ``import zarr...`` made by a file under the copied
tests resolves to zarrhpc (``zarrhpc.testing.zarr_switch``), as ``import zarrhpc as zarr``
would for a user: ``zarr.X`` is
``zarrhpc.X`` where zarrhpc has that module, and a name zarrhpc does not have (zarr-python's
internals: ``zarr.core.buffer``, ``zarr.core.sync``, ``AsyncArray``...) is a placeholder that
raises :class:`UsesInternal` when a test uses it. Imports made by zarrhpc itself (and by
numcodecs, xarray...) still see the real zarr-python. With ``ZP_SUITE_LIB=zarr`` nothing is
redirected: the same tests, fixtures and skips against zarr-python itself (the baseline).

The fixtures replace zarr-python's asynchronous ones by the same stores opened
synchronously (``LocalStore(path)``, ``MemoryStore()``, ``ZipStore(path, mode="w")``,
``async_group`` from ``Group.from_store(...)._async_group``). Tests of the asynchronous API
(``async def``) run (pytest-asyncio); tests needing another asynchronous fixture of
zarr-python's and those of fsspec/remote/GPU stores are skipped with their reason; an
awaited store method (zarr-python's Store API is asynchronous, zarrhpc's synchronous) counts
as internal; ``upstream.py`` sorts every outcome into a cause.
"""

from __future__ import annotations

import inspect
import os
import pathlib

import numpy as np
import pytest

from zarrhpc.testing import zarr_switch

LIB = os.environ.get("ZP_SUITE_LIB", "zarr")
TESTS = str(pathlib.Path(__file__).parent)

if LIB == "zarrhpc":
    zarr_switch.install(TESTS)

import zarr  # noqa: E402  (the aliased package when LIB == "zarrhpc")

from ._zp_conftest import (  # noqa: E402,F401  (helpers the test modules import)
    deep_nan_equal,
    meta_from_array,
    nan_equal,
    parse_store,
    skip_object_dtype,
)


def pytest_collection_finish(session):
    zarr_switch.collection_done()


def _sync_store(kind, path):
    if kind == "local":
        return zarr.storage.LocalStore(path)
    if kind == "memory":
        return zarr.storage.MemoryStore()
    if kind == "zip":
        store = zarr.storage.ZipStore(os.path.join(path, "zarr.zip"), mode="w")
        if LIB == "zarr":
            store._sync_open()  # zarr-python's ZipStore opens its file on first async use
        return store
    pytest.skip(f"store {kind!r}: outside local/memory/zip")


@pytest.fixture(params=[str, pathlib.Path])
def path_type(request):
    return request.param


@pytest.fixture
def store_path(tmpdir):
    return zarr.storage.StorePath(zarr.storage.LocalStore(str(tmpdir)))


@pytest.fixture
def local_store(tmpdir):
    return zarr.storage.LocalStore(str(tmpdir))


@pytest.fixture
def memory_store():
    return zarr.storage.MemoryStore()


@pytest.fixture
def zip_store(tmpdir):
    return _sync_store("zip", str(tmpdir))


@pytest.fixture
def store(request, tmpdir):
    return _sync_store(request.param, str(tmpdir))


@pytest.fixture
def store2(request, tmpdir):
    return _sync_store(request.param, str(tmpdir.mkdir("store2")))


@pytest.fixture(params=["local", "memory", "zip"])
def sync_store(request, tmp_path):
    return _sync_store(request.param, str(tmp_path))


@pytest.fixture
def async_group(request, tmpdir):
    # zarr-python's fixture, with the store opened synchronously (as ``store`` above)
    param = request.param
    store = _sync_store(param.store, str(tmpdir))
    group = zarr.Group.from_store(store, attributes=param.attributes,
                                  zarr_format=param.zarr_format, overwrite=False)
    return group._async_group


@pytest.fixture(params=["numpy"])
def xp(request):
    return np


@pytest.fixture(autouse=True)
def reset_config():
    # zarr-python's conftest resets its config around every test; a zarrhpc without
    # config.reset (before it had one) runs the tests without (tests/api checks reset)
    reset = getattr(zarr.config, "reset", lambda: None)
    reset()
    yield
    reset()


@pytest.fixture
def array_fixture(request):
    r = request.param
    return np.arange(np.prod(r.shape)).reshape(r.shape, order=r.order).astype(r.dtype)


@pytest.fixture(params=(2, 3), ids=["zarr2", "zarr3"])
def zarr_format(request):
    return request.param


@pytest.fixture
def set_path():
    pytest.skip("codec entry-point registry (zarr.registry)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        fn = getattr(item, "function", None)
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        # zarr-python's asynchronous fixtures (opening its stores with ``await``) that
        # this conftest does not replace by synchronous ones
        async_fixture = any(inspect.iscoroutinefunction(d.func) or
                            inspect.isasyncgenfunction(d.func)
                            for ds in defs.values() for d in ds)
        if fn is not None and async_fixture:
            item.add_marker(pytest.mark.skip(reason="async fixture"))
        elif "gpu" in item.keywords or "gpu" in item.name:
            item.add_marker(pytest.mark.skip(reason="GPU"))
        elif "slow_hypothesis" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="slow hypothesis"))
        cls = getattr(item, "cls", None)
        if cls is not None and cls.__dict__.get("__zp_subclass__"):
            item.add_marker(pytest.mark.skip(
                reason=f"internal: test class derives from {cls.__zp_name__}"))


def _awaits_store(exc) -> bool:
    """A use of zarr-python's Store API, which is asynchronous (zarrhpc's is synchronous,
    zarrhpc/abc/store.py): ``await store.get(...)`` / ``async for k in store.list()`` (the
    result is not awaitable), or a method only zarr-python's stores have
    (``await MemoryStore.open()``, ``await store_path.delete()``)."""
    if isinstance(exc, TypeError):
        text = str(exc)
        return ("can't be used in 'await' expression" in text
                or "'async for' requires an object with __aiter__" in text)
    if isinstance(exc, AttributeError):
        obj = getattr(exc, "obj", None)
        if isinstance(obj, super):  # a test's Store subclass calling super().open()
            obj = obj.__self_class__
        cls = obj if isinstance(obj, type) else type(obj)
        from zarrhpc.abc.store import Store
        from zarrhpc.storage import StorePath

        return issubclass(cls, (Store, StorePath))
    return False


def _internal_name(exc):
    if isinstance(exc, zarr_switch.UsesInternal):
        return exc.args[0]
    if _awaits_store(exc):
        return "zarr-python's asynchronous Store API"
    if zarr_switch.private_attribute(exc):
        return f"private attribute {type(exc.obj).__name__}.{exc.name}"
    return "zarr.testing.strategies (hypothesis strategies over zarr-python's internals)"


def pytest_pycollect_makeitem(collector, name, obj):
    # a test class deriving from zarr-python's StoreTests (its Store ABC's conformance
    # suite, asynchronous): not collected
    if isinstance(obj, type) and (obj.__dict__.get("__zp_subclass__") or any(
            c.__name__ == "StoreTests" and c.__module__.startswith("zarr.testing")
            for c in obj.__mro__[1:])):
        return []
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.excinfo is not None and report.failed:
        exc = call.excinfo.value
        seen = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            if (isinstance(exc, zarr_switch.UsesInternal) or "_InternalMeta" in str(exc)
                    or zarr_switch.private_attribute(exc)
                    or (LIB == "zarrhpc" and _awaits_store(exc))):
                report.outcome = "skipped"
                report.longrepr = (str(item.path), item.location[1] or 0,
                                   f"internal: {_internal_name(exc)}")
                break
            exc = exc.__cause__ or exc.__context__
    return report
