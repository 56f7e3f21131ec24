"""How metadata translates a v2 or 2022-draft codec to its v3 entry, without naming codecs.

Codecs and metadata do not import each other (tests/test_layers.py), yet reading a
``.zarray`` or a draft ``zarr.json`` needs each codec's other forms. So the knowledge
stays with the codec classes and is handed over through this small table, which both may
import (like :mod:`zarrhpc.errors`, it depends on nothing of zarrhpc):
:func:`zarrhpc.codecs.registry.register_codec` calls :func:`register_forms` with a
:class:`CodecForms` record for every codec that has a v2 id or a draft name;
:mod:`zarrhpc.metadata` only looks them up.

Life cycle: filled once when :mod:`zarrhpc.codecs` is imported (``import zarrhpc`` does
that); read by :mod:`zarrhpc.metadata.v2` and :mod:`zarrhpc.metadata.v3draft` whenever a
document is translated to its v3-shaped chain. A v2 id nobody registered becomes
zarr-python 3's generic name ``numcodecs.<id>`` with the numcodecs configuration, which
the codec registry resolves through numcodecs at pipeline build time (an id numcodecs
does not know either fails there, naming the codec and the package).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CodecForms",
    "default_chain",
    "draft_entry",
    "is_bytes_level",
    "is_serializer",
    "object_codec_id",
    "object_type",
    "readable_in_v3",
    "register_defaults",
    "register_forms",
    "register_type_parser",
    "scalar_dtype",
    "v2_entry",
    "v2_out_dtype",
]


def _generic_v3(conf: dict, dtype: np.dtype) -> dict:
    rest = {k: copy.deepcopy(v) for k, v in conf.items() if k != "id"}
    return {"name": f"numcodecs.{conf['id']}", "configuration": rest}


def _same_dtype(conf: dict, dtype: np.dtype) -> np.dtype:
    return dtype


@dataclass(frozen=True)
class CodecForms:
    """One codec's non-v3 forms, as metadata needs them.

    Attributes
    ----------
    v2_id : str or None
        Its numcodecs id (``"zstd"``); None when it has no v2 form.
    draft_names : tuple of str
        Names in the 2022 draft (the codec segment of the draft URI,
        ``https://purl.org/zarr/spec/codec/<name>/1.0``).
    v3_from_v2 : callable
        ``(conf, dtype) -> dict``: the v3 entry of the v2 object ``conf`` (with ``id``),
        ``dtype`` being the type of the elements that reach the codec.
    out_dtype : callable
        ``(conf, dtype) -> numpy.dtype``: the element type after this codec used as a v2
        filter (the type reaching the next codec).
    serializer : bool
        The codec turns the array into bytes itself (a v2 object codec such as
        ``vlen-utf8`` given as the first filter): the chain then has no ``bytes`` codec.
    object_type : str or None
        For an object codec: the v3 data type of the elements it decodes (``"string"``,
        ``"variable_length_bytes"``, ``"object"``); a v2 ``|O`` array takes it.
    core : bool
        Its v3 form is a codec of the v3 core specification (every v3 reader has it).
    zarr_python_v3 : bool
        zarr-python 3 reads its v3 form (core codecs, and the ``numcodecs.<id>`` codecs
        zarr-python registers).
    bytes_level : bool
        Its v3 form is a bytes->bytes codec (a compressor or checksum): used as a v2
        *filter* it works on the serialised chunk, so its v3 entry goes after ``bytes``.
    """

    v2_id: str | None
    draft_names: tuple[str, ...] = ()
    v3_from_v2: Callable[[dict, np.dtype], dict] = _generic_v3
    out_dtype: Callable[[dict, np.dtype], np.dtype] = _same_dtype
    serializer: bool = False
    object_type: str | None = None
    core: bool = False
    zarr_python_v3: bool = False
    bytes_level: bool = False


_BY_V2: dict[str, CodecForms] = {}
_BY_DRAFT: dict[str, CodecForms] = {}
_BY_OBJECT_TYPE: dict[str, CodecForms] = {}


def register_forms(forms: CodecForms) -> None:
    """Make ``forms`` known by its v2 id and draft names (later registrations win)."""
    if forms.v2_id:
        _BY_V2[forms.v2_id] = forms
        if forms.object_type and forms.object_type not in _BY_OBJECT_TYPE:
            _BY_OBJECT_TYPE[forms.object_type] = forms
    for name in forms.draft_names:
        _BY_DRAFT[name] = forms


_DEFAULTS: list = []


def register_defaults(chain: Callable[[np.dtype], list]) -> None:
    """Set the function giving the v3 chain (JSON entries) zarrhpc writes by default for
    a data type: serializer then compressors (the codecs package registers it)."""
    _DEFAULTS[:] = [chain]


def default_chain(dtype: np.dtype) -> list:
    """The default v3 chain for ``dtype`` as JSON entries (see :func:`register_defaults`)."""
    return _DEFAULTS[0](np.dtype(dtype))


def readable_in_v3(conf: dict, *, core_only: bool = False) -> bool:
    """Whether the v3 form of the v2 codec ``conf`` is read by zarr-python 3 (with
    ``core_only``: by every v3 reader, i.e. it is a codec of the core specification)."""
    forms = _BY_V2.get(conf.get("id")) if isinstance(conf, dict) else None
    if forms is None:
        return False
    return forms.core if core_only else forms.core or forms.zarr_python_v3


def v2_entry(conf: dict, dtype: np.dtype) -> dict:
    """The v3 codec entry for the v2 codec object ``conf`` (``{"id": ..., ...}``)."""
    forms = _BY_V2.get(conf["id"])
    return (forms.v3_from_v2 if forms else _generic_v3)(conf, np.dtype(dtype))


def is_bytes_level(conf: dict) -> bool:
    """Whether the v2 codec ``conf`` is a registered codec whose v3 form is bytes->bytes
    (numcodecs ids nobody registered are placed by the codec pipeline)."""
    forms = _BY_V2.get(conf.get("id")) if isinstance(conf, dict) else None
    return bool(forms and forms.bytes_level)


def v2_out_dtype(conf: dict, dtype: np.dtype) -> np.dtype:
    """The element type a v2 filter ``conf`` hands on (its input type when unknown)."""
    forms = _BY_V2.get(conf["id"])
    return (forms.out_dtype if forms else _same_dtype)(conf, np.dtype(dtype))


def draft_entry(name: str, conf: dict, dtype: np.dtype) -> dict:
    """The v3 entry of the draft codec ``name`` with ``conf``.

    A draft codec's configuration is its numcodecs configuration, so the v2 translation
    serves (with ``id`` set to the codec's v2 id).
    """
    forms = _BY_DRAFT.get(name)
    if forms is None:  # zarr-python 2 wrote numcodecs ids into draft codec URIs
        return v2_entry({**conf, "id": name}, dtype)
    return forms.v3_from_v2({**conf, "id": forms.v2_id or name}, np.dtype(dtype))


def draft_names() -> list[str]:
    """Every known draft codec name (for error messages)."""
    return sorted(_BY_DRAFT)


def is_serializer(conf: dict) -> bool:
    """Whether the v2 filter ``conf`` serialises the array itself (an object codec)."""
    forms = _BY_V2.get(conf.get("id"))
    return bool(forms and forms.serializer)


def object_type(filters: list | None) -> str | None:
    """The v3 data type an ``|O`` array with these v2 ``filters`` holds (None: no object
    codec among them)."""
    for conf in filters or []:
        forms = _BY_V2.get(conf.get("id")) if isinstance(conf, dict) else None
        if forms and forms.object_type:
            return forms.object_type
    return None


def object_codec_id(type_name: str) -> str | None:
    """The v2 id of the object codec that writes elements of ``type_name`` (None: none)."""
    forms = _BY_OBJECT_TYPE.get(type_name)
    return forms.v2_id if forms else None


_TYPE_PARSER: list = []


def register_type_parser(parse: Callable[[object, str], np.dtype]) -> None:
    """Set the function turning a v3 ``data_type`` JSON value into its numpy type
    (:mod:`zarrhpc.metadata` registers it): codecs whose configuration names a data type
    (``cast_value``) read it through :func:`scalar_dtype`."""
    _TYPE_PARSER[:] = [parse]


def scalar_dtype(obj: object, doc: str) -> np.dtype:
    """The numpy type of the v3 data type ``obj`` (raises the metadata parser's error)."""
    return _TYPE_PARSER[0](obj, doc)
