"""Every numcodecs codec by its v3 name ``numcodecs.<id>`` and its v2 id, run through numcodecs.

Spec card
---------
- What: any codec numcodecs registers (``numcodecs.registry.codec_registry``, including
  those added by other packages through numcodecs' entry points): array->array filters
  ``delta``, ``fixedscaleoffset``, ``quantize``, ``astype``, ``packbits``, ``categorize``,
  ``bitround``; array->bytes ``pcodec``, ``zfpy`` and the object codecs ``json2``,
  ``msgpack2`` (zarr-python 2's object arrays); bytes->bytes everything else
  (``shuffle``, ``lz4``, ``bz2``, ``lzma``, ``crc32``, ``adler32``, ``fletcher32``,
  ``jenkins_lookup3``, ...). The codecs zarrhpc runs itself (gzip, zstd, blosc, zlib,
  crc32c) answer their ``numcodecs.<id>`` names with their own classes (registry).
- Spec: numcodecs' codec documentation; v3 names as zarr-python 3
  (``zarr.codecs.numcodecs``) writes them: ``{"name": "numcodecs.delta",
  "configuration": {"dtype": "<f8"}}``; the kind of each id is the one zarr-python gives it.
- v2 ids: the part after ``numcodecs.`` (``{"id": "delta", "dtype": "<f8"}``).
- Semantics: a v2 filter sees the chunk flattened in its stored order (C, or F for
  ``order: "F"``, which the chain expresses as a transpose before the filter), converted
  to the filter's ``dtype`` with its byte order; the filter's output goes to the ``bytes``
  codec (whose ``endian`` is that output's byte order) and then the compressor, so the
  bytes are those zarr-python 2 writes. A bytes->bytes id used as a v2 *filter*
  (``shuffle``) runs as an array->array step on the chunk's bytes (the pipeline asks
  :func:`numcodecs_class` for that form).
- Classes are made on first use, one per (id, kind), and registered under
  ``numcodecs.<id>`` (the bytes->bytes or array->array kind zarr-python uses).
- Not installed: an id numcodecs does not know gives a :class:`~zarrhpc.errors.CodecError`
  naming the codec, the metadata key and the package to install (:data:`PACKAGES`).
- GIL: whatever numcodecs does (lz4, bz2, zstd, blosc release it); these codecs are rare,
  so the common ones (gzip, zlib, zstd, blosc, crc32c) have their own GIL-free classes.
"""

from __future__ import annotations

import copy
import math
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ArrayToBytesCodec,
    BytesToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError, ZarrhpcError

__all__ = ["PACKAGES", "ZARR_NAMES", "adopt_class", "NumcodecsArrayBytesCodec", "NumcodecsBytesCodec", "NumcodecsCodec",
           "NumcodecsFilterCodec", "NumcodecsObjectCodec", "numcodecs_class", "numcodecs_codec_classes"]

FILTER_IDS = ("delta", "fixedscaleoffset", "quantize", "astype", "packbits", "categorize",
              "bitround")
ARRAY_BYTES_IDS = ("pcodec", "zfpy")
#: object codecs zarr-python 2 wrote as an ``|O`` array's first filter, besides the vlen
#: ones (codecs/vlen.py): each element any JSON / msgpack value. ``pickle`` is left out
#: (numcodecs refuses to decode it unless told to trust the data).
OBJECT_IDS = ("json2", "msgpack2")
#: the member zarr-python's wrapper fills from the array's type when it is not given
#: (its evolve_from_array_spec): a codec left without it waits for evolve
FILLED_BY_EVOLVE = {"fixedscaleoffset": "dtype", "quantize": "dtype", "astype": "decode_dtype",
                    "shuffle": "elementsize"}
#: the checksum codecs: 4 bytes appended (zarr-python's _NumcodecsChecksumCodec)
CHECKSUM_IDS = ("crc32", "crc32c", "adler32", "fletcher32", "jenkins_lookup3")
COMPRESSOR_IDS = ("lz4", "bz2", "lzma", "crc32", "adler32", "fletcher32", "jenkins_lookup3",
                  "shuffle")
