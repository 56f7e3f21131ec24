"""Runtime configuration: ``zarrhpc.config.set(threads=N)`` (also a context manager).

``threads`` is the number of worker threads that decode and encode chunks. Default: the
environment variable ``ZARRHPC_NUM_THREADS``, else the CPUs this process may use. It is
never more than those CPUs (more threads would only oversubscribe the cores). Codec
libraries never start threads of their own (blosc runs with one thread per call), so
``threads`` is the whole parallelism of a read or write.

``buffer_cache`` is how many bytes of freed large results (4 MiB and more) zarrhpc keeps
mapped for the next read of about the same size, so that repeated reads do not pay the
kernel's page zeroing again (see zarrhpc/_kernels/alloc.pyx). Default: the environment
variable ``ZARRHPC_BUFFER_CACHE`` (bytes), else 1 GiB or an eighth of the memory,
whichever is smaller; 0 turns the cache off.

zarr-python's dotted keys are accepted too, as a dict (``config.set({"array.order": "F"})``)
or through ``get("array.order")``: ``array.order`` and ``array.write_empty_chunks`` (the
defaults of new and opened arrays), ``array.target_shard_size_bytes`` (the size
``shards="auto"`` aims at; None: two chunks per shard along axes of more than 8 chunks),
``default_zarr_format``, and ``async.concurrency`` /
``threading.max_workers``, which both set ``threads`` (zarrhpc's one knob for parallelism).

``shard_lock`` (default False): shard writes to a LocalStore hold an exclusive
``flock`` on the shard file from reading it to renaming the new one in (whole shards
too), so writers in several processes updating different inner chunks of one shard lose
nothing (see ``LocalStore.lock``).

``codec_pipeline.path``, ``codec_pipeline.batch_size`` and ``async.timeout`` are accepted
and kept with zarr-python's defaults (``get`` returns them) but change nothing: they tune
how zarr-python runs its own pipeline (zarrs users set ``codec_pipeline.path`` to
``"zarrs.ZarrsCodecPipeline"`` for speed), and results are the same whichever it names.
Keys that would change results (``codecs.<name>`` implementation classes, the ``buffer``
/ ``ndbuffer`` prototypes for GPU arrays) and unknown keys are refused with a KeyError
naming them.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["available_cpus", "executor", "get", "pprint", "refresh", "reset", "set"]

_lock = threading.Lock()


def available_cpus() -> int:
    """CPUs this process may run on (affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _threads_from_env() -> int:
    raw = os.environ.get("ZARRHPC_NUM_THREADS", "")
    if not raw:
        return available_cpus()
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"ZARRHPC_NUM_THREADS: expected a positive integer, got {raw!r}") from None
    if n < 1:
        raise ValueError(f"ZARRHPC_NUM_THREADS: expected a positive integer, got {raw!r}")
    return min(n, available_cpus())


