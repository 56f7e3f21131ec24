"""zarr-python 3's ``zarr.api.asynchronous``: the top-level functions as coroutines, under
the same names and arguments (``await zarrhpc.api.asynchronous.open_array(store=...)``).

Each runs the synchronous function of the same name (``zarrhpc.api.synchronous``) in a
worker thread of the running event loop, so the loop is never blocked (the engine releases
the GIL); arrays and groups come back as ``AsyncArray``/``AsyncGroup``
(:mod:`zarrhpc.core.api_async`) and may be given where the synchronous function takes a
node (``zeros_like(async_array)``). ``create_hierarchy`` is an asynchronous generator, as in
zarr-python; ``create_group`` is there but not in ``__all__``.
"""

from __future__ import annotations

import functools

from zarrhpc.api import synchronous as _sync

# AsyncArray/AsyncGroup: zarr-python's module holds these names too (users import them here)
from zarrhpc.core.api_async import AsyncArray, AsyncGroup, run_sync  # noqa: F401
from zarrhpc.errors import ZarrDeprecationWarning

__all__ = list(_sync.__all__)  # the same names as zarr-python's module


def _coroutine(fn):
    """The coroutine function of the synchronous ``fn`` (run off the loop)."""

    @functools.wraps(fn)
    async def call(*args, **kwargs):
        return await run_sync(fn, *args, **kwargs)

    call.__doc__ = (f"``await`` form of :func:`zarrhpc.{fn.__name__}` (same arguments; "
                    f"runs in a worker thread, nodes come back as AsyncArray/AsyncGroup).")
    return call


array = _coroutine(_sync.array)
consolidate_metadata = _coroutine(_sync.consolidate_metadata)
copy = _coroutine(_sync.copy)
copy_all = _coroutine(_sync.copy_all)
copy_store = _coroutine(_sync.copy_store)
create = _coroutine(_sync.create)
create_array = _coroutine(_sync.create_array)
create_group = _coroutine(_sync.create_group)
empty = _coroutine(_sync.empty)
empty_like = _coroutine(_sync.empty_like)
from_array = _coroutine(_sync.from_array)
full = _coroutine(_sync.full)
full_like = _coroutine(_sync.full_like)
group = _coroutine(_sync.group)
load = _coroutine(_sync.load)
ones = _coroutine(_sync.ones)
ones_like = _coroutine(_sync.ones_like)
open = _coroutine(_sync.open)
open_array = _coroutine(_sync.open_array)
open_consolidated = _coroutine(_sync.open_consolidated)
open_group = _coroutine(_sync.open_group)
open_like = _coroutine(_sync.open_like)
save = _coroutine(_sync.save)
save_array = _coroutine(_sync.save_array)
save_group = _coroutine(_sync.save_group)
zeros = _coroutine(_sync.zeros)
zeros_like = _coroutine(_sync.zeros_like)


async def create_hierarchy(*, store, nodes: dict, overwrite: bool = False):
    """Create the nodes of ``nodes`` (``{path: GroupMetadata | ArrayV3Metadata | ...}``) in
    ``store``; yields ``(path, AsyncGroup | AsyncArray)`` for each, as zarr-python."""
    created = await run_sync(lambda: tuple(_sync.create_hierarchy(
        store=store, nodes=nodes, overwrite=overwrite)))
    for item in created:
        yield item


async def tree(grp: AsyncGroup, expand=None, level: int | None = None):
    """The hierarchy below ``grp`` (deprecated in zarr-python: use ``AsyncGroup.tree``)."""
    import warnings

    warnings.warn("Use AsyncGroup.tree instead.", ZarrDeprecationWarning, stacklevel=2)
    return await grp.tree(expand=expand, level=level)