#: the ``numcodecs.<id>`` codecs zarr-python 3.1 reads in v3 (zarr.codecs.numcodecs)
ZARR_PYTHON_V3 = frozenset({
    "adler32", "astype", "bz2", "bitround", "blosc", "crc32", "crc32c", "delta",
    "fixedscaleoffset", "fletcher32", "gzip", "jenkins_lookup3", "lz4", "lzma", "pcodec",
    "packbits", "quantize", "shuffle", "zfpy", "zlib", "zstd"})
#: zarr.codecs.numcodecs' class names for the ids (the reprs, zarrhpc.codecs.numcodecs)
ZARR_NAMES = {
    "bz2": "BZ2", "lzma": "LZMA", "lz4": "LZ4", "zlib": "Zlib", "gzip": "GZip",
    "blosc": "Blosc", "zstd": "Zstd", "crc32": "CRC32", "crc32c": "CRC32C",
    "adler32": "Adler32", "fletcher32": "Fletcher32", "jenkins_lookup3": "JenkinsLookup3",
    "pcodec": "PCodec", "zfpy": "ZFPY", "astype": "AsType", "bitround": "BitRound",
    "fixedscaleoffset": "FixedScaleOffset", "packbits": "PackBits", "quantize": "Quantize",
    "shuffle": "Shuffle", "delta": "Delta",
}
#: imagecodecs' numcodecs codecs (``imagecodecs.numcodecs``; numcodecs knows them once
#: ``imagecodecs.numcodecs.register_codecs()`` ran, which :func:`_build` does on first use).
#: The filters run on the chunk array in its type; every other one is handed the chunk
#: array as zarr-python 2 hands its compressor (image codecs need its shape), so it is an
#: array->bytes codec here whichever kind of data it compresses.
IMAGECODECS_FILTER_IDS = tuple(f"imagecodecs_{n}" for n in (
    "bfloat16", "bitorder", "bitshuffle", "byteshuffle", "delta", "float24", "floatpred",
    "packints", "quantize", "xor"))
IMAGECODECS_IDS = tuple(f"imagecodecs_{n}" for n in (
    "aec", "apng", "avif", "blosc", "blosc2", "bmp", "brotli", "bz2", "ccittfax3",
    "ccittfax4", "ccittrle", "checksum", "cms", "dds", "deflate", "dicomrle", "eer", "gif",
    "heif", "htj2k", "jetraw", "jpeg", "jpeg2k", "jpegls", "jpegxl", "jpegxr", "jpegxs",
    "lerc", "ljpeg", "lz4", "lz4f", "lz4h5", "lzf", "lzfse", "lzham", "lzma", "lzo",
    "lzw", "meshopt", "packbits", "pcodec", "pglz", "pixarlog", "png", "qoi", "rcomp", "rgbe",
    "snappy", "sperr", "spng", "sz3", "szip", "tiff", "ultrahdr", "webp", "zfp", "zlib",
    "zlibng", "zopfli", "zstd"))
#: ids zarrita.js reads as bare v3 names (numcodecs' configuration): ``lz4``, ``json2``
BARE_V3_IDS = frozenset({"lz4", "json2"})
#: imagecodecs filters whose output element differs from their input's: its bytes
_IMAGECODECS_OUT = {"imagecodecs_bfloat16": np.dtype("u2"), "imagecodecs_float24": np.dtype("V3")}
#: ids whose registered class is zarrhpc's own (codecs/zfp.py: numcodecs' ZFPY cannot
#: encode zfpy's reversible mode, which zarrs writes)
OWN_CLASS_IDS = ("zfpy",)
#: where an id numcodecs lacks comes from (``pip install <package>``)
PACKAGES = {"pcodec": "pcodec", "zfpy": "zfpy", "lz4": "numcodecs[lz4] (lz4)",
            "msgpack2": "msgpack", "vlen-utf8": "numcodecs", "vlen-bytes": "numcodecs"}
_IN_DTYPE = {"delta": "dtype", "fixedscaleoffset": "dtype", "quantize": "dtype",
             "astype": "decode_dtype", "categorize": "dtype"}
