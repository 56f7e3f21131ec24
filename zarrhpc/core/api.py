"""open/create functions with zarr-python 3's names, arguments and modes.

Modes: ``r`` read-only, must exist; ``r+`` read/write, must exist; ``a`` read/write,
create if missing; ``w`` create, replacing what is there; ``w-`` create, fail if exists.
Defaults as zarr-python 3: ``open`` "a" ("r" for a read-only Store), ``open_group`` "a",
``open_array`` opens an existing array read/write (creates only with a/w/w-).

Life cycle of a call: the store argument (path, URL, dict, StorePath...) becomes a Store
and a node path (``_nodes.resolve_store_path``); creation arguments in zarr-python's forms
become canonical ones (``_create_args``); the metadata is built and validated before
anything is written; then the node's ancestors are made explicit groups and its document
written. The convenience functions (``zeros``, ``save``...) live in ``convenience``.

The creation code itself (``create_array``, ``create``, the metadata of a new group) lives
in ``_create``, below this module, group.py and convenience.py, which all call it; this
module re-exports ``create_array`` and ``DEFAULT_FILL_VALUE`` and builds ``create_group``'s
Group from ``_create.create_group_node``.
"""

from __future__ import annotations

from zarrhpc.core._create import (  # noqa: F401  (re-exported: imported from here elsewhere)
    DEFAULT_FILL_VALUE,
    _build_codecs,
    _codec_list,
    _create_array_v3,
    _normalize_shards,
    _shape_tuple,
    create,
    create_array,
    create_group_node,
)
from zarrhpc.core._create_args import (  # noqa: F401  (re-exported, as above)
    _exists_w_minus,
    _normalize_chunks,
    _prepare_path,
    format_of,
    guess_chunks,
)
from zarrhpc.core._nodes import meta_key, missing_root, read_node, resolve_store_path
from zarrhpc.core.array import Array
from zarrhpc.core.formats import doc_key
from zarrhpc.core.group import Group, open_node
from zarrhpc.errors import (
    ArrayNotFoundError,
    ContainsArrayError,
    ContainsGroupError,
    GroupNotFoundError,
    NodeNotFoundError,
    NotAGroupError,
    NotAnArrayError,
)
from zarrhpc.metadata import (
    normalize_path,
)
from zarrhpc.storage import Store, StorePath

__all__ = ["DEFAULT_FILL_VALUE", "create_array", "create_group", "open", "open_array",
           "open_group"]

_MODES = ("r", "r+", "a", "w", "w-")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode: expected one of {_MODES}, got {mode!r}")


def _default_mode(store, mode):
    """zarr-python's default open mode: "r" for a read-only Store, else "a"."""
    if mode is not None:
        return mode
    return "r" if isinstance(store, (Store, StorePath)) and store.read_only else "a"


def create_group(store, *, path=None, zarr_format=None, overwrite=False, attributes=None,
                 storage_options=None) -> Group:
    """Create a Zarr group (and explicit groups at every missing ancestor).

    ``zarr_format`` defaults to config ``default_zarr_format`` (3); ``overwrite``
    replaces what is at ``path`` (else an existing node is an error, as zarr-python).
    """
    store, path, md = create_group_node(store, path=path, zarr_format=zarr_format,
                                        overwrite=overwrite, attributes=attributes,
                                        storage_options=storage_options)
    return Group(store, path, md)


def _open_existing(store, path, mode, use_consolidated=None, node=None, **array_kwargs):
    """The node at ``path`` for ``mode`` (``node``: already opened by :func:`_try_open`),
    with the group's consolidated metadata attached as ``use_consolidated`` asks."""
    if node is None:
        node = open_node(store, path, read_only=(mode == "r"), **array_kwargs)
    if isinstance(node, Group) and use_consolidated is False:
        # as zarr-python: the group's metadata then shows no consolidated metadata
        node.__dict__["_without_consolidated"] = True
    elif isinstance(node, Group):
        from zarrhpc.core.consolidated import load_consolidated, open_consolidated

        if use_consolidated:
            return open_consolidated(store, path, mode)
        cons = load_consolidated(store, path, node._metadata)
        if cons is not None:
            node._consolidated = cons
    return node


_ARRAY_OPEN_KEYS = ("write_empty_chunks", "order", "config")


def _array_open_options(kwargs: dict) -> dict:
    """``order``/``write_empty_chunks`` of an opened array, from its keywords and config."""
    from zarrhpc import config as settings

    cfg = dict(kwargs.pop("config", None) or {})
    order = kwargs.pop("order", None) or cfg.get("order") or settings.get("array.order")
    wec = kwargs.pop("write_empty_chunks", None)
    if wec is None:
        wec = cfg.get("write_empty_chunks", settings.get("array.write_empty_chunks"))
    return {"order": order, "write_empty_chunks": wec}


