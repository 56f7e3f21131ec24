"""The node-aggregated writer's arena encoder (mpi/aggregate.py `_BloscInto`) writes the
same inner-chunk bytes as the codec chain (and so the engine and a serial write) for every
blosc configuration: it once handed the own writer's negative block size to c-blosc1,
which made chunks of one huge split block at a third of the speed. Its writes
(`zarrhpc.mpi._files.pwrite_items`)
put the items back to back, under flock when asked (ranks sharing a shard on a local file
system) and without it where flock is refused."""

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.mpi.aggregate import _BloscInto


@pytest.mark.parametrize("cname", ["lz4", "lz4hc", "zstd", "blosclz"])
@pytest.mark.parametrize("shuffle", ["shuffle", "bitshuffle", "noshuffle"])
@pytest.mark.parametrize("dtype", ["f8", "i2"])
def test_arena_encoder_writes_the_codecs_bytes(tmp_path, cname, shuffle, dtype):
    comp = {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle}}
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(32, 32, 32), chunks=(16, 16, 16),
                             shards=(32, 32, 32), dtype=dtype, compressors=comp)
    layout = a._sharding
    enc = _BloscInto.make(layout, 2)
    assert enc is not None
    rng = np.random.default_rng(0)
    chunk = (np.cumsum(rng.integers(-3, 4, (16, 16, 16)), axis=2)).astype(dtype)
    got = bytes(enc.encode(chunk, 1, "a"))
    want = bytes(layout.inner.encode(chunk, "a"))
    assert got == want
    import numcodecs

    assert np.array_equal(np.frombuffer(numcodecs.Blosc().decode(got), dtype), chunk.ravel())


def test_pwrite_takes_turns_under_flock_and_writes_the_items_back_to_back(tmp_path, monkeypatch):
    import fcntl

    from zarrhpc.mpi import _files

    calls = []
    real = fcntl.flock

    def flock(fd, op):
        calls.append(op)
        return real(fd, op)

    monkeypatch.setattr(_files.fcntl, "flock", flock)
    block = np.arange(4 * 6 * 8, dtype="f8").reshape(4, 6, 8)
    items = [b"head", block[:, 1:4, 2:6], block[1]]  # bytes, a strided view, contiguous
    path = tmp_path / "shard"
    path.write_bytes(b"\0" * 10)
    fd = os.open(path, os.O_WRONLY)
    try:
        _files.pwrite_items(fd, 10, items, lock=True)
    finally:
        os.close(fd)
    want = b"\0" * 10 + b"head" + block[:, 1:4, 2:6].tobytes() + block[1].tobytes()
    assert path.read_bytes() == want
    # every write call inside LOCK_EX ... LOCK_UN, and the lock released at the end
    assert calls and calls[0] == fcntl.LOCK_EX and calls[-1] == fcntl.LOCK_UN
    assert calls == [fcntl.LOCK_EX, fcntl.LOCK_UN] * (len(calls) // 2)


def test_pwrite_without_flock_support_still_writes(tmp_path, monkeypatch):
    from zarrhpc.mpi import _files

    def refuse(fd, op):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(_files.fcntl, "flock", refuse)
    path = tmp_path / "shard"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        _files.pwrite_items(fd, 0, [b"abc", np.arange(3, dtype="u1")], lock=True)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"abc\x00\x01\x02"


def test_local_file_systems_are_told_from_the_mount_table(tmp_path):
    from zarrhpc.mpi._files import local_fs

    assert not local_fs("/proc/self")  # proc: not a file system to write shards on
    if os.path.isdir("/dev/shm"):
        assert local_fs("/dev/shm/not/yet/created")