_OUT_DTYPE = {"delta": ("astype", "dtype"), "fixedscaleoffset": ("astype", "dtype"),
              "quantize": ("astype", "dtype"), "astype": ("encode_dtype",),
              "categorize": ("astype",)}


def _package(codec_id: str) -> str:
    if codec_id.startswith("imagecodecs_"):
        return "imagecodecs (pip install imagecodecs)"
    return PACKAGES.get(codec_id, "the package that provides it")


def _gdal_lzma(conf: dict):
    """GDAL's ``lzma`` form ``{"preset": p, "delta": d}``: an xz stream through a byte
    delta filter of distance ``d``, then LZMA2 at preset ``p`` (numcodecs takes no
    ``delta``; the xz stream names its filters, so any xz decoder reads it)."""
    import lzma

    import numcodecs

    delta, preset = int(conf["delta"]), int(conf.get("preset", 6))
    return numcodecs.get_codec({"id": "lzma", "format": lzma.FORMAT_XZ, "filters": [
        {"id": lzma.FILTER_DELTA, "dist": delta}, {"id": lzma.FILTER_LZMA2, "preset": preset}]})


def _build(codec_id: str, config: dict | None, doc: str, field: str):
    import numcodecs
    from numcodecs.registry import codec_registry

    conf = dict(config or {})
    conf.pop("id", None)
    if codec_id not in codec_registry and codec_id.startswith("imagecodecs_"):
        try:  # imagecodecs registers its numcodecs codecs only when asked
            from imagecodecs.numcodecs import register_codecs

            register_codecs()
        except ImportError:
            pass
    if codec_id not in codec_registry:
        raise CodecError(
            f"{field_name(doc, field)}: codec numcodecs.{codec_id} (numcodecs id "
            f"{codec_id!r}) is not available: numcodecs {numcodecs.__version__} does not "
            f"know it; install {_package(codec_id)}"
        )
    try:
        if codec_id == "lzma" and "delta" in conf:
            return _gdal_lzma(conf), conf
        return numcodecs.get_codec({"id": codec_id, **conf}), conf
    except (TypeError, ValueError, KeyError, ImportError) as exc:
        raise CodecError(
            f"{field_name(doc, field)}: numcodecs.{codec_id}: bad configuration {conf!r}: {exc}"
        ) from None


