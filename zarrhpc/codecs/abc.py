"""Codec base classes, the chunk description they work on, and configuration checks.

Life cycle of a codec object
----------------------------
1. *Parsed*: ``SomeCodec.from_config(configuration, doc, field)`` validates the JSON
   ``configuration`` of one entry of an array's ``codecs`` list (or a user builds the codec
   with keyword arguments, which are validated the same way). Codec objects are immutable
   and carry only their configuration.
2. *Evolved and validated* against a :class:`ChunkSpec` (shape and dtype of the chunk that
   reaches this codec): ``evolve(spec)`` fills what depends on the array (blosc
   ``typesize``, transpose legacy ``"C"``/``"F"`` orders), ``validate(spec, doc, field)``
   refuses combinations that cannot work (a permutation of the wrong length, a multi-byte
   type without ``endian``), ``resolve(spec)`` gives the spec after this codec.
3. *Run* many times, from many threads at once, by :class:`~zarrhpc.codecs.pipeline.CodecPipeline`.
   Codecs keep no per-call state, so one object serves every thread.

Codecs never touch a store, never import ``zarrhpc.metadata``, ``zarrhpc.storage`` or
``zarrhpc.core``: they only see numpy arrays, buffers and :class:`ChunkSpec`.

Errors: bad configuration raises :class:`~zarrhpc.errors.CodecError` whose message names
the document, the field (``codecs[1].configuration.clevel``), what was expected and what
was found. Decoding failures raise :class:`~zarrhpc.errors.CorruptChunkError`; the
pipeline prefixes the chunk key.
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from dataclasses import FrozenInstanceError, dataclass
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from zarrhpc.errors import CodecError

__all__ = [
    "ArrayToArrayCodec",
    "ArrayToBytesCodec",
    "BytesToBytesCodec",
    "ChunkSpec",
    "Codec",
    "NativeStep",
    "NoConfiguration",
    "chunk_spec_of",
    "component_size",
    "config_error",
    "field_name",
    "swap_size",
]

_MISSING = object()


@dataclass(frozen=True, eq=False)
class ChunkSpec:
    """Shape and data type of one chunk as it reaches a codec.

    Parameters
    ----------
    shape : tuple of int
        Chunk shape (the regular chunk shape, also at the array's edge).
    dtype : numpy.dtype
        Element type in native byte order (``np.dtype("V2")`` for ``r16``).
    fill_value : numpy.ndarray, optional
        0-d array of ``dtype`` holding the fill value.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    fill_value: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(n) for n in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype))

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        """Size in bytes of the chunk in its raw (array->bytes) form."""
        return math.prod(self.shape) * self.dtype.itemsize

    def with_shape(self, shape: tuple[int, ...]) -> ChunkSpec:
        """Return a copy with another shape (same dtype and fill value)."""
        return ChunkSpec(tuple(shape), self.dtype, self.fill_value)

    def __repr__(self) -> str:
        return f"ChunkSpec(shape={self.shape}, dtype={self.dtype.str!r})"


def _pair_part_size(dtype: np.dtype) -> int:
    """2 for the structured ``[("real", T), ("imag", T)]`` types that hold complex_float16
    and complex_bfloat16 (T: little-endian float16 or ml_dtypes' bfloat16; defined in
    zarrhpc.metadata.dtypes_cplx, which codecs may not import), else 0."""
    if dtype.names != ("real", "imag"):
        return 0
    part, offset = dtype.fields["real"][:2]
    if dtype.fields["imag"][:2] != (part, 2) or offset != 0 or dtype.itemsize != 4:
        return 0
    if part == np.dtype("<f2") or (part.isbuiltin == 2 and part.type.__name__ == "bfloat16"):
        return 2
    return 0


def component_size(dtype: np.dtype) -> int:
    """Size of the byte-swap component of ``dtype``, whatever its byte order.

    Parameters
    ----------
    dtype : numpy.dtype
        An element type.

    Returns
    -------
    int
        0 for 1-byte types, byte strings (``S``) and raw or structured (void) types (a
        structured type keeps each field's byte order in the dtype itself), 4 for UTF-32
        strings (``U``, one swap per code point), ``itemsize // 2`` for complex types
        (each of the two components is swapped on its own), else ``itemsize``.
    """
    dtype = np.dtype(dtype)
    if dtype.itemsize <= 1 or dtype.kind in "SOT":  # OT: references, never raw bytes
        return 0
    # raw and structured types have no byte order; ml_dtypes numbers (bfloat16) do, and so
    # do the parts of complex_bfloat16 / complex_float16 (a [real, imag] structured type)
    if dtype.kind == "V" and (dtype.fields is not None or dtype.type is np.void):
        return _pair_part_size(dtype)
    if dtype.kind == "U":
        return 4
    if dtype.kind == "c":
        return dtype.itemsize // 2
    return dtype.itemsize


