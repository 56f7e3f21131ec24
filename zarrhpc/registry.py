"""zarr-python's ``zarr.registry`` names, for ``import zarrhpc as zarr`` scripts that
register or look up codecs by name: `register_codec` (a v3 name to a codec class: zarrhpc's,
or a user's zarr-python ``BytesBytesCodec`` subclass, run through
:mod:`zarrhpc.codecs.user_codecs`), `get_codec_class` (a v3 codec name to its class,
raising as zarr-python when unknown) and `get_numcodec` (a numcodecs codec from its v2
JSON). Codecs themselves are registered in :mod:`zarrhpc.codecs.registry`.

zarr-python's buffer, ndbuffer and pipeline registries have no counterpart: zarrhpc has
one chunk pipeline (native, with its Python path) and numpy buffers, so registering
another raises :class:`~zarrhpc.errors.UnsupportedError` saying so rather than being
ignored; ``get_pipeline_class`` gives zarrhpc's pipeline class.
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_buffer_class", "get_codec_class", "get_ndbuffer_class", "get_numcodec",
           "get_pipeline_class", "register_buffer", "register_codec", "register_ndbuffer",
           "register_pipeline"]


def register_codec(key: str, codec_cls: type, *, qualname: str | None = None) -> None:
    """Register ``codec_cls`` as the codec named ``key`` in v3 metadata, as
    ``zarr.registry.register_codec``.

    Parameters
    ----------
    key : str
        The v3 codec name (``"my-codec"``).
    codec_cls : type
        A zarrhpc codec class, or a codec written for zarr-python (a subclass of
        ``zarr.abc.codec.BytesBytesCodec`` with ``from_dict``/``to_dict`` and
        ``_encode_single``/``_decode_single``): arrays using it read and write through
        zarrhpc's Python codec path.
    qualname : str, optional
        Accepted for zarr-python's signature (its registry's key of the class).

    Raises
    ------
    UnsupportedError
        ``codec_cls`` is a zarr-python array->array or array->bytes codec.
    """
    from zarrhpc.codecs.registry import register_codec_as

    register_codec_as(key, codec_cls)


def get_numcodec(data: dict[str, Any]) -> Any:
    """The numcodecs codec for a v2 codec document (``{"id": "zlib", "level": 1}``), from
    numcodecs' registry, as ``zarr.registry.get_numcodec``.

    Parameters
    ----------
    data : dict
        The codec's JSON: ``id`` and its configuration.

    Returns
    -------
    numcodecs.abc.Codec
    """
    from numcodecs.registry import get_codec

    return get_codec(data)


def get_codec_class(key: str, reload_config: bool = False) -> type:
    """The codec class registered for the v3 name ``key`` (``"blosc"``, ``"bytes"``,
    ``"numcodecs.zlib"``...), as ``zarr.registry.get_codec_class``.

    Parameters
    ----------
    key : str
        A v3 codec name.
    reload_config : bool
        Accepted for zarr-python's signature; zarrhpc's registry needs no reload.

    Raises
    ------
    KeyError
        No codec has that name (zarr-python's error and words).
    """
    from zarrhpc.codecs.registry import get_codec_class as lookup

    cls = lookup(key)
    if cls is None:
        raise KeyError(key)
    return getattr(cls, "inner_class", cls)  # a user's zarr-python class: that class


def _unsupported(what: str) -> None:
    from zarrhpc.errors import UnsupportedError

    raise UnsupportedError(f"zarrhpc.registry: {what} is not supported: zarrhpc runs every "
                           "chunk through its own pipeline (native, with a Python path for "
                           "codecs without a native form) on numpy buffers")


def register_pipeline(pipe_cls: type) -> None:
    """zarr-python's pipeline registry has no counterpart (UnsupportedError)."""
    _unsupported(f"registering the codec pipeline {pipe_cls!r}")


def register_buffer(cls: type, qualname: str | None = None) -> None:
    """zarr-python's buffer registry has no counterpart (UnsupportedError)."""
    _unsupported(f"registering the buffer class {cls!r}")


def register_ndbuffer(cls: type, qualname: str | None = None) -> None:
    """zarr-python's ndbuffer registry has no counterpart (UnsupportedError)."""
    _unsupported(f"registering the ndbuffer class {cls!r}")


def get_pipeline_class(reload_config: bool = False) -> type:
    """zarrhpc's chunk pipeline class (:class:`~zarrhpc.codecs.CodecPipeline`)."""
    from zarrhpc.codecs.pipeline import CodecPipeline

    return CodecPipeline


def get_buffer_class(reload_config: bool = False) -> type:
    """zarrhpc's buffers are numpy arrays: ``numpy.ndarray``."""
    import numpy as np

    return np.ndarray


def get_ndbuffer_class(reload_config: bool = False) -> type:
    """zarrhpc's chunk arrays are numpy arrays: ``numpy.ndarray``."""
    import numpy as np

    return np.ndarray