def _buffer_cache_from_env() -> int:
    raw = os.environ.get("ZARRHPC_BUFFER_CACHE", "")
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = -1
        if n < 0:
            raise ValueError(f"ZARRHPC_BUFFER_CACHE: expected a number of bytes >= 0, got {raw!r}")
        return n
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        memory = 8 << 30
    return min(1 << 30, memory // 8)


def _defaults() -> dict:
    return {"threads": _threads_from_env(), "buffer_cache": _buffer_cache_from_env(),
            "array.order": "C", "array.write_empty_chunks": False,
            "array.target_shard_size_bytes": None, "default_zarr_format": 3,
            "json_indent": 2, "shard_lock": False,
            # zarr-python's, kept but without effect (module docstring)
            "codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline",
            "codec_pipeline.batch_size": 1, "async.timeout": None}


_settings = _defaults()
# zarr-python's keys for zarrhpc's thread count
_ALIASES = {"async.concurrency": "threads", "threading.max_workers": "threads"}
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def _alloc():
    from zarrhpc._kernels import alloc  # config is imported before the kernels are needed

    return alloc


def _flatten(mapping: dict, prefix: str = "") -> dict:
    """``{"array": {"order": "F"}}`` -> ``{"array.order": "F"}`` (donfig's nesting)."""
    out = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in _settings:
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


_MISSING = object()


def get(name: str, default=_MISSING):
    """The current value of a setting (``"threads"``, or a zarr-python key such as
    ``"array.order"``)."""
    name = _ALIASES.get(name, name)
    if name in _settings:  # the common case first: arrays read settings on every open
        return _settings[name]
    nested = _nested()
    if isinstance(nested.get(name), dict):  # a group of zarr-python's keys ("array"...)
        return nested[name]
    try:
        return _settings[name]
    except KeyError:
        if default is not _MISSING:
            return default
        raise KeyError(f"zarrhpc.config: unknown setting {name!r}; known: {sorted(_settings)}") from None


def pprint(**kwargs) -> None:
    """Print the settings as a nested dict (``pprint.pprint``'s keywords: ``stream``,
    ``width``...), as zarr-python's ``config.pprint`` prints its own."""
    import pprint as _pprint

    _pprint.pprint(_nested(), **kwargs)


def _nested() -> dict:
    """Every key `get` answers, nested at the dots as zarr-python's config nests them:
    zarrhpc's own keys and zarr-python's that apply, the aliases of ``threads`` included
    (zarr-python's keys that do not apply to zarrhpc are not shown: `set` refuses them)."""
    nested: dict = {}
    flat = {**_settings, **{alias: _settings[name] for alias, name in _ALIASES.items()}}
    for key, value in flat.items():
        *parents, leaf = key.split(".")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


class _Restore:
    def __init__(self, previous: dict):
        self._previous = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _settings.update(self._previous)
        if "buffer_cache" in self._previous:
            _alloc().set_limit(self._previous["buffer_cache"])
        return False


def set(arg: dict | None = None, **kwargs) -> _Restore:
    """Change settings; usable as ``with zarrhpc.config.set(threads=1): ...``.

    ``arg`` is zarr-python's form: a dict of dotted (or nested) keys,
    ``{"array.order": "F", "async.concurrency": 4}``.

    Parameters
    ----------
    threads : int
        Worker threads for chunk decode/encode, 1 to the CPUs this process may use
        (larger values are clamped).
    buffer_cache : int
        Bytes of freed large results kept for reuse (0: none).
    shard_lock : bool
        Lock each shard file (``flock``) during a shard write (default False).
    """
    if arg is not None:
        if not isinstance(arg, dict):
            raise TypeError(f"zarrhpc.config.set: expected a dict of settings, got {arg!r}")
        kwargs = {**_flatten(arg), **kwargs}
    previous = {}
    for name, value in kwargs.items():
        name = _ALIASES.get(name, name)
        if name == "threads" and value is None:  # zarr-python's "no limit"
            value = available_cpus()
        if name not in _settings:
            raise KeyError(f"zarrhpc.config: unknown setting {name!r}; known: {sorted(_settings)}")
        if name == "threads":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"zarrhpc.config: threads must be a positive integer, got {value!r}")
            value = min(value, available_cpus())
        if name == "buffer_cache":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"zarrhpc.config: buffer_cache must be a number of bytes >= 0, got {value!r}"
                )
            _alloc().set_limit(value)
        if name == "array.order" and value not in ("C", "F"):
            raise ValueError(f"zarrhpc.config: array.order must be 'C' or 'F', got {value!r}")
        if name == "default_zarr_format" and value not in (2, 3):
            raise ValueError(f"zarrhpc.config: default_zarr_format must be 2 or 3, got {value!r}")
        if name in ("array.write_empty_chunks", "shard_lock"):
            value = bool(value)
        if name == "array.target_shard_size_bytes" and value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError("zarrhpc.config: array.target_shard_size_bytes must be None or a "
                             f"positive number of bytes, got {value!r}")
        previous.setdefault(name, _settings[name])
        _settings[name] = value
    return _Restore(previous)


def reset() -> None:
    """Every setting back to its default (the environment variables read again), as
    zarr-python's ``config.reset()``."""
    _settings.update(_defaults())
    _alloc().set_limit(_settings["buffer_cache"])


refresh = reset  # donfig's other name: re-read the defaults and the environment


def executor() -> ThreadPoolExecutor | None:
    """The shared worker pool for the current thread count (None when threads == 1)."""
    global _pool, _pool_size
    n = _settings["threads"]
    if n <= 1:
        return None
    with _lock:
        if _pool is None or _pool_size != n:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="zarrhpc")
            _pool_size = n
            if old is not None:
                old.shutdown(wait=False)
        return _pool


_alloc().set_limit(_settings["buffer_cache"])
