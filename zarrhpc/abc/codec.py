"""``zarr.abc.codec``: the base classes a user's codec subclasses. zarrhpc runs codecs
written to zarr-python's protocol (``_encode_single`` / ``_decode_single`` on zarr-python's
buffers, :mod:`zarrhpc.codecs.user_codecs`), so these are zarr-python's own classes, and
zarr-python must be installed to write such a codec. zarrhpc's own codecs derive from
:class:`zarrhpc.codecs.Codec` instead (not from these)."""

try:
    from zarr.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BaseCodec, BytesBytesCodec
except ImportError as exc:  # pragma: no cover - zarr-python is a test dependency
    raise ImportError("zarrhpc.abc.codec: a codec written for zarr-python subclasses "
                      "zarr-python's classes; install zarr-python (pip install zarr)") from exc

__all__ = ["ArrayArrayCodec", "ArrayBytesCodec", "BaseCodec", "BytesBytesCodec"]
