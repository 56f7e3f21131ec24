"""The arguments of array creation in every form zarr-python 3 accepts, made canonical.

- chunks ``"auto"`` (and None/True): zarr-python's guess (h5py's rule: a target chunk size
  growing with the array, between 128 KiB and 64 MiB, reached by halving the axes in
  turn), so ``zarrhpc.zeros((10000, 10000)).chunks`` equals zarr-python's;
- shards ``"auto"``: two chunks per shard along every axis holding more than 8 chunks, or
  as many as fit ``config["array.target_shard_size_bytes"]`` when that is set;
- codecs: our Codec objects, v3 JSON dicts and names, v2 numcodecs dicts
  (``{"id": "zlib", "level": 1}``), numcodecs objects (``numcodecs.Zstd(level=3)``),
  ``numcodecs.zarr3`` objects and zarr-python's codec objects (``zarr.codecs.BloscCodec``),
  the last two through their own ``to_dict()`` (so zarrhpc never imports zarr);
- chunk_key_encoding: a ChunkKeyEncoding (ours or zarr-python's), a v3 dict, zarr-python's
  flat ``{"name": "default", "separator": "."}``, a name, or a ``(name, separator)`` pair.

Also the two helpers both ``_create.create_array`` (v3) and ``api_v2.create_array_v2``
use, ``_normalize_chunks`` and ``_prepare_path``: here, below both, so that neither
imports the other's module back.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from zarrhpc.core._nodes import read_node
from zarrhpc.core.formats import META_NAMES, doc_key, empty_group
from zarrhpc.errors import CodecError, ContainsArrayError, ContainsGroupError
from zarrhpc.metadata import ChunkKeyEncoding

__all__ = [
    "format_of",
    "auto_shards",
    "codec_entries",
    "codec_entry",
    "guess_chunks",
    "parse_chunk_key_encoding",
]

_KIB = 1024


def _exists_w_minus(path: str) -> str:
    """zarr-python's words for mode "w-" over an existing node (its FileExistsError;
    ours are Contains*Error, which derive from it)."""
    return (f"Cannot create {path!r} with mode 'w-' because it already contains data. "
            f"Use mode 'w' to overwrite or 'a' to append.")


def format_of(zarr_version, zarr_format):
    """``zarr_format`` given either way: zarr-python 3 still takes its 2.x name
    ``zarr_version`` on ``open``, ``open_array``, ``open_group``, ``group``, ``create``,
    ``load`` and the ``save`` functions, with its deprecation warning and check."""
    if zarr_format is not None and zarr_version is not None and zarr_format != zarr_version:
        raise ValueError(f"zarr_format {zarr_format} does not match zarr_version "
                         f"{zarr_version}, please only set one")
    if zarr_version is None:
        return check_format(zarr_format)
    import warnings

    from zarrhpc.errors import ZarrDeprecationWarning

    warnings.warn("zarr_version is deprecated, use zarr_format", ZarrDeprecationWarning,
                  stacklevel=3)
    return check_format(zarr_version)


def check_format(zarr_format):
    """``zarr_format`` when it is 2, 3 or None; else zarr-python's MetadataValidationError
    (a ValueError) and words."""
    if zarr_format is not None and (zarr_format not in (2, 3) or isinstance(zarr_format, bool)):
        from zarrhpc.errors import MetadataValidationError

        raise MetadataValidationError(
            f"Invalid value for 'zarr_format'. Expected 2, 3, or None. Got '{zarr_format}'.")
    return zarr_format


def guess_chunks(shape: tuple[int, ...], itemsize: int, *, increment: int = 256 * _KIB,
                 min_bytes: int = 128 * _KIB, max_bytes: int = 64 * _KIB * _KIB
                 ) -> tuple[int, ...]:
    """zarr-python's automatic chunk shape for ``shape`` and ``itemsize`` (0, a
    variable-length type such as ``str``: 1 byte per element, as zarr-python sizes them)."""
    if not shape:
        return tuple(shape)
    itemsize = max(itemsize, 1)
    chunks = [float(max(n, 1)) for n in shape]
    total = math.prod(chunks) * itemsize
    # the target grows by ``increment`` per doubling of ten in size (PyTables' rule)
    target = increment * 2 ** math.log10(total / (1024.0 * 1024))
    target = min(max(target, min_bytes), max_bytes)
    i = 0
    while True:
        nbytes = math.prod(chunks) * itemsize
        close = nbytes < target or abs(nbytes - target) / target < 0.5
        if (close and nbytes < max_bytes) or math.prod(chunks) == 1:
            break
        axis = i % len(chunks)
        chunks[axis] = math.ceil(chunks[axis] / 2.0)
        i += 1
    return tuple(int(c) for c in chunks)


def auto_shards(shape: tuple[int, ...], chunks: tuple[int, ...], itemsize: int
                ) -> tuple[int, ...]:
    """zarr-python's ``shards="auto"``: without ``array.target_shard_size_bytes`` in the
    config, 2 chunks per shard on axes with more than 8; with it, the same number ``k`` of
    chunks per shard on every axis, the largest whose shard (``k ** ndim`` chunks) holds at
    most that many bytes and stays within the array (at least 1)."""
    from zarrhpc import config

    target = config.get("array.target_shard_size_bytes")
    if target is None:
        return tuple(c * 2 if n // c > 8 else c for n, c in zip(shape, chunks))
    chunk_bytes = math.prod(chunks) * itemsize
    k = 1
    while (chunk_bytes * (k + 1) ** len(chunks) <= target
           and all(c * (k + 1) <= n for c, n in zip(chunks, shape))):
        k += 1
    return tuple(c * k for c in chunks)


def codec_entry(obj, itemsize: int | None = None):
    """One codec as our Codec or a JSON dict/name ``parse_codec`` understands."""
    from zarrhpc.codecs import Codec

    if isinstance(obj, (Codec, str)):
        return obj
    if isinstance(obj, dict):
        if "id" in obj and "name" not in obj:  # a v2 numcodecs dict used for v3
            conf = {k: v for k, v in obj.items() if k != "id"}
            return {"name": f"numcodecs.{obj['id']}", "configuration": conf}
        return obj
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):  # zarr-python's codecs and numcodecs.zarr3's
        data = to_dict()
        if isinstance(data, dict) and "name" in data:
            return _tuned(_plain(data), getattr(obj, "_tunable_attrs", ()), itemsize)
    get_config = getattr(obj, "get_config", None)
    if callable(get_config) and hasattr(obj, "codec_id"):  # a numcodecs codec object
        conf = dict(get_config())
        codec_id = conf.pop("id", obj.codec_id)
        native = {"zstd": "zstd", "gzip": "gzip", "blosc": "blosc"}
        if codec_id in native:
            return _numcodecs_native(codec_id, conf)
        return {"name": f"numcodecs.{codec_id}", "configuration": conf}
    raise CodecError(f"codecs: {obj!r} is not a codec (expected a zarrhpc, zarr-python or "
                     f"numcodecs codec object, a dict or a name)")


def _tuned(entry: dict, tunable, itemsize: int | None) -> dict:
    """zarr-python's "tunable" Blosc settings (typesize, shuffle left unset by the user)
    resolved as zarr-python resolves them for the array's item size."""
    conf = entry.get("configuration")
    if entry.get("name") != "blosc" or not isinstance(conf, dict):
        return entry
    if "typesize" in tunable:
        conf.pop("typesize", None)  # filled from the dtype by our codec
    if "shuffle" in tunable and itemsize is not None:
        conf["shuffle"] = "bitshuffle" if itemsize == 1 else "shuffle"
    return entry


