"""cast_value and scale_offset: zarr-extensions' numeric array->array codecs.

Spec card
---------
- ``cast_value`` (zarr-extensions ``codecs/cast_value/README.md``; zarrs writes it):
  each element is converted by its numeric value to ``data_type`` (encode) and back
  (decode). Per element, in order: ``scalar_map`` (``encode``/``decode`` lists of
  ``[input, output]`` pairs in the fill-value JSON forms of the two types; the first pair
  of a key wins; NaN keys match NaN), then exact conversion, then ``rounding``
  (``nearest-even`` default, ``towards-zero``, ``towards-positive``, ``towards-negative``,
  ``nearest-away``) and ``out_of_range`` (absent: an error; ``clamp``: to the type's
  limits, ±Infinity for floats that have it; ``wrap``: modulo 2**bits, integer targets
  only). NaN and infinities go to a float type that has them, else are an error unless
  mapped.
  Deviation (refused, never approximated): a rounding mode other than ``nearest-even``
  for a *float* value that a float target cannot hold exactly raises
  :class:`~zarrhpc.errors.UnsupportedError` (numpy rounds float targets to nearest-even
  only); integer targets, and integers to numpy's float types (rounded exactly in
  Python), take every mode. ml_dtypes' float targets are rounded once (round to odd on
  the way through float32, :func:`_to_float`), not twice as their own casts do.
- ``scale_offset`` (zarr-extensions ``codecs/scale_offset/README.md``): encode
  ``(x - offset) * scale``, decode ``x / scale + offset``, in the array's own type;
  ``offset`` (default 0) and ``scale`` (default 1) in its fill-value JSON form. For
  integers every intermediate value must be representable and the division exact, else
  the chunk is refused (as the README requires); floats compute in their type.
- Data type names are read by :mod:`zarrhpc.metadata` (through
  :func:`zarrhpc.codec_forms.scalar_dtype`), so every type zarrhpc reads may appear.
- Fill values: the chunk spec after the codec has the fill value cast the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from zarrhpc.codec_forms import scalar_dtype
from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ChunkSpec,
    check_choice,
    config_dict,
    config_error,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError, UnsupportedError, ZarrhpcError

__all__ = ["CastValueCodec", "ScaleOffsetCodec"]

ROUNDING = ("nearest-even", "towards-zero", "towards-positive", "towards-negative",
            "nearest-away")
_ROUND = {"nearest-even": np.rint, "towards-zero": np.trunc, "towards-positive": np.ceil,
          "towards-negative": np.floor,
          "nearest-away": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)}
_SPECIAL = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}


def _is_int(dtype: np.dtype) -> bool:
    if dtype.kind in "iu":
        return True
    if dtype.kind != "V" or dtype.names is not None:
        return False
    try:  # ml_dtypes' int2/int4/uint2/uint4
        _iinfo(dtype)
        return True
    except (TypeError, ValueError):
        return False


def _numeric(dtype: np.dtype, what: str, doc: str, field: str) -> None:
    ml = dtype.kind == "V" and dtype.names is None and (_is_int(dtype) or _has_float_info(dtype))
    if dtype.kind not in "iuf" and not ml:
        raise CodecError(f"{field_name(doc, field)}: {what}: {dtype} is not an integer or "
                         "floating-point type")


def _has_float_info(dtype: np.dtype) -> bool:
    try:
        _finfo(dtype)
        return True
    except (TypeError, ValueError):
        return False


def _finfo(dtype: np.dtype):
    if dtype.kind == "f" and dtype.isbuiltin != 2:  # ml_dtypes' float8_e5m2 has kind "f"
        return np.finfo(dtype)
    import ml_dtypes
    return ml_dtypes.finfo(dtype)


def _iinfo(dtype: np.dtype):
    if dtype.kind in "iu":
        return np.iinfo(dtype)
    import ml_dtypes
    return ml_dtypes.iinfo(dtype)


def scalar(value: Any, dtype: np.dtype, doc: str, where: str) -> np.ndarray:
    """A JSON scalar in the fill-value forms of a numeric type, as a 0-d array."""
    try:
        if isinstance(value, str) and value in _SPECIAL and not _is_int(dtype):
            return np.array(_SPECIAL[value]).astype(dtype)
        if isinstance(value, str) and value.startswith("0x") and not _is_int(dtype):
            bits = int(value, 16).to_bytes(dtype.itemsize, "little")
            return np.frombuffer(bits, dtype=dtype.newbyteorder("<"))[0:1].reshape(()).astype(dtype)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError
        if _is_int(dtype):
            info = _iinfo(dtype)
            if not (float(value).is_integer() and int(info.min) <= int(value) <= int(info.max)):
                raise ValueError
            return np.array(int(value)).astype(dtype)
        return np.array(value).astype(dtype)
    except (ValueError, OverflowError, TypeError):
        raise CodecError(f"{field_name(doc, where)}: {value!r} is not a value of {dtype}") from None


def convert(x: np.ndarray, dst: np.dtype, rounding: str, out_of_range: str | None,
            pairs: list[tuple[np.ndarray, np.ndarray]], name: str = "cast_value") -> np.ndarray:
    """``x`` converted to ``dst`` by cast_value's rules (module docstring)."""
    src = x.dtype
    out = np.zeros(x.shape, dtype=dst)
    done = np.zeros(x.shape, dtype=bool)
    for key, value in pairs:
        match = x == key
        if not _is_int(src) and np.isnan(key.astype("f8")):
            match = np.isnan(x.astype("f8"))
        hit = ~done & match
        out[hit] = value
        done |= hit
    rest = ~done
    if not rest.any():
        return out
    xs = x[rest]
    if _is_int(src) and _is_int(dst):
        info = _iinfo(dst)
        wide = xs.astype(object) if src.itemsize >= 8 else xs.astype(np.int64)
        lo, hi = wide < int(info.min), wide > int(info.max)
        res = _out_of_range_ints(wide, dst, lo, hi, out_of_range, name)
    elif not _is_int(src) and _is_int(dst):
        f = xs.astype("f8")
        if not np.all(np.isfinite(f)):
            raise CorruptChunkError(f"{name}: NaN or infinity cannot become {dst} (no "
                                    "scalar_map entry for it)")
        r = _ROUND[rounding](f)
        bits = dst.itemsize * 8 if dst.kind in "iu" else _iinfo(dst).bits
        signed = int(_iinfo(dst).min) < 0
        lo = r < (-(2.0 ** (bits - 1)) if signed else 0.0)
        hi = r >= (2.0 ** (bits - 1) if signed else 2.0 ** bits)
        if out_of_range == "wrap" and np.any(lo | hi):  # exact: Python ints
            r = np.array([int(v) for v in r], dtype=object)
        res = _out_of_range_ints(r, dst, lo, hi, out_of_range, name)
    else:  # a float target
        with np.errstate(over="ignore", invalid="ignore"):
            res = _to_float(xs, dst)
            back = res.astype(src) if not _is_int(src) else res.astype("f8")
        xf = xs.astype("f8") if _is_int(src) else xs
        info = _finfo(dst)
        finite_in = np.isfinite(xf.astype("f8"))
        finite_out = np.isfinite(res.astype("f8"))
        over = finite_in & ~finite_out
        if np.any(over):
            if out_of_range != "clamp":
                raise CorruptChunkError(f"{name}: a value beyond the range of {dst} (no "
                                        "out_of_range given)")
            big = np.array(np.inf if _has_inf(dst) else float(info.max)).astype(dst)
            res[over] = np.where(xf[over].astype("f8") > 0, big, -big)
        nan_in = ~finite_in & np.isnan(xf.astype("f8"))
        if np.any(nan_in) and not np.all(np.isnan(res[nan_in].astype("f8"))):
            raise CorruptChunkError(f"{name}: NaN cannot become {dst}")
        inf_in = ~finite_in & ~nan_in
        if np.any(inf_in) and not np.all(np.isinf(res[inf_in].astype("f8"))):
            raise CorruptChunkError(f"{name}: infinity cannot become {dst}")
        if rounding != "nearest-even":
            exact = ~finite_in | over | (back.astype("f8") == xf.astype("f8"))
            if _is_int(src):  # float64 does not compare ints above 2**53 exactly
                big = np.flatnonzero(~over & (~exact | (xs > 2**53) | (xs < -(2**53))))
                if dst.isbuiltin != 2:  # numpy's floats: rounded by the mode, in Python
                    for i in big:
                        res[i] = _round_int(int(xs[i]), res[i], rounding)
                    exact[big] = True
                else:
                    exact[big] = [int(float(r)) == int(v) for r, v in
                                  zip(res[big].astype("f8"), xs[big])]
            if not np.all(exact):
                raise UnsupportedError(f"{name}: rounding {rounding!r} to the float type "
                                       f"{dst} is not supported (only nearest-even is)")
    out[rest] = res
    return out


