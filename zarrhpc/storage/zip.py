"""ZipStore: a whole Zarr hierarchy in one .zip file.

Layout: key ``a/b/c`` is the zip entry named ``a/b/c``; chunk entries are STORED (not
deflated: the codecs compress already), as the Zarr v2 community standard and
zarr-python's ``ZipStore`` write them. Like a `MemoryStore` the archive is a flat mapping:
``a`` and ``a/b`` may both be keys.

Life cycle of an archive:

- **open**: ``ZipStore(path, mode)`` with zarr-python's modes: ``"r"`` read an existing
  file (read-only), ``"w"`` create or truncate, ``"a"`` read and append (the file is
  created if missing), ``"x"`` create, failing if the file exists. The central directory
  is parsed once into a dict ``key -> entry``. An archive whose end records are missing
  or torn (an append killed before `ZipStore.close`) opens as it was at its last complete
  directory: see "crash safety" below.
- **read** (`ZipStore.get`, `ZipStore.get_partial_values`): a STORED entry is read with
  ``pread`` (a large one into a numpy buffer, as `LocalStore` does); its
  position comes from the entry's local header (read on first use) and is checked
  against the file size, so a corrupt archive gives a `StoreError` naming the file and
  the entry, never a crash. The archive is never memory-mapped: a file truncated or
  rewritten in place by another program would kill a mapped reader with SIGBUS, or give
  zeros as data; here it gives a `StoreError` ("truncated while being read"). The
  CRC-32 of a STORED entry is not checked on reads (Zarr's ``crc32c`` codec is the way to
  checksum chunks). Entries other tools deflated (or compressed with bzip2 or zstd) are
  decompressed into ``bytes`` and their CRC-32 checked.
- **write** (`ZipStore.set`): a local header and the bytes are appended at the end of the
  entries (space is reserved under a lock, the write itself runs unlocked, so threads
  write in parallel), then the entry is published in the dict: a reader sees the old value
  or the new one. A zip cannot overwrite in place, so writing a key again appends a new
  entry and the newest one wins; `ZipStore.erase` drops the entry from the dict. The old
  bytes stay in the file as unreferenced space until the archive is compacted (below).
  zarr-python's ``ZipStore`` (through ``zipfile``) instead keeps both entries in the
  directory (readers take the last) and refuses deletes; here the directory written
  always holds exactly one entry per key, so ``zipfile``, zarr-python and tensorstore see
  only the live values. A write over a live key warns ``UserWarning("Duplicate name:
  'key'")`` as ``zipfile`` does under zarr-python, so a script shows the same warnings
  with either library (filter them as zarr-python's users do).
- **flush / close**: `ZipStore.flush` (and `ZipStore.close` of a writable store) writes
  the central directory and end records after the entries: only then is the file a valid
  zip, and that directory is the archive's commit point.
- **crash safety**: a directory once written is never written over. Entries appended
  later (in this session after a flush, or when an archive is opened again in mode
  ``"a"``) go after its end records, which become unused space; ``zipfile`` does
  otherwise (it overwrites the old directory), so an append killed before ``close``
  leaves no valid zip. Here, opening an archive whose tail is torn walks the file from
  the start (local headers, directories, end records: `_zipformat.recover_directory`)
  and takes the last complete directory: the store opens with exactly the contents of
  its last flush or close, and `ZipStore.recovered` says so. A new archive writes its
  (empty) end record at once, so even a first session killed early opens, empty. When
  the last store on an archive closes, the file is compacted if
  ``compact`` asks for it: the live entries are copied to a temporary file renamed over
  the archive. A store that is garbage-collected, or still open at interpreter exit, is
  closed then, so a script that never calls `close` still leaves a valid zip.

One process, one archive: every ``ZipStore`` opened on the same file in this process
shares one open archive (its dict, lock and write position), so a reader opened while a
writer is open sees its writes, and two writers never append over one another; the
``durable`` and ``compact`` settings are those of the store that opened the archive. Other
processes must not write to the file while it is open here; a file changed on disk by
another process is reopened when no store here holds it. Archives larger than 2 GiB or
with more than 65534 entries use the ZIP64 extensions, as ``zipfile`` does.
"""

