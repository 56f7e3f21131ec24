"""Zarr codecs: the registry, the codec chain, and one module per codec.

- :mod:`~zarrhpc.codecs.abc`: :class:`ChunkSpec`, the codec base classes, :func:`swap_size`.
- :mod:`~zarrhpc.codecs.registry`: names to classes; parsing of one ``codecs`` entry.
- :mod:`~zarrhpc.codecs.pipeline`: :class:`CodecPipeline` (decode/encode one chunk) and
  :func:`default_codecs`.
- one module per codec, each opening with its spec card: ``bytes``, ``transpose``,
  ``gzip``, ``zstd``, ``blosc``, ``crc32c``, ``sharding_indexed``, ``vlen-utf8``,
  ``vlen-bytes`` (``vlen``), zarrs' ``zarrs.vlen``/``zarrs.vlen_v2`` (``vlen_zarrs``) and
  ``zarrs.squeeze`` (``squeeze``), ``zfp``/``numcodecs.zfpy`` (``zfp``), ``reshape``,
  ``cast_value``/``scale_offset`` (``cast_value``), N5 blocks ``n5_default`` and N5's lz4
  (``n5``), and every other numcodecs codec (``numcodecs_adapter``).

A new codec plugs in by subclassing one of the base classes and calling
:func:`register_codec`; the pipeline needs no change.

Public names are zarr-python's (``zarr.codecs``): the v3 codecs ``BloscCodec``,
``ZstdCodec``, ``GzipCodec``, ``BytesCodec``, ``TransposeCodec``, ``Crc32cCodec``,
``ShardingCodec``, ``VLenUTF8Codec``, ``VLenBytesCodec`` with zarr-python's attribute
types (enums) and frozen objects, and the numcodecs wrappers ``Blosc``, ``Zstd``,
``Delta``, ``BZ2``... (v3 names ``numcodecs.<id>``, :mod:`zarrhpc.codecs.numcodecs`).
``Bytes``, ``Transpose``, ``Gzip``, ``Crc32c`` and ``Sharding`` are short names of the
v3 codecs (``Blosc`` and ``Zstd`` are zarr-python's numcodecs wrappers, not short names).
tests/codecs/test_zarr_python_classes.py compares every class and attribute with
zarr-python's.
"""

from zarrhpc.codec_forms import register_defaults
from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ArrayToBytesCodec,
    BytesToBytesCodec,
    ChunkSpec,
    Codec,
    component_size,
    swap_size,
)
from zarrhpc.codecs.bitround import BitroundCodec
from zarrhpc.codecs.blosc import BloscCname, BloscCodec, BloscShuffle
from zarrhpc.codecs.bytes import BytesCodec, Endian
from zarrhpc.codecs.cast_value import CastValueCodec, ScaleOffsetCodec
from zarrhpc.codecs.crc32c import Crc32cCodec
from zarrhpc.codecs.gdeflate import GDeflateCodec
from zarrhpc.codecs.gzip import GzipCodec
from zarrhpc.codecs.n5 import N5DefaultCodec, N5Lz4Codec
from zarrhpc.codecs.numcodecs import (
    BZ2,
    CRC32,
    CRC32C,
    LZ4,
    LZMA,
    ZFPY,
    Adler32,
    AsType,
    BitRound,
    Blosc,
    Delta,
    FixedScaleOffset,
    Fletcher32,
    GZip,
    JenkinsLookup3,
    PackBits,
    PCodec,
    Quantize,
    Shuffle,
    Zlib,
    Zstd,
)
from zarrhpc.codecs.numcodecs_adapter import numcodecs_codec_classes
from zarrhpc.codecs.optional import OptionalCodec
from zarrhpc.codecs.packbits import PackBitsCodec
from zarrhpc.codecs.pipeline import (
    CodecPipeline,
    default_codecs,
    default_compressors,
    default_filters,
    default_serializer,
)
from zarrhpc.codecs.registry import (
    get_codec_class,
    parse_codec,
    register_codec,
    registered_names,
)
from zarrhpc.codecs.reshape import ReshapeCodec
from zarrhpc.codecs.sharding import ShardingCodec, ShardingCodecIndexLocation
from zarrhpc.codecs.squeeze import SqueezeCodec
from zarrhpc.codecs.transpose import TransposeCodec
from zarrhpc.codecs.vlen import (
    VLenArrayCodec,
    VLenBytesCodec,
    VLenUTF8Codec,
    ZarrsVlenV2Codec,
)
from zarrhpc.codecs.vlen_zarrs import ZarrsVlenCodec
from zarrhpc.codecs.zfp import ZfpCodec, ZfpyCodec
from zarrhpc.codecs.zlib import ZlibCodec
from zarrhpc.codecs.zstd import ZstdCodec