def _round_int(v: int, r0, rounding: str):
    """The integer ``v`` in the numpy float type of ``r0`` (its nearest value) by
    ``rounding``, exactly (Python ints; a float64 comparison is not exact above 2**53)."""
    from fractions import Fraction

    if not np.isfinite(r0):
        return r0
    x, r = Fraction(v), Fraction(float(r0))
    if r == x:
        return r0
    other = np.nextafter(r0, np.array(np.inf if r < x else -np.inf, r0.dtype))
    if not np.isfinite(other):
        return r0
    lo, hi = sorted((r0, other), key=float)
    if rounding == "towards-positive":
        return hi
    if rounding == "towards-negative":
        return lo
    if rounding == "towards-zero":
        return lo if v > 0 else hi
    dlo, dhi = x - Fraction(float(lo)), Fraction(float(hi)) - x
    if dlo != dhi:
        return lo if dlo < dhi else hi
    if rounding == "nearest-away":
        return hi if v > 0 else lo
    even = [c for c in (lo, hi) if not int(np.array(c).view(f"u{c.dtype.itemsize}")) & 1]
    return even[0]


def _round_to_odd(x: np.ndarray, exact: np.ndarray, wide: np.dtype) -> np.ndarray:
    """``x`` rounded to ``wide`` with the last bit set where inexact (round to odd), given
    ``x``'s nearest value ``exact`` ... see :func:`_to_float`."""
    r = exact
    over = np.abs(r.astype("f8")) > np.abs(x.astype("f8"))
    r = np.where(over, np.nextafter(r, np.zeros((), wide)), r).astype(wide)
    bits = r.view(f"u{wide.itemsize}")
    odd = bits | np.ones((), bits.dtype)
    return np.where(r.astype("f8") != x.astype("f8"), odd, bits).view(wide)


