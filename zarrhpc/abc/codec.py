"""``zarr.abc.codec``: the codec base classes, for ``import zarrhpc as zarr`` code that
checks codecs against them or subclasses them.

- ``isinstance(codec, BytesBytesCodec)`` (and ``ArrayBytesCodec``, ``ArrayArrayCodec``,
  ``BaseCodec``) holds for zarrhpc's codecs of that kind (``zarrhpc.codecs.BloscCodec``...)
  as well as for zarr-python's: the check ome-zarr's tests make on ``Array.compressors``.
- A class that subclasses one of them is a codec written to zarr-python's protocol
  (``_encode_single`` / ``_decode_single`` on zarr-python's buffers): these classes are
  subclasses of zarr-python's own, and :func:`zarrhpc.registry.register_codec` runs such a
  codec through :mod:`zarrhpc.codecs.user_codecs`. zarr-python must be installed to write
  one; zarrhpc's own codecs derive from :class:`zarrhpc.codecs.Codec` instead.
"""

from __future__ import annotations

from zarrhpc.codecs import abc as _ours

try:
    from zarr.abc import codec as _zp
except ImportError as exc:  # pragma: no cover - zarr-python is a test dependency
    raise ImportError("zarrhpc.abc.codec: codecs written for zarr-python subclass "
                      "zarr-python's classes; install zarr-python (pip install zarr)") from exc

__all__ = ["ArrayArrayCodec", "ArrayBytesCodec", "BaseCodec", "BytesBytesCodec"]


class _KindMeta(type):
    """``isinstance`` against one of the classes below accepts zarrhpc's codecs of that
    kind and zarr-python's (its parent class); a user's subclass of it checks as usual."""

    def _kinds(cls) -> tuple:
        ours = cls.__dict__.get("_zarrhpc_kind")
        return () if ours is None else (ours, cls.__bases__[0])

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls._kinds()) or super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub) -> bool:
        return (isinstance(sub, type) and issubclass(sub, cls._kinds())) or \
            super().__subclasscheck__(sub)


class BaseCodec(_zp.BaseCodec, metaclass=_KindMeta):
    """zarr-python's ``BaseCodec``; zarrhpc's codecs are instances too."""

    _zarrhpc_kind = _ours.Codec


class ArrayArrayCodec(_zp.ArrayArrayCodec, metaclass=_KindMeta):
    """zarr-python's ``ArrayArrayCodec``; zarrhpc's array->array codecs are instances too."""

    _zarrhpc_kind = _ours.ArrayToArrayCodec


class ArrayBytesCodec(_zp.ArrayBytesCodec, metaclass=_KindMeta):
    """zarr-python's ``ArrayBytesCodec``; zarrhpc's array->bytes codecs are instances too."""

    _zarrhpc_kind = _ours.ArrayToBytesCodec


class BytesBytesCodec(_zp.BytesBytesCodec, metaclass=_KindMeta):
    """zarr-python's ``BytesBytesCodec``; zarrhpc's bytes->bytes codecs are instances too."""

    _zarrhpc_kind = _ours.BytesToBytesCodec
