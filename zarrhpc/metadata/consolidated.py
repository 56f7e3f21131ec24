"""Consolidated metadata: every node's metadata of a hierarchy in one document.

- v2: ``.zmetadata`` at the group, ``{"metadata": {".zgroup": {...}, "a/.zarray": {...},
  "a/.zattrs": {...}, ...}, "zarr_consolidated_format": 1}`` (zarr-python 2 and 3).
- v3: zarr-python 3's ``consolidated_metadata`` member of the group's ``zarr.json``:
  ``{"kind": "inline", "must_understand": false, "metadata": {"a": {zarr.json of a},
  "a/b": {...}}}``, keys relative to the group, nested groups with an empty one.

Life cycle: the core reads the document once when a group is opened, parses it here into
``{relative path: metadata object}`` and serves member lookups from that dict, so that a
consolidated hierarchy opens without listing the store. Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtypes import _show
from zarrhpc.metadata.v2 import ZARRAY, ZATTRS, ZGROUP, ArrayMetadataV2, GroupMetadataV2
from zarrhpc.metadata.v3 import parse_metadata_v3

__all__ = ["ZMETADATA", "build_consolidated_v3", "build_zmetadata", "parse_consolidated_v3",
           "parse_zmetadata"]

ZMETADATA = ".zmetadata"


def parse_zmetadata(data: Any, doc: str = ZMETADATA) -> dict:
    """``{relative path: ArrayMetadataV2 | GroupMetadataV2}`` of a ``.zmetadata``.

    The group holding the document itself is under ``""``.
    """
    try:
        d = json.loads(bytes(data).decode("utf-8")) if not isinstance(data, dict) else data
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MetadataError(f"{doc}: not valid JSON ({exc})") from None
    if not isinstance(d, dict) or not isinstance(d.get("metadata"), dict):
        raise MetadataError(f"{doc}: metadata: expected an object of documents, got {_show(d)}")
    if d.get("zarr_consolidated_format") != 1:
        raise MetadataError(f"{doc}: zarr_consolidated_format: expected 1, "
                            f"got {_show(d.get('zarr_consolidated_format'))}")
    docs = d["metadata"]
    out = {}
    for key, value in docs.items():
        if key.rpartition("/")[2] in (ZARRAY, ZGROUP, ZATTRS) and not isinstance(value, dict):
            # never bytes(value): an integer there would allocate that many bytes
            raise MetadataError(f"{doc}: metadata[{key!r}]: expected an object, "
                                f"got {_show(value)}")
    for key, value in docs.items():
        path, _, name = key.rpartition("/")
        where = f"{doc}: metadata[{key!r}]"
        if name == ZARRAY:
            out[path] = ArrayMetadataV2.from_json(value, docs.get(_join(path, ZATTRS)), where)
        elif name == ZGROUP:
            out[path] = GroupMetadataV2.from_json(value, docs.get(_join(path, ZATTRS)), where)
    return out


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def build_zmetadata(nodes: dict) -> bytes:
    """The ``.zmetadata`` document of ``{relative path: v2 metadata}``."""
    docs: dict[str, Any] = {}
    for path in sorted(nodes):
        md = nodes[path]
        for name, data in md.documents().items():
            docs[_join(path, name)] = json.loads(data)
    return json.dumps({"metadata": docs, "zarr_consolidated_format": 1}, indent=4,
                      sort_keys=True, allow_nan=False).encode("utf-8")


def parse_consolidated_v3(member: Any, doc: str) -> dict | None:
    """``{relative path: metadata}`` of a v3 ``consolidated_metadata`` member (None: absent
    or ``null``)."""
    if member is None:
        return None
    field = "consolidated_metadata"
    if not isinstance(member, dict) or member.get("kind") != "inline" or not isinstance(
            member.get("metadata"), dict):
        raise MetadataError(f"{doc}: {field}: expected {{'kind': 'inline', 'metadata': {{...}}}}, "
                            f"got {_show(member)}")
    return {path: parse_metadata_v3(value, f"{doc}: {field}.metadata[{path!r}]")
            for path, value in member["metadata"].items()}


def build_consolidated_v3(nodes: dict) -> dict:
    """The ``consolidated_metadata`` member for ``{relative path: v3 metadata}`` (the group
    itself not included); nested groups get an empty one, as zarr-python writes."""
    metadata = {}
    for path in sorted(nodes, key=lambda p: (p.count("/"), p)):
        d = nodes[path].to_dict()
        if d.get("node_type") == "group":
            d.pop("consolidated_metadata", None)
            d = {"attributes": d.pop("attributes"), "zarr_format": 3,
                 "consolidated_metadata": {"kind": "inline", "must_understand": False,
                                           "metadata": {}}, **d}
        metadata[path] = d
    return {"kind": "inline", "must_understand": False, "metadata": metadata}
