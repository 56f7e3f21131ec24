"""blosc codec: the Blosc meta-compressor (shuffle filter + an internal compressor).

Spec card
---------
- What: ``bytes -> bytes``; one c-blosc1 chunk (16-byte header: version, flags, typesize,
  nbytes, blocksize, cbytes; then the compressed blocks).
- Spec: zarr-specs docs/v3/codecs/blosc/index.rst (blosc codec 1.0); the format is
  c-blosc's README_CHUNK_FORMAT.rst.
- v3 name: ``blosc``; v2 numcodecs id: ``blosc`` (v2 writes ``shuffle`` as 0/1/2/-1 and
  takes the typesize from the buffer; the bytes are the same).
- Example: ``{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
  "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}``.
- Configuration: ``cname`` lz4 | lz4hc | blosclz | zstd | zlib; ``clevel`` 0-9;
  ``shuffle`` noshuffle | shuffle | bitshuffle; ``typesize`` (a positive integer, required
  unless noshuffle; ``evolve`` fills it from the dtype's itemsize when a codec is built in
  Python without one); ``blocksize`` (0: automatic; optional when reading, default 0).
- Deviations: ``cname: "snappy"`` is valid in the spec but refused with
  :class:`~zarrhpc.errors.UnsupportedError`: neither c-blosc builds shipped with
  numcodecs nor c-blosc2 include snappy, so such chunks could not be read anyway.

Two writers and one reader, on purpose
---------------------------------------
- lz4 and lz4hc at clevel 1-9 with ``blocksize: 0`` are written by zarrhpc's own c-blosc1
  writer (csrc/zh_blosc1.c, reached through ``zarrhpc._kernels.engine.blosc1_encode`` here
  and from the engine's encode step, so both paths write the same bytes): the c-blosc1
  chunk format with non-split blocks (flag 0x10: one lz4 stream per block) of
  OWN_BLOCK_BYTES. A chunk it cannot write the same way in c-blosc1 and c-blosc2 (a bit
  shuffle whose blocks are not whole groups of 8 elements; a typesize over 255) goes to
  c-blosc1 below.
- Every other case (blosclz, zstd, zlib, clevel 0, an explicit ``blocksize``) goes
  through numcodecs' c-blosc1 (``numcodecs.blosc.compress``). ``blosc2``'s compress
  functions write the Blosc2 chunk format (header version 3-5) that c-blosc1 -- used by
  numcodecs, zarr-python (v2 and v3) and tensorstore -- cannot read; c-blosc1 output is
  what every implementation reads. The typesize is passed explicitly (numcodecs >= 0.16),
  or through the itemsize of a numpy view for older numcodecs.
- Decode goes through ``blosc2.decompress2`` (c-blosc2 reads c-blosc1 chunks too),
  straight into a preallocated numpy buffer, with its own decompression context
  (``nthreads=1``: zarrhpc parallelises over chunks, not inside one). Except the chunks
  c-blosc2 decodes leaving output bytes unwritten while reporting success
  (:func:`_decode_fit`: bit-shuffled blocks of a multiple of 8 whole elements and a
  partial one, or smaller than the typesize; numcodecs writes them, e.g. typesize 3 on
  128 bytes in 126-byte blocks): those go through numcodecs' c-blosc1, which decodes them right; the engine
  hands them here. Damaged headers c-blosc2 would decode the same way are refused.

GIL
---
- The own writer releases the GIL. numcodecs ``compress`` releases it around
  ``blosc_compress_ctx`` (called from any thread but the main one) or ``blosc_compress``
  (main thread, under numcodecs' mutex, using blosc's own thread pool).
- ``blosc2.decompress`` never releases the GIL (measured: 4 threads run no faster than
  1), and it does not pass the source length to c-blosc2, so a truncated chunk can make it
  read past the buffer. ``blosc2.decompress2`` passes the length and releases the GIL,
  but only after ``blosc2.set_releasegil(True)``, a process-wide switch of the blosc2
  module; this module turns it on at its first decode (measured: 1.8x on 2 cores).

Internal block size (``blocksize: 0``)
--------------------------------------
A blosc chunk is a sequence of independently compressed blocks; a reader that wants a
few elements decodes only the blocks holding them (the engine reads the header, the
block offsets and those blocks: csrc/zh_select.c's chunk view, for slices too). With
``blocksize: 0`` c-blosc1 picks 512 KiB blocks for a 1 MiB float32 chunk (lz4, shuffle),
so an 8x8x8 box of a 64**3 chunk needs half the chunk decoded. ``blocksize: 0`` leaves
the choice to the writer; the metadata keeps ``blocksize: 0`` and each chunk's header
records its real block size, which every reader uses.

- c-blosc1 cannot write small blocks for the fast codecs: it splits each block into one
  stream per byte of the type (lz4, lz4hc, blosclz, zlib with typesize <= 16), multiplies
  the requested size by the typesize and raises it to at least 64 KiB; only its
  process-wide ``blosc_set_splitmode`` changes that, which would change every other blosc
  user in the process (zarr-python, numcodecs), so zarrhpc does not touch it. Hence the
  own writer for lz4 and lz4hc, with **8 KiB** non-split blocks. blosclz keeps 64 KiB
  blocks through c-blosc1 (AUTO_BLOCK_BYTES); zstd and zlib keep c-blosc1's own choice:
  they are picked for their ratio, which smaller blocks cost.
- Why 8 KiB (measured on the 2-core VM under heavy load, load average 8-12; lz4 level 5,
  byte shuffle, float32 64**3 chunks of the benchmark field). Compression ratio over 32
  chunks of W1's field: c-blosc1's 64 KiB split blocks 1.306; own writer 64 KiB 1.305,
  32 KiB 1.280, 16 KiB 1.262, **8 KiB 1.256** (-3.9 %), 4 KiB 1.247; on uniform random
  float32 1.090 (64 KiB) to 1.079 (8 KiB) and 1.069 (4 KiB). Whole-chunk decode, one
  thread, best of 9: 0.154 ms per 1 MiB chunk for c-blosc1's blocks and own 64 KiB,
  0.142 (32 KiB), 0.119 (16 KiB), 0.129 (8 KiB), 0.141 (4 KiB): no block size slows W2.
  Small reads on a 256**3 array (best of 15 interleaved rounds): an 8**3 box 107 us
  (64 KiB), 101 (32 KiB), 78 (16 KiB), **41 (8 KiB)**, 40 (4 KiB), 70 (2 KiB: more
  blocks per row span, more calls); one element 23 / 16 / 12 / 11 / 10 / 11 us. An 8**3
  box touches 8 planes of 16 KiB, 1824 bytes of each: 8 KiB blocks decode 1-2 blocks per
  plane, 16 KiB a whole plane; below 8 KiB the gain stops and the ratio keeps falling.
  The W1-W11 before/after figures are in the issue-15 note of this change.
- The chunks stay standard c-blosc1: numcodecs (c-blosc1), c-blosc2, zarr-python and
  tensorstore read them (tests/codecs/test_blosc_writer.py,
  tests/_kernels/test_blosc_blocksize.py).

Corrupt input
-------------
The header is checked before decompressing: at least 16 bytes, ``cbytes`` at most the
buffer's length (bytes after the frame are padding and ignored, as c-blosc and
zarr-python do), ``nbytes`` equal to the expected chunk size (``decompress2`` writes
``nbytes`` bytes into the destination whatever its length). c-blosc1 chunks carry no
checksum: corruption inside a compressed block may decode to wrong data of the right size.
"""

