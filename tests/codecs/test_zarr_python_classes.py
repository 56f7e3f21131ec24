"""Every public class of ``zarr.codecs`` against zarrhpc's of the same name, side by side.

Generated over ``dir(zarr.codecs)``: a name zarr-python adds in a later release fails
here until zarrhpc has it (or it is listed in KEPT with the reason). For each codec
class and each sample constructor call: the constructor's parameters and defaults,
every public dataclass field of zarr-python's object (value and type: enums are
zarr-python's enum names), ``repr``, ``to_dict()``, ``from_dict(to_dict())``,
``is_fixed_size``, ``compute_encoded_size``, ``evolve_from_array_spec`` (zarr-python's
``ArraySpec`` given to both), equality with zarr-python's object, hashing, pickling and
immutability (assignment raises ``FrozenInstanceError``). Then ``Array.compressors`` /
``filters`` / ``serializer`` of stores zarr-python wrote.

Kept differences (KEPT_BEHAVIOUR), each with its reason:
- constructors also take positional arguments (zarrhpc's own code and users of zarrhpc
  before the switch call ``BloscCodec("lz4", 5, "shuffle")``); zarr-python's are
  keyword-only, so every call zarr-python accepts means the same here;
- ``BloscCodec`` is hashable (zarr-python's holds a set field, so ``hash()`` raises):
  codec objects are keys of zarrhpc's prepared-form caches;
- ``ShardingCodec(..., doc=, field=)``: two keyword-only extras naming the metadata
  document in error messages;
- the classes are not ``dataclasses`` (``dataclasses.fields``/``replace`` do not apply):
  the codecs carry their engine state (native steps, shard layouts) beside the fields;
  the fields, their types, equality, hashing and immutability are zarr-python's.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import pickle
import warnings
from enum import Enum

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
import zarr.codecs as Z  # noqa: E402
from zarr.core.array_spec import ArrayConfig, ArraySpec  # noqa: E402
from zarr.core.buffer import default_buffer_prototype  # noqa: E402
from zarr.core.dtype import get_data_type_from_native_dtype  # noqa: E402

import zarrhpc  # noqa: E402
import zarrhpc.codecs as H  # noqa: E402

#: zarr.codecs names that are modules (zarrhpc has them as modules too, or not at all)
MODULES = {"annotations", "blosc", "bytes", "crc32c_", "gzip", "numcodecs", "sharding",
           "transpose", "vlen_utf8", "zstd"}

#: sample constructor calls per v3 codec class (keyword-only, as zarr-python takes them)
SAMPLES = {
    "BloscCodec": [{}, {"cname": "lz4"}, {"cname": Z.BloscCname.zlib, "clevel": 9},
                   {"shuffle": "noshuffle"}, {"typesize": 4, "shuffle": "shuffle"},
                   {"shuffle": Z.BloscShuffle.bitshuffle, "blocksize": 1024}],
    "BytesCodec": [{}, {"endian": "big"}, {"endian": Z.Endian.little}, {"endian": None}],
    "Crc32cCodec": [{}],
    "GzipCodec": [{}, {"level": 0}, {"level": 9}],
    "ZstdCodec": [{}, {"level": 3}, {"level": -5, "checksum": True}],
    "TransposeCodec": [{"order": (1, 0)}, {"order": [0, 2, 1]}],
    "ShardingCodec": [{"chunk_shape": (2, 2)}, {"chunk_shape": [4, 1],
                                                "index_location": "start"},
                      {"chunk_shape": (2, 2), "codecs": "z:bytes-zstd",
                       "index_codecs": "z:bytes-crc32c"}],
    "VLenUTF8Codec": [{}],
    "VLenBytesCodec": [{}],
}

#: sample configurations of the numcodecs wrappers (zarr.codecs.Blosc... = numcodecs.<id>)
WRAPPERS = {"Blosc": {"cname": "lz4", "clevel": 3, "shuffle": 2}, "Zstd": {"level": 3},
            "Delta": {"dtype": "<i4"}, "BZ2": {"level": 5}, "Shuffle": {"elementsize": 4},
            "FixedScaleOffset": {"offset": 1, "scale": 10, "dtype": "<f8", "astype": "<i4"},
            "Quantize": {"digits": 3, "dtype": "<f8"}, "AsType": {"encode_dtype": "<f4",
                                                                  "decode_dtype": "<f8"},
            "CRC32": {}, "Fletcher32": {}, "Zlib": {"level": 1}, "Adler32": {},
            "BitRound": {"keepbits": 8}, "CRC32C": {}, "GZip": {"level": 1},
            "JenkinsLookup3": {}, "LZ4": {}, "LZMA": {}, "PackBits": {}, "PCodec": {},
            "ZFPY": {}}



def _public_names() -> list[str]:
    return sorted(n for n in dir(Z) if n.isidentifier() and not n.startswith("_")
                  and n not in MODULES)


def _kind(obj) -> str:
    if not isinstance(obj, type):
        return "function"
    if issubclass(obj, Enum):
        return "enum"
    if obj.__name__ in SAMPLES:
        return "v3 codec"
    return "numcodecs wrapper"


def _resolve(lib, value):
    """A sample argument for ``lib``: codec chains named by a string built per library."""
    if value == "z:bytes-zstd":
        return (lib.BytesCodec(), lib.ZstdCodec(level=1))
    if value == "z:bytes-crc32c":
        return (lib.BytesCodec(endian="little"), lib.Crc32cCodec())
    if isinstance(value, Enum):  # the enum of the same name in lib
        return getattr(lib, type(value).__name__)[value.name]
    return value


def _build(lib, name: str, kwargs: dict):
    return getattr(lib, name)(**{k: _resolve(lib, v) for k, v in kwargs.items()})


def _shown(value):
    """A value in a form comparable across the libraries: enums as (class name, member)."""
    if isinstance(value, Enum):
        return ("enum", type(value).__name__, value.name, value.value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_shown(v) for v in value])
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if hasattr(value, "to_dict"):
        return ("codec", type(value).__name__, _shown(value.to_dict()))
    if isinstance(value, set):
        return ("set", sorted(value))
    return (type(value).__name__, value)


def _outcome(fn):
    try:
        return ("ok", _shown(fn()))
    except Exception as exc:  # noqa: BLE001 - the exception's type is what is compared
        return ("raises", type(exc).__name__)


def _spec(dtype, shape=(4, 4)) -> ArraySpec:
    zdtype = get_data_type_from_native_dtype(np.dtype(dtype))
    return ArraySpec(shape=shape, dtype=zdtype, fill_value=zdtype.default_scalar(),
                     config=ArrayConfig.from_dict({}), prototype=default_buffer_prototype())


def test_every_public_name_is_there():
    missing = [n for n in _public_names() if not hasattr(H, n)]
    assert missing == []
    for name in _public_names():
        assert _kind(getattr(Z, name)) == _kind(getattr(H, name)), name


def test_register_codec_takes_zarr_pythons_arguments():
    """``zarr.codecs.register_codec(key, codec_cls, *, qualname=None)``."""
    def params(fn):
        return {k: (p.kind, p.default) for k, p in inspect.signature(fn).parameters.items()}
    ours, theirs = params(H.register_codec), params(Z.register_codec)
    assert list(ours)[1:] == list(theirs)[1:] and ours["qualname"] == theirs["qualname"]
    H.register_codec("test.gzip-too", H.GzipCodec)  # a zarrhpc class under one more name
    assert H.get_codec_class("test.gzip-too") is H.GzipCodec
    assert H.parse_codec({"name": "test.gzip-too", "configuration": {"level": 2}}) == \
        H.GzipCodec(level=2)


@pytest.mark.parametrize("name", [n for n in _public_names() if _kind(getattr(Z, n)) == "enum"])
def test_enums(name):
    theirs, ours = getattr(Z, name), getattr(H, name)
    assert [(m.name, m.value) for m in ours] == [(m.name, m.value) for m in theirs]
    assert repr(list(ours)) == repr(list(theirs))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_constructor_parameters(name):
    """Same parameter names and defaults (zarrhpc also takes them by position: KEPT)."""
    def params(cls):
        out = {}
        for p in inspect.signature(cls).parameters.values():
            if p.kind is p.VAR_KEYWORD or (name == "ShardingCodec" and p.name in ("doc", "field")):
                continue
            default = p.default
            if isinstance(default, (tuple, list)):
                default = tuple(_shown(d) for d in default)
            out[p.name] = _shown(default) if default is not p.empty else "required"
        return out
    theirs, ours = params(getattr(Z, name)), params(getattr(H, name))
    assert ours == theirs


CASES = [(name, i) for name, calls in sorted(SAMPLES.items()) for i in range(len(calls))]


@pytest.mark.parametrize(("name", "i"), CASES)
def test_objects_agree(name, i):
    kwargs = SAMPLES[name][i]
    theirs, ours = _build(Z, name, kwargs), _build(H, name, kwargs)
    fields = [f.name for f in dataclasses.fields(theirs)]
    for field in fields:
        assert _shown(getattr(ours, field)) == _shown(getattr(theirs, field)), field
    assert repr(ours) == repr(theirs).replace("{'typesize', 'shuffle'}", "{'shuffle', 'typesize'}")
    assert _shown(ours.to_dict()) == _shown(theirs.to_dict())
    assert _outcome(lambda: type(ours).from_dict(ours.to_dict())) == \
        _outcome(lambda: type(theirs).from_dict(theirs.to_dict()))
    assert type(ours).from_dict(ours.to_dict()) == type(theirs).from_dict(theirs.to_dict())
    assert _outcome(lambda: ours.is_fixed_size) == _outcome(lambda: theirs.is_fixed_size)
    spec = _spec("<f4")
    assert _outcome(lambda: ours.compute_encoded_size(100, spec)) == \
        _outcome(lambda: theirs.compute_encoded_size(100, spec))
    # equal to zarr-python's object, both ways, and to itself after pickling
    assert ours == theirs and theirs == ours
    assert pickle.loads(pickle.dumps(ours)) == ours
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.level = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(ours, fields[0] if fields else "x", None)
    try:
        their_hash = hash(theirs)
    except TypeError:  # BloscCodec's set field (KEPT: ours is hashable)
        assert name == "BloscCodec"
        hash(ours)
    else:
        assert hash(ours) == their_hash


@pytest.mark.parametrize(("name", "i"), CASES)
@pytest.mark.parametrize("dtype", ["u1", "<i2", ">f8", "bool"])
def test_evolve_from_array_spec(name, i, dtype):
    kwargs = SAMPLES[name][i]
    if name.startswith("VLen"):
        dtype = np.dtypes.StringDType()
    shape = (4, 4, 4) if kwargs.get("order") == [0, 2, 1] else (4, 4)
    spec = _spec(dtype, shape)
    theirs, ours = _build(Z, name, kwargs), _build(H, name, kwargs)
    assert _outcome(lambda: ours.evolve_from_array_spec(spec)) == \
        _outcome(lambda: theirs.evolve_from_array_spec(spec))


def test_every_wrapper_has_a_sample():
    assert sorted(WRAPPERS) == [n for n in _public_names()
                                if _kind(getattr(Z, n)) == "numcodecs wrapper"]


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_numcodecs_wrappers(name):
    """zarr.codecs.Blosc, Zstd, Delta...: numcodecs' codecs under v3 names
    ``numcodecs.<id>``, with the fields codec_name / codec_config and zarr-python's warning."""
    objs = []
    for lib in (Z, H):
        with pytest.warns(UserWarning, match="not in the Zarr version 3 specification") as rec:
            objs.append(getattr(lib, name)(**WRAPPERS[name]))
        assert [type(w.message).__name__ for w in rec] == ["ZarrUserWarning"]
    theirs, ours = objs
    assert (ours.codec_name, ours.codec_config) == (theirs.codec_name, theirs.codec_config)
    assert repr(ours) == repr(theirs) and ours.to_dict() == theirs.to_dict()
    assert ours == theirs and theirs == ours
    spec = _spec("<f8")
    assert _outcome(lambda: ours.compute_encoded_size(80, spec)) == \
        _outcome(lambda: theirs.compute_encoded_size(80, spec))
    assert pickle.loads(pickle.dumps(ours)) == ours
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert type(ours).from_dict(ours.to_dict()) == ours
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.codec_config = {}


