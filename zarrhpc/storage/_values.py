"""Store values: the buffers a store returns, byte ranges, and readers of one version.

The helpers every store shares (moved out of :mod:`zarrhpc.storage.abc`, which re-exports
them): `Buffer`, the type of a value read; `as_byte_view`, a value to be written as flat
bytes; `check_range` and `resolve_range`, the byte-range conventions of
`Store.get_partial_values`; `apply_writes`, partial writes applied to a value; and the
readers a sharded read opens per shard -- `RangeReader`, which asks its store for each
range, and `ValueReader`, which keeps the whole value it opened (life cycle: opened by
`Store.open_reader`, read any number of times, closed, or left by a ``with`` block).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

from zarrhpc.errors import StoreError

__all__ = [
    "Buffer", "RangeReader", "ValueReader", "apply_writes", "as_byte_view", "check_range",
    "checked_length", "resolve_range",
]

#: What a store returns from a read: ``bytes`` or a read-only ``memoryview``.
Buffer = bytes | memoryview


def as_byte_view(key: str, value: Any) -> memoryview:
    """Return a flat, C-contiguous ``memoryview`` of unsigned bytes over ``value``.

    Parameters
    ----------
    key : str
        The key being written (named in error messages).
    value : buffer
        Anything with the buffer protocol. A non-contiguous buffer is copied into C order.

    Returns
    -------
    memoryview
        One-dimensional, format ``"B"``; shares memory with ``value`` when it is
        C-contiguous.

    Raises
    ------
    TypeError
        If ``value`` does not export a buffer.
    """
    try:
        view = memoryview(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{key!r}: a store value must be a bytes-like object (bytes, bytearray, "
            f"memoryview, numpy array), got {type(value).__name__}: {exc}"
        ) from None
    if view.ndim == 1 and view.format == "B" and view.c_contiguous:
        return view
    if not view.c_contiguous or view.nbytes == 0:  # cast() refuses both
        return memoryview(view.tobytes())
    return view.cast("B")
    return view


def check_range(key: str, offset: Any, length: Any) -> tuple[int, int | None]:
    """Validate one byte range of a partial read.

    Parameters
    ----------
    key : str
        The key being read (named in error messages).
    offset : int
        First byte; negative for a suffix of ``-offset`` bytes.
    length : int or None
        Number of bytes, or ``None`` for "to the end".

    Returns
    -------
    tuple
        ``(offset, length)`` as plain ints (``length`` may stay ``None``).

    Raises
    ------
    TypeError
        If ``offset`` or ``length`` is not an integer.
    ValueError
        If ``length`` is negative.
    """
    try:
        offset = operator.index(offset)
        if length is not None:
            length = operator.index(length)
    except TypeError:
        raise TypeError(
            f"{key!r}: a byte range needs an integer offset and an integer or None "
            f"length, got offset={offset!r}, length={length!r}"
        ) from None
    if length is not None and length < 0:
        raise ValueError(f"{key!r}: byte range length must be >= 0 or None, got {length}")
    return offset, length


def resolve_range(size: int, offset: int, length: int | None) -> tuple[int, int]:
    """Turn a checked ``(offset, length)`` into ``start <= stop <= size`` for a value.

    Parameters
    ----------
    size : int
        Size of the stored value in bytes.
    offset, length : int, int or None
        As returned by `check_range`.

    Returns
    -------
    tuple of int
        ``(start, stop)``, both clipped to ``[0, size]``.
    """
    if offset < 0:
        start = max(size + offset, 0)
    else:
        start = min(offset, size)
    if length is None:
        return start, size
    return start, min(start + length, size)


class RangeReader:
    """Byte ranges of one stored value, from one version of it (see `Store.open_reader`).

    ``size`` is the value's length; `read` returns the bytes of a range, clipped to
    ``size`` as `Store.get_partial_values` clips them. Close it (or use ``with``) when done.
    This generic reader asks the store for each range; `LocalStore`'s keeps the file open,
    so that the size and every range come from the same file even if a writer replaces it.
    """

    def __init__(self, store: Any, key: str, size: int) -> None:  # a Store
        self.store = store
        self.key = key
        self.size = size

    def read(self, offset: int, length: int | None) -> Buffer:
        """The bytes of ``(offset, length)`` (same conventions as `get_partial_values`)."""
        (value,) = self.store.get_partial_values([(self.key, offset, length)])
        return b"" if value is None else value

    def read_ranges(self, ranges: list[tuple[int, int | None]]) -> list[Buffer]:
        """The bytes of several ``(offset, length)`` ranges, in order (see `read`)."""
        return [self.read(offset, length) for offset, length in ranges]

    def close(self) -> None:
        """Release what the reader holds."""

    def __enter__(self) -> RangeReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ValueReader(RangeReader):
    """A reader over one value taken whole when it was opened: every range comes from that
    version, even when a writer replaces the key in between (the generic reader asks the
    store again for each range, and a shard replaced between the read of its index and
    the read of its inner chunks was decoded from the new bytes at the old offsets).
    For stores whose `get` costs no more than a range: MemoryStore, ZipStore."""

    def __init__(self, store: Any, key: str, value: Buffer) -> None:  # a Store
        super().__init__(store, key, memoryview(value).nbytes)
        self._value = value

    def read(self, offset: int, length: int | None) -> Buffer:
        start, stop = resolve_range(self.size, offset, length)
        return self._value[start:stop]


def apply_writes(
    old: Buffer | None, writes: Iterable[tuple[int, memoryview]]
) -> bytearray:
    """Return a new buffer: ``old`` (or nothing) with each ``(offset, data)`` written in.

    Parameters
    ----------
    old : buffer or None
        The current value; ``None`` starts from an empty value.
    writes : iterable of (int, memoryview)
        Non-negative offsets and flat byte views, applied in order; a gap past the end is
        filled with zero bytes.

    Returns
    -------
    bytearray
    """
    buf = bytearray(old) if old is not None else bytearray()
    for offset, data in writes:
        end = offset + data.nbytes
        if end > len(buf):
            buf.extend(bytes(end - len(buf)))
        buf[offset:end] = data
    return buf


def checked_length(url: str, got: Any, start: int | None, stop: int | None,
                   suffix: int | None) -> Any:
    """``got`` (a remote backend's ``Fetched``: ``data``, ``size``) if its length is the
    one asked of an object of its size, else `StoreError`: an answer cut short with a
    consistent Content-Length (or a server sending fewer bytes than its Content-Range
    names) was taken as the range, its bytes at the wrong offsets."""
    if got is None:
        return None
    n, size = memoryview(got.data).nbytes, got.size
    if suffix is not None:
        want = suffix if size is None else min(suffix, size)
        bad = n > suffix if size is None else n != want
    elif start is not None and size is not None:
        end = size if stop is None else min(stop, size)
        want = max(end - start, 0)
        bad = n != want
    elif start is not None and stop is not None:  # size untold: never longer
        want = stop - start
        bad = n > want
    else:
        return got
    if bad:
        raise StoreError(f"{url}: the server answered {n} bytes for a range of {want} bytes "
                         f"of an object of {size if size is not None else 'untold'} bytes "
                         "(an answer cut short or a wrong range): not read as data")
    return got