from __future__ import annotations

import threading
from enum import Enum
from typing import Any, ClassVar

import blosc2
import numcodecs.blosc as _nc_blosc
import numpy as np

from zarrhpc._kernels.engine import BB_BLOSC, blosc1_encode, blosc1_encode_into, blosc1_handles
from zarrhpc.codecs._pool import lend
from zarrhpc.codecs.abc import (
    BytesToBytesCodec,
    ChunkSpec,
    NativeStep,
    as_bytes_view,
    check_choice,
    check_int,
    config_dict,
    config_error,
    field_name,
    get_choice,
    get_int,
)
from zarrhpc.errors import CodecError, CorruptChunkError, UnsupportedError

__all__ = ["BloscCname", "BloscCodec", "BloscShuffle"]

CNAMES = ("lz4", "lz4hc", "blosclz", "zstd", "zlib")
SHUFFLES = ("noshuffle", "shuffle", "bitshuffle")


class BloscShuffle(Enum):
    """zarr-python's enum of the shuffle choices (``BloscCodec`` also takes the strings)."""

    noshuffle = "noshuffle"
    shuffle = "shuffle"
    bitshuffle = "bitshuffle"


class BloscCname(Enum):
    """zarr-python's enum of the internal compressors (the strings work as well)."""

    lz4 = "lz4"
    lz4hc = "lz4hc"
    blosclz = "blosclz"
    zstd = "zstd"
    snappy = "snappy"
    zlib = "zlib"
