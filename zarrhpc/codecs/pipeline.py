"""The codec chain of one array: parsed once, prepared for one chunk spec, run many times.

Life cycle
----------
1. Built with :meth:`CodecPipeline.from_json` (reading metadata: the JSON ``codecs`` list)
   or :meth:`CodecPipeline.from_codecs` (creating an array from codec objects; calls each
   codec's ``evolve`` so array-dependent defaults such as blosc's ``typesize`` are filled
   and written to the metadata).
2. Prepared at construction for the array's chunk spec: the order of kinds is checked
   (array->array*, exactly one array->bytes, bytes->bytes*, as the v3 core spec's
   encoding procedure requires), each codec is validated against the spec that reaches it,
   and the expected decoded size of every bytes->bytes step is computed where it is fixed
   (the array->bytes output is ``prod(shape) * itemsize`` for ``bytes``; ``crc32c`` adds 4;
   after a compressor the size is unknown).
3. Run from any number of threads: :meth:`decode` and :meth:`encode` keep no state.

Decode: bytes->bytes codecs in reverse order, then the array->bytes codec gives a view
of the buffer in the stored byte order, then array->array codecs in reverse give views.
No element is copied: the caller copies the result into its output with
``copy_into(out, result, swap_size(result.dtype))`` (:func:`swap_size` is 0 when the
dtype is already native).

Encode: array->array views, then the array->bytes codec's single strided copy (transpose
and byte swap fused), then the bytes->bytes codecs.

Errors: decode failures raise :class:`~zarrhpc.errors.CorruptChunkError` whose message
starts with the chunk key and names the codec and its position.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ArrayToBytesCodec,
    BytesToBytesCodec,
    ChunkSpec,
    Codec,
    component_size,
    swap_size,
)
from zarrhpc.codecs.bytes import BytesCodec, struct_has_byte_order
from zarrhpc.codecs.numcodecs_adapter import ZARR_NAMES, NumcodecsBytesCodec, numcodecs_class
from zarrhpc.codecs.registry import parse_codec
from zarrhpc.codecs.vlen import VLenBytesCodec, VLenUTF8Codec
from zarrhpc.codecs.zstd import ZstdCodec
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = [
    "CodecPipeline",
    "default_codecs",
    "default_compressors",
    "default_filters",
    "default_serializer",
    "swap_size",
]

_KIND_ORDER = {"array_to_array": 0, "array_to_bytes": 1, "bytes_to_bytes": 2}
_KIND_TEXT = {
    "array_to_array": "array->array",
    "array_to_bytes": "array->bytes",
    "bytes_to_bytes": "bytes->bytes",
}
# exceptions a codec library may raise on garbage that a codec did not translate itself
_DECODE_ERRORS = (ValueError, RuntimeError, OverflowError, EOFError, zlib.error)


def default_filters(dtype: Any) -> list[Codec]:
    """Default array->array codecs for ``dtype``: none (as zarr-python 3.1)."""
    return []


def default_serializer(dtype: Any) -> Codec:
    """Default array->bytes codec: ``bytes``, little-endian where a byte order applies;
    ``vlen-utf8`` for strings (numpy StringDType, ``dtype=str``) and ``vlen-bytes`` for
    object arrays, as zarr-python 3 writes."""
    dtype = getattr(dtype, "dtype", dtype)  # a DataType
    if dtype is str or (np.dtype(dtype).kind == "U" and np.dtype(dtype).itemsize == 0) or (
            np.dtype(dtype).kind == "T"):
        return VLenUTF8Codec()
    if dtype is bytes or np.dtype(dtype).kind == "O" or (
            np.dtype(dtype).kind == "S" and np.dtype(dtype).itemsize == 0):
        return VLenBytesCodec()
    # a struct with multi-byte fields names its byte order (zarr-extensions struct: MUST)
    endian = None if component_size(np.dtype(dtype)) == 0 and not struct_has_byte_order(
        dtype) else "little"
    return BytesCodec(endian=endian)


def default_compressors(dtype: Any) -> list[Codec]:
    """Default bytes->bytes codecs: ``zstd`` level 0 with ``checksum: false``."""
    return [ZstdCodec(level=0, checksum=False)]


def default_codecs(dtype: Any) -> list[Codec]:
    """The whole default chain ``create_array`` writes for ``dtype`` (as zarr-python 3.1).

    zarr-python 3.1 with ``filters="auto"``, ``serializer="auto"`` and
    ``compressors="auto"`` writes ``bytes`` (``endian: "little"``, or no configuration
    for 1-byte and raw types) followed by ``zstd`` with ``level: 0`` and
    ``checksum: false``.

    Parameters
    ----------
    dtype : numpy dtype-like
        The array's element type.

    Returns
    -------
    list of Codec
        ``default_filters + [default_serializer] + default_compressors``.
    """
    return [*default_filters(dtype), default_serializer(dtype), *default_compressors(dtype)]


def _place_v2_byte_filters(parsed: list, entries: list, doc: str) -> None:
    """Put byte-level numcodecs codecs that come before the array->bytes codec in place.

    v2 filters are given in front of the serializer; a byte-level one (``shuffle``, a
    checksum) works on the chunk's stored bytes. When only such codecs follow it up to
    the serializer, they move after it (the same bytes, a size change allowed);
    otherwise it runs as an array->array step on the chunk's bytes.
    """
    ab = next((i for i, c in enumerate(parsed) if isinstance(c, ArrayToBytesCodec)), None)
    if ab is None:
        return
    first = ab
    while first > 0 and isinstance(parsed[first - 1], NumcodecsBytesCodec):
        first -= 1
    if first < ab:  # a trailing run of byte-level filters: after the serializer
        parsed[first:ab + 1] = [parsed[ab], *parsed[first:ab]]
        entries[first:ab + 1] = [entries[ab], *entries[first:ab]]
    for i in range(first):
        codec = parsed[i]
        if isinstance(codec, NumcodecsBytesCodec):
            parsed[i] = numcodecs_class(codec.codec_id, "array_to_array").from_config(
                codec.configuration, doc, f"codecs[{i}]")


class CodecPipeline:
    """A validated codec chain prepared for one chunk spec.

    Use :meth:`from_json` or :meth:`from_codecs`; the constructor takes already
    evolved codecs.

    Parameters
    ----------
    codecs : sequence of Codec or None
        The chain in metadata order; None stands for an unknown codec marked
        ``must_understand: false`` (skipped), whose JSON is in ``raw_entries``.
    spec : ChunkSpec
        Shape, dtype and fill value of the (decoded) chunk.
    doc : str
        Store key of the metadata document, for error messages.
    raw_entries : sequence, optional
        The JSON entries the codecs came from (used for skipped entries by
        :meth:`to_json`).
    """

    def __init__(
        self,
        codecs: Sequence[Codec | None],
        spec: ChunkSpec,
        doc: str = "",
        raw_entries: Sequence[Any] | None = None,
    ) -> None:
        self.spec = spec
        self.doc = doc
        self._entries = list(codecs)
        self._raw = list(raw_entries) if raw_entries is not None else [None] * len(codecs)
        where = f"{doc}: " if doc else ""

        active = [(i, c) for i, c in enumerate(self._entries) if c is not None]
        last = -1
        last_name = ""
        n_ab = 0
        for i, codec in active:
            order = _KIND_ORDER.get(getattr(codec, "kind", None), None)
            if order is None:
                raise CodecError(f"{where}codecs[{i}]: expected a codec, got {codec!r}")
            if order < last:
                raise CodecError(
                    f"{where}codecs[{i}]: expected the order array->array*, one "
                    f"array->bytes, bytes->bytes*, got {_KIND_TEXT[codec.kind]} codec "
                    f"{codec.name!r} after {_KIND_TEXT[_kind_of(last)]} codec {last_name!r}"
                )
            if order == 1:
                n_ab += 1
                if n_ab > 1:
                    raise CodecError(
                        f"{where}codecs[{i}]: a second array->bytes codec {codec.name!r}; "
                        "expected exactly one"
                    )
            last = order
            last_name = codec.name
        if n_ab == 0:
            got = ", ".join(repr(c.name) for _, c in active) or "none"
            raise CodecError(
                f"{where}codecs: expected exactly one array->bytes codec (e.g. 'bytes'), got {got}"
            )

        # prepare: validate each codec against the spec that reaches it
        self._aa: list[tuple[int, ArrayToArrayCodec]] = []
        self._ab: tuple[int, ArrayToBytesCodec]
        self._bb: list[tuple[int, BytesToBytesCodec]] = []
        current = spec
        for i, codec in active:
            codec.validate(current, doc, f"codecs[{i}]")
            if isinstance(codec, ArrayToArrayCodec):
                self._aa.append((i, codec))
                current = codec.resolve(current)
            elif isinstance(codec, ArrayToBytesCodec):
                self._ab = (i, codec)
            else:
                self._bb.append((i, codec))  # type: ignore[arg-type]
        self.encoded_spec = current  # the spec at the array->bytes step

        # expected decoded size of each bytes->bytes step (None where unknown)
        size = self._ab[1].encoded_size(current)
        self._decoded_sizes: list[int | None] = []
        for _, codec in self._bb:
            self._decoded_sizes.append(size)
            size = None if size is None else codec.encoded_size(size)

    # ---------------------------------------------------------------- construction

    @classmethod
    def from_json(cls, entries: Any, spec: ChunkSpec, doc: str = "") -> CodecPipeline:
        """Parse the JSON ``codecs`` list of an array's metadata.

        Parameters
        ----------
        entries : list
            The ``codecs`` member: names or ``{"name", "configuration"?,
            "must_understand"?}`` objects.
        spec : ChunkSpec
            The array's chunk spec (regular chunk shape, native dtype, fill value).
        doc : str
            Store key of the metadata document (prefixes error messages).

        Raises
        ------
        CodecError
            An entry is malformed, unknown, badly configured, or out of order.
        """
        if not isinstance(entries, (list, tuple)):
            where = f"{doc}: " if doc else ""
            raise CodecError(f"{where}codecs: expected a list of codecs, got {entries!r}")
        codecs: list[Codec | None] = []
        current = spec
        parsed = [parse_codec(entry, doc, f"codecs[{i}]") for i, entry in enumerate(entries)]
        entries = list(entries)
        _place_v2_byte_filters(parsed, entries, doc)
        for i, codec in enumerate(parsed):
            if getattr(codec, "evolve_on_read", False):  # numcodecs' forms omit what the
                codec = codec.evolve(current)  # chunk's type says (blosc's typesize)
            if isinstance(codec, BytesCodec) and codec.endian is None and \
                    component_size(current.dtype) != 0:
                # stored without an endian for a multi-byte type: zarr-python reads the
                # machine's order, little-endian on every platform zarr runs on
                codec = type(codec)(endian="little")
            # resolve legacy forms (transpose "C"/"F") against the spec reaching them
            if isinstance(codec, ArrayToArrayCodec):
                codec.validate(current, doc, f"codecs[{i}]")
                codec = codec.evolve(current)
                current = codec.resolve(current)
            codecs.append(codec)
        return cls(codecs, spec, doc, raw_entries=entries)

    @classmethod
    def from_codecs(
        cls, codecs: Iterable[Codec | dict | str], spec: ChunkSpec, doc: str = ""
    ) -> CodecPipeline:
        """Build the chain of a new array, filling array-dependent defaults.

        Parameters
        ----------
        codecs : iterable of Codec, dict or str
            Codec objects or v3 JSON entries, in chain order.
        spec : ChunkSpec
            The array's chunk spec.
        doc : str
            Store key of the metadata document to be written (for error messages).
        """
        evolved: list[Codec | None] = []
        raw: list[Any] = []
        current = spec
        for i, item in enumerate(codecs):
            field = f"codecs[{i}]"
            codec = item if isinstance(item, Codec) else parse_codec(item, doc, field)
            if codec is None:
                evolved.append(None)
                raw.append(item)
                continue
            codec = codec.evolve(current)
            if isinstance(codec, ArrayToArrayCodec):
                codec.validate(current, doc, field)
                current = codec.resolve(current)
            evolved.append(codec)
            raw.append(None)
        return cls(evolved, spec, doc, raw_entries=raw)

    # ---------------------------------------------------------------- description

    @property
    def array_array(self) -> tuple[ArrayToArrayCodec, ...]:
        """The array->array codecs ("filters" in zarr-python's words), in chain order."""
        return tuple(c for _, c in self._aa)

    @property
    def array_bytes(self) -> ArrayToBytesCodec:
        """The array->bytes codec ("serializer")."""
        return self._ab[1]

    @property
    def bytes_bytes(self) -> tuple[BytesToBytesCodec, ...]:
        """The bytes->bytes codecs ("compressors"), in chain order."""
        return tuple(c for _, c in self._bb)

    def _shown(self, i: int, codec: Codec) -> Codec:
        """The codec as zarr-python shows it: a ``numcodecs.<id>`` entry that zarrhpc runs
        with its own class (blosc, zstd, gzip, zlib, crc32c) is zarr-python's numcodecs
        wrapper object (``zarr.codecs.Blosc(...)``) with the stored configuration."""
        raw = self._raw[i]
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and name[len("numcodecs."):] in ZARR_NAMES \
                and name.startswith("numcodecs.") and codec.name != name:
            return numcodecs_class(name[len("numcodecs."):]).from_config(
                raw.get("configuration"), self.doc, f"codecs[{i}]")
        return codec

    @property
    def shown_filters(self) -> tuple[Codec, ...]:
        """:attr:`array_array` as zarr-python's ``Array.filters`` shows them."""
        return tuple(self._shown(i, c) for i, c in self._aa)

    @property
    def shown_serializer(self) -> Codec:
        """:attr:`array_bytes` as zarr-python's ``Array.serializer`` shows it."""
        return self._shown(*self._ab)

    @property
    def shown_compressors(self) -> tuple[Codec, ...]:
        """:attr:`bytes_bytes` as zarr-python's ``Array.compressors`` shows them."""
        return tuple(self._shown(i, c) for i, c in self._bb)

    @property
    def codecs(self) -> list[Codec]:
        """The active codecs in chain order (skipped unknown entries left out)."""
        return [c for c in self._entries if c is not None]

    def to_json(self) -> list[dict | Any]:
        """The ``codecs`` list for the metadata (unknown ignorable entries kept as read)."""
        return [c.to_json() if c is not None else raw for c, raw in zip(self._entries, self._raw)]

    @property
    def swap(self) -> int:
        """``swap_size`` of decoded chunks' dtype (0 when stored in native order)."""
        codec = self._ab[1]
        if isinstance(codec, BytesCodec):
            return swap_size(codec.stored_dtype(self.encoded_spec.dtype))
        return 0

    def __repr__(self) -> str:
        return f"CodecPipeline({self.codecs!r}, {self.spec!r})"

    # ---------------------------------------------------------------- running

    def decode(self, buf: Any, key: str = "") -> np.ndarray:
        """Decode one stored chunk.

        Parameters
        ----------
        buf : bytes-like
            The stored value (bytes, bytearray, memoryview, mmap, numpy array).
        key : str
            The chunk's store key, named by error messages.

        Returns
        -------
        numpy.ndarray
            Array of the chunk shape; any strides; its dtype may be in non-native byte
            order (copy it with ``swap_size``); may be a read-only view of ``buf``.

        Raises
        ------
        CorruptChunkError
            The chunk cannot be decoded; the message starts with ``key``.
        """
        spec = self.encoded_spec
        i = -1
        name = ""
        try:
            for (i, codec), size in zip(reversed(self._bb), reversed(self._decoded_sizes)):  # noqa: B007
                name = codec.name
                buf = codec.decode(buf, spec, size)
            i, codec = self._ab
            name = codec.name
            arr = codec.decode(buf, spec)
            for i, aa in reversed(self._aa):  # noqa: B007 - i names the failing codec
                name = aa.name
                arr = aa.decode_view(arr)
        except CorruptChunkError as exc:
            raise CorruptChunkError(f"{key}: codecs[{i}]: {exc}") from exc
        except _DECODE_ERRORS as exc:
            raise CorruptChunkError(
                f"{key}: codecs[{i}] ({name}): cannot decode: {type(exc).__name__}: {exc}"
            ) from exc
        return arr

    def encode(self, arr: np.ndarray, key: str = "") -> Any:
        """Encode one chunk.

        Parameters
        ----------
        arr : numpy.ndarray
            The chunk: shape of the chunk spec, native dtype of its itemsize, any strides.
        key : str
            The chunk's store key, named by error messages.

        Returns
        -------
        bytes-like
            A C-contiguous object with the buffer protocol (``bytes``, ``bytearray`` or a
            1-d ``uint8`` numpy array).

        Raises
        ------
        CodecError
            ``arr`` does not match the chunk spec, or a codec failed.
        """
        arr = np.asarray(arr)  # numpy scalars stand for 0-d chunks
        if tuple(arr.shape) != self.spec.shape or arr.dtype.itemsize != self.spec.dtype.itemsize:
            raise CodecError(
                f"{key}: expected a chunk of shape {self.spec.shape} and data type "
                f"{self.spec.dtype.name}, got shape {arr.shape} and {arr.dtype.name}"
            )
        i = -1
        try:
            for i, aa in self._aa:  # noqa: B007 - i names the failing codec
                arr = aa.encode_view(arr)
            i, ab = self._ab
            out = ab.encode(arr, self.encoded_spec)
            for i, bb in self._bb:  # noqa: B007 - i names the failing codec
                out = bb.encode(out)
        except CodecError as exc:
            raise CodecError(f"{key}: codecs[{i}]: {exc}") from exc
        return out


def _kind_of(order: int) -> str:
    return next(k for k, v in _KIND_ORDER.items() if v == order)
