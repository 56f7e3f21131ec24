"""Where the inner chunks of a sharded array's read are stored, from one version of
each shard.

Life cycle: a read of selected inner chunks (`_InnerRanges`) opens a reader per touched
shard, reads its length and index (checked by the layout), and keeps the reader open
while the inner chunks are read: through it (`read_all`), so an index and its inner
chunks always come from one version of a shard that another writer replaces meanwhile,
or by the native engine, which opens the shard files again by path: `same_files` then
tells whether every path still names the file its index came from (the held
descriptor pins the inode, so its number cannot be reused meanwhile), and the caller
reads again when not. `close` releases the readers.

Found by the threads stress test (tests/reliability/test_threads_stress.py): with the
index read through a reader that was closed before the engine's reads, a shard renamed
into place in between gave the old index's offsets into the new file: wrong values,
no error.
"""

from __future__ import annotations

import math
import os

import numpy as np

from zarrhpc.codecs.sharding import EMPTY

# local shard files whose readers one read keeps open (each pins its file's inode, so
# `same_files` is exact); past it their stamps alone are compared
_KEEP_OPEN = 256


def _shard_split(prep, coords: np.ndarray):
    ratio = np.asarray(prep.sharding.grid_shape, dtype=np.int64)
    return coords // ratio, coords % ratio


def _unique_rows(rows: np.ndarray):
    """``np.unique(rows, axis=0, return_inverse=True)`` of non-negative int coordinates,
    through their linear index in the grid they span: the same rows in the same
    (lexicographic) order; W11's 4,096 inner chunks took 1.7 ms with ``axis=0`` (a
    sort of row views), ~0.2 ms this way."""
    if len(rows) == 0 or rows.shape[1] == 0:
        uniq, inv = np.unique(rows, axis=0, return_inverse=True)
        return uniq, inv.reshape(-1)
    span = tuple(int(x) + 1 for x in rows.max(axis=0))
    flat = np.ravel_multi_index(tuple(rows.T), span)
    u, inv = np.unique(flat, return_inverse=True)
    return np.stack(np.unravel_index(u, span), axis=1), inv.reshape(-1)


class _InnerRanges:
    """Where the inner chunks at ``coords`` (n, ndim) are stored: each touched shard's
    index read once (one reader per shard: its length, then its index, checked by the
    layout: entries inside the data region, none overlapping, checksum), then per inner
    chunk its shard (``file``, a row of ``shard_coords``), ``offset`` and ``length``
    (-1: not stored), all int64 arrays."""

    def __init__(self, prep, coords: np.ndarray):
        layout = prep.sharding
        store = prep.store
        shards, local = _shard_split(prep, coords)
        n = len(coords)
        uniq, inv = _unique_rows(shards)
        self.shard_coords = np.ascontiguousarray(uniq, dtype=np.int64)
        self.file = np.ascontiguousarray(inv.reshape(-1), dtype=np.int64)
        self.local = local
        self.keys = [prep.chunk_key(tuple(int(i) for i in u)) for u in uniq]
        nper = math.prod(layout.grid_shape)
        table = np.full((len(uniq), nper, 2), EMPTY, dtype=np.uint64)
        # readers held open (see the module docstring); local files past _KEEP_OPEN are
        # closed and known by their stamps alone
        keep = len(self.keys) <= _KEEP_OPEN
        self.files: list = [None] * len(uniq)
        self.readers: list = [None] * len(uniq)
        try:
            for s, key in enumerate(self.keys):
                reader = store.open_reader(key)
                if reader is None:
                    continue
                self.readers[s] = reader
                nbytes = reader.size
                self.files[s] = _file_stamp(reader)
                buf = reader.read(*layout.index_range(nbytes))
                if not keep and self.files[s] is not None:
                    reader.close()
                    self.readers[s] = None
                table[s] = layout.decode_index(buf, nbytes, key).reshape(nper, 2)
        except BaseException:
            self.close()
            raise
        flat = (np.ravel_multi_index(tuple(local.T), layout.grid_shape) if n
                else np.zeros(0, np.int64))
        entry = table[self.file, flat] if n else np.zeros((0, 2), np.uint64)
        stored = entry[:, 0] != EMPTY
        # checked entries lie inside their shard, so they fit int64
        self.offset = np.where(stored, entry[:, 0], 0).astype(np.int64)
        self.length = np.where(stored, entry[:, 1], 0).astype(np.int64)
        self.length[~stored] = -1

    def name(self, i: int) -> str:
        loc = tuple(int(x) for x in self.local[i])
        return f"{self.keys[self.file[i]]}: inner chunk {loc}"

    def read(self, prep, i: int):
        """Inner chunk ``i``'s bytes (see `read_all`)."""
        return self.read_all(prep, [i])[0]

    def read_all(self, prep, indices) -> list:
        """The bytes of the stored inner chunks ``indices``, in order: from the shard
        version each index was read from where that shard's reader is held (one
        ``read_ranges`` call: remote stores fetch them concurrently), else by key
        (a local file: `same_files` afterwards tells whether it was replaced)."""
        held: dict = {}
        by_key = []
        for n, i in enumerate(indices):
            s = int(self.file[i])
            rng = (int(self.offset[i]), int(self.length[i]))
            if self.readers[s] is not None:
                held.setdefault(s, []).append((n, rng))
            else:
                by_key.append((n, (self.keys[s], *rng)))
        out: list = [None] * len(indices)
        if held:
            got = prep.store.read_ranges(
                [(self.readers[s], [r for _, r in items]) for s, items in held.items()])
            for items, bufs in zip(held.values(), got):
                for (n, _), buf in zip(items, bufs):
                    out[n] = buf
        if by_key:
            bufs = prep.store.get_partial_values([r for _, r in by_key])
            for (n, _), buf in zip(by_key, bufs):
                out[n] = buf
        return out

    def unchanged(self, store) -> bool:
        """Whether the shards read by path (a directory store: by the engine, or by key
        past the held readers) are still the files their indexes came from."""
        root = store.native_root
        return root is None or self.same_files(root)

    def same_files(self, root: str) -> bool:
        """Whether every shard path still names the file its index was read from."""
        for key, stamp in zip(self.keys, self.files):
            try:
                st = os.stat(os.path.join(root, key))
            except FileNotFoundError:
                if stamp is not None:
                    return False
                continue
            if stamp is None or stamp != _stat_stamp(st):
                return False
        return True

    def __enter__(self) -> _InnerRanges:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        for r in self.readers:
            if r is not None:
                r.close()
        self.readers = [None] * len(self.readers)


def _stat_stamp(st) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _file_stamp(reader) -> tuple | None:
    fileno = getattr(reader, "fileno", None)
    return _stat_stamp(os.fstat(fileno())) if fileno is not None else None


