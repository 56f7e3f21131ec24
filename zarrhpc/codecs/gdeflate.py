"""zarrs' ``gdeflate`` codec: NVIDIA GDeflate, page by page, on the CPU.

Spec card
---------
- What: ``bytes -> bytes``. The input is cut into pages of 64 KiB, each compressed on its own
  with GDeflate (the DEFLATE variant of NVIDIA nvCOMP and Microsoft DirectStorage). Encoded:
  ``UNCOMPRESSED_INPUT_LENGTH`` (u64 LE), ``NUMBER_OF_PAGES`` (u64 LE), one u64 LE
  compressed size per page, then the pages back to back.
- Spec: zarrs ``zarrs/src/array/codec/bytes_to_bytes/gdeflate.rs`` (``https://codec.zarrs.dev/
  bytes_to_bytes/gdeflate``; experimental there, no other implementation listed).
- v3 names: ``zarrs.gdeflate`` (written), ``https://codec.zarrs.dev/bytes_to_bytes/gdeflate``
  (zarrs' earlier name, read); no v2 id. Configuration ``{"level": 0..12}`` (zarrs' range).
- Library: the GDeflate build of libdeflate inside NVIDIA's ``nvidia-libnvcomp-cu12`` wheel
  (``libnvcomp_cpu.so``: a CPU library, no GPU or CUDA runtime needed), through its C
  functions (``libdeflate_gdeflate_*``), the same libdeflate fork zarrs' ``gdeflate-sys``
  builds. Not installed: an error naming the codec and ``pip install
  nvidia-libnvcomp-cu12`` (``zarrhpc[gdeflate]``).
- Decode checks every length in the headers against the chunk before touching memory: the
  declared size must be the chunk's, the page count the one that size needs, the page
  sizes must add up to the bytes present, and each page must fill its 64 KiB (the last its
  rest); anything else is a :class:`~zarrhpc.errors.CorruptChunkError`.
- GIL: released by ctypes for every library call.
"""

from __future__ import annotations

import ctypes
import glob
import os
import struct
import threading
from typing import Any, ClassVar

from zarrhpc.codecs.abc import BytesToBytesCodec, ChunkSpec, as_bytes_view, config_dict
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["GDeflateCodec"]

PAGE = 1 << 16
_HEADER = struct.Struct("<QQ")