def swap_size(dtype: np.dtype) -> int:
    """The ``swap`` argument of ``copy_into`` that brings ``dtype``'s elements to native order.

    This is what a caller copying a decoded chunk into a native output passes:
    ``copy_into(out, decoded, swap_size(decoded.dtype))``.

    Parameters
    ----------
    dtype : numpy.dtype
        The element type of a decoded chunk (possibly non-native byte order).

    Returns
    -------
    int
        0 when ``dtype`` is in native byte order or has no byte order (1-byte and raw
        types); otherwise :func:`component_size` (``itemsize // 2`` for complex types,
        else ``itemsize``).
    """
    dtype = np.dtype(dtype)
    if dtype.isnative:
        return 0
    return component_size(dtype)


def field_name(doc: str, field: str, key: str | None = None) -> str:
    """Build the location prefix of an error message.

    ``field_name("a/zarr.json", "codecs[1]", "clevel")`` gives
    ``"a/zarr.json: codecs[1].configuration.clevel"``.
    """
    where = field if key is None else f"{field}.configuration.{key}"
    return f"{doc}: {where}" if doc else where


def config_error(doc: str, field: str, key: str | None, expected: str, got: Any) -> CodecError:
    """Return a :class:`CodecError` naming document, field, expectation and value."""
    return CodecError(f"{field_name(doc, field, key)}: expected {expected}, got {got!r}")


def _freezing(init):
    """``init`` that freezes the object when it is the outermost constructor of its class
    (a subclass's ``__init__`` calling ``super().__init__()`` freezes only at its end)."""
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if type(self).__init__ is __init__:
            object.__setattr__(self, "_frozen", True)
    __init__._freezes = True
    return __init__