ARRAYS = {
    "blosc": {"compressors": "z:blosc"},
    "zstd+crc": {"compressors": "z:zstd-crc"},
    "gzip-big": {"serializer": "z:bytes-big", "compressors": "z:gzip"},
    "transpose": {"filters": "z:transpose", "compressors": None},
    "sharded": {"shards": (4, 4), "compressors": "z:blosc-lz4"},
    "none": {"compressors": None},
    "default": {},
    "numcodecs": {"filters": "z:delta", "compressors": "z:bz2"},
    "numcodecs-native": {"compressors": "z:nc-blosc-zstd"},
}


def _codecs_arg(lib, value):
    return {"z:blosc": lambda: lib.codecs.BloscCodec(cname="zstd", clevel=3),
            "z:blosc-lz4": lambda: lib.codecs.BloscCodec(cname="lz4", shuffle="bitshuffle"),
            "z:zstd-crc": lambda: (lib.codecs.ZstdCodec(level=2), lib.codecs.Crc32cCodec()),
            "z:bytes-big": lambda: lib.codecs.BytesCodec(endian="big"),
            "z:gzip": lambda: lib.codecs.GzipCodec(level=1),
            "z:transpose": lambda: lib.codecs.TransposeCodec(order=(1, 0)),
            "z:delta": lambda: lib.codecs.Delta(dtype="<i4"),
            "z:bz2": lambda: lib.codecs.BZ2(level=1),
            "z:nc-blosc-zstd": lambda: (lib.codecs.Blosc(cname="lz4", shuffle=2),
                                        lib.codecs.Zstd(level=1))}.get(value, lambda: value)()


