"""``import zarr`` resolved to zarrhpc for chosen files: the switch a user makes by writing
``import zarrhpc as zarr``, made for code they did not write (another project's tests, a
library built on zarr), so that project's own tests run on zarrhpc.

Life cycle: a test runner calls :func:`install` with the directories whose files are
switched (zarr-python's copied tests; a downstream library's package and tests) before
any of them is imported; from then on every ``import zarr`` / ``from zarr.x import y``
made by a file under those directories gets an alias package whose ``zarr.X`` is
``zarrhpc.X`` where zarrhpc has it, and a placeholder otherwise (zarr-python's internals:
``zarr.core.buffer``, ``zarr.abc.store.Store``, ``AsyncArray``...). A placeholder is a
class, so it can be named, subclassed and used in annotations while modules import, but
using it once tests run (:func:`collection_done`) raises :class:`UsesInternal` naming the
zarr-python name, which the runners count as "uses zarr-python internals". Imports made
by any other file (zarrhpc itself, numcodecs, xarray, dask) still see zarr-python.
``zarr.__version__`` there is ``zarrhpc.__version__``, which names the zarr-python API
zarrhpc follows first (libraries pick their zarr-python 2 or 3 code path by it).

Runners: ``tests/api/zarr_python_suite/zp_conftest.py`` (zarr-python's own tests) and
``tests/downstream/ds_plugin.py`` (downstream libraries' tests).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import sys
import types

ALIAS = "_zarrhpc_as_zarr"
# zarr-python's test kit (its Store ABC's conformance suite, hypothesis strategies over its
# internals): placeholders even where zarrhpc has a module of that name
INTERNAL = ("zarr.testing",)

_roots: tuple[str, ...] = ()
_collecting = True
_real_import = builtins.__import__


class UsesInternal(Exception):
    """Switched code used a zarr-python name that zarrhpc does not provide."""


class _InternalMeta(type):
    """Placeholders are classes (so ``isinstance(x, P)`` and ``class T(P)`` work); any use
    while tests run raises UsesInternal naming the zarr-python name."""

    def _use(cls):
        if not _collecting:
            raise UsesInternal(cls.__zp_name__)

    def __getattr__(cls, attr):
        if attr.startswith("__") or cls.__dict__.get("__zp_subclass__"):
            raise AttributeError(attr)
        return placeholder(f"{cls.__zp_name__}.{attr}")

    def __call__(cls, *a, **k):
        cls._use()
        if len(a) == 1 and callable(a[0]) and not k:  # used as a decorator at import
            return a[0]
        return placeholder(f"{cls.__zp_name__}()")

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
        if bases:  # a class deriving from a placeholder (zarr-python's StoreTests)
            ns.setdefault("__zp_subclass__", True)
            ns.setdefault("__zp_name__", bases[0].__dict__.get("__zp_name__", name))
        return super().__new__(mcs, name, bases, ns)


def _api_version() -> str:
    """``zarr.__version__`` for switched code: zarrhpc's own, which names the zarr-python
    API it follows first (``3.1.6+zarrhpc.0.1.0``: libraries choose their code path by it,
    cubed and dask take their zarr-python 2 path for anything below 3)."""
    import zarrhpc

    return zarrhpc.__version__


def placeholder(name: str) -> type:
    """The stand-in for zarr-python's ``name`` (a dotted name under ``zarr``)."""
    return _InternalMeta(name.rsplit(".", 1)[-1], (), {"__zp_name__": name})


class _Proxy(types.ModuleType):
    """``zarr.X`` for switched code: zarrhpc.X's attributes, submodules, else placeholders."""

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
            real = self.__dict__.get("__zp_real__")
            if attr == "__version__" and self.__name__ == ALIAS:
                return _api_version()
            raise AttributeError(attr)
        real = self.__zp_real__
        if real is not None and hasattr(real, attr):
            return getattr(real, attr)
        sub = f"{self.__name__}.{attr}"
        if real is not None and hasattr(real, "__path__") and importlib.util.find_spec(
                f"{real.__name__}.{attr}"):
            return importlib.import_module(sub)
        return placeholder(f"zarr{sub[len(ALIAS):]}")


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


def switched(name: str) -> types.ModuleType:
    """What ``import name`` (``zarr`` or ``zarr.x.y``) gives switched code: the leaf
    module, its parents bound as attributes so ``zarr.api.synchronous.f`` resolves."""
    alias = ALIAS + name[4:]
    mod = importlib.import_module(alias)
    parts = alias.split(".")
    for i in range(2, len(parts) + 1):
        child = sys.modules[".".join(parts[:i])]
        setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], child)
    return mod


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if (level == 0 and (name == "zarr" or name.startswith("zarr."))
            and str((globals or {}).get("__file__", "")).startswith(_roots)):
        mod = switched(name)
        return mod if fromlist else sys.modules[ALIAS]
    return _real_import(name, globals, locals, fromlist, level)


def install(*roots: str) -> None:
    """Switch ``import zarr`` for every file under ``roots`` (directories) from now on;
    called again, adds roots."""
    global _roots
    _roots = tuple(sorted(set(_roots) | {str(r) for r in roots}))
    if _AliasFinder not in sys.meta_path:
        sys.meta_path.insert(0, _AliasFinder)
    builtins.__import__ = _import


def collection_done() -> None:
    """Tests run from now on: using a placeholder raises :class:`UsesInternal`."""
    global _collecting
    _collecting = False


def private_attribute(exc: BaseException) -> bool:
    """zarr-python's private or asynchronous attributes asked of a zarrhpc object
    (``arr._async_array``, ``arr.async_array``, ``grid.get_nchunks``...)."""
    name = getattr(exc, "name", None) if isinstance(exc, AttributeError) else None
    return bool(name) and (name.startswith("_") or "async" in name)


def internal_cause(exc: BaseException | None) -> str | None:
    """The zarr-python internal a failure came from (following causes and contexts), or
    None when it did not come from one."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, UsesInternal):
            return exc.args[0]
        if private_attribute(exc):
            return f"private attribute {type(exc.obj).__name__}.{exc.name}"
        if "_InternalMeta" in str(exc):
            return "a zarr-python internal used as a value"
        if isinstance(exc, TypeError) and "'coroutine' object" in str(exc):
            # a store subclass overriding ``get``/``set``... with ``async def``, as
            # zarr-python's Store API is: zarrhpc's stores are synchronous (README)
            return "an async method overriding a store's (zarr-python's asynchronous Store API)"
        exc = exc.__cause__ or exc.__context__
    return None
