"""Which format a node is stored in, and how its documents are read and written.

Opening detects the format by itself, in zarr-python 3's order: a ``zarr.json`` (final
v3, or the 2022 draft's entry point at the root), then ``.zarray``/``.zgroup`` (v2). The
metadata objects say the rest (``zarr_format``, ``node_type``, ``documents()``), so
arrays and groups need no format branches beyond this module.
"""

from __future__ import annotations

from collections import OrderedDict

from zarrhpc.errors import MetadataError
from zarrhpc.metadata import GroupMetadataV3, limits, parse_metadata_v3
from zarrhpc.metadata.v2 import ZARRAY, ZATTRS, ZGROUP, ArrayMetadataV2, GroupMetadataV2
from zarrhpc.metadata.v3draft import is_draft_entry

__all__ = ["META_NAMES", "doc_key", "empty_group", "read_node", "write_node"]

META = "zarr.json"
# names whose presence under a prefix marks a node (v3 and v2)
META_NAMES = (META, ZARRAY, ZGROUP)


def _key(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def doc_key(path: str, md=None) -> str:
    """The key of a node's main document (for messages): zarr.json, .zarray or .zgroup."""
    if md is not None and getattr(md, "zarr_format", 3) == 2:
        return _key(path, ZARRAY if md.node_type == "array" else ZGROUP)
    return _key(path, META)


def _parse(parser, key: str, *args):
    try:
        md = parser(*args)
    except MetadataError:
        raise
    except RecursionError:  # hostile nesting (limits.py)
        raise MetadataError(f"{key}: JSON nested too deeply to be metadata") from None
    except (ValueError, TypeError, OverflowError) as exc:  # defensive: names the document
        raise MetadataError(f"{key}: {exc}") from exc
    limits.check_array(md, key)
    return md


# Parsed v3 and v2 array documents by (bytes, key): metadata objects are immutable, so opening the
# same node again skips parsing and validation (most of the cost of an open).
_PARSED: OrderedDict = OrderedDict()
_PARSED_MAX = 256


def parse_members(parser, key: str, *args) -> dict | None:
    """``parser(*args)`` for a document holding many nodes' metadata (consolidated
    metadata: ``{path: metadata}`` or None), each checked as `_parse` checks one."""
    rel = _parse(parser, key, *args)
    for path, md in (rel or {}).items():
        limits.check_array(md, f"{key}: metadata of {path!r}")
    return rel


def _parse_cached(parser, key: str, *args):
    """``_parse(parser, key, *args)``, remembered by its arguments (documents' bytes)."""
    cache_key = (parser, key, *args)
    md = _PARSED.get(cache_key)
    if md is None:
        md = _parse(parser, key, *args)
        _PARSED[cache_key] = md
        if len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return md


def _is_draft_entry(raw) -> bool:
    """Whether a ``zarr.json`` is the 2022 draft's entry point (its ``zarr_format`` is the
    draft's URI), without parsing the common v3 documents twice."""
    try:
        return is_draft_entry(raw)
    except RecursionError:  # hostile nesting: not a draft; the v3 parse refuses it
        return False


def read_node(store, path: str):
    """The parsed metadata of the node at ``path`` (any format), or None."""
    key = _key(path, META)
    raw = store.get(key)
    if raw is not None:
        if _is_draft_entry(raw):
            return _draft(store, path, raw)
        return _parse_cached(parse_metadata_v3, key, bytes(raw), key)
    key = _key(path, ZARRAY)
    raw = store.get(key)
    if raw is not None:
        attrs = store.get(_key(path, ZATTRS))
        md = _parse_cached(ArrayMetadataV2.from_json, key, bytes(raw),
                           None if attrs is None else bytes(attrs), key)
        prefix = f"{path}/" if path else ""
        return md.guess_separator(lambda k: store.exists(prefix + k),
                                  lambda: store.list_dir(prefix))
    key = _key(path, ZGROUP)
    raw = store.get(key)
    if raw is not None:
        attrs = store.get(_key(path, ZATTRS))
        return _parse(GroupMetadataV2.from_json, key, bytes(raw),
                      None if attrs is None else bytes(attrs), key)
    if path:  # a node of a 2022-draft hierarchy has its documents under meta/
        root = store.get(META)
        if root is not None and _is_draft_entry(root):
            return _draft(store, path, root)
    return None


def _draft(store, path: str, entry):
    from zarrhpc.core.draft import DraftHierarchy

    return DraftHierarchy(store, bytes(entry)).get(path)


def draft_hierarchy(store, md):
    """The DraftHierarchy a draft group's members are looked up in (None: not a draft)."""
    if getattr(md, "read_only", False) and md.node_type == "group":
        from zarrhpc.core.draft import DraftHierarchy

        return DraftHierarchy(store, bytes(store.get(META)))
    return None


def write_node(store, path: str, md, *, attributes_only: bool = False) -> None:
    """Write the documents of ``md`` for the node at ``path``."""
    docs = md.attributes_documents() if attributes_only else md.documents()
    for name, data in docs.items():
        store.set(_key(path, name), data)


def empty_group(zarr_format: int):
    """Metadata of a new group without attributes."""
    return GroupMetadataV2() if zarr_format == 2 else GroupMetadataV3()