from __future__ import annotations

import bz2
import contextlib
import os
import pathlib
import threading
import time
import uuid
import warnings
import weakref
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from zarrhpc.errors import (
    InvalidKeyError,
    ReadOnlyError,
    StoreError,
    UnsupportedError,
    store_os_error,
)
from zarrhpc.storage import _zipformat as zf
from zarrhpc.storage import local as _local
from zarrhpc.storage.abc import Buffer, RangeReader, Store, ValueReader, resolve_range
from zarrhpc.storage.keys import validate_key

__all__ = ["ZipStore"]

_MODES = ("r", "w", "a", "x")
_LARGE = 1 << 20  # entries at least this large are read into a numpy buffer
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

#: Open archives of this process by real path; an archive lives while a store uses it.
_ARCHIVES: weakref.WeakValueDictionary[str, _Archive] = weakref.WeakValueDictionary()
_ARCHIVES_LOCK = threading.Lock()


def _os_error(what: str, exc: OSError) -> StoreError:
    return store_os_error(what, exc)  # FileNotFoundError/FileExistsError as zarr-python


def _pwrite_all(fd: int, buffers: list, offset: int) -> None:
    """Write every byte of ``buffers`` at ``offset`` (``pwritev`` may write less)."""
    views = [memoryview(b).cast("B") for b in buffers if len(b)]
    while views:
        n = os.pwritev(fd, views, offset)
        offset += n
        while views and n >= views[0].nbytes:
            n -= views[0].nbytes
            views.pop(0)
        if views and n:
            views[0] = views[0][n:]


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _decompress(entry: zf.ZipEntry, data: memoryview, where: str) -> bytes:
    try:
        if entry.method == zf.DEFLATED:
            d = zlib.decompressobj(-15)
            out = d.decompress(data, entry.size) + d.flush()
        elif entry.method == zf.BZIP2:
            out = bz2.decompress(data)
        else:  # zf.ZSTD
            import zstandard

            out = zstandard.ZstdDecompressor().decompress(data, max_output_size=entry.size)
    except Exception as exc:  # zlib.error, OSError, zstandard.ZstdError
        raise StoreError(f"{where}: cannot decompress "
                         f"({zf.METHOD_NAMES[entry.method]}): {exc}") from exc
    if len(out) != entry.size or zlib.crc32(out) != entry.crc:
        raise StoreError(f"{where}: decompressed data does not match the directory "
                         f"({len(out)} bytes, {entry.size} expected, or a bad CRC-32)")
    return out


