"""conftest.py for a copy of zarr-python's tests run by ``upstream.py`` (copied there as
``tests/conftest.py``; zarr-python's own conftest is kept as ``tests/_zp_conftest.py``).

With ``ZP_SUITE_LIB=zarrhpc`` every ``import zarr...`` made by a file under the copied
tests resolves to zarrhpc, as ``import zarrhpc as zarr`` would for a user: ``zarr.X`` is
``zarrhpc.X`` where zarrhpc has that module, and a name zarrhpc does not have (zarr-python's
internals: ``zarr.core.buffer``, ``zarr.core.sync``, ``AsyncArray``...) is a placeholder that
raises :class:`UsesInternal` when a test uses it. Imports made by zarrhpc itself (and by
numcodecs, xarray...) still see the real zarr-python. With ``ZP_SUITE_LIB=zarr`` nothing is
redirected: the same tests, fixtures and skips against zarr-python itself (the baseline).

The fixtures replace zarr-python's asynchronous ones by the same stores opened
synchronously (``LocalStore(path)``, ``MemoryStore()``, ``ZipStore(path, mode="w")``).
Tests of the asynchronous API (``async def``) and of fsspec/remote/GPU stores are skipped
with their reason; ``upstream.py`` sorts every outcome into a cause.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import inspect
import os
import pathlib
import sys
import types

import numpy as np
import pytest

LIB = os.environ.get("ZP_SUITE_LIB", "zarr")
TESTS = str(pathlib.Path(__file__).parent)
ALIAS = "_zp_alias_zarr"
# zarr-python's test kit (its Store ABC's conformance suite, hypothesis strategies over its
# internals): placeholders even where zarrhpc has a module of that name
INTERNAL = ("zarr.testing",)


class UsesInternal(Exception):
    """A test used a zarr-python name that zarrhpc does not provide."""


_collecting = True


class _InternalMeta(type):
    """Placeholders are classes (so ``isinstance(x, P)`` and ``class T(P)`` work); any use
    while tests run raises UsesInternal naming the zarr-python name."""

    def _use(cls):
        if not _collecting:
            raise UsesInternal(cls.__zp_name__)

    def __getattr__(cls, attr):
        if attr.startswith("__") or cls.__dict__.get("__zp_subclass__"):
            raise AttributeError(attr)
        return _placeholder(f"{cls.__zp_name__}.{attr}")

    def __call__(cls, *a, **k):
        cls._use()
        if len(a) == 1 and callable(a[0]) and not k:  # used as a decorator at import
            return a[0]
        return _placeholder(f"{cls.__zp_name__}()")

    def __instancecheck__(cls, obj):
        cls._use()
        return False

    def __subclasscheck__(cls, sub):
        cls._use()
        return False

    def __getitem__(cls, item):
        return cls

    def __iter__(cls):
        cls._use()
        return iter(())

    def __or__(cls, other):
        return cls

    __ror__ = __or__

    def __len__(cls):
        cls._use()
        return 0

    def __eq__(cls, other):
        cls._use()
        return cls is other

    def __hash__(cls):
        return id(cls)

    def __new__(mcs, name, bases, ns, **kw):
        if bases:  # a test class deriving from a placeholder (zarr-python's StoreTests)
            ns.setdefault("__zp_subclass__", True)
            ns.setdefault("__zp_name__", bases[0].__dict__.get("__zp_name__", name))
        return super().__new__(mcs, name, bases, ns)


def _placeholder(name):
    return _InternalMeta(name.rsplit(".", 1)[-1], (), {"__zp_name__": name})


class _Proxy(types.ModuleType):
    """``zarr.X`` for the tests: zarrhpc.X's attributes, submodules, else placeholders."""

    def __init__(self, name, real):
        super().__init__(name)
        self.__zp_real__ = real
        self.__path__ = []

    def __setattr__(self, attr, value):
        # ``zarr.storage.default_compressor = ...``, monkeypatching: on the real module, as
        # a user's assignment to ``zarrhpc.X`` would be
        real = self.__dict__.get("__zp_real__")
        if real is not None and not attr.startswith("__"):
            setattr(real, attr, value)
            return
        super().__setattr__(attr, value)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        real = self.__zp_real__
        if real is not None and hasattr(real, attr):
            return getattr(real, attr)
        sub = f"{self.__name__}.{attr}"
        if real is not None and hasattr(real, "__path__") and importlib.util.find_spec(
                f"{real.__name__}.{attr}"):
            return importlib.import_module(sub)
        return _placeholder(f"zarr{sub[len(ALIAS):]}")