_SHUFFLE_INT = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}
_SHUFFLE_NAME = {v: k for k, v in _SHUFFLE_INT.items()}
_GDAL_SHUFFLE = {"NONE": 0, "BYTE": 1, "BIT": 2}
_HEADER = 16  # c-blosc1 header length
_MAX_BUFFERSIZE = 2**31 - 1 - _HEADER  # c-blosc1's limit on one chunk

_NC_TYPESIZE = "typesize" in (_nc_blosc.compress.__doc__ or "")
_releasegil_lock = threading.Lock()
_releasegil_done = False


def _ensure_releasegil() -> None:
    """Turn on blosc2's GIL release once per process (see the module notes)."""
    global _releasegil_done
    if not _releasegil_done:
        with _releasegil_lock:
            blosc2.set_releasegil(True)
            _releasegil_done = True


def _check_cname(value: Any, doc: str, field: str) -> str:
    if value == "snappy":
        raise UnsupportedError(
            f"{field_name(doc, field, 'cname')}: blosc with snappy is not supported "
            f"(no blosc library zarrhpc uses includes it); expected one of {list(CNAMES)}"
        )
    return check_choice(value, CNAMES, doc, field, "cname")


#: the internal block size zarrhpc's own writer (csrc/zh_blosc1.c) uses for lz4 and lz4hc
#: when the metadata says ``blocksize: 0`` (see the module docstring)
OWN_BLOCK_BYTES = 8 * 1024

#: the internal block size written through c-blosc1 for blosclz when the metadata says
#: ``blocksize: 0`` (c-blosc1's smallest block for its split codecs)
AUTO_BLOCK_BYTES = 64 * 1024


#: the codecs written with small blocks: fast decoders picked for speed, where decoding
#: a few blocks instead of half a chunk pays; zstd and zlib are picked for their ratio,
#: which smaller blocks cost (a zarr-python user-guide array, zstd level 3 with bit
#: shuffle: 3.4 MB stored with c-blosc1's blocks, 3.9 MB with 64 KiB), so they keep
#: c-blosc1's own choice
SMALL_BLOCK_CNAMES = ("lz4", "lz4hc", "blosclz")