class _Archive:
    """The open state of one zip file, shared by every `ZipStore` on it in this process."""

    def __init__(self, path: str, mode: str, durable: bool, compact: bool | str):
        self.path = path
        self.writable = mode != "r"
        self.durable = durable
        self.compact = compact
        self.lock = threading.RLock()
        self.entries: dict[str, zf.ZipEntry] = {}
        self.users = 0
        self.closed = False
        self.dirty = False  # the directory on disk is out of date
        self.dead = 0  # bytes of the file no entry uses any more
        self.size = 0  # bytes of the file known to hold entries or directories
        self.end = 0  # where the next entry goes: after everything written so far
        self.recovered = False  # opened from the last complete directory of a torn file
        self.last_dir = 0  # bytes of the directory and end records at self.end, if any
        self.writes = 0  # appends begun here (reads tell them from foreign changes)
        self.appending = 0  # entries being written now (their bytes still arriving)
        flags = {"r": os.O_RDONLY, "a": os.O_RDWR | os.O_CREAT,
                 "w": os.O_RDWR | os.O_CREAT | os.O_TRUNC,
                 "x": os.O_RDWR | os.O_CREAT | os.O_EXCL}[mode]
        try:
            self.fd = os.open(path, flags | _O_CLOEXEC, 0o666)
        except FileNotFoundError as exc:
            raise _os_error(f"{path}: cannot open zip file (mode {mode!r})", exc) from None
        except OSError as exc:
            raise _os_error(f"{path}: cannot open zip file (mode {mode!r})", exc) from exc
        try:
            self.stat = _stat_key(os.fstat(self.fd))
            if self.stat[2] > 0:
                self._read_directory()
            elif mode == "r":
                raise StoreError(f"{path}: not a zip file (the file is empty)")
            else:
                self.dirty = True  # a new archive: its end record now, so it always opens
                self.flush()
        except BaseException:
            os.close(self.fd)
            raise

    def pread(self, offset: int, length: int) -> bytes:
        """Bytes of the file at ``offset`` (fewer only at its end)."""
        try:
            return _local.pread_exact(self.fd, length, offset)
        except OSError as exc:
            raise _os_error(f"{self.path}: cannot read", exc) from exc

    def _read_directory(self) -> None:
        size = self.stat[2]
        try:
            entries, cd_start = zf.parse_directory(self.pread, size, self.path)
        except zf.NoEndRecordError:
            # Only a missing end record: a directory that is there but corrupt is an error.
            found = zf.recover_directory(self.pread, size, self.path)
            if found is None:
                raise
            entries, good = found
            self.recovered = True
            if self.writable:
                # Cut the torn tail off before appending, so that a later recovery walks
                # from the start through whole records only.
                try:
                    os.ftruncate(self.fd, good)
                except OSError as exc:
                    raise _os_error(f"{self.path}: cannot cut the torn end of the zip file",
                                    exc) from exc
                size = good
        self.size = size
        # New entries go after everything (see "crash safety"); a torn tail is unused.
        self.end = size
        if self.recovered:
            self.dead += size  # compacted (rewritten whole) when closed after writing
        else:
            self.last_dir = size - cd_start
        for entry in entries:
            if entry.name.endswith("/"):  # a directory entry, made by zip tools
                continue
            try:
                validate_key(entry.name)
            except InvalidKeyError:
                continue  # a name no key can reach ("../x", "/abs"): not part of the store
            old = self.entries.get(entry.name)
            if old is not None:
                self.dead += old.span()
            self.entries[entry.name] = entry

    # -- reading -----------------------------------------------------------------------

    def locate(self, entry: zf.ZipEntry) -> int:
        """Where ``entry``'s data starts in the file (its local header read once)."""
        start = entry.data_start
        if start < 0:
            with self.lock:
                limit = max(self.end, self.size)
            start = zf.data_offset(self.pread, os.fstat(self.fd).st_size, entry, limit,
                                   self.path)
            entry.data_start = start
        return start

    def read_data(self, entry: zf.ZipEntry) -> Buffer:
        """The stored bytes of ``entry`` (compressed as they are in the file)."""
        start = self.locate(entry)
        n = entry.compressed_size
        try:
            return _local.read_stable(self.fd, entry.name, _LARGE, start, n,
                                      lambda: None if self.appending else self.writes)
        except OSError as exc:
            raise _os_error(f"{self.path}: entry {entry.name!r}: cannot read", exc) from exc

    def read(self, key: str) -> Buffer | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        reason = zf.unsupported_reason(entry)
        where = f"{self.path}: entry {key!r}"
        if reason:
            raise UnsupportedError(f"{where}: cannot read: {reason}")
        data = self.read_data(entry)
        if entry.method == zf.STORED:
            return data
        return _decompress(entry, memoryview(data), where)

    # -- writing -----------------------------------------------------------------------

    def write(self, key: str, data: memoryview) -> bool:
        """Append ``data`` as the entry ``key``; True when it replaced a live entry."""
        when = zf.dos_datetime(time.localtime())
        entry = zf.entry_for_write(key, zlib.crc32(data), data.nbytes, when)
        if len(entry.raw_name) > 0xFFFF:
            raise InvalidKeyError(f"{key[:40]!r}...: a zip entry name is at most 65535 bytes")
        header = zf.local_header(entry)
        total = len(header) + data.nbytes
        with self.lock:
            self._check_open(key)
            entry.offset = self.end
            self.end += total
            self.writes += 1
            self.appending += 1
            self.dead += self.last_dir  # the directory before it is left behind, unused
            self.last_dir = 0
        entry.data_start = entry.offset + len(header)
        try:
            _pwrite_all(self.fd, [header, data], entry.offset)
        except BaseException as exc:
            with self.lock:
                self.appending -= 1
                self.dead += total  # reserved, never published: the old value stays
            if isinstance(exc, OSError):
                raise _os_error(f"{self.path}: entry {key!r}: cannot write", exc) from exc
            raise
        with self.lock:
            self.appending -= 1
            old = self.entries.get(key)
            if old is not None:
                self.dead += old.span()
            self.entries[key] = entry
            self.dirty = True
            self.writes += 1
        return old is not None

    def erase(self, keys: Iterable[str]) -> None:
        with self.lock:
            for key in keys:
                old = self.entries.pop(key, None)
                if old is not None:
                    self.dead += old.span()
                    self.dirty = True

    def _check_open(self, key: str) -> None:
        if self.closed:
            raise StoreError(f"{key!r}: cannot write: {self.path} is closed")

    def flush(self) -> None:
        """Write the central directory and end records after the entries."""
        with self.lock:
            if not self.dirty or self.closed:
                return
            live = sorted(self.entries.values(), key=lambda e: e.offset)
            directory = zf.central_directory(live)
            tail = zf.end_records(len(live), self.end, len(directory))
            n = len(directory) + len(tail)
            self.writes += 1
            try:
                _pwrite_all(self.fd, [directory, tail], self.end)
                os.ftruncate(self.fd, self.end + n)
                if self.durable:
                    os.fsync(self.fd)
            except OSError as exc:
                raise _os_error(f"{self.path}: cannot write the central directory", exc) from exc
            # The directory just written is the commit point: later entries go after it.
            self.end += n
            self.size = self.end
            self.last_dir = n
            self.dirty = False

    def _should_compact(self) -> bool:
        if self.compact is True:
            return self.dead > 0
        if self.compact == "auto":
            return self.dead > 0 and 4 * self.dead >= self.end
        return False

    def _compact(self) -> None:
        """Copy the live entries into a new file renamed over this one."""
        directory, name = os.path.split(self.path)
        tmp = os.path.join(directory, f".{name}.zhtmp-{uuid.uuid4().hex}")
        live = sorted(self.entries.values(), key=lambda e: e.offset)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o666)
        try:
            pos = 0
            moved = []
            for entry in live:
                data = self.read_data(entry) if entry.compressed_size else b""
                copy = zf.ZipEntry(entry.name, entry.raw_name,
                                   entry.flags & ~zf.FLAG_DATA_DESCRIPTOR, entry.method,
                                   entry.time, entry.date, entry.crc, entry.compressed_size,
                                   entry.size, pos)
                header = zf.local_header(copy)
                _pwrite_all(fd, [header, data], pos)
                del data
                copy.data_start = pos + len(header)
                pos = copy.data_start + copy.compressed_size
                moved.append(copy)
            directory = zf.central_directory(moved)
            _pwrite_all(fd, [directory, zf.end_records(len(moved), pos, len(directory))], pos)
            if self.durable:
                os.fsync(fd)
            os.replace(tmp, self.path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        os.close(fd)

    # -- life cycle --------------------------------------------------------------------

    def release(self, writer: bool) -> None:
        """One store on the archive closed; the last one closes the archive."""
        with self.lock:
            if self.closed:
                return
            self.users -= 1
            last = self.users <= 0
            try:
                if writer or last:
                    self.flush()
                if last and self.writable and self._should_compact():
                    try:
                        self._compact()
                    except OSError as exc:
                        raise _os_error(f"{self.path}: cannot compact the zip file", exc) \
                            from exc
            finally:
                if last:
                    self._close_file()

    def _close_file(self) -> None:
        self.closed = True
        os.close(self.fd)
        with _ARCHIVES_LOCK:
            if _ARCHIVES.get(self.path) is self:
                del _ARCHIVES[self.path]

    def make_writable(self) -> None:
        """Reopen a read-only archive for appending (the file is unchanged since)."""
        with self.lock:
            if self.writable:
                return
            try:
                fd = os.open(self.path, os.O_RDWR | _O_CLOEXEC)
                changed = _stat_key(os.fstat(fd)) != self.stat
            except OSError as exc:
                raise _os_error(f"{self.path}: cannot open zip file for writing", exc) from exc
            if changed:
                os.close(fd)
                raise StoreError(f"{self.path}: cannot write: the file changed on disk since "
                                 f"it was opened here; close its stores and open it again")
            # The new descriptor takes the old one's number (dup2 swaps them in one step):
            # reads in flight hold that number, and closing it would let the next file
            # this process opens take it, and those reads return that file's bytes.
            try:
                os.dup2(fd, self.fd, inheritable=False)
            except OSError as exc:
                raise _os_error(f"{self.path}: cannot open zip file for writing", exc) \
                    from exc
            finally:
                os.close(fd)
            self.writable = True


def _acquire(path: str, mode: str, durable: bool, compact: bool | str) -> _Archive:
    """The open archive of ``path`` in this process, opened (or shared) for ``mode``."""
    with _ARCHIVES_LOCK:
        archive = _ARCHIVES.get(path)
        if archive is not None and not archive.closed:
            if mode in ("w", "x"):
                raise StoreError(
                    f"{path}: cannot open with mode {mode!r}: the zip file is open in this "
                    f"process (close the other ZipStore first, or use mode 'a')"
                )
            try:
                unchanged = _stat_key(os.stat(path)) == archive.stat
            except FileNotFoundError:
                unchanged = False
            if archive.writable or unchanged:
                if mode == "a":
                    archive.make_writable()
                with archive.lock:
                    archive.users += 1
                return archive
        archive = _Archive(path, mode, durable, compact)
        archive.users = 1
        _ARCHIVES[path] = archive
        return archive


class ZipStore(Store):
    """A store in a single zip file (see the module docstring for the life cycle).

    Parameters
    ----------
    path : str or os.PathLike
        The zip file.
    mode : {"r", "w", "a", "x"}, default "r"
        Read an existing file; create or truncate; append (create if missing); create,
        failing if the file exists. As zarr-python's ``ZipStore``.
    read_only : bool, optional
        Refuse writes with `ReadOnlyError`; default: ``mode == "r"``.
    durable : bool, default False
        ``fsync`` the file after writing its central directory (and the compacted copy
        before renaming it).
    compact : bool or "auto", default "auto"
        When the last store on the archive closes, copy the live entries to a new file if
        space was left unused by overwritten or erased keys: ``"auto"`` when that space is
        at least a quarter of the entries, ``True`` whenever there is some, ``False``
        never.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.zip")
    >>> with ZipStore(path, mode="w") as store:
    ...     store.set("zarr.json", b"{}")
    >>> with ZipStore(path) as store:
    ...     bytes(store.get("zarr.json")), store.read_only
    (b'{}', True)
    """

    def __init__(self, path: str | os.PathLike[str], mode: str = "r", *,
                 read_only: bool | None = None, durable: bool = False,
                 compact: bool | str = "auto") -> None:
        if mode not in _MODES:
            raise ValueError(f"ZipStore mode: expected one of {_MODES}, got {mode!r}")
        if compact not in (True, False, "auto"):
            raise ValueError(f"ZipStore compact: expected True, False or 'auto', got {compact!r}")
        try:
            path = os.fspath(path)
        except TypeError:
            raise TypeError(
                f"ZipStore path must be a str or path-like, got {type(path).__name__}"
            ) from None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if read_only is None:
            read_only = mode == "r"
        # mode "r" with read_only=False is accepted as zarr-python does (users pass it so
        # that zarr.load's mode "a" takes the store); a write is still refused (below)
        real = os.path.realpath(path)
        archive = _acquire(real, mode, bool(durable), compact)
        self._attach(archive, bool(read_only), mode)
        self._shown = pathlib.Path(path).as_posix()  # for the URL: as given, as zarr-python

    def _attach(self, archive: _Archive, read_only: bool, mode: str) -> None:
        Store.__init__(self, read_only=read_only)
        self._archive = archive
        self._mode = mode
        # Closes this store when it is garbage-collected or at interpreter exit.
        self._finalizer = weakref.finalize(self, archive.release,
                                           not read_only and mode != "r")

    def _check_writable(self, key: str, action: str) -> None:
        super()._check_writable(key, action)
        if self._mode == "r":
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self!r} was opened with mode 'r';"
                                f" use mode 'a' to write")

    # -- state -------------------------------------------------------------------------

    @property
    def path(self) -> pathlib.Path:
        """pathlib.Path: the zip file (with symbolic links resolved)."""
        return pathlib.Path(self._archive.path)

    @property
    def mode(self) -> str:
        """str: the mode the store was opened with."""
        return self._mode

    @property
    def recovered(self) -> bool:
        """bool: the archive's end was torn (an append killed before `close`); it was
        opened as of its last complete directory (its last flush or close)."""
        return self._archive.recovered

    def close(self) -> None:
        """Close this store; a writable one writes the central directory first.

        The last store on the archive also closes the file (and compacts it if
        ``compact`` says so). Buffers returned by `get` stay valid.
        """
        if self._closed:
            return
        super().close()
        self._finalizer()

    def flush(self) -> None:
        """Write the central directory now, so the file is a complete zip.

        Raises
        ------
        ReadOnlyError
            If the store is read-only.
        """
        self._check_writable("", "flush")
        self._archive.flush()

    def with_read_only(self, read_only: bool = True) -> ZipStore:
        """Return a new store on the same open archive with the given mode.

        Parameters
        ----------
        read_only : bool, default True

        Returns
        -------
        ZipStore
            Shares this store's entries: writes through one are seen by the other.
        """
        self._check_open()
        archive = self._archive
        if not read_only:
            archive.make_writable()
        with archive.lock:
            if archive.closed:
                raise StoreError(f"{self!r}: the zip file is closed")
            archive.users += 1
        store = ZipStore.__new__(ZipStore)
        store._attach(archive, bool(read_only), self._mode if read_only else "a")
        store._shown = self._shown
        return store

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZipStore):
            return NotImplemented
        return self._archive is other._archive and self._read_only == other._read_only

    def __hash__(self) -> int:
        return hash((ZipStore, id(self._archive), self._read_only))

    def __str__(self) -> str:
        return f"zip://{getattr(self, '_shown', self._archive.path)}"

    def __repr__(self) -> str:
        # as zarr-python prints it: the URL only (mode and read_only are attributes)
        return f"ZipStore({str(self)!r})"

    def __getstate__(self) -> dict[str, Any]:
        if not self._read_only:
            raise TypeError(f"{self!r}: only a read-only ZipStore can be pickled (one "
                            f"process writes a zip file)")
        return {"path": self._archive.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], "r")

    # -- hooks -------------------------------------------------------------------------

    def _get(self, key: str) -> Buffer | None:
        return self._archive.read(key)

    def _open_reader(self, key: str) -> RangeReader | None:
        # the entry as it is now: a later write appends a new entry for the key
        value = self._archive.read(key)
        return None if value is None else ValueReader(self, key, value)

    def _exists(self, key: str) -> bool:
        return key in self._archive.entries

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        values: dict[str, Buffer | None] = {}
        out: list[Buffer | None] = []
        for key, offset, length in requests:
            if key not in values:
                values[key] = self._archive.read(key)
            value = values[key]
            if value is None:
                out.append(None)
                continue
            start, stop = resolve_range(len(value), offset, length)
            out.append(value[start:stop])
        return out

    def _set(self, key: str, data: memoryview) -> None:
        if self._archive.write(key, data):
            # what a zarr-python user sees when an entry is written again (its ZipStore
            # appends through zipfile, which warns so); the directory here keeps one
            warnings.warn(f"Duplicate name: {key!r}", UserWarning, stacklevel=2)

    def _erase(self, key: str) -> None:
        self._archive.erase([key])

    def _erase_values(self, keys: list[str]) -> None:
        self._archive.erase(keys)

    def _erase_prefix(self, prefix: str) -> None:
        archive = self._archive
        with archive.lock:
            archive.erase([k for k in archive.entries if k.startswith(prefix)])

    def _snapshot(self) -> list[str]:
        with self._archive.lock:
            return list(self._archive.entries)

    def _list(self) -> Iterator[str]:
        return iter(self._snapshot())

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return iter([k for k in self._snapshot() if k.startswith(prefix)])

    def _list_dir(self, prefix: str) -> Iterable[str]:
        n = len(prefix)
        return {k[n:].split("/", 1)[0] for k in self._snapshot() if k.startswith(prefix)}