class NumcodecsCodec:
    """What every numcodecs-backed codec class shares (mixed into a kind's base class)."""

    codec_id: ClassVar[str]

    def __init__(self, configuration: dict | None = None, doc: str = "", field: str = "codec"):
        key = FILLED_BY_EVOLVE.get(self.codec_id)
        if key is not None and (configuration or {}).get(key) is None:
            # left to the array's type, as zarr-python's wrappers leave it (evolve fills it
            # and builds the numcodecs codec then)
            self._codec = None
            self.configuration = {k: v for k, v in (configuration or {}).items() if k != "id"}
            return
        self._codec, self.configuration = _build(self.codec_id, configuration, doc, field)

    def _filled(self, spec: ChunkSpec):
        """This codec with what it left to the array's type filled from ``spec`` (what
        zarr-python's ``evolve_from_array_spec`` writes: ``str(dtype)``, the itemsize)."""
        key = FILLED_BY_EVOLVE.get(self.codec_id)
        if key is None or self.configuration.get(key) is not None:
            return self
        value = int(spec.dtype.itemsize) if key == "elementsize" else str(spec.dtype)
        return type(self)({**self.configuration, key: value})

    def _bound_to(self, spec: ChunkSpec):
        """This codec with what depends on the chunk's element type filled in: a copy,
        or ``self`` when nothing does.

        ``shuffle`` with ``elementsize: 0`` is libnetcdf's form (its NCZarr writer records
        0 and shuffles by the variable's type size, as HDF5's shuffle filter does);
        numcodecs would take 0 as "no shuffle" and hand out scrambled values, so the
        element size of the type reaching the codec is used. The configuration (and so
        the metadata written back) keeps the 0.
        """
        if self.codec_id != "shuffle" or self.configuration.get("elementsize") != 0:
            return self
        import numcodecs

        out = copy.copy(self)
        out._set("_codec", numcodecs.Shuffle(elementsize=max(int(spec.dtype.itemsize), 1)))
        return out

    @property
    def codec_name(self) -> str:
        """The v3 name ``numcodecs.<id>`` (zarr-python's field)."""
        return self.name

    @property
    def codec_config(self) -> dict:
        """numcodecs' configuration with its ``id`` (zarr-python's field)."""
        return {"id": self.codec_id, **self.configuration}

    def _hash_fields(self) -> tuple:
        return (self.codec_name, repr(self.codec_config))

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """Four bytes more for the checksums (as zarr-python's); not fixed otherwise."""
        if self.codec_id in CHECKSUM_IDS:
            return input_byte_length + 4
        raise NotImplementedError

    def __repr__(self) -> str:
        """As zarr-python shows its ``zarr.codecs.numcodecs`` classes."""
        name = ZARR_NAMES.get(self.codec_id, type(self).__name__)
        conf = self.to_json().get("configuration", {})
        return f"{name}(codec_name={self.name!r}, codec_config={conf!r})"

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from the numcodecs configuration (the v2 dict without ``id``)."""
        return cls(configuration, doc, field)

    @classmethod
    def v2_out_dtype(cls, conf: dict, dtype: np.dtype) -> np.dtype:
        if cls.codec_id == "packbits":
            return np.dtype("u1")
        for key in _OUT_DTYPE.get(cls.codec_id, ()):
            if conf.get(key) is not None:
                try:
                    return np.dtype(conf[key])
                except TypeError:
                    return dtype
        return dtype

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": dict(self.configuration)}

    def to_v2(self) -> dict:
        """The v2 ``{"id": ..., ...}`` form."""
        return {"id": self.codec_id, **self.configuration}


_NumcodecsBase = NumcodecsCodec


class NumcodecsFilterCodec(_NumcodecsBase, ArrayToArrayCodec):
    """A numcodecs filter as an array->array codec (one subclass per id).

    numcodecs filters see a flat buffer ``view``-ed as their ``dtype``. When the chunk
    reaching the filter has that type (in any byte order) its values are converted, which
    is what v2 did with the chunk in its stored type; when it has another type (a filter
    after one that changed the type), its bytes are reinterpreted, as numcodecs does.
    """

    _in_spec: ChunkSpec | None = None

    def _dtype(self, key: str | None, default: np.dtype) -> np.dtype:
        value = self.configuration.get(key) if key else None
        return np.dtype(value) if value is not None else default

    def _in_dtype(self, spec_dtype: np.dtype) -> np.dtype:
        if self.codec_id == "packbits":
            return np.dtype(bool)
        return self._dtype(_IN_DTYPE.get(self.codec_id), spec_dtype)

    def _out_dtype(self, spec_dtype: np.dtype) -> np.dtype:
        if self.codec_id == "packbits":
            return np.dtype("u1")
        if self.codec_id in _IMAGECODECS_OUT:
            return _IMAGECODECS_OUT[self.codec_id]
        for key in _OUT_DTYPE.get(self.codec_id, ()):
            if self.configuration.get(key) is not None:
                return np.dtype(self.configuration[key])
        return self._in_dtype(spec_dtype)

    @staticmethod
    def _same_type(a: np.dtype, b: np.dtype) -> bool:
        return a.kind == b.kind and a.itemsize == b.itemsize or (
            a.kind in "OU" and b.kind == "U")

    def _in_shape(self, spec: ChunkSpec) -> tuple[int, ...]:
        want = self._in_dtype(spec.dtype)
        if self._same_type(want, spec.dtype):
            return spec.shape
        return (spec.nbytes // want.itemsize,)  # reinterpreted: flat

    def evolve(self, spec: ChunkSpec) -> NumcodecsFilterCodec:
        """Bind the chunk spec this filter sees (needed to undo flattening filters)."""
        out = type(self)(self._filled(spec).configuration)._bound_to(spec)
        out._set("_in_spec", spec)
        return out

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        want = self._in_dtype(spec.dtype)
        if not self._same_type(want, spec.dtype) and spec.nbytes % max(want.itemsize, 1):
            raise CodecError(
                f"{field_name(doc, field)}: {self.name} reads the chunk as {want}, but the "
                f"{spec.nbytes} bytes reaching it ({spec.dtype}) are no whole number of those"
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        out = self._out_dtype(spec.dtype)
        shape = self._in_shape(spec)
        if self.codec_id == "packbits":
            shape = (1 + math.ceil(math.prod(shape) / 8),)
        return ChunkSpec(shape, out.newbyteorder("=") if out.kind not in "SV" else out)

    def _check_decodable(self, data: np.ndarray) -> None:
        """imagecodecs' delta and xor without ``shape`` and ``dtype`` encode the chunk's
        elements along its last axis but decode its bytes as one row of uint8: what they
        write reads back wrong (zarr-python writes it all the same; stores it wrote are
        read as it reads them). Refused unless that is the same thing."""
        if self.codec_id not in ("imagecodecs_delta", "imagecodecs_xor"):
            return
        conf = self.configuration
        if conf.get("shape") is None and conf.get("dtype") is None and (
                data.dtype.itemsize > 1 or data.ndim > 1):
            raise CodecError(
                f"{self.codec_id} with shape and dtype null decodes bytes, not the chunk's "
                f"{data.dtype} elements along its last axis: chunks so written read back "
                f"wrong (in zarr-python too); give them: {{\"shape\": {list(data.shape)}, "
                f"\"dtype\": \"{data.dtype.str}\"}}")

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        """Run the filter on the chunk flattened in C order of ``arr`` (a new array)."""
        want = self._in_dtype(arr.dtype)
        if self._same_type(want, arr.dtype):
            data = np.ascontiguousarray(arr, dtype=want)
            shape = arr.shape
        else:
            data = np.ascontiguousarray(arr).reshape(-1).view(want)
            shape = data.shape
        self._check_decodable(data)
        out = self._codec.encode(data)
        if self.codec_id.startswith("imagecodecs_"):  # bytes or an array: its bytes
            raw = np.ascontiguousarray(out).reshape(-1).view(np.uint8) \
                if isinstance(out, np.ndarray) else np.frombuffer(out, dtype=np.uint8)
            return raw.view(self._out_dtype(arr.dtype)).reshape(shape)
        out = np.asarray(out)
        if self.codec_id == "packbits":
            return out
        want_out = self._out_dtype(arr.dtype)
        if out.dtype.itemsize != want_out.itemsize and out.nbytes == data.nbytes:
            # a byte-level codec (shuffle) used as a filter: its bytes, as the filter's type
            out = np.ascontiguousarray(out).reshape(-1).view(want_out)
        return out.reshape(shape)

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        """Undo the filter; the result has the shape and type of the chunk it was given."""
        spec = self._in_spec
        if spec is not None and self.codec_id.startswith("imagecodecs_"):
            return self._decode_bytes(arr, spec)
        try:
            data = np.ascontiguousarray(arr, dtype=self._out_dtype(arr.dtype))
            out = np.asarray(self._codec.decode(data))
            if spec is None:
                return out.reshape(arr.shape)
            if out.dtype.itemsize != spec.dtype.itemsize and out.nbytes == spec.nbytes:
                return np.ascontiguousarray(out).reshape(-1).view(spec.dtype).reshape(spec.shape)
            if self._same_type(self._in_dtype(spec.dtype), spec.dtype):
                return out.reshape(spec.shape)
            return np.ascontiguousarray(out).reshape(-1).view(spec.dtype).reshape(spec.shape)
        except (ValueError, TypeError) as exc:
            raise CorruptChunkError(f"{self.name}: cannot decode: {exc}") from None


    def _decode_bytes(self, arr: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        """imagecodecs' filters are given the decompressed chunk as flat bytes, as
        zarr-python (2 and 3) gives them on reading; their output is the chunk's bytes."""
        try:
            out = self._codec.decode(np.ascontiguousarray(arr).tobytes())
        except Exception as exc:  # the codec library's own errors
            raise CorruptChunkError(f"{self.name}: cannot decode: {exc}") from None
        out = np.ascontiguousarray(out) if isinstance(out, np.ndarray) else \
            np.frombuffer(out, dtype=np.uint8)
        if out.nbytes != spec.nbytes:
            raise CorruptChunkError(f"{self.name}: decoded {out.nbytes} bytes, expected "
                                    f"{spec.nbytes}")
        return out.reshape(-1).view(np.uint8).view(spec.dtype).reshape(spec.shape)


