"""Sparse reads of blosc chunks whose blocks are not stored in order.

The engine reads the blocks a small read needs by their offsets; when the offsets
increase (every writer we know) a block's bytes end where the next block starts
(zh_blosc_starts_sorted), otherwise the next start is searched in the whole table.
A valid chunk with its blocks stored in another order, or with one block's offset
pointing at another block, must read as numpy says (or be refused), never wrong.
"""

from __future__ import annotations

import os
import struct

import numcodecs
import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ZarrhpcError

CHUNKS = (16, 32, 32)  # 64 KiB of float32: 8 blocks of 8 KiB
CODEC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                            "shuffle": "shuffle", "typesize": 4}}


def _write(path):
    rng = np.random.default_rng(7)
    data = rng.standard_normal((32, 32, 32)).astype("f4")
    a = zarrhpc.create_array(path, shape=data.shape, chunks=CHUNKS, dtype="f4",
                             compressors=CODEC, fill_value=0)
    a[...] = data
    return data


def _blocks(raw):
    nbytes, blocksize, cbytes = struct.unpack("<iii", raw[4:16])
    nblocks = -(-nbytes // blocksize)
    starts = list(struct.unpack(f"<{nblocks}i", raw[16:16 + 4 * nblocks]))
    assert starts == sorted(starts) and cbytes == len(raw)
    ends = starts[1:] + [len(raw)]
    return nblocks, [bytes(raw[s:e]) for s, e in zip(starts, ends)]


def _reorder(raw, order):
    """The same chunk with block k's bytes stored at place order.index(k)."""
    nblocks, blocks = _blocks(raw)
    head = bytearray(raw[:16 + 4 * nblocks])
    body, pos = b"", len(head)
    starts = [0] * nblocks
    for k in order:
        starts[k] = pos + len(body)
        body += blocks[k]
    head[16:16 + 4 * nblocks] = struct.pack(f"<{nblocks}i", *starts)
    return bytes(head + body)


# all in the first chunk (0, 0, 0)
BOXES = [np.s_[0:3, 1:9, 2:10], np.s_[5:13, 20:28, 3:11], np.s_[15, :, 7:9], np.s_[2:4, 31, :],
         np.s_[0:16, 0:2, 0:2], np.s_[9:10, 4:30, 1:31]]


@pytest.mark.parametrize("order", ["reversed", "shuffled", "rotated"])
def test_blocks_out_of_order_read_right(tmp_path, order):
    path = str(tmp_path / "a")
    data = _write(path)
    chunk = os.path.join(path, "c", "0", "0", "0")
    with open(chunk, "rb") as f:
        raw = f.read()
    nblocks, _ = _blocks(raw)
    assert nblocks >= 8
    perm = {"reversed": list(range(nblocks))[::-1],
            "shuffled": list(np.random.default_rng(3).permutation(nblocks)),
            "rotated": list(range(1, nblocks)) + [0]}[order]
    moved = _reorder(raw, perm)
    want = data[:16, :32, :32]
    # c-blosc1 (numcodecs) reads the reordered chunk: it is a valid chunk
    np.testing.assert_array_equal(
        np.frombuffer(numcodecs.Blosc().decode(moved), "f4").reshape(CHUNKS), want)
    with open(chunk, "wb") as f:
        f.write(moved)
    a = zarrhpc.open_array(path, mode="r")
    for box in BOXES:
        np.testing.assert_array_equal(a[box], data[box], err_msg=str(box))
    idx = (np.array([0, 7, 15, 3]), np.array([31, 0, 16, 5]), np.array([2, 30, 8, 17]))
    np.testing.assert_array_equal(a.vindex[idx], data[idx])
    np.testing.assert_array_equal(a.oindex[[1, 14], :, [0, 31]],
                                  data[np.ix_([1, 14], range(32), [0, 31])])


@pytest.mark.parametrize("k", [0, 3, 7])
def test_an_offset_naming_another_block_reads_as_c_blosc1(tmp_path, k):
    """Block k's offset set to block k+1's (or k-1's): the offsets no longer increase,
    and the chunk is still one c-blosc1 decodes (block k holds the other block's values:
    no reader can tell).  Every read returns what c-blosc1 decodes, or raises."""
    path = str(tmp_path / "a")
    _write(path)
    chunk = os.path.join(path, "c", "0", "0", "0")
    with open(chunk, "rb") as f:
        raw = bytearray(f.read())
    nblocks, _ = _blocks(raw)
    other = k + 1 if k + 1 < nblocks else k - 1
    raw[16 + 4 * k: 20 + 4 * k] = raw[16 + 4 * other: 20 + 4 * other]
    with open(chunk, "wb") as f:
        f.write(bytes(raw))
    want = np.frombuffer(numcodecs.Blosc().decode(bytes(raw)), "f4").reshape(CHUNKS)
    a = zarrhpc.open_array(path, mode="r")
    plane = 8 * 1024 // (32 * 4)  # rows of 32 float32 per 8 KiB block
    row = k * plane
    for box in BOXES + [np.s_[row // 32, row % 32:row % 32 + 4, :]]:
        try:
            got = a[box]
        except ZarrhpcError:
            continue
        np.testing.assert_array_equal(got, want[box], err_msg=str(box))
