"""numcodecs' codecs under the names ``zarr.codecs.numcodecs`` gives them (``LZMA``,
``Delta``, ``BZ2``, ...), so ``from zarr.codecs.numcodecs import LZMA`` keeps working with
``import zarrhpc as zarr``.

Each class is the codec :mod:`~zarrhpc.codecs.numcodecs_adapter` runs for that numcodecs
id (v3 name ``numcodecs.<id>``, configuration = the keyword arguments), made when this
module is imported.
"""

from __future__ import annotations

import warnings

from zarrhpc.codecs.numcodecs_adapter import ZARR_NAMES, adopt_class, numcodecs_class
from zarrhpc.errors import ZarrUserWarning

IDS = {name: codec_id for codec_id, name in ZARR_NAMES.items()}

__all__ = sorted(IDS)


_USER = object()  # built by a user (keywords), not from metadata


def _make(name: str, codec_id: str) -> type:
    base = numcodecs_class(codec_id)

    def __init__(self, _configuration: dict | None = _USER, _doc: str = "", _field: str = "",
                 **codec_config) -> None:
        # keywords are numcodecs' (LZMA(filters=[...]), Delta(dtype="i4")); a positional
        # dict (or None) is the adapter's own form (from_config, evolve)
        if _configuration is _USER:
            _configuration = None
            if codec_config.setdefault("id", codec_id) != codec_id:
                raise ValueError(f"Codec id does not match {codec_id}. Got: {codec_config['id']}.")
            codec_config.pop("id")
            # as zarr-python warns when its wrappers are built (not when read from metadata)
            warnings.warn("Numcodecs codecs are not in the Zarr version 3 specification and "
                          "may not be supported by other zarr implementations.",
                          ZarrUserWarning, stacklevel=3)  # the caller, past _freezing
        conf = codec_config if _configuration is None else {**_configuration, **codec_config}
        base.__init__(self, conf, _doc, _field or name)

    cls = type(name, (base,), {
        "__module__": __name__, "__qualname__": name, "__init__": __init__,
        "__doc__": f"numcodecs' ``{codec_id}`` as zarr.codecs.numcodecs.{name} "
                   f"(v3 name ``numcodecs.{codec_id}``).",
    })
    adopt_class(codec_id, cls)
    return cls


globals().update({name: _make(name, codec_id) for name, codec_id in IDS.items()})
