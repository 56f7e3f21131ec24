"""Sizes read from chunk bytes are never trusted for an allocation: a zstd frame or a
blosc header of an intermediate stream (a compressor followed by another, so the size is
not fixed by the metadata) declaring more than the chunk can need is refused as corrupt
before anything is allocated, by the native engine as by the Python codecs.

The reads run in a subprocess whose address space is capped (RLIMIT_AS): allocating
what the hostile header declares fails there with MemoryError, which is what the engine
did before it bounded these sizes (it trusted a zstd frame up to 1 TiB)."""

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError

SHAPE, CHUNKS = (64, 64), (32, 32)


def _zstd_header(content_size: int) -> bytes:
    """A zstd frame header declaring ``content_size`` (8-byte field), then a raw last
    block holding a few junk bytes: a frame whose size field is all that matters."""
    descriptor = 0xC0  # frame content size in 8 bytes, a window descriptor, no checksum
    window = 0x58  # 2**(10 + 11) bytes
    block = struct.pack("<I", (4 << 3) | 1)[:3]  # last block, raw, 4 bytes
    return (struct.pack("<I", 0xFD2FB528) + bytes([descriptor, window])
            + struct.pack("<Q", content_size) + block + b"junk")


def _blosc_header(nbytes: int) -> bytes:
    """A c-blosc1 header declaring ``nbytes`` decoded bytes, memcpyed, 4 bytes of data."""
    return bytes([2, 1, 0x02, 1]) + struct.pack("<iii", nbytes, nbytes, 20) + b"junk"


def _array(path, codecs):
    a = zarrhpc.create_array(str(path), shape=SHAPE, chunks=CHUNKS, dtype="f8",
                             compressors=codecs, fill_value=0)
    a[...] = np.arange(np.prod(SHAPE), dtype="f8").reshape(SHAPE)
    return a


READER = textwrap.dedent("""
    import resource, sys, numpy as np, zarrhpc
    from zarrhpc.errors import ZarrhpcError
    a = zarrhpc.open_array(sys.argv[1], mode="r")
    a[:1, :1]  # the engine and its threads up before the cap
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + (3 << 30), hard))
    for sel in ((slice(None), slice(None)), (slice(0, 3), slice(0, 3)), ([0, 1], [40, 41])):
        try:
            a.vindex[sel] if isinstance(sel[0], list) else a[sel]
        except ZarrhpcError as exc:
            print(type(exc).__name__, str(exc)[:200])
        else:
            print("read without error")
""")


def _read_capped(path) -> list[str]:
    out = subprocess.run([sys.executable, "-c", READER, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


@pytest.mark.parametrize("declared", [1 << 33, 1 << 39, (1 << 40) - 1])
def test_zstd_frame_declaring_more_than_the_chunk_can_need_is_corrupt(tmp_path, declared):
    # zstd then zstd: what the outer frame decodes to (the inner frame) has no size fixed
    # by the metadata
    a = _array(tmp_path / "s", [{"name": "zstd", "configuration": {"level": 1}},
                                {"name": "zstd", "configuration": {"level": 1}}])
    with open(tmp_path / "s" / "c" / "0" / "1", "wb") as f:
        f.write(_zstd_header(declared))
    lines = _read_capped(tmp_path / "s")
    assert lines[0].startswith("CorruptChunkError") and str(declared) in lines[0], lines
    assert lines[1] == "read without error", lines  # chunk (0, 0): untouched
    assert lines[2].startswith("CorruptChunkError"), lines
    with pytest.raises(CorruptChunkError, match="zstd: frame header declares"):
        a[...]


def test_blosc_header_declaring_more_than_the_chunk_can_need_is_corrupt(tmp_path):
    # zstd then blosc: the blosc stream's decoded size is not fixed by the metadata
    a = _array(tmp_path / "s", [{"name": "zstd", "configuration": {"level": 1}},
                                {"name": "blosc", "configuration": {
                                    "cname": "lz4", "clevel": 5, "shuffle": "noshuffle",
                                    "typesize": 1, "blocksize": 0}}])
    with open(tmp_path / "s" / "c" / "0" / "1", "wb") as f:
        f.write(_blosc_header((1 << 31) - 1))
    lines = _read_capped(tmp_path / "s")
    assert lines[0].startswith("CorruptChunkError"), lines
    assert lines[1] == "read without error", lines
    with pytest.raises(CorruptChunkError):
        a[...]


def test_frames_within_the_bound_still_decode(tmp_path):
    """The bound is what encoding can make of the chunk: real double-compressed chunks
    (incompressible data, the worst case for size) read back through the engine."""
    a = zarrhpc.create_array(str(tmp_path / "s"), shape=SHAPE, chunks=CHUNKS, dtype="u1",
                             compressors=[{"name": "zstd", "configuration": {"level": 1}},
                                          {"name": "gzip", "configuration": {"level": 1}},
                                          {"name": "zstd", "configuration": {"level": 3}}],
                             fill_value=0)
    data = np.frombuffer(os.urandom(np.prod(SHAPE)), "u1").reshape(SHAPE)
    a[...] = data
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path / "s"))[...], data)
    np.testing.assert_array_equal(a.vindex[[0, 63], [1, 62]], data[[0, 63], [1, 62]])


def _rle_bomb(nblocks: int) -> bytes:
    """A zstd frame with no content size: ``nblocks`` RLE blocks of 128 KiB of zeros,
    4 bytes each (a decompression bomb: 32 768 times its size)."""
    out = bytearray(struct.pack("<I", 0xFD2FB528) + bytes([0x00, 0x38]))  # 128 KiB window
    for i in range(nblocks):
        out += struct.pack("<I", (131072 << 3) | (1 << 1) | int(i == nblocks - 1))[:3] + b"\0"
    return bytes(out)


def test_zstd_bomb_with_no_content_size_is_stopped_early(tmp_path):
    # 4 GiB of zeros in 128 KiB of frame, where the chunk (8 KiB) can need ~1 MiB: the
    # Python codec streams it and stops past the bound, under a 3 GiB address-space cap
    a = _array(tmp_path / "s", [{"name": "zstd", "configuration": {"level": 1}},
                                {"name": "zstd", "configuration": {"level": 1}}])
    with open(tmp_path / "s" / "c" / "0" / "1", "wb") as f:
        f.write(_rle_bomb(32768))
    lines = _read_capped(tmp_path / "s")
    assert lines[0].startswith("CorruptChunkError") and "more than a chunk" in lines[0], lines
    assert lines[1] == "read without error", lines
    with pytest.raises(CorruptChunkError, match="more than a chunk"):
        a[...]
