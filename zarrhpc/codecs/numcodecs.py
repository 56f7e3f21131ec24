"""numcodecs' codecs under the names ``zarr.codecs.numcodecs`` gives them (``LZMA``,
``Delta``, ``BZ2``, ...), so ``from zarr.codecs.numcodecs import LZMA`` keeps working with
``import zarrhpc as zarr``.

Each class is the codec :mod:`~zarrhpc.codecs.numcodecs_adapter` runs for that numcodecs
id (v3 name ``numcodecs.<id>``, configuration = the keyword arguments), made when this
module is imported.
"""

from __future__ import annotations

from zarrhpc.codecs.numcodecs_adapter import ZARR_NAMES, numcodecs_class

IDS = {name: codec_id for codec_id, name in ZARR_NAMES.items()}

__all__ = sorted(IDS)


def _make(name: str, codec_id: str) -> type:
    base = numcodecs_class(codec_id)

    def __init__(self, _configuration: dict | None = None, _doc: str = "", _field: str = "",
                 **codec_config) -> None:
        # keywords are numcodecs' (LZMA(filters=[...]), Delta(dtype="i4")); a positional
        # dict is the adapter's own form (what evolve passes)
        conf = codec_config if _configuration is None else {**_configuration, **codec_config}
        base.__init__(self, conf, _doc, _field or name)

    return type(name, (base,), {
        "__module__": __name__, "__qualname__": name, "__init__": __init__,
        "__doc__": f"numcodecs' ``{codec_id}`` as zarr.codecs.numcodecs.{name} "
                   f"(v3 name ``numcodecs.{codec_id}``).",
    })


globals().update({name: _make(name, codec_id) for name, codec_id in IDS.items()})
