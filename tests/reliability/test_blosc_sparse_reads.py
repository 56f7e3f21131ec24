"""Small reads of a blosc chunk in a LocalStore read only the blocks they need from the
file (the engine's sparse reads): they must decode only bytes read from that file.

Found by the fast fuzzer (fuzz_fast.py, the blosc-blocks seed, comparing file and
in-memory reads of the same damaged bytes): a block offset table claiming block 1 starts
inside block 0 made the sparse read stop short, and blosc decoded the rest of block 0
from the reused scratch buffer: the values of the chunk read before, from another file,
returned as this chunk's with no error.
"""

import os
import struct

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ZarrhpcError

BS = 4096
CODEC = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 1,
                                            "shuffle": "noshuffle", "typesize": 1,
                                            "blocksize": BS}}


def _chunk(rng):
    """Two blocks: random bytes (stored raw in their block) then zeros."""
    d = np.zeros(2 * BS, "u1")
    d[:BS] = rng.integers(0, 256, BS)
    return d


@pytest.mark.parametrize("cut", [4, 8, 100, BS - 1])
def test_short_block_offset_never_decodes_another_chunks_bytes(tmp_path, cut):
    rng = np.random.default_rng(cut)
    x, y = _chunk(rng), _chunk(rng)
    path = str(tmp_path / "a")
    with zarrhpc.config.set({"threads": 1}):  # one worker: one scratch buffer reused
        a = zarrhpc.create_array(path, shape=(4 * BS,), chunks=(2 * BS,), dtype="u1",
                                 compressors=CODEC, fill_value=0)
        a[: 2 * BS], a[2 * BS:] = x, y
        chunk = os.path.join(path, "c", "0")
        with open(chunk, "rb") as f:
            raw = bytearray(f.read())
        nbytes, blocksize, cbytes = struct.unpack("<iii", raw[4:16])
        assert (blocksize, cbytes) == (BS, len(raw))  # a c-blosc1 chunk of two blocks
        b0, b1 = struct.unpack("<ii", raw[16:24])
        raw[20:24] = struct.pack("<i", b0 + cut)  # block 1 "starts" inside block 0
        with open(chunk, "wb") as f:
            f.write(raw)
        a = zarrhpc.open_array(path, mode="r")
        np.testing.assert_array_equal(a[2 * BS + 10: 2 * BS + 20], y[10:20])  # fills scratch
        try:
            got = a[10:20]
        except ZarrhpcError:
            return  # refused: fine
        np.testing.assert_array_equal(got, x[10:20])  # never y's bytes


def test_sparse_reads_still_read_only_the_blocks_wanted(tmp_path):
    """The fix reads one span from the first wanted block to the next block's start:
    a few elements of a 64-block chunk still cost a few hundred bytes of I/O."""
    d = ((np.arange(64 * BS) // 64) % 256).astype("u1")
    path = str(tmp_path / "a")
    with zarrhpc.config.set({"threads": 1}):
        a = zarrhpc.create_array(path, shape=d.shape, chunks=d.shape, dtype="u1",
                                 compressors=CODEC, fill_value=0)
        a[...] = d
        a = zarrhpc.open_array(path, mode="r")
        size = os.path.getsize(os.path.join(path, "c", "0"))

        def rchar():
            with open("/proc/self/io") as f:
                return int(next(x for x in f if x.startswith("rchar")).split()[1])

        for lo in (0, 10 * BS + 5, 63 * BS + 100):
            r0 = rchar()
            np.testing.assert_array_equal(a[lo: lo + 10], d[lo: lo + 10])
            assert rchar() - r0 < size / 4


# c-blosc2 (2.x) reports success on some bitshuffled c-blosc1 blocks while leaving output
# bytes unwritten: the destination's previous bytes came back as data (found by the fast
# fuzzer: a typesize byte flipped to 255 read differently from a file and from memory)

def _bitshuffled(tmp_path, typesize_byte: int):
    codec = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 1,
                                                "shuffle": "bitshuffle", "typesize": 4,
                                                "blocksize": 64}}
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=(16, 16), chunks=(8, 8), dtype="i4",
                             compressors=codec, fill_value=0)
    a[...] = np.arange(256, dtype="i4").reshape(16, 16) * 7919 % 1000
    chunk = os.path.join(path, "c", "0", "0")
    with open(chunk, "rb") as f:
        raw = bytearray(f.read())
    assert raw[2] & 0x04 and raw[3] == 4  # bitshuffled, typesize 4
    raw[3] = typesize_byte
    with open(chunk, "wb") as f:
        f.write(raw)
    return zarrhpc.open_array(path, mode="r")


def test_typesize_past_block_size_reads_as_c_blosc1_reads_it(tmp_path):
    """(c-blosc2 leaves bytes unwritten here; c-blosc1, which zarr-python reads with,
    decodes the chunk: every path gives its values, also the engine's item-range decode)"""
    import zarr

    a = _bitshuffled(tmp_path, 255)
    ref = zarr.open_array(str(tmp_path / "a"), mode="r")
    for sel in [(slice(None),) * 2, (slice(0, 8), slice(0, 8)), (slice(1, 3), slice(1, 3)),
                (2, 5)]:
        for fill in (0x55, 0xAA):
            out = np.full((16, 16), fill, dtype="i4")[sel]
            got = a.read(sel, out=out) if out.ndim else a[sel]
            np.testing.assert_array_equal(got, ref[sel])


@pytest.mark.parametrize("typesize_byte", [3, 5, 15, 24])
def test_damaged_bitshuffle_never_returns_what_the_output_held(tmp_path, typesize_byte):
    a = _bitshuffled(tmp_path, typesize_byte)
    results = []
    for fill in (0x55, 0xAA):
        out = np.full((8, 8), np.frombuffer(bytes([fill]) * 4, "i4")[0], dtype="i4")
        try:
            a.read((slice(0, 8), slice(0, 8)), out=out)
        except ZarrhpcError:
            return  # refused: fine
        results.append(out.copy())
    np.testing.assert_array_equal(results[0], results[1])
