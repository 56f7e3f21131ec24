"""Remote stores: open a URL (S3, GCS, Azure, HTTP(S), any fsspec protocol) as a Store.

``open_url("s3://bucket/path", storage_options={...})`` is what ``zarrhpc.open("s3://...")``
calls for every URL that is not a local path, ``file://``, ``memory://`` or ``.zip``:

- ``s3://`` (``s3a://``), ``gs://`` (``gcs://``), ``az://`` (``abfs://``, ``abfss://``,
  ``azure://``), ``http://``, ``https://``: `ObstoreStore` when obstore is installed
  (``pip install zarrhpc[s3]``), else `FsspecStore`;
- any other protocol fsspec knows: `FsspecStore` (``pip install zarrhpc[remote]``, plus the
  protocol's own package, e.g. gcsfs).

``storage_options`` are spelled as zarr-python's FsspecStore takes them (``endpoint_url``,
``key``, ``secret``, ``token``, ``anon``, ``region``...): fsspec gets them unchanged, obstore
gets them translated (`zarrhpc.storage._obstore.translate_options`; fsspec's cache and
buffer settings mean nothing there and are dropped). Options obstore has no spelling for
(``profile``, ``config_kwargs``, ``s3_additional_kwargs``...) open the URL with fsspec
instead, when no backend was asked for, as zarr-python would. Three more kinds of
entry are taken out before that:

- ``backend``: ``"obstore"`` or ``"fsspec"`` to choose (default: obstore where it serves the
  scheme and is installed);
- the store settings ``concurrency`` (requests in flight per store, default 64 or
  ``ZARRHPC_REMOTE_CONCURRENCY``), ``retry_timeout`` (the deadline of each request,
  tries and retries of transient errors included: one that keeps failing ends within it;
  default 30 s; 0: one try), ``request_timeout`` (seconds one try may take, default 30),
  ``coalesce_gap``, ``coalesce_max``, ``coalesce_rate``, ``tail_bytes``, ``cache_bytes``,
  ``readahead`` (see `zarrhpc.storage._remotebase`).

`adopt` takes the remote store objects of other libraries (an fsspec ``FSMap``,
zarr-python's ``FsspecStore`` and ``ObjectStore``) and gives ours over the same objects.

HTTP(S) stores are read-only and cannot list; ``read_only=True`` makes any store refuse
writes with `ReadOnlyError` naming the URL and the key. Every store pickles by reference
(URL, options, mode, settings), so dask workers reopen it themselves.
"""

from __future__ import annotations

import sys
import urllib.parse
from typing import Any

from zarrhpc.errors import UnsupportedError
from zarrhpc.storage._fsspec import FsspecStore
from zarrhpc.storage._obstore import OBSTORE_SCHEMES, ObstoreStore, OptionsNotUnderstood
from zarrhpc.storage._remotebase import SETTINGS, RemoteStore

__all__ = [
    "FsspecStore",
    "ObstoreStore",
    "RemoteStore",
    "adopt",
    "has_fsspec",
    "has_obstore",
    "open_url",
]

BACKENDS = ("obstore", "fsspec")


def has_obstore() -> bool:
    """Whether obstore can be imported."""
    try:
        import obstore  # noqa: F401
    except ImportError:
        return False
    return True


def has_fsspec() -> bool:
    """Whether fsspec can be imported."""
    try:
        import fsspec  # noqa: F401
    except ImportError:
        return False
    return True


def adopt(obj: Any, read_only: bool = False) -> RemoteStore | None:
    """A store over what ``obj`` reaches, for remote store objects of other libraries;
    None for anything else.

    - an ``fsspec.FSMap`` (``fsspec.get_mapper(url)``): `FsspecStore.from_mapper` with
      ``read_only``, as zarr-python opens one;
    - zarr-python's ``zarr.storage.FsspecStore`` (its file system and path) and
      ``zarr.storage.ObjectStore`` (its obstore store): ours over the same, with its
      ``read_only``. The libraries are only looked at when already imported.
    """
    fsspec = sys.modules.get("fsspec")
    if fsspec is not None and isinstance(obj, fsspec.mapping.FSMap):
        return FsspecStore.from_mapper(obj, read_only)
    zarr = sys.modules.get("zarr")
    storage = getattr(zarr, "storage", None)
    if storage is None:
        return None
    zfsspec = getattr(storage, "FsspecStore", None)
    if zfsspec is not None and isinstance(obj, zfsspec):
        return FsspecStore(obj.fs, obj.read_only, path=obj.path,
                           allowed_exceptions=obj.allowed_exceptions)
    zobject = getattr(storage, "ObjectStore", None)
    if zobject is not None and isinstance(obj, zobject):
        from zarrhpc.storage.objectstore import ObjectStore

        return ObjectStore(obj.store, read_only=obj.read_only)
    return None


def open_url(url: str, *, storage_options: dict[str, Any] | None = None,
             read_only: bool = False) -> RemoteStore:
    """Open the store at ``url`` (see the module docstring for schemes and options).

    Parameters
    ----------
    url : str
        ``s3://bucket/path``, ``gs://bucket/path``, ``az://container/path``,
        ``https://host/path``, or any fsspec URL.
    storage_options : dict, optional
        zarr-python's (fsspec) spelling, plus ``backend`` and the store settings.
    read_only : bool, default False

    Returns
    -------
    RemoteStore

    Raises
    ------
    ImportError
        If neither backend that could serve ``url`` is installed (the message names the
        extra to install).
    UnsupportedError
        If ``backend`` names a backend that does not serve this scheme.
    ValueError
        If ``url`` has no scheme, or the options are invalid.
    """
    if not isinstance(url, str):
        raise TypeError(f"open_url: expected a URL string, got {type(url).__name__}")
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if not scheme or "://" not in url:
        raise ValueError(f"{url!r}: not a URL (expected scheme://...)")
    options = dict(storage_options or {})
    backend = options.pop("backend", None)
    settings = {name: options.pop(name) for name in SETTINGS if name in options}
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"{url}: storage_options backend must be one of {BACKENDS}, "
                         f"got {backend!r}")
    chosen = backend is not None
    if backend is None:
        backend = "obstore" if scheme in OBSTORE_SCHEMES and has_obstore() else "fsspec"
    if backend == "obstore" and not chosen and has_fsspec():
        try:
            return ObstoreStore(url, storage_options=options, read_only=read_only, **settings)
        except OptionsNotUnderstood:
            # options only fsspec understands (an AWS profile, botocore's config, ACLs...):
            # the backend zarr-python would use takes them as they are
            return FsspecStore(url, read_only, storage_options=options, **settings)
    if backend == "obstore":
        if scheme not in OBSTORE_SCHEMES:
            raise UnsupportedError(f"{url}: the obstore backend serves "
                                   f"{sorted(OBSTORE_SCHEMES)} URLs, not {scheme!r}")
        if not has_obstore():
            raise ImportError(f"{url}: the obstore backend needs obstore: "
                              "pip install 'zarrhpc[s3]'")
        return ObstoreStore(url, storage_options=options, read_only=read_only, **settings)
    if not has_fsspec():
        raise ImportError(f"{url}: {scheme}:// URLs need fsspec (and its {scheme} package): "
                          "pip install 'zarrhpc[remote]'")
    return FsspecStore(url, read_only, storage_options=options, **settings)