def _to_float(xs: np.ndarray, dst: np.dtype) -> np.ndarray:
    """``xs`` (numeric) as the float type ``dst``, rounded once to nearest-even.

    numpy casts to its own float types directly; ml_dtypes' types (bfloat16, float8...)
    are reached through float32 (and int64 through float64), which rounds twice
    (float64 ``1 + 2**-8 + 2**-30`` became bfloat16 1.0, not 1.0078125). Rounding to odd
    at each wider step first keeps the final nearest-even rounding exact (float32 has more
    than two bits beyond every ml_dtypes float's precision).
    """
    if dst.isbuiltin != 2 or xs.size == 0:  # numpy's own float types
        return xs.astype(dst)
    x = xs
    if _is_int(x.dtype):
        f = x.astype("f8")
        big = np.flatnonzero((x > 2**53) | (x < -(2**53))) if x.dtype.itemsize >= 8 else []
        for i in big:  # exact: Python ints
            v = int(x[i])
            g = float(v)
            if int(g) != v:
                g = np.nextafter(g, 0.0) if abs(int(g)) > abs(v) else g
                g = np.array(g).view("u8") | np.uint64(1)
                g = float(g.view("f8"))
            f[i] = g
        x = f
    if x.dtype.itemsize > 4:
        x = _round_to_odd(x, x.astype("f4"), np.dtype("f4"))
    return x.astype(dst)


def _has_inf(dtype: np.dtype) -> bool:
    with np.errstate(over="ignore"):
        return bool(np.isinf(np.array(np.inf).astype(dtype).astype("f8")))


def _from_ints(values: list, dst: np.dtype) -> np.ndarray:
    """Python ints (in range) as an array of ``dst`` (uint64 too; ml_dtypes' small ints)."""
    if dst.kind in "iu":
        return np.array(values, dtype=dst)
    return np.array(values, dtype=np.int64).astype(dst)


def _to_int(values: np.ndarray, dst: np.dtype) -> np.ndarray:
    """In-range integral ``values`` (ints, floats or Python ints) as ``dst``."""
    if values.dtype == object:
        return _from_ints([int(v) for v in values], dst)
    if values.dtype.kind == "f":
        wide = np.uint64 if dst.kind == "u" and dst.itemsize == 8 else np.int64
        return values.astype(wide).astype(dst)
    return values.astype(dst)