class _AliasFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != ALIAS and not name.startswith(ALIAS + "."):
            return None
        return importlib.util.spec_from_loader(name, _AliasFinder)

    @staticmethod
    def create_module(spec):
        rest = spec.name[len(ALIAS):]
        real = None
        if not ("zarr" + rest).startswith(INTERNAL):
            try:
                real = importlib.import_module("zarrhpc" + rest)
            except ImportError:
                pass
        return _Proxy(spec.name, real)

    @staticmethod
    def exec_module(module):
        pass


_real_import = builtins.__import__


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if (level == 0 and (name == "zarr" or name.startswith("zarr."))
            and str((globals or {}).get("__file__", "")).startswith(TESTS)):
        alias = ALIAS + name[4:]
        mod = importlib.import_module(alias)
        if fromlist:
            return mod
        # bind the submodules as attributes so ``zarr.api.synchronous.f`` resolves
        parts = alias.split(".")
        for i in range(2, len(parts) + 1):
            child = sys.modules[".".join(parts[:i])]
            setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], child)
        return sys.modules[ALIAS]
    return _real_import(name, globals, locals, fromlist, level)


if LIB == "zarrhpc":
    sys.meta_path.insert(0, _AliasFinder)
    builtins.__import__ = _import

import zarr  # noqa: E402  (the aliased package when LIB == "zarrhpc")

from ._zp_conftest import (  # noqa: E402,F401  (helpers the test modules import)
    deep_nan_equal,
    meta_from_array,
    nan_equal,
    parse_store,
    skip_object_dtype,
)


def pytest_collection_finish(session):
    global _collecting
    _collecting = False


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
def async_group(request):
    pytest.skip("async API: AsyncGroup")


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
        inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        async_fixture = any(inspect.iscoroutinefunction(d.func) or
                            inspect.isasyncgenfunction(d.func)
                            for ds in defs.values() for d in ds)
        if fn is not None and (inspect.iscoroutinefunction(fn) or async_fixture
                               or inspect.iscoroutinefunction(inner)):
            item.add_marker(pytest.mark.skip(reason="async API"))
        elif "gpu" in item.keywords or "gpu" in item.name:
            item.add_marker(pytest.mark.skip(reason="GPU"))
        elif "slow_hypothesis" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="slow hypothesis"))
        cls = getattr(item, "cls", None)
        if cls is not None and cls.__dict__.get("__zp_subclass__"):
            item.add_marker(pytest.mark.skip(
                reason=f"internal: test class derives from {cls.__zp_name__}"))


def _private_attribute(exc):
    """zarr-python's private or asynchronous attributes asked of a zarrhpc object
    (``arr._async_array``, ``arr.async_array``, ``grid.get_nchunks``...)."""
    name = getattr(exc, "name", None) if isinstance(exc, AttributeError) else None
    return bool(name) and (name.startswith("_") or "async" in name)


def _internal_name(exc):
    if isinstance(exc, UsesInternal):
        return exc.args[0]
    if _private_attribute(exc):
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
            if (isinstance(exc, UsesInternal) or "_InternalMeta" in str(exc)
                    or _private_attribute(exc)):
                report.outcome = "skipped"
                report.longrepr = (str(item.path), item.location[1] or 0,
                                   f"internal: {_internal_name(exc)}")
                break
            exc = exc.__cause__ or exc.__context__
    return report
