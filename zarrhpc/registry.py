"""zarr-python's ``zarr.registry`` names, for ``import zarrhpc as zarr`` scripts that look
codecs up by name: `get_numcodec` (a numcodecs codec from its v2 JSON) and
`get_codec_class` (a v3 codec name to its class, raising as zarr-python when unknown).
Codecs themselves are registered in :mod:`zarrhpc.codecs.registry`; zarr-python's buffer,
pipeline and chunk-key-encoding registries have no counterpart (zarrhpc has one of each).
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_codec_class", "get_numcodec"]


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
    return cls
