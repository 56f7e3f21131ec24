"""Codecs users wrote for zarr-python, run by zarrhpc through Python.

Spec card
---------
- What: a ``bytes -> bytes`` codec class written to zarr-python 3's protocol (a subclass
  of ``zarr.abc.codec.BytesBytesCodec`` with ``from_dict`` / ``to_dict`` and
  ``_encode_single`` / ``_decode_single``, or their ``_encode_sync`` / ``_decode_sync``
  forms) and registered under a v3 name, either with zarr-python's
  ``zarr.registry.register_codec(name, cls)`` or with zarrhpc's
  :func:`zarrhpc.registry.register_codec` (the same call after ``import zarrhpc as zarr``).
- How: :func:`adapter_class` makes one zarrhpc codec class per registered name, whose
  objects hold the user's codec object (``inner``) and call it with zarr-python's own
  ``Buffer`` and ``ArraySpec`` (zarr-python must be installed: the user's class
  subclasses it). The native engine has no step for it, so chunks through such a chain
  run in the Python codec path (:class:`~zarrhpc.codecs.pipeline.CodecPipeline`); zarrhpc's
  own codecs in the same chain still run their own code.
- Metadata: written as the user's ``to_dict()`` gives it; read back through the class
  registered for the name (``from_dict``).
- Life cycle: registered once (``register_codec``); parsed per metadata document (the
  registry calls :meth:`UserBytesCodec.from_config`); evolved against the chunk spec (the
  user's ``evolve_from_array_spec``), which also binds the spec ``_encode_single`` is
  given; run from many threads (the user's coroutines are driven by zarr-python's
  ``sync``, its own event loop thread, as zarr-python runs them).
- Not supported: array->array and array->bytes user codecs (refused at registration with
  :class:`~zarrhpc.errors.UnsupportedError`).
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    BytesToBytesCodec,
    ChunkSpec,
    _plain,
    as_bytes_view,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError, UnsupportedError

__all__ = ["UserBytesCodec", "adapter_class", "is_zarr_python_codec_class",
           "zarr_python_registered"]


def _zarr_python(module: str):
    """zarr-python's ``module`` (``zarr.abc.codec``...), or None when zarr-python is not
    installed (or ``zarr`` is zarrhpc itself)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    return None if "zarrhpc" in (getattr(mod, "__file__", None) or "zarrhpc") else mod


def is_zarr_python_codec_class(cls: Any) -> str | None:
    """The kind of zarr-python codec ``cls`` subclasses ("bytes_to_bytes", ...), or None."""
    abc = _zarr_python("zarr.abc.codec")
    if abc is None or not isinstance(cls, type):
        return None
    for kind, base in (("bytes_to_bytes", "BytesBytesCodec"),
                       ("array_to_bytes", "ArrayBytesCodec"),
                       ("array_to_array", "ArrayArrayCodec")):
        if issubclass(cls, getattr(abc, base)):
            return kind
    return None


def _array_spec(spec: ChunkSpec):
    """zarr-python's ``ArraySpec`` of a chunk spec (what its codecs are given)."""
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.dtype import get_data_type_from_native_dtype

    zdtype = get_data_type_from_native_dtype(spec.dtype)
    fill = zdtype.default_scalar() if spec.fill_value is None else spec.fill_value[()]
    return ArraySpec(shape=spec.shape, dtype=zdtype, fill_value=fill,
                     config=ArrayConfig.from_dict({}), prototype=default_buffer_prototype())


def _call(inner: Any, step: str, data: Any, spec: ChunkSpec) -> Any:
    """``inner``'s ``_{step}_sync`` when it has one, else its ``_{step}_single`` coroutine
    run by zarr-python's ``sync`` (its event loop thread)."""
    from zarr.core.buffer.cpu import Buffer

    buf = Buffer.from_bytes(bytes(as_bytes_view(data)))
    array_spec = _array_spec(spec)
    sync_fn = getattr(inner, f"_{step}_sync", None)
    if callable(sync_fn):
        out = sync_fn(buf, array_spec)
    else:
        from zarr.core.sync import sync

        out = sync(getattr(inner, f"_{step}_single")(buf, array_spec))
    if out is None:
        raise CodecError(f"{type(inner).__name__}: {step} returned nothing")
    return np.ascontiguousarray(out.as_numpy_array()).reshape(-1).view(np.uint8)


