"""The text ``Array.info``/``Group.info`` and the node reprs show, spelt as zarr-python 3
spells it, so a script switched to ``import zarrhpc as zarr`` prints what it printed.

Life cycle: ``Array.info``/``info_complete`` and ``Group.info``/``info_complete`` gather
their values and hand them to :func:`array_info`/:func:`group_info`; ``repr(node)`` asks
:func:`node_url` for the ``<scheme>://...`` form of its store and path. Nothing here reads
the store. Values zarr-python shows through its own classes (data types, codecs) are
rendered from our objects' JSON forms into that class's repr text; anything without a
zarr-python counterpart keeps our repr.
"""

from __future__ import annotations

from zarrhpc.core.node import NodeInfo

__all__ = ["array_info", "codec_text", "data_type_of", "group_info", "human_size", "node_url"]

_ARRAY_WIDTH = len("Chunks Initialized")
_GROUP_WIDTH = len("Zarr format")
_SIZES = "KMGTP"


def human_size(size: int) -> str:
    """``1614`` -> ``"1.6K"`` (powers of 1024, one decimal), below 1 KiB the plain count."""
    if size < 1024:
        return str(size)
    for i, unit in enumerate(_SIZES, start=1):
        if size < 1024 ** (i + 1) or unit == _SIZES[-1]:
            return f"{size / float(1024 ** i):.1f}{unit}"
    raise AssertionError  # pragma: no cover - the loop always returns


def byte_info(size: int) -> str:
    return str(size) if size < 1024 else f"{size} ({human_size(size)})"


def node_url(store, path: str) -> str:
    """``memory://<id>``, ``file://<root>``, ``zip://<file>`` (and the node's path after a
    slash): what zarr-python's ``StorePath`` shows for the same store."""
    name = type(store).__name__
    if name == "CacheStore" and hasattr(store, "_store"):
        # zarr-python's CacheStore is a WrapperStore: its URL is the wrapped one's
        base = f"wrapping-{node_url(store._store, '')}"
    elif name == "MemoryStore" and hasattr(store, "_data"):
        base = f"memory://{id(store._data)}"
    elif name in ("LocalStore", "ZipStore") and hasattr(store, "_shown"):
        base = str(store)  # the path as given (zarr-python does not make it absolute)
    else:
        base = getattr(store, "url", None) or repr(store)
    return f"{base}/{path}" if path else base


def data_type_of(data_type, stored=None):
    """zarr-python's data-type object (``Int32(endianness='little')``, ``UInt8()``...: the
    :mod:`zarrhpc.core.dtype` class's, what ``info._data_type`` holds); ``stored`` is a v2
    array's stored dtype (its byte order shows). zarrhpc's own name (a str) for a type with
    no class there."""
    from zarrhpc.core.dtype import from_data_type

    try:
        return from_data_type(data_type, stored)
    except ValueError:
        return data_type.name


def codec_text(codec, itemsize: int) -> str:
    """zarr-python's repr of the v3 codec ``codec`` (ours, described by its JSON form):
    that of its :func:`~zarrhpc.core.metadata.codec_view`. Blosc and sharding keep their
    own reprs here (zarr-python's info shows those without the metadata's extra fields)."""
    from zarrhpc.core.metadata import codec_view

    to_json = getattr(codec, "to_json", None)
    form = to_json() if to_json is not None else None
    if not isinstance(form, dict) or "name" not in form:
        return repr(codec)  # a v2 (numcodecs) codec: numcodecs' own repr, as zarr-python's
    if form["name"] in ("blosc", "sharding_indexed"):
        return repr(codec)
    return repr(codec_view(form, itemsize))


def array_info(rows: dict, *, sharded: bool, v2: bool, itemsize: int,
               stored: int | None = None, initialized: int | None = None) -> NodeInfo:
    """The ``Array.info`` table; with ``stored``/``initialized``, ``info_complete``'s."""
    fill, data_type = rows["fill_value"], rows["data_type"]
    out = [
        ("Type", "Array"),
        ("Zarr format", rows["zarr_format"]),
        ("Data type", data_type if isinstance(data_type, str) else repr(data_type)),
        ("Fill value", str(fill)),
        ("Shape", str(rows["shape"])),
    ]
    if sharded:
        out.append(("Shard shape", str(rows["shards"])))
    out += [
        ("Chunk shape", str(rows["chunks"])),
        ("Order", rows["order"]),
        ("Read-only", str(rows["read_only"])),
        ("Store type", rows["store_type"]),
        ("Filters", _tuple_text(rows["filters"], itemsize)),
    ]
    if not v2:
        out.append(("Serializer", codec_text(rows["serializer"], itemsize)))
    out += [("Compressors", _tuple_text(rows["compressors"], itemsize)),
            ("No. bytes", byte_info(rows["nbytes"]))]
    if stored is not None:
        out.append(("No. bytes stored", byte_info(stored)))
        if stored > 0:
            out.append(("Storage ratio", f"{rows['nbytes'] / stored:.1f}"))
    if initialized is not None:
        out.append(("Shards Initialized" if sharded else "Chunks Initialized", str(initialized)))
    fields = {"_type": "Array", "_zarr_format": _format_number(rows["zarr_format"]),
              "_data_type": rows["data_type"], "_fill_value": fill, "_shape": rows["shape"],
              "_shard_shape": rows["shards"], "_chunk_shape": rows["chunks"],
              "_order": rows["order"], "_read_only": rows["read_only"],
              "_store_type": rows["store_type"], "_filters": tuple(rows["filters"]),
              "_serializer": None if v2 else rows["serializer"],
              "_compressors": tuple(rows["compressors"]), "_count_bytes": rows["nbytes"],
              "_count_bytes_stored": stored, "_count_chunks_initialized": initialized}
    return NodeInfo(out, width=_ARRAY_WIDTH, fields=fields)


def _format_number(text: str):
    """``"3"`` -> 3 (zarr-python's ``ZarrFormat``); a text that is no number stays."""
    return int(text) if text.isdigit() else text


def _tuple_text(codecs, itemsize: int) -> str:
    items = [codec_text(c, itemsize) for c in codecs]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def group_info(name: str, zarr_format: str, read_only: bool, store_type: str,
               counts: tuple[int, int, int] | None = None) -> NodeInfo:
    """The ``Group.info`` table; with ``counts`` (members, arrays, groups at every depth),
    ``info_complete``'s."""
    rows = [("Name", name), ("Type", "Group"), ("Zarr format", zarr_format),
            ("Read-only", str(read_only)), ("Store type", store_type)]
    if counts is not None:
        rows += [("No. members", str(counts[0])), ("No. arrays", str(counts[1])),
                 ("No. groups", str(counts[2]))]
    fields = {"_name": name, "_type": "Group", "_zarr_format": _format_number(zarr_format),
              "_read_only": read_only, "_store_type": store_type}
    fields.update(zip(("_count_members", "_count_arrays", "_count_groups"),
                      counts or (None, None, None)))
    return NodeInfo(rows, width=_GROUP_WIDTH, fields=fields)