class NumcodecsBytesCodec(_NumcodecsBase, BytesToBytesCodec):
    """A numcodecs compressor or checksum as a bytes->bytes codec (one subclass per id)."""

    evolve_on_read: ClassVar[bool] = True

    def evolve(self, spec: ChunkSpec) -> NumcodecsBytesCodec:
        """Bind the element type reaching the serializer (``spec``), see :meth:`_bound_to`."""
        return self._filled(spec)._bound_to(spec)

    def encode(self, buf: Any) -> Any:
        return self._codec.encode(np.frombuffer(as_bytes_view(buf), dtype=np.uint8))

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        try:
            out = _bounded_decode(self._codec, bytes(as_bytes_view(buf)), decoded_size)
        except ZarrhpcError:
            raise
        except Exception as exc:  # lzma.LZMAError, zlib.error, ...: whatever the library raises
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        if decoded_size is not None and memoryview(out).nbytes != decoded_size:
            raise CorruptChunkError(
                f"{self.name}: expected {decoded_size} decoded bytes, got {memoryview(out).nbytes}"
            )
        return out


class NumcodecsArrayBytesCodec(_NumcodecsBase, ArrayToBytesCodec):
    """A numcodecs codec that serialises the chunk array itself (pcodec, zfpy)."""

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        shape = self.configuration.get("shape")
        if isinstance(shape, (list, tuple)) and tuple(shape) != arr.shape and (
                tuple(shape)[::-1] == arr.shape):
            # an order-"F" v2 array hands codecs its chunks transposed. zarr-python hands
            # this codec (imagecodecs' meshopt, rcomp...) the chunk in its shape and reads
            # what it wrote back transposed; reads here do as zarr-python's, so a write
            # would come back wrong: refused
            raise CodecError(
                f"{self.codec_id} is configured for chunks of shape {tuple(shape)} and "
                f"takes them in that shape, which an order='F' v2 array cannot give it "
                "(zarr-python writes such chunks and reads them back transposed): use "
                "order='C' with this codec")
        out = self._codec.encode(np.ascontiguousarray(arr))
        return out.tobytes() if isinstance(out, np.ndarray) else out

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        try:
            out = self._codec.decode(bytes(as_bytes_view(buf)))
        except Exception as exc:  # the codec library's own errors (imagecodecs: PngError...)
            raise CorruptChunkError(f"{self.name}: {type(exc).__name__}: {exc}") from None
        # an array (zfpy, pcodec, image codecs) or the chunk's bytes (byte compressors)
        out = out if isinstance(out, np.ndarray) else np.frombuffer(out, dtype=np.uint8)
        if out.nbytes != spec.nbytes:
            raise CorruptChunkError(
                f"{self.name}: expected {spec.nbytes} decoded bytes, got {out.nbytes}")
        if out.dtype != spec.dtype:
            out = np.ascontiguousarray(out).reshape(-1).view(spec.dtype)
        return out.reshape(spec.shape)


