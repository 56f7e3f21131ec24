"""zarr-python's ``zarr.core.sync.sync``: run a coroutine of the asynchronous API to
completion from synchronous code (``sync(asyncio.gather(a.async_array.getitem(s), ...))``,
the batching pattern zarr-python's users write).

Life cycle: the first call starts one event loop in a daemon thread of this process (as
zarr-python's IO loop); every call submits its coroutine there and waits for the result
(``timeout`` seconds at most). Calling it from a coroutine running on that same loop would
wait for itself: that is zarr-python's ``SyncError``. zarrhpc's own synchronous API never
goes through here (its engine is synchronous); only the asynchronous API's coroutines do.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable
from typing import Any

__all__ = ["SyncError", "sync"]

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


class SyncError(Exception):
    """``sync`` called from a coroutine running on its own loop (zarr-python's class)."""


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="zarrhpc-sync", daemon=True).start()
            _loop = loop
        return _loop


async def _runner(coro: Awaitable) -> Any:
    return await coro


def sync(coro: Awaitable, loop: asyncio.AbstractEventLoop | None = None,
         timeout: float | None = None) -> Any:
    """Run ``coro`` to completion and return its result (or raise its exception).

    Parameters
    ----------
    coro : awaitable
        A coroutine of the asynchronous API (or any awaitable).
    loop : asyncio.AbstractEventLoop, optional
        A running loop (in another thread) to run it on; default: zarrhpc's own.
    timeout : float, optional
        Seconds to wait; ``TimeoutError`` past them.

    Raises
    ------
    SyncError
        Called from a coroutine running on ``loop`` itself.

    Notes
    -----
    A value that is not awaitable is returned as it is: code written for zarr-python's
    asynchronous stores (``sync(store.clear())``, ``sync(store.get(key, prototype))``)
    calls zarrhpc's synchronous store methods, which have done their work and returned
    their result by the time ``sync`` gets it (zarr-python raises TypeError for such a
    value; anndata's tests call it this way).
    """
    if not inspect.isawaitable(coro):
        return coro
    if loop is None:
        loop = _get_loop()
    if not isinstance(loop, asyncio.AbstractEventLoop):
        raise TypeError(f"loop cannot be of type {type(loop)}")
    if not loop.is_running():
        getattr(coro, "close", lambda: None)()  # never run: no "never awaited" warning
        raise RuntimeError("Loop is not running")
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        getattr(coro, "close", lambda: None)()  # never run: no "never awaited" warning
        raise SyncError("Calling sync() from within a running loop")
    future = asyncio.run_coroutine_threadsafe(_runner(coro), loop)
    try:
        return future.result(timeout)
    except TimeoutError:
        future.cancel()
        raise TimeoutError(f"Coroutine {coro} failed to finish within {timeout} s") from None
