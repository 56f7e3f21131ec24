"""What a checkpoint save cost the file system: the metadata budget.

On a parallel file system the metadata server (creates, renames, mkdirs) is the wall at
scale, not the bandwidth. Every save reports, as job totals the same on every rank:
``files_created``, ``dirs_created``, ``renames``, ``fsyncs``, ``bytes_written`` and
``seconds`` (wall time of the save, slowest rank).

How they are counted: after the step's arrays are written, rank 0 lists the step (a
directory walk on a `LocalStore`, keys otherwise); every file there was created under a
temporary name and renamed into place (the stores and `zarrhpc.mpi.aggregate` write that
way); every directory was created by this save (a step is always written afresh). The
commit adds its own rewrites (the step group's and the root's ``zarr.json``). ``fsyncs``
counts the flushes the durability pass (`flush_step`) really made.
"""

from __future__ import annotations

import os

__all__ = ["STAT_KEYS", "empty_stats", "flush_step", "list_step"]

STAT_KEYS = ("files_created", "dirs_created", "renames", "fsyncs", "bytes_written", "seconds")


def empty_stats() -> dict:
    return dict.fromkeys(STAT_KEYS, 0) | {"seconds": 0.0}


def list_step(store, group: str) -> tuple[list[tuple[str, int]], list[str]]:
    """``([(file path or key, size)], [directory paths])`` of one step."""
    from zarrhpc.storage.local import LocalStore

    if isinstance(store, LocalStore):
        top = store._path(group)
        files, dirs = [], []
        for d, _subdirs, names in os.walk(top):
            dirs.append(d)
            for n in names:
                p = os.path.join(d, n)
                try:
                    files.append((p, os.stat(p).st_size))
                except FileNotFoundError:  # pragma: no cover - nobody else writes a step
                    pass
        return files, dirs
    files = []
    for key in store.list_prefix(f"{group}/"):
        size = store.getsize(key) if hasattr(store, "getsize") else len(store.get(key) or b"")
        files.append((key, int(size or 0)))
    return files, []


def flush_step(paths: list[str]) -> int:
    """``fsync`` each file or directory of ``paths``; returns how many were flushed."""
    n = 0
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            n += 1
        finally:
            os.close(fd)
    return n