class Codec(ABC):
    """Base class of every codec.

    A codec class owns every form of its codec:

    - ``name``: the v3 name written to metadata; ``aliases``: other v3 names accepted
      when reading (ZEP 9 URI names, legacy names);
    - ``v2_id``: the numcodecs id of the same bytes in Zarr v2 (None: no v2 form). The
      registry also answers zarr-python 3's v3 name ``numcodecs.<v2_id>`` with it, the
      configuration then being numcodecs' (:meth:`v3_from_v2` translates);
    - ``draft_names``: its names in the 2022 draft's codec URIs;
    - :meth:`v3_from_v2` / :meth:`to_v2` / :meth:`v2_out_dtype`: the translations;
    - ``native_step()`` (bytes->bytes codecs): its step in the native engine;
    - ``core``: a codec of the v3 core specification; ``zarr_python_v3``: zarr-python 3
      reads its v3 form too (what conversions to v3 may keep);
    - its spec card: the module docstring.
    """

    name: ClassVar[str]
    kind: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Codec objects are frozen once built, as zarr-python's frozen dataclasses: the
        # constructor (and what from_config / evolve set right after it, through _set)
        # fills the object, then assigning or deleting an attribute raises
        # FrozenInstanceError. One object is shared by every thread of the engine.
        super().__init_subclass__(**kwargs)
        if not getattr(cls.__init__, "_freezes", False):  # its own, or a mixin's
            cls.__init__ = _freezing(cls.__init__)

    def __init__(self) -> None:  # noqa: B027 - the parameterless codecs' constructor
        """A codec without parameters (subclasses with some define their own)."""

    v2_id: ClassVar[str | None] = None
    draft_names: ClassVar[tuple[str, ...]] = ()
    core: ClassVar[bool] = False
    zarr_python_v3: ClassVar[bool] = False

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype: np.dtype | None) -> dict:
        """The v3 entry of the v2 (numcodecs) object ``conf``.

        Parameters
        ----------
        conf : dict
            ``{"id": v2_id, ...numcodecs configuration}``.
        dtype : numpy.dtype or None
            Type of the elements reaching the codec (None: not known yet, the codec's
            ``evolve`` fills what depends on it).

        Returns
        -------
        dict
            ``{"name": ..., "configuration": {...}}``; by default the numcodecs
            configuration unchanged.
        """
        return {"name": cls.name,
                "configuration": {k: v for k, v in conf.items() if k != "id"}}

    @classmethod
    def v2_out_dtype(cls, conf: dict, dtype: np.dtype) -> np.dtype:
        """Element type after this codec used as a v2 filter (default: unchanged)."""
        return dtype

    def to_v2(self) -> dict:
        """The v2 ``{"id": ..., ...}`` object (by default ``v2_id`` plus the v3 configuration).

        Raises
        ------
        CodecError
            The codec has no Zarr v2 form.
        """
        if self.v2_id is None:
            raise CodecError(f"{self.name}: this codec has no Zarr v2 (numcodecs) form")
        return {"id": self.v2_id, **self.to_json().get("configuration", {})}

    @classmethod
    def from_v2(cls, conf: dict, doc: str = "", field: str = "codec") -> Codec:
        """Build the codec from its v2 (numcodecs) object or configuration."""
        return cls.from_config(cls.v3_from_v2({**conf, "id": cls.v2_id}, None).get("configuration"),
                               doc, field)

    @classmethod
    @abstractmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec") -> Codec:
        """Validate a JSON ``configuration`` object and build the codec.

        Parameters
        ----------
        configuration : dict or None
            The ``configuration`` member of the codec entry (None when absent).
        doc : str
            Store key of the metadata document, prefixes error messages.
        field : str
            Position of the entry, e.g. ``"codecs[1]"``.

        Raises
        ------
        CodecError
            The configuration is invalid; the message names ``doc`` and the field.
        """

    @abstractmethod
    def to_json(self) -> dict:
        """Return the v3 JSON entry ``{"name": ..., "configuration": {...}}``."""

    def to_dict(self) -> dict:
        """The codec's JSON as zarr-python's ``to_dict()`` gives it (:meth:`to_json` is
        the form written to metadata; they differ where zarr-python shows tuples or
        members it always writes)."""
        return self.to_json()

    @classmethod
    def from_dict(cls, data: dict) -> Codec:
        """Build from ``{"name": ..., "configuration"?: {...}}``, as zarr-python's
        ``from_dict``.

        Raises
        ------
        ValueError
            ``data`` names another codec (zarr-python's error), or its configuration is
            invalid (:class:`~zarrhpc.errors.CodecError`, a ValueError).
        """
        if not isinstance(data, dict) or data.get("name") not in (cls.name, *cls.aliases):
            got = data.get("name") if isinstance(data, dict) else data
            raise ValueError(f"Expected '{cls.name}'. Got {got} instead.")
        return cls.from_config(data.get("configuration"), "", cls.__name__)

    def evolve_from_array_spec(self, array_spec: Any) -> Codec:
        """zarr-python's :meth:`evolve`: the codec with what depends on the array filled in.

        Parameters
        ----------
        array_spec : ChunkSpec or zarr-python's ArraySpec
            Anything with ``shape`` and ``dtype`` (a numpy dtype, or a data type object
            with ``to_native_dtype()``: zarr-python's and zarrhpc's ZDTypes).
        """
        return self.evolve(chunk_spec_of(array_spec))

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """The encoded size of ``input_byte_length`` bytes, as zarr-python's method.

        Raises
        ------
        NotImplementedError
            The size is not fixed (compressors), as zarr-python raises.
        """
        raise NotImplementedError

    def _set(self, name: str, value: Any) -> None:
        """Set an attribute of a codec being built (the object is frozen otherwise)."""
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen"):
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_frozen"):
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    def _zarr_python_peer(self, other: object) -> bool:
        """Whether ``other`` is zarr-python's class of the same name (``zarr.codecs``)."""
        cls = type(other)
        return cls.__name__ == type(self).__name__ and cls.__module__.startswith("zarr.") \
            and hasattr(other, "to_dict")

    def evolve(self, spec: ChunkSpec) -> Codec:
        """Return a codec with the defaults that depend on the array filled in."""
        return self

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """Return the chunk spec after this codec (identity but for array->array)."""
        return spec

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:  # noqa: B027
        """Raise :class:`CodecError` if this codec cannot process chunks of ``spec``
        (a no-op unless the codec has a constraint)."""

    # Codecs are value objects: equal when their JSON is equal; and equal to zarr-python's
    # object of the same class and JSON (what Array.compressors is compared with)
    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.to_json() == other.to_json() and \
                self._hash_fields() == other._hash_fields()
        if self._zarr_python_peer(other):
            try:
                return _plain(self.to_dict()) == _plain(other.to_dict()) and \
                    getattr(self, "_tunable_attrs", None) == getattr(other, "_tunable_attrs", None)
            except Exception:  # noqa: BLE001 - a peer whose to_dict fails is not equal
                return False
        return NotImplemented

    def __hash__(self) -> int:
        fields = self._hash_fields()
        if fields is not None:  # zarr-python's dataclass hash: equal objects, equal hashes
            return hash(fields)
        return hash((type(self).__name__, repr(self.to_json())))

    def _hash_fields(self) -> tuple | None:
        """zarr-python's dataclass fields of this codec, in order, for :meth:`__hash__`
        (None: hash the JSON)."""
        return None

    def __repr__(self) -> str:
        # zarr-python's codec reprs (its dataclass fields): sequences as tuples
        args = ", ".join(f"{k}={_repr_value(v)}" for k, v in self._repr_fields().items())
        return f"{type(self).__name__}({args})"

    def _repr_fields(self) -> dict:
        """The fields :meth:`__repr__` shows (the JSON configuration by default)."""
        return self.to_json().get("configuration", {})