def _out_of_range_ints(values, dst, lo, hi, out_of_range, name):
    info = _iinfo(dst)
    lo, hi = np.asarray(lo, dtype=bool), np.asarray(hi, dtype=bool)
    bad = lo | hi
    if bad.any():
        if out_of_range is None:
            raise CorruptChunkError(f"{name}: a value beyond the range of {dst} (no "
                                    "out_of_range given)")
        if out_of_range == "wrap":
            bits = dst.itemsize * 8 if dst.kind in "iu" else info.bits
            half = 1 << (bits - 1) if int(info.min) < 0 else 0
            return _from_ints([((int(v) + half) % (1 << bits)) - half for v in values], dst)
    out = np.zeros(values.shape, dtype=dst)
    out[~bad] = _to_int(values[~bad], dst)
    out[lo] = np.array(int(info.min)).astype(dst)
    out[hi] = np.array(int(info.max)).astype(dst)
    return out


class CastValueCodec(ArrayToArrayCodec):
    """Convert elements to another numeric type (see the module docstring).

    Parameters
    ----------
    data_type : str or dict
        The v3 data type the chunk is stored as.
    rounding : str, default "nearest-even"
    out_of_range : {None, "clamp", "wrap"}
    scalar_map : dict, optional
        ``{"encode": [[in, out], ...], "decode": [[in, out], ...]}``.
    """

    name: ClassVar[str] = "cast_value"

    def __init__(self, data_type: Any, rounding: str = "nearest-even",
                 out_of_range: str | None = None, scalar_map: dict | None = None,
                 doc: str = "", field: str = "CastValueCodec") -> None:
        from zarrhpc.errors import MetadataError

        try:
            self.target = scalar_dtype(data_type, field_name(doc, field, "data_type"))
        except MetadataError as exc:
            raise CodecError(str(exc)) from None
        _numeric(self.target, "data_type", doc, field)
        self.data_type = data_type
        self.rounding = check_choice(rounding, ROUNDING, doc, field, "rounding")
        if out_of_range is not None:
            check_choice(out_of_range, ("clamp", "wrap"), doc, field, "out_of_range")
            if out_of_range == "wrap" and not _is_int(self.target):
                raise config_error(doc, field, "out_of_range", "'clamp' for a float data_type "
                                   "('wrap' is for integer types)", out_of_range)
        self.out_of_range = out_of_range
        smap = scalar_map or {}
        if not isinstance(smap, dict) or set(smap) - {"encode", "decode"} or not all(
                isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 for p in v)
                for v in smap.values()):
            raise config_error(doc, field, "scalar_map", "{'encode': [[in, out], ...], "
                               "'decode': [[in, out], ...]}", scalar_map)
        self.scalar_map = scalar_map
        self._doc, self._field = doc, field
        self._source: np.dtype | None = None

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from the README's configuration."""
        config = config_dict(configuration, doc, field,
                             {"data_type", "rounding", "out_of_range", "scalar_map"})
        if "data_type" not in config:
            raise CodecError(f"{field_name(doc, field, 'data_type')}: missing required key")
        return cls(config["data_type"], config.get("rounding", "nearest-even"),
                   config.get("out_of_range"), config.get("scalar_map"), doc, field)

    def to_json(self) -> dict:
        conf: dict = {"data_type": self.data_type, "rounding": self.rounding}
        if self.out_of_range is not None:
            conf["out_of_range"] = self.out_of_range
        if self.scalar_map is not None:
            conf["scalar_map"] = self.scalar_map
        return {"name": self.name, "configuration": conf}

    def _pairs(self, direction: str, src: np.dtype, dst: np.dtype):
        seen = []
        for i, (a, b) in enumerate((self.scalar_map or {}).get(direction, [])):
            where = f"scalar_map.{direction}[{i}]"
            seen.append((scalar(a, src, self._doc, f"{self._field}.configuration.{where}"),
                         scalar(b, dst, self._doc, f"{self._field}.configuration.{where}")))
        return seen

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        _numeric(spec.dtype, "the array's data type", doc, field)
        self._set("_doc", doc or self._doc)  # names the document in later errors
        self._set("_field", field)
        self._pairs("encode", spec.dtype, self.target)
        self._pairs("decode", self.target, spec.dtype)
        if spec.fill_value is not None:  # the README: it must survive the round trip
            try:
                enc = self._fill(spec)
                back = convert(enc.reshape(1), spec.dtype, self.rounding, self.out_of_range,
                               self._pairs("decode", self.target, spec.dtype))
            except ZarrhpcError as exc:
                raise CodecError(f"{field_name(doc, field)}: the fill value cannot be cast: "
                                 f"{exc}") from None
            if back.tobytes() != np.asarray(spec.fill_value, dtype=spec.dtype).tobytes():
                raise CodecError(f"{field_name(doc, field)}: the fill value "
                                 f"{spec.fill_value} does not survive the cast to "
                                 f"{self.target} and back ({back[0]})")

    def _fill(self, spec: ChunkSpec) -> np.ndarray:
        fill = np.asarray(spec.fill_value, dtype=spec.dtype).reshape(1)
        return convert(fill, self.target, self.rounding, self.out_of_range,
                       self._pairs("encode", spec.dtype, self.target)).reshape(())

    def evolve(self, spec: ChunkSpec) -> CastValueCodec:
        out = CastValueCodec(self.data_type, self.rounding, self.out_of_range,
                             self.scalar_map, self._doc, self._field)
        out._set("_source", spec.dtype)
        out._set("_enc", self._pairs("encode", spec.dtype, self.target))
        out._set("_dec", self._pairs("decode", self.target, spec.dtype))
        return out

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        fill = self._fill(spec) if spec.fill_value is not None else None
        return ChunkSpec(spec.shape, self.target.newbyteorder("=") if self.target.kind in "iuf"
                         else self.target, fill)

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        try:
            return convert(np.asarray(arr), self.target, self.rounding, self.out_of_range,
                           self._enc)
        except CorruptChunkError as exc:
            raise CodecError(str(exc)) from None

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        return convert(np.asarray(arr), self._source, self.rounding, self.out_of_range,
                       self._dec)