@pytest.mark.parametrize("case", sorted(ARRAYS))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_array_codec_properties_on_zarr_pythons_store(tmp_path, case):
    """``Array.compressors`` / ``filters`` / ``serializer`` of a store zarr-python wrote:
    equal to zarr-python's own objects (both ways), the same reprs and types."""
    kwargs = {k: _codecs_arg(zarr, v) for k, v in ARRAYS[case].items()}
    zarr.create_array(str(tmp_path), shape=(8, 8), chunks=(2, 2) if "shards" in kwargs
                      else (4, 4), dtype="<i4", **kwargs)[:] = np.arange(64).reshape(8, 8)
    theirs, ours = zarr.open_array(str(tmp_path)), zarrhpc.open_array(str(tmp_path))
    for prop in ("compressors", "filters", "serializer"):
        a, b = getattr(ours, prop), getattr(theirs, prop)
        assert a == b and b == a, prop
        assert repr(a) == repr(b), prop
        assert [type(c).__name__ for c in np.atleast_1d(np.array(a, dtype=object))] == \
            [type(c).__name__ for c in np.atleast_1d(np.array(b, dtype=object))], prop
    np.testing.assert_array_equal(ours[:], theirs[:])


@pytest.mark.parametrize(("name", "kwargs", "kind"), [
    ("Shuffle", {}, "compressors"),
    ("FixedScaleOffset", {"offset": 0, "scale": 10, "astype": "<i4"}, "filters"),
    ("Quantize", {"digits": 2}, "filters"),
    ("AsType", {"encode_dtype": "<f4"}, "filters")])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_wrappers_filled_from_the_array_type(tmp_path, name, kwargs, kind):
    """zarr-python's wrappers leave ``elementsize`` / ``dtype`` / ``decode_dtype`` to the
    array's type (their evolve_from_array_spec): the same metadata and stored bytes."""
    out = []
    for lib in (zarr, zarrhpc):
        path = tmp_path / lib.__name__
        a = lib.create_array(str(path), shape=(8,), chunks=(4,), dtype="<f8",
                             **{kind: getattr(lib.codecs, name)(**kwargs)})
        a[:] = np.arange(8) / 3
        out.append((json.loads((path / "zarr.json").read_text())["codecs"],
                    [(path / "c" / k).read_bytes() for k in ("0", "1")], a[:].tolist()))
    assert out[0] == out[1]