class NumcodecsObjectCodec(_NumcodecsBase, ArrayToBytesCodec):
    """A numcodecs object codec (json2, msgpack2) serialising an object chunk: the elements
    in C order, as zarr-python 2 wrote them; decoded chunks are object arrays, as zarr 2.x
    read them (zarr-python 3 does not read these codecs)."""

    object_type: ClassVar[str] = "object"

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        flat = np.ascontiguousarray(arr, dtype=object).reshape(-1)
        return self._codec.encode(flat)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        n = math.prod(spec.shape)
        try:
            out = np.asarray(self._codec.decode(bytes(as_bytes_view(buf))), dtype=object)
        except Exception as exc:  # json/msgpack decoder errors: whatever the library raises
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        if out.size != n:
            raise CorruptChunkError(f"{self.name}: {out.size} items, expected {n}")
        return out.reshape(spec.shape)


_BASES = {"array_to_array": NumcodecsFilterCodec, "array_to_bytes": NumcodecsArrayBytesCodec,
          "bytes_to_bytes": NumcodecsBytesCodec, "object": NumcodecsObjectCodec}
_CLASSES: dict[tuple[str, str], type] = {}


def default_kind(codec_id: str) -> str:
    """The kind zarr-python gives ``numcodecs.<codec_id>`` (bytes->bytes when unlisted)."""
    if codec_id in FILTER_IDS or codec_id in IMAGECODECS_FILTER_IDS:
        return "array_to_array"
    if codec_id in ARRAY_BYTES_IDS or codec_id.startswith("imagecodecs_"):
        return "array_to_bytes"
    if codec_id in OBJECT_IDS:
        return "object"
    return "bytes_to_bytes"