def open(store=None, *, mode=None, zarr_format=None, path=None, storage_options=None,
         zarr_version=None, **kwargs):
    """Open the array or group at ``path``, creating it when the mode allows.

    As zarr-python 3: ``mode`` defaults to "a" ("r" for a read-only Store); with ``shape``
    in the keywords an array is opened or created, else whatever node is there is opened,
    or a group created (modes a, w, w-).
    """
    zarr_format = format_of(zarr_version, zarr_format)
    mode = _default_mode(store, mode)
    _check_mode(mode)
    store, path = resolve_store_path(store, path, mode, storage_options)
    path = normalize_path(path)
    if "shape" in kwargs:
        return open_array(store, path=path, mode=mode, zarr_format=zarr_format, **kwargs)
    options = _array_open_options(kwargs)
    node = None if mode == "w" else _try_open(store, path, mode, **options)
    if node is not None:
        node = _open_existing(store, path, mode, kwargs.get("use_consolidated"), node=node)
        if mode == "w-":
            cls = ContainsArrayError if isinstance(node, Array) else ContainsGroupError
            raise cls(_exists_w_minus(path))
        return node
    if mode in ("r", "r+"):
        # zarr-python's words (it tries a group last)
        raise GroupNotFoundError(missing_root(store) or f"No group found in store "
                                 f"{StorePath(store, path)!r} at path {path!r}")
    return open_group(store, path=path, mode=mode, zarr_format=zarr_format,
                      attributes=kwargs.get("attributes"),
                      use_consolidated=kwargs.get("use_consolidated"))


def _try_open(store, path, mode, **array_kwargs):
    """The node at ``path`` opened for ``mode``, or None when there is none.

    One probe of the node's documents: existence is learnt by opening it (on a remote
    store every probe is a request).
    """
    try:
        return open_node(store, path, read_only=(mode == "r"), **array_kwargs)
    except NodeNotFoundError:
        return None


def open_array(store=None, *, zarr_format=None, path="", storage_options=None, mode=None,
               zarr_version=None, **kwargs) -> Array:
    """Open an existing array; create one with modes a/w/w- (keywords as ``create``).

    As zarr-python 3, the array is writable unless ``mode="r"`` or the store is read-only.
    """
    zarr_format = format_of(zarr_version, zarr_format)
    store_mode = mode or ("r" if getattr(store, "read_only", False) else "r+")
    _check_mode(store_mode)
    store, path = resolve_store_path(store, path, store_mode, storage_options)
    path = normalize_path(path)
    md = read_node(store, path) if mode != "w" else None
    if md is None and mode in ("a", "w", "w-") and not store.read_only:
        return create(store=store, path=path, zarr_format=zarr_format,
                      overwrite=(mode == "w"), **kwargs)
    if mode == "w-" and md is not None:
        cls = ContainsArrayError if md.node_type == "array" else ContainsGroupError
        raise cls(_exists_w_minus(path))
    # zarr-python's words for a missing array and for another node there
    if md is None:
        raise ArrayNotFoundError(missing_root(store)
                                 or f"No array found in store {store} at path {path}")
    if md.node_type != "array":
        raise NotAnArrayError(f"Invalid value for 'node_type'. Expected 'array'. "
                              f"Got {md.node_type!r}.")
    if zarr_format is not None and md.zarr_format != zarr_format:
        raise ArrayNotFoundError(f"{doc_key(path, md)}: the array is Zarr v{md.zarr_format}, "
                                 f"zarr_format={zarr_format} was asked for")
    options = _array_open_options(kwargs)
    return Array(store, path, md, read_only=(mode == "r"), **options)


def open_group(store=None, *, mode="a", cache_attrs=None, synchronizer=None, path=None,
               chunk_store=None, storage_options=None, zarr_format=None, meta_array=None,
               attributes=None, use_consolidated=None, zarr_version=None) -> Group:
    """Open a group (explicit or implicit), creating it with modes a/w/w- (default "a").

    ``use_consolidated``: None uses consolidated metadata when the group has some, True
    requires it, False ignores it (as zarr-python 3). ``zarr_format`` and ``attributes``
    apply to creation. ``cache_attrs``, ``synchronizer``, ``chunk_store`` and
    ``meta_array`` are accepted for zarr-python 2 code and not used.
    """
    zarr_format = format_of(zarr_version, zarr_format)
    _check_mode(mode)
    given = store
    store, path = resolve_store_path(store, path, mode, storage_options)
    path = normalize_path(path)
    node = None if mode == "w" else _try_open(store, path, mode)
    exists = node is not None
    if mode == "w" or (mode in ("a", "w-") and not exists):
        return create_group(store, path=path, overwrite=(mode == "w"), attributes=attributes,
                            zarr_format=zarr_format)
    if mode == "w-":
        raise ContainsGroupError(_exists_w_minus(path))
    # zarr-python's words (the store as the caller gave it)
    if not exists:
        raise GroupNotFoundError(missing_root(store) or
                                 f"No group found in store {given!r} at path {path!r}")
    node = _open_existing(store, path, mode, use_consolidated, node=node)
    if not isinstance(node, Group):
        raise NotAGroupError(f"An array already exists in store {store} at path {path}.")
    if zarr_format is not None and node.zarr_format != zarr_format:
        raise GroupNotFoundError(f"{meta_key(path)}: the group is Zarr v{node.zarr_format}, "
                                 f"zarr_format={zarr_format} was asked for")
    return node
