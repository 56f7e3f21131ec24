"""File primitives of the node-aggregated shard writer (`zarrhpc.mpi.aggregate`): the
temporary shard file, and vectored positional writes (under flock when ranks share a file
on a local file system).
"""

from __future__ import annotations

import fcntl
import os
import uuid

import numpy as np

from zarrhpc._kernels import alloc, copy_into

__all__ = ["create_temp", "local_fs", "pwrite_items"]


def create_temp(store, key: str) -> str:
    """An empty temporary file beside ``key``'s file (directories created as needed)."""
    path = store._path(key)
    dirpath = os.path.dirname(path)
    # LocalStore's temporary names: no listing shows them, and its clean-up knows them
    from zarrhpc.storage.local import _TEMP_PREFIX, _TEMP_SUFFIX

    tmp = os.path.join(dirpath, f"{_TEMP_PREFIX}{uuid.uuid4().hex}{_TEMP_SUFFIX}")
    for _ in range(64):
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666))
            return tmp
        except FileNotFoundError:
            try:
                store._make_dirs(key, dirpath)
            except FileNotFoundError:
                continue
    raise OSError(f"{key!r}: cannot create a temporary file in {dirpath}")


_PIECE = 4 << 20  # bytes per write call, at most

# file systems of one machine: their writes to one file hold its inode lock, so ranks
# writing into one shard spin on it (`pwrite_items`); a parallel file system has its own locks,
# and there flock would be a round trip to a lock server
_LOCAL_FS = frozenset({"tmpfs", "ramfs", "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs",
                       "overlay", "zfs", "bcachefs"})


def local_fs(path: str) -> bool:
    """Whether ``path`` lies on a local file system (`_LOCAL_FS`), from the longest mount
    point in /proc/self/mountinfo that holds it; False when that cannot be told."""
    try:
        real = os.path.realpath(path)
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return False
    best, fstype = "", None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right:
            continue
        point = fields[4].replace("\\040", " ")
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fstype = point, right.split()[0]
    return fstype in _LOCAL_FS


def pwrite_items(fd: int, offset: int, items, scratch: list | None = None,
            lock: bool = False) -> None:
    """Write ``items`` back to back at ``offset`` of the open file ``fd``.

    An item is bytes-like, or an array written as its C-order bytes (a C-contiguous one
    as it is, others copied through one scratch buffer, ``scratch[0]``, kept for the next
    call, without the GIL: the chunks a rank holds whole are views of its block). Items go
    out in ``pwritev`` calls of at most about `_PIECE` bytes: the ranks of a node write
    into one file and a local file system holds the file's lock through each call, so
    one very long call would make the node's other ranks wait for all of it.

    ``lock``: each call holds ``flock`` on the file (taken after the copy into the scratch
    buffer). A rank that finds a file's inode lock taken spins on it while the holder
    runs, and burns the core another rank could use; waiting for flock sleeps. Measured
    (4 ranks as 2 nodes, 1 GiB, one shard per node, tmpfs, loaded 2-core VM, two runs
    each): 0.90-0.91x / 0.99-1.05x the speed of one file per chunk (none / blosc) with
    flock, 0.85-0.94x / 0.86-0.89x without. A file system that refuses flock is written
    without it.
    """
    scratch = [None] if scratch is None else scratch
    group: list = []
    size = 0

    def flush():
        nonlocal offset, group, size, lock
        views = group
        if lock and views:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # not supported here: the inode lock alone
                lock = False
        try:
            while views:
                done = os.pwritev(fd, views, offset)
                offset += done
                while views and done >= views[0].nbytes:
                    done -= views[0].nbytes
                    views = views[1:]
                if done:
                    views = [views[0][done:], *views[1:]]
        finally:
            if lock and group:
                fcntl.flock(fd, fcntl.LOCK_UN)
        group, size = [], 0

    for item in items:
        if isinstance(item, np.ndarray) and item.flags.c_contiguous:
            view = memoryview(item.reshape(-1).view(np.uint8))  # its bytes as they are
        elif isinstance(item, np.ndarray):
            flush()  # the scratch buffer is reused: written before the next copy
            if scratch[0] is None or scratch[0].nbytes < item.nbytes:
                scratch[0] = alloc.empty((item.nbytes,), np.uint8)
            flat = scratch[0][:item.nbytes]
            copy_into(flat.view(item.dtype).reshape(item.shape), item)
            view = memoryview(flat)
        else:
            view = memoryview(item).cast("B")
        for lo in range(0, view.nbytes, _PIECE):
            piece = view[lo:lo + _PIECE]
            if size and (size + piece.nbytes > _PIECE or len(group) >= 1024):  # IOV_MAX
                flush()
            group.append(piece)
            size += piece.nbytes
    flush()