class _Page(ctypes.Structure):  # libdeflate_gdeflate_{in,out}_page
    _fields_ = [("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t)]


_LIB: list = []
_LOCAL = threading.local()


def _lib(where: str = "zarrs.gdeflate"):
    """libnvcomp_cpu with the argument types declared (loaded once)."""
    if _LIB:
        return _LIB[0]
    try:
        import nvidia.libnvcomp as pkg  # noqa: PLC0415 - optional
        dirs = list(pkg.__path__)
    except ImportError:
        dirs = []
    paths = sorted(p for d in dirs for p in glob.glob(os.path.join(d, "lib64",
                                                                   "libnvcomp_cpu.so*")))
    if not paths:
        raise CodecError(f"{where}: the gdeflate codec needs NVIDIA's CPU GDeflate library: "
                         "pip install nvidia-libnvcomp-cu12 (zarrhpc[gdeflate])")
    lib = ctypes.CDLL(paths[0])
    size_t, vp = ctypes.c_size_t, ctypes.c_void_p
    lib.libdeflate_alloc_gdeflate_decompressor.restype = vp
    lib.libdeflate_alloc_gdeflate_decompressor.argtypes = []
    lib.libdeflate_free_gdeflate_decompressor.argtypes = [vp]
    lib.libdeflate_gdeflate_decompress.restype = ctypes.c_int
    lib.libdeflate_gdeflate_decompress.argtypes = [vp, ctypes.POINTER(_Page), size_t, vp,
                                                   size_t, ctypes.POINTER(size_t)]
    lib.libdeflate_alloc_gdeflate_compressor.restype = vp
    lib.libdeflate_alloc_gdeflate_compressor.argtypes = [ctypes.c_int]
    lib.libdeflate_free_gdeflate_compressor.argtypes = [vp]
    lib.libdeflate_gdeflate_compress_bound.restype = size_t
    lib.libdeflate_gdeflate_compress_bound.argtypes = [vp, size_t, ctypes.POINTER(size_t)]
    lib.libdeflate_gdeflate_compress.restype = size_t
    lib.libdeflate_gdeflate_compress.argtypes = [vp, vp, size_t, ctypes.POINTER(_Page), size_t]
    _LIB.append(lib)
    return lib


class _Handle:
    """A libdeflate (de)compressor freed with its owner (one per thread: not shareable)."""

    def __init__(self, ptr: int, free) -> None:
        if not ptr:
            raise MemoryError("gdeflate: the library could not allocate its state")
        self.ptr, self._free = ptr, free

    def __del__(self) -> None:
        self._free(self.ptr)


def _decompressor(lib) -> int:
    h = getattr(_LOCAL, "d", None)
    if h is None:
        h = _LOCAL.d = _Handle(lib.libdeflate_alloc_gdeflate_decompressor(),
                               lib.libdeflate_free_gdeflate_decompressor)
    return h.ptr


def _compressor(lib, level: int) -> int:
    cache = _LOCAL.__dict__.setdefault("c", {})
    if level not in cache:
        cache[level] = _Handle(lib.libdeflate_alloc_gdeflate_compressor(level),
                               lib.libdeflate_free_gdeflate_compressor)
    return cache[level].ptr


class GDeflateCodec(BytesToBytesCodec):
    """zarrs' GDeflate compression (see the module docstring)."""

    name: ClassVar[str] = "zarrs.gdeflate"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/bytes_to_bytes/gdeflate",)

    def __init__(self, level: int = 9) -> None:
        if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 12:
            raise CodecError(f"zarrs.gdeflate: level must be an integer 0..12, got {level!r}")
        self.level = level

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "",
                    field: str = "codec") -> GDeflateCodec:
        """Build from ``{"level": n}`` (required, as zarrs writes it)."""
        conf = config_dict(configuration, doc, field, {"level"}, required=True)
        if "level" not in conf:
            raise CodecError(f"{doc}: {field}.configuration.level: missing required key")
        _lib(f"{doc}: {field}" if doc else cls.name)
        return cls(conf["level"])

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"level": self.level}}

    def encode(self, buf: Any) -> bytes:
        """The header, the page sizes and the pages (zarrs' layout)."""
        lib = _lib()
        data = as_bytes_view(buf)
        n = data.nbytes
        src = (ctypes.c_char * max(n, 1)).from_buffer_copy(bytes(data) or b"\0")
        comp = _compressor(lib, self.level)
        pages, sizes = [], []
        for off in range(0, n, PAGE):
            m = min(PAGE, n - off)
            npages = ctypes.c_size_t(0)
            bound = lib.libdeflate_gdeflate_compress_bound(comp, m, ctypes.byref(npages))
            out = ctypes.create_string_buffer(bound)
            page = _Page(ctypes.cast(out, ctypes.c_void_p), bound)
            got = lib.libdeflate_gdeflate_compress(
                comp, ctypes.addressof(src) + off, m, ctypes.byref(page), 1)
            if not got:
                raise CodecError("zarrs.gdeflate: compression failed")
            pages.append(out.raw[:got])
            sizes.append(got)
        return b"".join([_HEADER.pack(n, len(sizes)), struct.pack(f"<{len(sizes)}Q", *sizes),
                         *pages])

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> bytearray:
        """Check the headers against the chunk (module docstring), then decompress each page
        into its place."""
        data = as_bytes_view(buf)
        total = data.nbytes
        if total < _HEADER.size:
            raise CorruptChunkError(f"zarrs.gdeflate: {total} bytes, shorter than the "
                                    f"{_HEADER.size}-byte header")
        size, npages = _HEADER.unpack_from(data, 0)
        if decoded_size is not None and size != decoded_size:
            raise CorruptChunkError(f"zarrs.gdeflate: the header declares {size} bytes, the "
                                    f"chunk holds {decoded_size}")
        if npages != -(-size // PAGE) or npages > (total - _HEADER.size) // 8:
            raise CorruptChunkError(f"zarrs.gdeflate: {npages} pages for {size} bytes in a "
                                    f"{total}-byte chunk")
        start = _HEADER.size + 8 * npages
        sizes = struct.unpack_from(f"<{npages}Q", data, _HEADER.size)
        if sum(sizes) != total - start:
            raise CorruptChunkError(f"zarrs.gdeflate: the page sizes add up to {sum(sizes)}, "
                                    f"{total - start} bytes follow the header")
        lib = _lib()
        dec = _decompressor(lib)
        src = (ctypes.c_char * total).from_buffer_copy(data)
        out = bytearray(size)
        dst = (ctypes.c_char * size).from_buffer(out) if size else None
        actual = ctypes.c_size_t(0)
        pos = start
        for i, csize in enumerate(sizes):
            want = min(PAGE, size - i * PAGE)
            page = _Page(ctypes.addressof(src) + pos, csize)
            actual.value = 0  # the library adds to it
            rc = lib.libdeflate_gdeflate_decompress(
                dec, ctypes.byref(page), 1, ctypes.addressof(dst) + i * PAGE, want,
                ctypes.byref(actual))
            if rc != 0 or actual.value != want:
                raise CorruptChunkError(f"zarrs.gdeflate: page {i} does not decode to its "
                                        f"{want} bytes (libdeflate result {rc})")
            pos += csize
        del dst
        return out