def numcodecs_class(codec_id: str, kind: str | None = None) -> type:
    """The codec class running numcodecs' ``codec_id`` as a ``kind`` codec (made once).

    Parameters
    ----------
    codec_id : str
        A numcodecs id (need not be installed: using the class then fails clearly).
    kind : str, optional
        ``"array_to_array"``, ``"array_to_bytes"`` or ``"bytes_to_bytes"``; default: the
        kind zarr-python gives it.
    """
    kind = kind or default_kind(codec_id)
    cls = _CLASSES.get((codec_id, kind))
    if cls is None:
        name = "".join(p.capitalize() for p in codec_id.replace("-", "_").split("_"))
        suffix = "" if kind == default_kind(codec_id) else "Filter"
        cls = type(f"Numcodecs{name}{suffix}Codec", (_BASES[kind],), {
            "name": f"numcodecs.{codec_id}", "codec_id": codec_id, "v2_id": codec_id,
            "aliases": (codec_id,) if codec_id in BARE_V3_IDS and not suffix else (),
            "zarr_python_v3": codec_id in ZARR_PYTHON_V3,
            "__doc__": f"numcodecs ``{codec_id}`` as the v3 codec ``numcodecs.{codec_id}``.",
            "__module__": __name__,
        })
        _CLASSES[(codec_id, kind)] = cls
    return cls


def adopt_class(codec_id: str, cls: type) -> None:
    """Make ``cls`` (a subclass of ``numcodecs_class(codec_id)``: zarr-python's class of
    that name, :mod:`zarrhpc.codecs.numcodecs`) the class the registry runs the id with,
    so arrays read show the class users build."""
    _CLASSES[(codec_id, default_kind(codec_id))] = cls


def numcodecs_codec_classes() -> list[type]:
    """The classes of the ids zarr-python 3 names, to register up front (others on use)."""
    return [numcodecs_class(cid) for cid in (*FILTER_IDS, *ARRAY_BYTES_IDS, *COMPRESSOR_IDS,
                                             *OBJECT_IDS, *IMAGECODECS_FILTER_IDS,
                                             *IMAGECODECS_IDS) if cid not in OWN_CLASS_IDS]


def _bounded_decode(codec: Any, data: bytes, decoded_size: int | None) -> Any:
    """``codec.decode(data)``, never producing more than ``decoded_size`` bytes for the
    decompressors whose numcodecs decode is otherwise unbounded (lzma, bz2): a stream
    that decodes to more than its chunk (a decompression bomb) is refused early."""
    cid = getattr(codec, "codec_id", None)
    if decoded_size is None or cid not in ("lzma", "bz2"):
        return codec.decode(data)
    if cid == "bz2":
        import bz2

        d: Any = bz2.BZ2Decompressor()
    else:
        import lzma

        fmt = getattr(codec, "format", lzma.FORMAT_AUTO)
        if fmt == lzma.FORMAT_RAW:
            d = lzma.LZMADecompressor(format=fmt, filters=getattr(codec, "filters", None))
        else:
            d = lzma.LZMADecompressor(format=lzma.FORMAT_AUTO)
    out = d.decompress(data, max_length=decoded_size + 1)
    if len(out) > decoded_size:
        raise CorruptChunkError(f"{cid}: the stream decodes to more than the {decoded_size} "
                                f"bytes of a chunk (a decompression bomb?)")
    return out
