"""Stores that wrap another store: zarr-python's ``WrapperStore`` and ``LoggingStore``.

Life cycle: a ``WrapperStore(store)`` takes the store it wraps and passes every operation
of the Store interface to it (the wrapped store's own hooks: keys were validated and
writability checked once, by the wrapper's public method); it is read-only when the
wrapped store is. Subclasses override the hooks they change. ``LoggingStore`` logs each
call and its duration and counts the calls per method (``counter``), as zarr-python's
does, to a logger named ``LoggingStore(<wrapped store>)`` that writes to stdout unless the
caller gives a handler or the logger already has one. Closing a wrapper closes the
wrapped store. Both pickle by pickling the wrapped store.
"""

from __future__ import annotations

import logging
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from zarrhpc.storage.abc import Buffer, RangeReader, Store

__all__ = ["LoggingStore", "WrapperStore"]


class WrapperStore(Store):
    """A store that passes every operation to the store it wraps (zarr-python's
    ``zarr.storage.WrapperStore``); subclass it to change some of them.

    Parameters
    ----------
    store : Store
        The wrapped store (any zarrhpc store).

    Raises
    ------
    TypeError
        If ``store`` is not a zarrhpc store.

    Examples
    --------
    >>> from zarrhpc.storage import MemoryStore
    >>> s = WrapperStore(MemoryStore())
    >>> s.set("k", b"v")
    >>> bytes(s.get("k")), s.read_only
    (b'v', False)
    """

    def __init__(self, store: Store) -> None:
        if not isinstance(store, Store):
            raise TypeError(f"{type(self).__name__}: expected a zarrhpc store to wrap, got "
                            f"{type(store).__name__}")
        super().__init__(read_only=store.read_only)
        self._store = store

    def _with_store(self, store: Store) -> WrapperStore:
        """A wrapper like this one around ``store`` (subclasses keep their settings)."""
        return type(self)(store)

    def with_read_only(self, read_only: bool = False) -> WrapperStore:
        """The same wrapper around the wrapped store's read-only (or writable) view."""
        return self._with_store(self._store.with_read_only(read_only))

    # -- what the wrapped store says about itself ----------------------------------------

    def __getattr__(self, name: str) -> Any:
        # capabilities and extras of the wrapped store (supports_*, root, path, ...)
        if name.startswith("__") or name == "_store":
            raise AttributeError(name)
        return getattr(self._store, name)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._store == self._store

    def __hash__(self) -> int:
        return hash((type(self), self._store))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._store!r})"

    def __str__(self) -> str:
        return f"wrapping-{self._store}"

    def __getstate__(self) -> dict[str, Any]:
        return {"store": self._store}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["store"])

    def close(self) -> None:
        self._store.close()
        super().close()

    # -- hooks: the wrapped store's ------------------------------------------------------

    def _get(self, key: str) -> Buffer | None:
        return self._store._get(key)

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        return self._store._get_values(keys)

    def _exists(self, key: str) -> bool:
        return self._store._exists(key)

    def _getsize(self, key: str) -> int | None:
        return self._store._getsize(key)

    def _open_reader(self, key: str) -> RangeReader | None:
        return self._store._open_reader(key)

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        return self._store._get_partial_values(requests)

    def _set(self, key: str, data: memoryview) -> None:
        self._store._set(key, data)

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        self._store._set_values(items)

    def _set_partial_values(self, items: list[tuple[str, int, memoryview]]) -> None:
        self._store._set_partial_values(items)

    def _erase(self, key: str) -> None:
        self._store._erase(key)

    def _erase_values(self, keys: list[str]) -> None:
        self._store._erase_values(keys)

    def _erase_prefix(self, prefix: str) -> None:
        self._store._erase_prefix(prefix)

    def _list(self) -> Iterator[str]:
        return self._store._list()

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return self._store._list_prefix(prefix)

    def _list_dir(self, prefix: str) -> Iterable[str]:
        return self._store._list_dir(prefix)