def _numcodecs_native(codec_id: str, conf: dict) -> dict:
    """numcodecs Zstd/GZip/Blosc as the v3 codecs zarr-python maps them to."""
    if codec_id == "zstd":
        return {"name": "zstd", "configuration": {"level": conf.get("level", 0),
                                                  "checksum": bool(conf.get("checksum", False))}}
    if codec_id == "gzip":
        return {"name": "gzip", "configuration": {"level": conf.get("level", 1)}}
    shuffle = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle", -1: "shuffle"}
    return {"name": "blosc", "configuration": {
        "cname": conf.get("cname", "lz4"), "clevel": conf.get("clevel", 5),
        "shuffle": shuffle.get(conf.get("shuffle", 1), "shuffle"),
        "blocksize": conf.get("blocksize", 0), "typesize": None}}


def _plain(value):
    """JSON values from ``to_dict()`` output (enums -> their values, tuples -> lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()
                if not (k == "typesize" and v is None)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "value") and not isinstance(value, (int, float, str, bool)):
        return value.value  # an Enum
    if isinstance(value, np.generic):
        return value.item()
    return value


def codec_entries(value, itemsize: int | None = None, kind: str | None = None):
    """``filters``/``compressors``/``serializer`` in any accepted form -> "auto", None or
    a list of entries. ``kind``: zarr-python's class for the role (``BytesBytesCodec``...);
    given, a codec named by a bare string is refused with its TypeError and words, as
    zarr-python takes codec objects and dicts only."""
    if value is None or (isinstance(value, str) and value == "auto"):
        return value
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if kind and isinstance(v, str):
            article = "an" if kind[0] in "AEIOU" else "a"
            raise TypeError(f"Expected {article} {kind}. Got {type(v)} instead.")
    return [codec_entry(v, itemsize) for v in values]


def parse_chunk_key_encoding(value, doc: str) -> ChunkKeyEncoding:
    """A ChunkKeyEncoding from any form zarr-python accepts (see the module docstring)."""
    if value is None:
        return ChunkKeyEncoding("default", "/")
    if isinstance(value, ChunkKeyEncoding):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        value = {"name": value[0], "configuration": {"separator": value[1]}}
    elif not isinstance(value, (dict, str)) and callable(getattr(value, "to_dict", None)):
        value = _plain(value.to_dict())  # zarr-python's ChunkKeyEncoding objects
    if isinstance(value, dict) and "separator" in value:
        value = {"name": value.get("name", "default"),
                 "configuration": {"separator": value["separator"]}}
    return ChunkKeyEncoding.from_json(value, doc)


# shared by create_array (core._create) and create_array_v2 (core.api_v2)
def int_tuple(values, what: str) -> tuple[int, ...]:
    """``values`` as a tuple of ints; a float (even 4.0) or other non-integer is a
    TypeError, as zarr-python refuses it (``int()`` would silently truncate 400.5)."""
    values = tuple(values)
    bad = [v for v in values if not isinstance(v, numbers.Integral)]
    if bad:
        raise TypeError(f"{what}: expected an iterable of integers, got {values!r} "
                        f"({bad[0]!r} is a {type(bad[0]).__name__})")
    return tuple(int(v) for v in values)


def _normalize_chunks(chunks, shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    if chunks is None or chunks is True or (isinstance(chunks, str) and chunks == "auto"):
        return guess_chunks(shape, itemsize)
    if isinstance(chunks, (int, np.integer)) and not isinstance(chunks, bool):
        chunks = (int(chunks),) * len(shape)
    try:
        chunks = tuple(chunks)
    except TypeError:
        raise ValueError(f"chunks: expected 'auto', an int or a tuple of ints, got {chunks!r}") from None
    chunks = int_tuple(chunks, "chunks")
    if len(chunks) != len(shape):
        raise ValueError(f"chunks: {chunks} has {len(chunks)} dimensions, shape {shape} has {len(shape)}")
    out = []
    for axis, (c, n) in enumerate(zip(chunks, shape)):
        if c == -1:  # the whole dimension
            c = max(1, n)
        if c < 1 and not (c == 0 and n == 0):  # 0 on a length-0 axis: as zarr-python
            raise ValueError(f"chunks: axis {axis}: chunk length must be positive, got {c}")
        out.append(c)
    return tuple(out)


class _Absent:
    """`ABSENT`'s type: a true value (the node is created whatever the check), its repr
    names it."""

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "ABSENT"


# ``overwrite=ABSENT`` (internal callers only): the caller has just listed the parent's
# prefix and found nothing there, and created the parent group itself, so `_prepare_path`
# neither reads the node's documents nor lists its prefix to erase it. xarray's
# ``to_zarr(mode="w-")`` makes that one emptiness check (zarr-python's ``is_empty`` for
# mode "w-") instead of one listing per new variable.
ABSENT = _Absent()


def _prepare_path(store, path: str, overwrite: bool, zarr_format: int = 3) -> None:
    """Make room for a new node at ``path`` and explicit groups at its ancestors (v2
    requires a ``.zgroup`` at every ancestor; v3 writes them too). ``overwrite`` is
    `ABSENT` when the caller knows the parent group exists and holds nothing at ``path``:
    nothing is read, listed or erased.

    Round trips count on an object store, so the documents are read in batches
    (`_NodeDocs`): the ancestors' ``zarr.json`` and, unless ``overwrite``, all three
    documents of the node itself in one `Store.get_values`, then the v2 documents of the
    ancestors that have no ``zarr.json``. ``overwrite`` does not read the node at all: its
    prefix is erased whatever it holds (one listing and one batched delete of what it
    lists), after the ancestors were checked, so a refused create erases nothing. The
    missing ancestors' groups go up with one `Store.set_values`.
    """
    if overwrite is ABSENT:
        return
    parts = path.split("/") if path else []
    parents = ["/".join(parts[:i]) for i in range(len(parts))]
    docs = _NodeDocs(store, parents, [] if overwrite else [path])
    if not overwrite:
        existing = read_node(docs, path)
        if existing is not None:
            cls = ContainsArrayError if existing.node_type == "array" else ContainsGroupError
            raise cls(store, path)  # zarr-python's words: "An array exists in store ..."
    missing = []
    for parent in parents:
        md = read_node(docs, parent)
        if md is not None and md.node_type == "array":
            raise ContainsArrayError(
                f"{doc_key(parent, md)}: cannot create {path!r} inside the array at "
                f"{parent or '/'!r}: A parent of {path!r} is an array - only groups may "
                f"have child nodes."
            )
        if md is None:
            missing.append(parent)
    if overwrite:
        store.erase_prefix(f"{path}/" if path else "")
    if missing:
        group = empty_group(zarr_format)
        store.set_values([(_doc(parent, name), data) for parent in missing
                          for name, data in group.documents().items()])


def _doc(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


class _NodeDocs:
    """A read-through view of ``store`` whose `get` answers the node documents fetched
    ahead in batches (see `_prepare_path`); everything else goes to the store."""

    def __init__(self, store, ancestors: list[str], nodes: list[str]) -> None:
        self._store = store
        v3, v2_names = META_NAMES[0], META_NAMES[1:]
        keys = [_doc(p, v3) for p in ancestors] + [_doc(p, n) for p in nodes for n in META_NAMES]
        self._values = dict(zip(keys, store.get_values(keys))) if keys else {}
        v2 = [_doc(p, n) for p in ancestors if self._values[_doc(p, v3)] is None
              for n in v2_names]
        if v2:
            self._values.update(zip(v2, store.get_values(v2)))

    def get(self, key: str):
        if key in self._values:
            return self._values[key]
        return self._store.get(key)

    def __getattr__(self, name: str):
        return getattr(self._store, name)
