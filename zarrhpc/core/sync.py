"""``zarr.core.sync`` under ``import zarrhpc as zarr``: :func:`sync`, the call downstream
code wraps around zarr-python's asynchronous methods to run them from synchronous code.

anndata writes a root element with ``sync(group.store.clear())``. zarrhpc's store methods
are synchronous (``Store.clear()`` has already cleared the store when ``sync`` is called and
returns None), so :func:`sync` gives back a value that is not awaitable unchanged; an
awaitable (a coroutine of zarrhpc's that keeps zarr-python's ``async`` form, such as
``CacheStore.clear_cache()``, or the caller's own) is run to completion, on the loop given,
else on a new event loop (in a worker thread when the caller is inside a running loop, where
``asyncio.run`` cannot be used).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from typing import Any

__all__ = ["sync"]


def sync(coro: Any, loop: asyncio.AbstractEventLoop | None = None,
         timeout: float | None = None) -> Any:
    """Run ``coro`` to completion and return its result (zarr-python's ``sync``).

    Parameters
    ----------
    coro : awaitable or any value
        An awaitable is run to completion; any other value is the result of a zarrhpc call
        that zarr-python makes asynchronous (it has already run) and is returned as is.
    loop : asyncio.AbstractEventLoop, optional
        A loop running in another thread to run ``coro`` on; by default a new loop.
    timeout : float, optional
        Seconds to wait; ``TimeoutError`` past them, as zarr-python's.

    Returns
    -------
    The awaitable's result, or ``coro`` itself when it is not awaitable.
    """
    if not inspect.isawaitable(coro):
        return coro
    if loop is not None:
        if loop.is_closed():
            if inspect.iscoroutine(coro):
                coro.close()  # never run: no "was never awaited" warning at collection
            raise RuntimeError("Cannot run the coroutine: its event loop is closed")
        future = asyncio.run_coroutine_threadsafe(_awaited(coro), loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"coroutine {coro} did not finish in {timeout} s") from None

    async def bounded():
        return await asyncio.wait_for(_awaited(coro), timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(bounded())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, bounded()).result()


async def _awaited(awaitable):
    return await awaitable