class ScaleOffsetCodec(ArrayToArrayCodec):
    """``(x - offset) * scale`` in the array's type (see the module docstring)."""

    name: ClassVar[str] = "scale_offset"

    def __init__(self, offset: Any = None, scale: Any = None) -> None:
        self.offset, self.scale = offset, scale
        self._off: np.ndarray | None = None
        self._mul: np.ndarray | None = None

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        config = config_dict(configuration, doc, field, {"offset", "scale"}, required=False)
        return cls(config.get("offset"), config.get("scale"))

    def to_json(self) -> dict:
        conf = {k: v for k, v in (("offset", self.offset), ("scale", self.scale))
                if v is not None}
        return {"name": self.name, "configuration": conf}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        _numeric(spec.dtype, "the array's data type", doc, field)
        for key in ("offset", "scale"):
            if getattr(self, key) is not None:
                scalar(getattr(self, key), spec.dtype, doc, f"{field}.configuration.{key}")
        if self.scale is not None and float(scalar(self.scale, spec.dtype, doc, field)) == 0:
            raise config_error(doc, field, "scale", "a non-zero number", self.scale)

    def evolve(self, spec: ChunkSpec) -> ScaleOffsetCodec:
        out = ScaleOffsetCodec(self.offset, self.scale)
        out._set("_off", scalar(self.offset if self.offset is not None else 0, spec.dtype, "",
                                "offset"))
        out._set("_mul", scalar(self.scale if self.scale is not None else 1, spec.dtype, "",
                                "scale"))
        return out

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        if spec.fill_value is None or self._off is None:
            return spec
        fill = self._encode(np.asarray(spec.fill_value, dtype=spec.dtype).reshape(1), CodecError)
        return ChunkSpec(spec.shape, spec.dtype, fill.reshape(()))

    def _ints(self, x: np.ndarray, op, error):
        vals = [op(int(v)) for v in x.reshape(-1)]
        info = _iinfo(x.dtype)
        if any(v is None or not int(info.min) <= v <= int(info.max) for v in vals):
            raise error(f"{self.name}: a value is not representable in {x.dtype}")
        return _from_ints(vals, x.dtype).reshape(x.shape)

    def _encode(self, x: np.ndarray, error=CodecError) -> np.ndarray:
        if _is_int(x.dtype):
            off, mul = int(self._off), int(self._mul)
            return self._ints(x, lambda v: (v - off) * mul, error)
        return ((x - self._off) * self._mul).astype(x.dtype)

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        return self._encode(np.asarray(arr))

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        x = np.asarray(arr)
        if _is_int(x.dtype):
            off, mul = int(self._off), int(self._mul)
            return self._ints(x, lambda v: v // mul + off if v % mul == 0 else None,
                              CorruptChunkError)
        return (x / self._mul + self._off).astype(x.dtype)
