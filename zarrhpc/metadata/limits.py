"""Limits on what untrusted store bytes may make zarrhpc do: checks for hostile metadata.

Metadata documents and chunk bytes come from files anyone may have written. Whatever
they hold, reading them gives a zarrhpc error naming the document or key, never a
foreign exception from deep inside Python or numpy, and never an allocation sized from
a number nobody checked:

- JSON nested deeper than Python's recursion limit (`json.loads` raises RecursionError)
  is a `MetadataError` (`loads`, and `zarrhpc.core.formats` for every parser);
- shapes and chunk shapes whose sizes do not fit numpy's index type (int64), or chunks
  whose decoded size in bytes does not, are a `MetadataError` when the array is opened
  (`check_array`), not an OverflowError/ValueError from numpy at the first read;
- (in the codecs layer, which may not import this one: the numcodecs adapter runs lzma
  and bz2 with a bounded output, so a chunk never decodes to more than its size.)

Called from one place: `zarrhpc.core.formats` (every parsed document). Pure functions,
no I/O.
"""

from __future__ import annotations

import json
import math
from typing import Any

from zarrhpc.errors import MetadataError

__all__ = ["MAX_INDEX", "check_array", "loads"]

#: numpy's largest index and array size in bytes (np.intp on 64-bit platforms)
MAX_INDEX = 2**63 - 1


def loads(data: Any, doc: str, **kwargs) -> Any:
    """``json.loads`` whose RecursionError (hostile nesting) is a `MetadataError`."""
    try:
        return json.loads(data, **kwargs)
    except RecursionError:
        raise MetadataError(f"{doc}: JSON nested too deeply to be metadata") from None


def check_array(md: Any, doc: str) -> None:
    """Refuse array metadata whose sizes numpy cannot index or allocate.

    Parameters
    ----------
    md : metadata object
        Any parsed node document; arrays (with ``shape`` and ``chunk_shape`` or
        ``chunks``) are checked, other nodes pass.
    doc : str
        The document's key, named in the error.

    Raises
    ------
    MetadataError
        A dimension, the number of elements, or a chunk's size in bytes exceeds
        `MAX_INDEX`.
    """
    shape = getattr(md, "shape", None)
    if shape is None:
        return
    chunks = getattr(md, "chunk_shape", None) or getattr(md, "chunks", None)
    for name, dims in (("shape", shape), ("chunk shape", chunks)):
        if dims is None:
            continue
        if any(int(n) > MAX_INDEX for n in dims) or math.prod(int(n) for n in dims) > MAX_INDEX:
            raise MetadataError(f"{doc}: {name} {tuple(dims)} has more elements than an array "
                                f"can index (at most {MAX_INDEX})")
    if chunks is not None:
        itemsize = _itemsize(md)
        nbytes = math.prod(int(n) for n in chunks) * itemsize
        if nbytes > MAX_INDEX:
            raise MetadataError(f"{doc}: a chunk of shape {tuple(chunks)} would be {nbytes} "
                                f"bytes, more than an array can hold ({MAX_INDEX})")


def _itemsize(md: Any) -> int:
    dt = getattr(md, "data_type", None)
    size = getattr(dt, "itemsize", None)
    if size is None:
        size = getattr(getattr(md, "dtype", None), "itemsize", None)
    try:
        return max(int(size), 1)
    except (TypeError, ValueError):
        return 1