# zarr.codecs' numcodecs wrappers (``Blosc`` is numcodecs' blosc, v3 name numcodecs.blosc,
# as in zarr-python) are imported above, before this registration: the registry runs each
# id with them (numcodecs_adapter.adopt_class), so arrays read show the classes users build
for _cls in (BytesCodec, TransposeCodec, GzipCodec, ZstdCodec, BloscCodec, Crc32cCodec,
             ZlibCodec, ShardingCodec, VLenUTF8Codec, VLenBytesCodec, VLenArrayCodec,
             PackBitsCodec, BitroundCodec, SqueezeCodec, ZarrsVlenCodec, ZarrsVlenV2Codec,
             ZfpCodec, ZfpyCodec, N5DefaultCodec, N5Lz4Codec, ReshapeCodec, CastValueCodec,
             ScaleOffsetCodec, OptionalCodec, GDeflateCodec, *numcodecs_codec_classes()):
    register_codec(_cls)
del _cls


def _default_chain(dtype) -> list:
    return [c.to_json() for c in (default_serializer(dtype), *default_compressors(dtype))]


register_defaults(_default_chain)

# short names for users (DESIGN.md section 1); Blosc and Zstd are zarr-python's numcodecs
# wrappers above (the v3 codecs are BloscCodec and ZstdCodec there and here)
Bytes = BytesCodec
Transpose = TransposeCodec
Gzip = GzipCodec
Crc32c = Crc32cCodec
Sharding = ShardingCodec
VLenUTF8 = VLenUTF8Codec
VLenBytes = VLenBytesCodec

__all__ = [
    "BZ2",
    "CRC32",
    "CRC32C",
    "LZ4",
    "LZMA",
    "ZFPY",
    "Adler32",
    "AsType",
    "BitRound",
    "Delta",
    "FixedScaleOffset",
    "Fletcher32",
    "GZip",
    "JenkinsLookup3",
    "PackBits",
    "PCodec",
    "Quantize",
    "Shuffle",
    "Zlib",
    "ArrayToArrayCodec",
    "ArrayToBytesCodec",
    "Blosc",
    "BloscCname",
    "BloscCodec",
    "BloscShuffle",
    "Bytes",
    "BytesCodec",
    "BytesToBytesCodec",
    "Endian",
    "ChunkSpec",
    "Codec",
    "CodecPipeline",
    "Crc32c",
    "Crc32cCodec",
    "Gzip",
    "Sharding",
    "ShardingCodec",
    "ShardingCodecIndexLocation",
    "GzipCodec",
    "Transpose",
    "VLenArrayCodec",
    "VLenBytes",
    "VLenBytesCodec",
    "VLenUTF8",
    "VLenUTF8Codec",
    "TransposeCodec",
    "Zstd",
    "ZlibCodec",
    "ZstdCodec",
    "component_size",
    "default_codecs",
    "default_compressors",
    "default_filters",
    "default_serializer",
    "get_codec_class",
    "parse_codec",
    "register_codec",
    "registered_names",
    "swap_size",
]