class _Shown:
    """A value shown in a repr as the given text (zarr-python's enum members)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _plain(value: Any) -> Any:
    """JSON values with tuples as lists (zarr-python's ``to_dict`` shows tuples)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def chunk_spec_of(array_spec: Any) -> ChunkSpec:
    """A :class:`ChunkSpec` from ours or from zarr-python's ``ArraySpec`` (whose dtype is
    a ZDType: its numpy form comes from ``to_native_dtype()``)."""
    if isinstance(array_spec, ChunkSpec):
        return array_spec
    dtype = array_spec.dtype
    if not isinstance(dtype, np.dtype) and hasattr(dtype, "to_native_dtype"):
        dtype = dtype.to_native_dtype()
    fill = getattr(array_spec, "fill_value", None)
    try:
        fill = None if fill is None else np.asarray(fill, dtype=dtype)
    except (TypeError, ValueError):
        fill = None
    return ChunkSpec(tuple(array_spec.shape), np.dtype(dtype), fill)


def _repr_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        items = [_repr_value(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


class NoConfiguration:
    """Mixin of codecs without parameters: the configuration must be absent or empty, and
    is written as ``{}``."""

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build; the configuration must be absent or empty."""
        config_dict(configuration, doc, field, set(), required=False)
        return cls()

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {}}


class ArrayToArrayCodec(Codec):
    """A codec that maps an array to another array of the same dtype (transpose)."""

    kind: ClassVar[str] = "array_to_array"

    @abstractmethod
    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        """Return the encoded representation of ``arr`` as a view (no copy)."""

    @abstractmethod
    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        """Return the decoded representation of ``arr`` as a view (no copy)."""


class ArrayToBytesCodec(Codec):
    """A codec that serialises an array into bytes (bytes, sharding)."""

    kind: ClassVar[str] = "array_to_bytes"

    @abstractmethod
    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        """Serialise ``arr`` (shape ``spec.shape``, any strides) into a new buffer."""

    @abstractmethod
    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        """Return an array of ``spec.shape`` read from ``buf``.

        Raises
        ------
        CorruptChunkError
            ``buf`` cannot be decoded.
        """

    def encoded_size(self, spec: ChunkSpec) -> int | None:
        """Size in bytes of the encoded chunk if it is fixed, else None."""
        return None


class BytesToBytesCodec(Codec):
    """A codec that maps bytes to bytes (compressors, checksums)."""

    kind: ClassVar[str] = "bytes_to_bytes"

    @abstractmethod
    def encode(self, buf: Any) -> Any:
        """Encode the bytes-like ``buf`` into a new bytes-like object."""

    @abstractmethod
    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        """Decode ``buf``.

        Parameters
        ----------
        buf : bytes-like
            Encoded bytes.
        spec : ChunkSpec
            The chunk spec at the array->bytes step (after array->array codecs).
        decoded_size : int, optional
            Exact size the decoded bytes must have, when the pipeline knows it. Used to
            size output buffers, to refuse headers that claim another size and to bound
            memory on corrupt input.

        Raises
        ------
        CorruptChunkError
            ``buf`` cannot be decoded (truncated, garbled, checksum mismatch, wrong size).
        """

    def encoded_size(self, decoded_size: int) -> int | None:
        """Size of the encoded bytes for input of ``decoded_size`` bytes, if fixed."""
        return None

    def native_step(self) -> NativeStep | None:
        """This codec as a step of the native engine (zarrhpc.codecs.native), or None.

        A codec without one runs in Python.
        """
        return None


@dataclass(frozen=True)
class NativeStep:
    """One bytes->bytes codec as the native engine runs it (``Engine(..., steps, ...)``).

    Attributes
    ----------
    kind : int
        One of the engine's ``BB_*`` constants (``zarrhpc._kernels.engine``).
    level : int
        Compression level (gzip, zlib, zstd; blosc's ``clevel``).
    checksum : bool
        zstd: write/verify the frame checksum.
    shuffle : int
        blosc: 0 none, 1 byte, 2 bit shuffle.
    typesize : int
        blosc: element size for the shuffle.
    blocksize : int
        blosc: block size (0: c-blosc1's choice; negative: zarrhpc's own c-blosc1 writer,
        csrc/zh_blosc1.c, with -blocksize-byte blocks).
    cname : str
        blosc: internal compressor name.
    decoded_size : int
        Exact size of this step's decoded bytes, -1 when not fixed (set by the pipeline).
    """

    kind: int
    level: int = 0
    checksum: bool = False
    shuffle: int = 0
    typesize: int = 0
    blocksize: int = 0
    cname: str = ""
    decoded_size: int = -1


# ---------------------------------------------------------------------------------------
# configuration helpers shared by the codec modules


def config_dict(
    configuration: Any, doc: str, field: str, allowed: set[str], *, required: bool = True
) -> dict:
    """Check that ``configuration`` is an object holding only ``allowed`` keys."""
    if configuration is None:
        if required:
            raise CodecError(f"{field_name(doc, field)}: missing required 'configuration'")
        return {}
    if not isinstance(configuration, dict):
        raise config_error(doc, field, None, "a 'configuration' object", configuration)
    unknown = sorted(set(configuration) - allowed)
    if unknown:
        raise CodecError(
            f"{field_name(doc, field, unknown[0])}: unknown configuration key; "
            f"expected one of {sorted(allowed)}, got {unknown[0]!r}"
        )
    return configuration


def get_int(
    config: dict, key: str, doc: str, field: str, lo: int, hi: int | None, default: Any = _MISSING
) -> int:
    """Return ``config[key]`` as an int in ``[lo, hi]`` (bool is not an int here)."""
    if key not in config:
        if default is _MISSING:
            raise CodecError(f"{field_name(doc, field, key)}: missing required key")
        return default
    return check_int(config[key], lo, hi, doc, field, key)


def check_int(value: Any, lo: int, hi: int | None, doc: str, field: str, key: str) -> int:
    """Validate an integer value in ``[lo, hi]`` (``hi`` None: unbounded)."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok and lo <= value and (hi is None or value <= hi):
        return int(value)
    span = f"an integer from {lo} to {hi}" if hi is not None else f"an integer >= {lo}"
    raise config_error(doc, field, key, span, value)


def get_choice(
    config: dict, key: str, doc: str, field: str, choices: tuple[str, ...], default: Any = _MISSING
) -> str:
    """Return ``config[key]``, which must be one of ``choices``."""
    if key not in config:
        if default is _MISSING:
            raise CodecError(f"{field_name(doc, field, key)}: missing required key")
        return default
    return check_choice(config[key], choices, doc, field, key)


def check_choice(value: Any, choices: tuple[str, ...], doc: str, field: str, key: str) -> str:
    """Validate that ``value`` is one of the strings ``choices`` (or an enum member whose
    value is: zarr-python's ``Endian.big``, ``ShardingCodecIndexLocation.start``...)."""
    if isinstance(value, Enum) and isinstance(value.value, str):
        value = value.value
    if isinstance(value, str) and value in choices:
        return value
    raise config_error(doc, field, key, "one of " + ", ".join(repr(c) for c in choices), value)


def check_bool(value: Any, doc: str, field: str, key: str) -> bool:
    """Validate a JSON boolean."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise config_error(doc, field, key, "true or false", value)


def as_bytes_view(buf: Any) -> memoryview:
    """Return a flat unsigned-byte memoryview of any C-contiguous buffer."""
    view = buf if isinstance(buf, memoryview) else memoryview(buf)
    if view.ndim != 1 or view.format != "B":
        if not view.c_contiguous:
            view = memoryview(np.ascontiguousarray(np.asarray(view)))
        view = view.cast("B")
    return view