class UserBytesCodec(BytesToBytesCodec):
    """A zarr-python bytes->bytes codec object (``inner``) as a zarrhpc codec.

    One subclass per registered name (:func:`adapter_class`) carries ``name`` and the
    user's class (``inner_class``).
    """

    inner_class: ClassVar[type]
    #: bound to the chunk spec by the pipeline when read (what encode hands the codec)
    evolve_on_read: ClassVar[bool] = True

    def __init__(self, inner: Any, spec: ChunkSpec | None = None) -> None:
        self.inner = inner
        self._spec = spec

    @property
    def is_fixed_size(self) -> bool:
        return bool(getattr(self.inner, "is_fixed_size", False))

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build the user's codec with its ``from_dict``."""
        data: dict[str, Any] = {"name": cls.name}
        if configuration is not None:
            data["configuration"] = configuration
        try:
            inner = cls.inner_class.from_dict(data)
        except Exception as exc:  # noqa: BLE001 - the user's own validation errors
            raise CodecError(f"{field_name(doc, field)}: {cls.name} "
                             f"({cls.inner_class.__qualname__}.from_dict): {exc}") from None
        return cls(inner)

    def to_json(self) -> dict:
        return _plain(self.inner.to_dict())

    def to_dict(self) -> dict:
        return self.inner.to_dict()

    def __repr__(self) -> str:
        return repr(self.inner)

    def _hash_fields(self) -> tuple:
        return (type(self.inner).__qualname__, repr(self.to_json()))

    def evolve(self, spec: ChunkSpec) -> UserBytesCodec:
        """The user's ``evolve_from_array_spec``, bound to ``spec``."""
        inner = self.inner.evolve_from_array_spec(_array_spec(spec))
        return type(self)(inner, spec)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        return self.inner.compute_encoded_size(input_byte_length, chunk_spec)

    def encoded_size(self, decoded_size: int) -> int | None:
        if not self.is_fixed_size or self._spec is None:
            return None
        try:
            return int(self.inner.compute_encoded_size(decoded_size, _array_spec(self._spec)))
        except NotImplementedError:
            return None

    def encode(self, buf: Any) -> Any:
        if self._spec is None:
            raise CodecError(f"{self.name}: not bound to a chunk spec (evolve it first)")
        return _call(self.inner, "encode", buf, self._spec)

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        try:
            out = _call(self.inner, "decode", buf, spec)
        except CodecError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever the user's decoder raises
            raise CorruptChunkError(f"{self.name}: {type(exc).__name__}: {exc}") from None
        if decoded_size is not None and out.nbytes != decoded_size:
            raise CorruptChunkError(
                f"{self.name}: expected {decoded_size} decoded bytes, got {out.nbytes}")
        return out


_ADAPTERS: dict[str, type] = {}


def adapter_class(name: str, inner_class: type) -> type:
    """The zarrhpc codec class running zarr-python codec class ``inner_class`` as ``name``.

    Raises
    ------
    UnsupportedError
        ``inner_class`` is an array->array or array->bytes codec.
    """
    kind = is_zarr_python_codec_class(inner_class)
    if kind != "bytes_to_bytes":
        raise UnsupportedError(
            f"register_codec({name!r}, {inner_class.__qualname__}): zarrhpc runs zarr-python "
            f"codec classes of the bytes->bytes kind (zarr.abc.codec.BytesBytesCodec), "
            f"not {kind or 'this class'}")
    cls = _ADAPTERS.get(name)
    if cls is None or cls.inner_class is not inner_class:
        cls = type(f"{inner_class.__name__}Adapter", (UserBytesCodec,), {
            "name": name, "inner_class": inner_class, "__module__": __name__,
            "__doc__": f"zarr-python codec {inner_class.__qualname__} as {name!r}."})
        _ADAPTERS[name] = cls
    return cls


def zarr_python_registered(name: str) -> type | None:
    """The adapter class for a codec registered with zarr-python's own
    ``zarr.registry.register_codec`` under ``name`` (not one of zarr-python's own codecs,
    which zarrhpc runs itself), or None."""
    registry = _zarr_python("zarr.registry")
    if registry is None:
        return None
    try:
        cls = registry.get_codec_class(name)
    except Exception:  # noqa: BLE001 - unknown there too (KeyError, a broken entry point)
        return None
    if cls.__module__.startswith("zarr.") or is_zarr_python_codec_class(cls) != "bytes_to_bytes":
        return None
    return adapter_class(name, cls)
