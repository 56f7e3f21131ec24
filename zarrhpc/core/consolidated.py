"""``consolidate_metadata`` and ``open_consolidated``, as in zarr-python 3.

A consolidated group keeps the metadata of every node below it in one document (v2:
``.zmetadata``; v3: the ``consolidated_metadata`` member of its ``zarr.json``). Opening
such a group reads that document once; its members, and their members, are then found
without listing the store (and without reading their documents). The document is a
snapshot: nodes created later are not in it until ``consolidate_metadata`` runs again, so
a group drops its consolidated view as soon as it creates or deletes a member.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from zarrhpc.core._nodes import missing_root, resolve_store_path
from zarrhpc.core.formats import parse_members, read_node, write_node
from zarrhpc.core.group import Group, open_node
from zarrhpc.errors import GroupNotFoundError, MetadataError, UnsupportedError, ZarrUserWarning
from zarrhpc.metadata import normalize_path
from zarrhpc.metadata.consolidated import (
    ZMETADATA,
    build_consolidated_v3,
    build_zmetadata,
    parse_consolidated_v3,
    parse_zmetadata,
)

__all__ = ["consolidate_metadata", "load_consolidated", "open_consolidated"]


def _key(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def load_consolidated(store, path: str, md) -> dict | None:
    """``{path from the store root: metadata}`` of the group at ``path`` (itself included),
    or None when it holds no consolidated metadata."""
    if md is None or md.node_type != "group":
        return None
    if md.zarr_format == 2:
        raw = store.get(_key(path, ZMETADATA))
        if raw is None:
            return None
        rel = parse_members(parse_zmetadata, _key(path, ZMETADATA), bytes(raw),
                            _key(path, ZMETADATA))
    else:
        rel = parse_members(parse_consolidated_v3, _key(path, "zarr.json"),
                            md.extra.get("consolidated_metadata"), _key(path, "zarr.json"))
        if rel is None:
            return None
    out = {_key(path, p) if p else path: m for p, m in rel.items()}
    out[path] = md
    return out


def _walk(group: Group, prefix: str, out: dict) -> None:
    for name, node in group.members():
        rel = f"{prefix}{name}"
        out[rel] = node._metadata
        if isinstance(node, Group):
            if node._metadata is None:
                raise MetadataError(
                    f"{node.path}: an implicit group cannot be consolidated; create it "
                    f"explicitly first")
            _walk(node, rel + "/", out)


def consolidate_metadata(store, path: str | None = None, zarr_format: int | None = None) -> Group:
    """Gather the metadata of every node below the group at ``path`` into it.

    Parameters
    ----------
    store : Store or path
    path : str, optional
        The group (default: the root).
    zarr_format : {2, 3}, optional
        Checked against the group's format when given.

    Returns
    -------
    Group
        The group, opened with its new consolidated metadata.
    """
    store, path = resolve_store_path(store, path, mode="r+")
    path = normalize_path(path or "")
    group = open_node(store, path, read_only=False)
    if not isinstance(group, Group) or group._metadata is None:
        raise GroupNotFoundError(f"{_key(path, 'zarr.json')}: no explicit group at {path or '/'!r}")
    if getattr(group._metadata, "read_only", False):  # the 2022 draft: read and convert
        raise UnsupportedError(
            f"{path or '/'}: the store is in the 2022 draft layout of Zarr v3, which zarrhpc "
            f"reads but never writes; convert it first (zarrhpc.convert, `zarrhpc convert`)")
    if zarr_format is not None and zarr_format != group.zarr_format:
        raise MetadataError(f"{path or '/'}: the group is Zarr v{group.zarr_format}, "
                            f"zarr_format={zarr_format} was asked for")
    nodes: dict = {}
    _walk(group, "", nodes)
    md = group._metadata
    if any(getattr(m, "zarr_format", None) == 3 for m in nodes.values()):
        # zarr-python's warning, on the same condition (a v3 member) and stack level
        warnings.warn("Consolidated metadata is currently not part in the Zarr format 3 "
                      "specification. It may not be supported by other zarr implementations "
                      "and may change in the future.", ZarrUserWarning, stacklevel=1)
    if md.zarr_format == 2:
        store.set(_key(path, ZMETADATA), build_zmetadata({"": md, **nodes}))
    else:
        extra = {**md.extra, "consolidated_metadata": build_consolidated_v3(nodes)}
        md = replace(md, extra=extra)
        write_node(store, path, md)
    return Group(store, path, md, consolidated=load_consolidated(store, path, md))


def open_consolidated(store=None, path: str | None = None, mode: str = "a",
                      **kwargs) -> Group:
    """Open a group through its consolidated metadata (an error when it has none).

    As zarr-python 3 (``open_group(..., use_consolidated=True)``), the default mode is "a";
    the other keywords of ``open_group`` are accepted.
    """
    if kwargs.pop("use_consolidated", True) is not True:
        raise ValueError("open_consolidated: use_consolidated must be True")
    store, path = resolve_store_path(store, path, mode, kwargs.pop("storage_options", None))
    path = normalize_path(path or "")
    md = read_node(store, path)
    cons = load_consolidated(store, path, md)
    if cons is None:  # zarr-python's words
        missing = missing_root(store)
        if missing:
            raise GroupNotFoundError(missing)
        raise MetadataError(f"Consolidated metadata requested with 'use_consolidated=True' "
                            f"but not found in {path!r}.")
    return Group(store, path, md, read_only=(mode == "r"), consolidated=cons)