# the hooks LoggingStore logs, with the public name zarr-python's log shows
_LOGGED = {"_get": "get", "_get_values": "get", "_exists": "exists", "_getsize": "getsize",
           "_open_reader": "get_partial_values", "_get_partial_values": "get_partial_values",
           "_set": "set", "_set_values": "set", "_set_partial_values": "set_partial_values",
           "_erase": "delete", "_erase_values": "delete", "_erase_prefix": "delete_dir",
           "_list": "list", "_list_prefix": "list_prefix", "_list_dir": "list_dir"}


class LoggingStore(WrapperStore):
    """A store that logs every call to the store it wraps, with its duration, and counts
    the calls per method (zarr-python's ``zarr.storage.LoggingStore``).

    Parameters
    ----------
    store : Store
        The wrapped store.
    log_level : str, default "DEBUG"
        The logger's level.
    log_handler : logging.Handler, optional
        Where the log goes; default: stdout, unless the logger already has a handler.

    Attributes
    ----------
    counter : collections.defaultdict
        Calls per method name (``"get"``, ``"set"``, ``"list_dir"``, ...).

    Examples
    --------
    >>> import logging
    >>> from zarrhpc.storage import MemoryStore
    >>> s = LoggingStore(MemoryStore(), log_handler=logging.NullHandler())
    >>> s.set("k", b"v")
    >>> s.counter["set"]
    1
    """

    def __init__(self, store: Store, log_level: str = "DEBUG",
                 log_handler: logging.Handler | None = None) -> None:
        super().__init__(store)
        self.counter: defaultdict[str, int] = defaultdict(int)
        self.log_level = log_level
        self.log_handler = log_handler
        self.logger = logging.getLogger(f"LoggingStore({store})")
        self.logger.setLevel(log_level)
        if not self.logger.hasHandlers():
            handler = log_handler
            if handler is None:
                handler = logging.StreamHandler(stream=sys.stdout)
                handler.setLevel(log_level)
                handler.setFormatter(logging.Formatter(
                    "%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
            self.logger.addHandler(handler)

    def _with_store(self, store: Store) -> LoggingStore:
        return type(self)(store, log_level=self.log_level, log_handler=self.log_handler)

    def __repr__(self) -> str:
        return f"LoggingStore({type(self._store).__name__}, {self._store})"

    def __str__(self) -> str:
        return f"logging-{self._store}"

    def __getstate__(self) -> dict[str, Any]:
        return {"store": self._store, "log_level": self.log_level}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["store"], log_level=state["log_level"])

    @contextmanager
    def log(self, hint: Any = ""):
        """Log the start and end (with its duration) of the block, counting it under the
        caller's method name (as zarr-python's ``LoggingStore.log``)."""
        name = sys._getframe(2).f_code.co_name
        self._log_call(name, hint)
        start = time.perf_counter()
        try:
            yield
        finally:
            self._log_done(name, hint, time.perf_counter() - start)

    def _log_call(self, method: str, hint: Any) -> None:
        self.counter[method] += 1
        self.logger.info(" Calling %s.%s(%s)", type(self._store).__name__, method, hint)

    def _log_done(self, method: str, hint: Any, seconds: float) -> None:
        self.logger.info("Finished %s.%s(%s) [%.2f s]", type(self._store).__name__, method,
                         hint, seconds)


def _hint(arg: Any) -> str:
    """The key (or the keys, comma-separated) a hook was called with, for the log."""
    if isinstance(arg, str):
        return arg
    if isinstance(arg, list):
        return ", ".join(a if isinstance(a, str) else str(a[0]) for a in arg)
    return ""


def _logged(hook: str, method: str):
    inner = getattr(WrapperStore, hook)

    def call(self, *args):
        hint = _hint(args[0]) if args else ""
        self._log_call(method, hint)
        start = time.perf_counter()
        try:
            return inner(self, *args)
        finally:
            self._log_done(method, hint, time.perf_counter() - start)

    call.__name__ = hook
    return call


for _hook, _method in _LOGGED.items():
    setattr(LoggingStore, _hook, _logged(_hook, _method))