def _auto_blocksize(cname: str, typesize: int) -> int:
    """The ``blocksize`` to ask c-blosc1 for so that its blocks are AUTO_BLOCK_BYTES (0,
    c-blosc1's automatic choice, for the codecs not in SMALL_BLOCK_CNAMES).

    c-blosc1 splits a block into one stream per byte of the type for every codec but zstd
    when ``typesize <= 16``, and then multiplies the requested size by the typesize.
    """
    if cname not in SMALL_BLOCK_CNAMES:
        return 0
    if typesize <= 16:
        return max(AUTO_BLOCK_BYTES // max(typesize, 1), 1)
    return AUTO_BLOCK_BYTES


def _decode_fit(header: memoryview) -> str | None:
    """Whether c-blosc2 decodes the chunk writing every output byte (csrc/zh_codecs.c
    ``blosc_decode_fit`` has the evidence; the same rules): "c2" yes; "c1" no, c-blosc1
    decodes it (bit shuffles of blocks c-blosc2 leaves partly unwritten: valid chunks
    numcodecs writes); else the reason nothing does (the chunk is refused)."""
    flags, ts = header[2], header[3]
    nbytes = int.from_bytes(header[4:8], "little", signed=True)
    bs = int.from_bytes(header[8:12], "little", signed=True)
    extended = flags & 0x05 == 0x05
    special = (header[31] >> 4) & 0x07 if extended else 0
    vlblocks = extended and header[30] & 0x01
    if special == 4:
        return "a blosc2 chunk of uninitialized values (it holds no data)"
    if special or flags & 0x02 or nbytes <= 0 or bs <= 0:
        return "c2"
    block = min(bs, nbytes)  # c-blosc2 clamps the block to the chunk
    if not extended and (flags & 0x10 or ts == 1) and _negative_stream(header, nbytes, bs):
        return ("a block stream of negative size (c-blosc2's run of one value, not in "
                "c-blosc1 chunks): the chunk is damaged")
    if not flags & 0x10 and not vlblocks and ts > 1 and block % ts:
        return (f"blocks of {block} bytes split into {ts} streams (typesize {ts}): no whole "
                f"elements, the header is damaged")
    if extended or not flags & 0x04 or ts <= 1:
        return "c2"
    # c-blosc2 bit-unshuffles a block's whole elements when they are a multiple of 8 and
    # then leaves its last partial element unwritten (else it copies the block as it is)
    if any(b % ts and (b // ts) % 8 == 0 for b in (block, nbytes % block)):
        return "c1"
    return "c2"


def _negative_stream(data: memoryview, nbytes: int, bs: int) -> bool:
    """Whether a block of a one-stream-per-block c-blosc1 chunk starts with a negative
    stream size: c-blosc2 decodes it as a run of one byte value (its own format's form),
    c-blosc1 refuses it (csrc/zh_blosc1.c ``zh_blosc1_runs``, the engine's check)."""
    nblocks = -(-nbytes // bs)
    end = _HEADER + 4 * nblocks
    if end > data.nbytes:
        return False  # c-blosc2 refuses the chunk itself
    starts = np.frombuffer(data[_HEADER:end], dtype="<u4").astype(np.int64)
    starts = starts[(starts >= end) & (starts + 4 <= data.nbytes)]
    raw = np.frombuffer(data, dtype=np.uint8)
    sizes = raw[starts[:, None] + np.arange(4)].copy().view("<i4")
    return bool((sizes < 0).any())


def _c2_into(data: memoryview, out: np.ndarray) -> None:
    _ensure_releasegil()
    blosc2.decompress2(data, dst=out, nthreads=1)


def _c1_into(data: memoryview, out: np.ndarray) -> None:
    _nc_blosc.decompress(data, out)


def _decode_checked(into, data: memoryview, nbytes: int, library: str) -> np.ndarray:
    """Decode with ``into(data, out)`` twice, into zeros and into 0xff bytes: the two must
    agree, else the decoder left bytes unwritten (reporting success: both c-blosc1 and
    c-blosc2 may, on damaged streams). For the rare chunks the engine does not decode:
    those c-blosc2 cannot (c-blosc1 then) and blosc2-format chunks."""
    outs = []
    for fill in (0, 255):
        out = np.full(nbytes, fill, dtype=np.uint8)
        try:
            into(data, out)
        except (RuntimeError, ValueError) as exc:
            raise CorruptChunkError(f"blosc: {exc}") from None
        outs.append(out)
    if not np.array_equal(*outs):
        raise CorruptChunkError(f"blosc: {library} leaves bytes of this chunk unwritten "
                                f"(a damaged stream)")
    return outs[0]


class BloscCodec(BytesToBytesCodec):
    """Compress with Blosc (c-blosc1 chunk format).

    Parameters
    ----------
    cname : BloscCname or str
        Internal compressor: "lz4", "lz4hc", "blosclz", "zstd" or "zlib".
    clevel : int
        0 (no compression) to 9.
    shuffle : BloscShuffle or str or None
        "noshuffle", "shuffle" (byte-wise) or "bitshuffle"; None: chosen from the array's
        type (bit shuffle for 1-byte elements), as zarr-python does.
    typesize : int or None
        Shuffle stride in bytes; None until :meth:`evolve` fills it from the dtype.
    blocksize : int
        Block size in bytes; 0 lets the writer choose (see the module docstring).

    Attributes
    ----------
    cname : BloscCname
    shuffle : BloscShuffle
    typesize : int
        zarr-python's types: enums, and 1 for a typesize not set yet (``_tunable_attrs``
        names what :meth:`evolve` will fill). The engine reads the plain forms
        (``_cname``, ``_shuffle``, ``_typesize``: None when unset).
    """

    name: ClassVar[str] = "blosc"
    core: ClassVar[bool] = True
    v2_id: ClassVar[str | None] = "blosc"
    draft_names: ClassVar[tuple[str, ...]] = ("blosc",)
    is_fixed_size: ClassVar[bool] = False
    #: built from numcodecs' form without a typesize: the chunk's itemsize is meant
    evolve_on_read: bool = False
    #: stored without ``shuffle``: zarr-python's default for the chunk's type is meant
    shuffle_unset: bool = False

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype) -> dict:
        """numcodecs' form: ``shuffle`` 0/1/2 or -1 (AUTOSHUFFLE: bit shuffle for 1-byte
        elements, else byte shuffle), no typesize (numcodecs takes the buffer's itemsize:
        the type of the elements reaching the compressor)."""
        shuffle = conf.get("shuffle", 1)
        # GDAL 3.6 writes its option's words (NONE, BYTE, BIT) instead of 0/1/2
        shuffle = _GDAL_SHUFFLE.get(shuffle, shuffle) if isinstance(shuffle, str) else shuffle
        itemsize = None if dtype is None else np.dtype(dtype).itemsize
        if shuffle == -1:
            shuffle = 1 if itemsize is None or itemsize > 1 else 2
        config: dict[str, Any] = {
            "cname": conf.get("cname", "lz4"), "clevel": conf.get("clevel", 5),
            # (a damaged document's list or dict is left to the v3 validation to refuse)
            "shuffle": _SHUFFLE_NAME.get(shuffle, shuffle) if isinstance(shuffle, int) else shuffle}
        typesize = conf.get("typesize") or itemsize
        if typesize is not None:
            config["typesize"] = typesize
        blocksize = conf.get("blocksize", 0)
        config["blocksize"] = 0 if blocksize is None else blocksize  # numcodecs: None = auto
        return {"name": cls.name, "configuration": config}

    @classmethod
    def from_v2(cls, conf: dict, doc: str = "", field: str = "codec") -> BloscCodec:
        codec = super().from_v2(conf, doc, field)
        if codec._typesize is None:
            codec._set("evolve_on_read", True)
        return codec

    def to_v2(self) -> dict:
        return {"id": "blosc", "cname": self._cname, "clevel": self.clevel,
                "shuffle": _SHUFFLE_INT[self._shuffle], "blocksize": self.blocksize}

    def __init__(
        self,
        cname: BloscCname | str = BloscCname.zstd,
        clevel: int = 5,
        shuffle: BloscShuffle | str | None = None,
        typesize: int | None = None,
        blocksize: int = 0,
    ) -> None:
        where = "BloscCodec"
        cname = cname.value if isinstance(cname, BloscCname) else cname
        shuffle = shuffle.value if isinstance(shuffle, BloscShuffle) else shuffle
        if shuffle is None:
            # as zarr-python: left to the array's type (evolve: bit shuffle for 1-byte
            # elements, byte shuffle otherwise), shown as bitshuffle until then
            shuffle = "bitshuffle"
            self.shuffle_unset = True
        self._cname = _check_cname(cname, "", where)
        self.clevel = check_int(clevel, 0, 9, "", where, "clevel")
        self._shuffle = check_choice(shuffle, SHUFFLES, "", where, "shuffle")
        self._typesize = (
            None if typesize is None else check_int(typesize, 1, None, "", where, "typesize")
        )
        self.blocksize = check_int(blocksize, 0, 2**31 - 1, "", where, "blocksize")

    @property
    def cname(self) -> BloscCname:
        """The internal compressor (zarr-python's enum; ``_cname`` is its string)."""
        return BloscCname(self._cname)

    @property
    def shuffle(self) -> BloscShuffle:
        """The shuffle filter (zarr-python's enum; ``_shuffle`` is its string)."""
        return BloscShuffle(self._shuffle)

    @property
    def typesize(self) -> int:
        """The shuffle stride, 1 while unset, as zarr-python shows it (``_typesize``:
        None while unset)."""
        return self._typesize or 1

    @property
    def _tunable_attrs(self) -> set[str]:
        """What :meth:`evolve` fills from the array's type (zarr-python's field)."""
        return {name for name, unset in (("typesize", self._typesize is None),
                                         ("shuffle", self.shuffle_unset)) if unset}

    def _hash_fields(self) -> tuple:
        return (self._cname, self.clevel, self._shuffle, self._typesize, self.blocksize,
                self.shuffle_unset)

    def to_dict(self) -> dict:
        """zarr-python's ``to_dict()``: ``typesize`` always shown (1 while unset)."""
        return {"name": self.name, "configuration": {
            "typesize": self.typesize, "cname": self._cname, "clevel": self.clevel,
            "shuffle": self._shuffle, "blocksize": self.blocksize}}

    def __repr__(self) -> str:
        # zarr-python's dataclass repr, so printed codecs read the same after the switch
        # (zarr-python shows an unset typesize as 1)
        tunable = [name for name, unset in (("shuffle", self.shuffle_unset),
                                            ("typesize", self._typesize is None)) if unset]
        tunable = "{" + ", ".join(map(repr, tunable)) + "}" if tunable else "set()"
        return (f"BloscCodec(_tunable_attrs={tunable}, typesize={self.typesize}, "
                f"cname=<BloscCname.{self._cname}: '{self._cname}'>, clevel={self.clevel}, "
                f"shuffle=<BloscShuffle.{self._shuffle}: '{self._shuffle}'>, "
                f"blocksize={self.blocksize})")

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> BloscCodec:
        """Build from the v3 JSON configuration (see the module's spec card)."""
        config = config_dict(
            configuration, doc, field, {"cname", "clevel", "shuffle", "typesize", "blocksize"}
        )
        # cname, clevel and shuffle left out: zarr-python's defaults (none changes
        # decoding: every blosc frame carries its own compressor and shuffle flags)
        cname = _check_cname(config.get("cname", "zstd"), doc, field)
        clevel = get_int(config, "clevel", doc, field, 0, 9, default=5)
        shuffle = get_choice(config, "shuffle", doc, field, SHUFFLES, default=None)
        typesize = None
        if config.get("typesize") is not None:  # null: unset, as zarr-python reads it
            typesize = check_int(config["typesize"], 1, None, doc, field, "typesize")
        blocksize = get_int(config, "blocksize", doc, field, 0, 2**31 - 1, default=0)  # int32
        codec = cls(cname=cname, clevel=clevel, shuffle=shuffle or "shuffle",
                    typesize=typesize, blocksize=blocksize)
        if shuffle is None:
            codec._set("shuffle_unset", True)
            codec._set("evolve_on_read", True)
        if typesize is None:
            # no typesize stored: the chunk's itemsize is meant, as zarr-python reads it
            # (decoding does not need it: every blosc frame carries its own)
            codec._set("evolve_on_read", True)
        return codec

    def to_json(self) -> dict:
        """Return the v3 JSON entry (``typesize`` omitted only when unknown)."""
        # zarr-python's key order (typesize first), so written and printed documents match
        config: dict[str, Any] = {} if self._typesize is None else {"typesize": self._typesize}
        config.update(cname=self._cname, clevel=self.clevel, shuffle=self._shuffle,
                      blocksize=self.blocksize)
        return {"name": self.name, "configuration": config}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        """Stored metadata must name ``typesize`` unless shuffling is off.

        Checked here rather than in ``from_config`` so that ``create_array`` may leave it
        out: creation evolves the codec (filling it from the dtype) before validating.
        """
        if self._typesize is None and self._shuffle != "noshuffle" and not self.evolve_on_read:
            raise config_error(
                doc, field, "typesize", f"a positive integer (required with {self._shuffle!r})",
                None)

    def evolve(self, spec: ChunkSpec) -> BloscCodec:
        """Fill ``typesize`` from the itemsize of the chunk's dtype when it is unset (and
        an unset ``shuffle`` as zarr-python does: bit shuffle for 1-byte types)."""
        if self._typesize is None or self.shuffle_unset:
            # variable-length elements (strings, objects) reach blosc as bytes: 1, as
            # zarr-python resolves it
            itemsize = 1 if spec.dtype.kind in "OT" else spec.dtype.itemsize
            shuffle = ("bitshuffle" if itemsize == 1 else "shuffle") if self.shuffle_unset \
                else self._shuffle
            return BloscCodec(cname=self._cname, clevel=self.clevel, shuffle=shuffle,
                              typesize=self._typesize or itemsize, blocksize=self.blocksize)
        return self

    @property
    def own_writer(self) -> bool:
        """Whether chunks are written by zarrhpc's own c-blosc1 writer (lz4 and lz4hc,
        clevel 1-9, ``blocksize: 0``) in OWN_BLOCK_BYTES non-split blocks."""
        return self.blocksize == 0 and blosc1_handles(self._cname, self.clevel)

    @property
    def write_blocksize(self) -> int:
        """The ``blocksize`` passed to c-blosc1 when compressing (0 in the metadata: the
        writer's choice, see the module docstring)."""
        if self.own_writer:
            return OWN_BLOCK_BYTES  # for the chunks the own writer hands to c-blosc1
        return self.blocksize or _auto_blocksize(self._cname, self.typesize)

    def native_step(self) -> NativeStep:
        # a negative blocksize tells the engine to use the own writer (csrc/zh_blosc1.c);
        # c-blosc takes a typesize past 255 (BLOSC_MAX_TYPESIZE) as 1, and a huge one from
        # damaged metadata must not overflow the engine's int either
        typesize = self.typesize if self.typesize <= 255 else 1
        return NativeStep(BB_BLOSC, level=self.clevel, shuffle=_SHUFFLE_INT[self._shuffle],
                          typesize=typesize,
                          blocksize=-OWN_BLOCK_BYTES if self.own_writer
                          else self.write_blocksize, cname=self._cname)

    def encode(self, buf: Any) -> bytes:
        """Compress ``buf`` into a c-blosc1 chunk: with the own writer (the same bytes as
        the engine writes) or with numcodecs' c-blosc1."""
        data = as_bytes_view(buf)
        if data.nbytes > _MAX_BUFFERSIZE:
            raise CodecError(
                f"blosc: a chunk of {data.nbytes} bytes exceeds blosc's limit of "
                f"{_MAX_BUFFERSIZE} bytes; use smaller chunks or another compressor"
            )
        typesize = self.typesize
        shuffle = _SHUFFLE_INT[self._shuffle]
        if self.own_writer:
            dst = lend(data.nbytes + 16)
            if dst is not None:  # a pooled write: the chunk in the pool's buffer
                n = blosc1_encode_into(data, dst, self._cname, self.clevel, shuffle,
                                       typesize, OWN_BLOCK_BYTES)
                if n:
                    return memoryview(dst)[:n]
            else:
                out = blosc1_encode(data, self._cname, self.clevel, shuffle, typesize,
                                    OWN_BLOCK_BYTES)
                if out is not None:
                    return out
        src: Any = np.frombuffer(data, dtype=np.uint8)
        cname = self._cname.encode("ascii")
        blocksize = self.write_blocksize
        try:
            if _NC_TYPESIZE:
                return _nc_blosc.compress(
                    src, cname, self.clevel, shuffle, blocksize, typesize=typesize
                )
            # older numcodecs take the typesize from the buffer's itemsize
            if typesize > 1 and data.nbytes % typesize == 0:
                src = src.view(f"V{typesize}")
            return _nc_blosc.compress(src, cname, self.clevel, shuffle, blocksize)
        except (RuntimeError, ValueError) as exc:
            raise CodecError(f"blosc: compression failed: {exc}") from None

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> np.ndarray:
        """Decompress a c-blosc1 (or c-blosc2) chunk into a new ``uint8`` array."""
        data = as_bytes_view(buf)
        if data.nbytes < _HEADER:
            raise CorruptChunkError(
                f"blosc: expected at least {_HEADER} bytes (the header), got {data.nbytes}"
            )
        nbytes, cbytes, _ = blosc2.get_cbuffer_sizes(data[:_HEADER])
        if cbytes < _HEADER or cbytes > data.nbytes:
            raise CorruptChunkError(
                f"blosc: header declares {cbytes} compressed bytes, got {data.nbytes}"
            )
        data = data[:cbytes]  # bytes after the frame (padding) are ignored, as c-blosc does
        if decoded_size is not None and nbytes != decoded_size:
            raise CorruptChunkError(
                f"blosc: header declares {nbytes} decoded bytes, expected {decoded_size}"
            )
        if nbytes < 0:
            raise CorruptChunkError(f"blosc: header declares {nbytes} decoded bytes")
        if nbytes == 0:
            return np.empty(0, np.uint8)
        if (data[2] & 0x05) == 0x05 and data.nbytes < 32:
            raise CorruptChunkError(
                f"blosc: expected at least 32 bytes (extended header), got {data.nbytes}")
        fit = _decode_fit(data)
        if fit == "c1":  # c-blosc2 would leave bytes unwritten; c-blosc1 decodes these right
            return _decode_checked(_c1_into, data, nbytes, "c-blosc1")
        if fit != "c2":
            raise CorruptChunkError(f"blosc: {fit}")
        if (data[2] & 0x05) == 0x05:  # blosc2 format: its decoder's count is not seen here
            return _decode_checked(_c2_into, data, nbytes, "c-blosc2")
        out = np.empty(nbytes, np.uint8)
        try:
            _c2_into(data, out)
        except (RuntimeError, ValueError) as exc:
            raise CorruptChunkError(f"blosc: {exc}") from None
        return out
