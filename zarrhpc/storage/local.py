"""LocalStore: a store in a directory of a local (or cluster) file system.

Layout: key ``a/b/c`` is the file ``<root>/a/b/c``; prefixes are directories, so listing
a prefix is one ``os.scandir`` of its directory. The root directory is created on the
first write; reading or listing a store whose root does not exist yet finds nothing.

Life cycle of a value:

- **write** (`LocalStore.set`): the bytes go to a temporary file in the destination
  directory (``.zhtmp-<uuid>.partial``, a name no listing shows and no key may use), are
  optionally flushed to stable storage (``durable=True``: ``fsync`` of the file, then of
  its directory after the rename), and the temporary file is renamed over the key with
  ``os.replace``. A reader therefore sees the old file or the new one, never half a file,
  and on any failure (including ``KeyboardInterrupt``) the temporary file is removed and
  the old value stays as it was. Missing parent directories are created.
- **partial write** (`LocalStore.set_partial_values`): copy, modify, rename, so it is
  atomic too (but two concurrent partial writers to one key may lose an update).
- **read** (`LocalStore.get`): a file smaller than `LocalStore.mmap_threshold` is read
  with one ``pread`` into a new ``bytes``; a larger one is read with ``preadv`` into a
  numpy buffer (numpy backs large ones with huge pages) and returned as a read-only
  ``memoryview``. Files are never memory-mapped: a file
  truncated or rewritten in place by another program under a mapping kills the reader
  with SIGBUS on the next touch of a lost page, wherever that happens (numpy, a codec
  library), so no guard around one copy could cover it. Reading costs one copy; measured
  on a 256 MiB file in the page cache (loaded machine): ``get`` + copy 37 ms against
  23 ms when mapped. A file
  that shrinks while it is read gives a `StoreError` naming the key ("truncated while
  being read"), never zeros or a short value.
- **partial read** (`LocalStore.get_partial_values`): each file is opened once per call
  and each range read with one ``pread``; ranges past the end give what is there.
- **erase**: the file is unlinked, then directories left empty are removed, up to but
  never including the root.
- **list**: ``os.scandir`` of the directories, never showing temporary files.
  `LocalStore.list_dir` reports every sub-directory without looking inside it, so a
  directory made by hand, or holding only a crashed writer's temporary file, shows up
  as a (childless) prefix; `LocalStore.erase_prefix` removes such leftovers.

Keys must not climb out of the root: ``..`` segments and absolute keys are refused by
:func:`zarrhpc.storage.keys.validate_key`. Symbolic links below the root are never
followed for values: a read opens the file with ``O_NOFOLLOW`` and checks that no
directory on the way is a link leaving the root (one ``realpath`` per directory, cached),
so a link pointing outside the root reads as a `StoreError` naming the key, never as the
file it points to. The root itself may be a link.

Because the file system is a tree, a key cannot also be a prefix here: with a value at
``a/b``, ``set("a/b/c", ...)`` fails with `StoreError` (and vice versa).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pathlib
import stat
import uuid
from collections.abc import Iterable, Iterator

import numpy as np

from zarrhpc.errors import InvalidKeyError, StoreError
from zarrhpc.storage.abc import Buffer, RangeReader, Store, apply_writes, resolve_range
from zarrhpc.storage.keys import validate_key

__all__ = ["LocalStore"]

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_READ = os.O_RDONLY | _O_CLOEXEC | getattr(os, "O_BINARY", 0)
_O_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | getattr(os, "O_BINARY", 0)

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_ELOOP = errno.ELOOP

_TEMP_PREFIX = ".zhtmp-"
_TEMP_SUFFIX = ".partial"

#: Errors meaning "there is no file at this path" when opening or unlinking it.
_MISSING = (FileNotFoundError, NotADirectoryError, IsADirectoryError)


def _is_temp_name(name: str) -> bool:
    return name.startswith(_TEMP_PREFIX) and name.endswith(_TEMP_SUFFIX)


def _store_error(what: str, exc: OSError) -> StoreError:
    """Wrap an ``OSError`` in a `StoreError` keeping errno, strerror and filename."""
    detail = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno and exc.strerror else str(exc)
    where = f" ({exc.filename})" if exc.filename else ""
    err = StoreError(f"{what}: {detail}{where}")
    err.errno = exc.errno
    err.strerror = exc.strerror
    err.filename = exc.filename
    return err


def truncated(key: str, got: int, size: int) -> StoreError:
    return StoreError(f"{key!r}: the file was truncated while being read ({got} of "
                      f"{size} bytes): rewritten in place by another program?")


def _read_small(fd: int, size: int, key: str, offset: int = 0) -> bytes:
    """Read ``size`` bytes at ``offset``: one ``pread`` usually, more if it comes up short."""
    data = os.pread(fd, size, offset)
    if len(data) == size:
        return data
    pieces = [data]
    pos = len(data)
    while pos < size:
        piece = os.pread(fd, size - pos, offset + pos)
        if not piece:
            raise truncated(key, pos, size)
        pieces.append(piece)
        pos += len(piece)
    return b"".join(pieces)


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def read_stable(fd: int, key: str, large: int, offset: int = 0,
                length: int | None = None, writes=None) -> Buffer:
    """Read a whole file (or ``length`` bytes at ``offset``) that nobody changes meanwhile.

    Writers here never change a file in place, but another program may: a file
    truncated and written again in place can read as zeros where the new bytes were not
    there yet. The file's size and change times are compared before and after; a read
    that overlapped a change is tried again (three times), then refused with a
    `StoreError` naming the key. ``writes``, when given, is a callable counting this
    process's own appends to the file (a `ZipStore` archive), None while one is being
    written: a change those may have made only needs the bytes read to still be in the
    file (appends never touch bytes already there).
    """
    for _ in range(3):
        mark = writes() if writes else None
        before = _stamp(os.fstat(fd))
        n = before[0] - offset if length is None else length
        if n >= large and n > 0:
            data: Buffer = read_large(fd, n, key, offset)
        else:
            data = _read_small(fd, n, key, offset)
        after = _stamp(os.fstat(fd))
        if after == before:
            return data
        if writes and after[0] >= offset + n:
            now = writes()
            if now is None or mark is None or now != mark:  # our own appends, maybe
                return data
    raise StoreError(f"{key!r}: the file keeps changing while being read: rewritten in "
                     f"place by another program?")


def read_large(fd: int, size: int, key: str, offset: int = 0) -> memoryview:
    """Read ``size`` bytes at ``offset`` into a new numpy buffer; a read-only view of it."""
    buf = np.empty(size, np.uint8)  # numpy asks for huge pages for large arrays
    view = memoryview(buf)
    pos = 0
    while pos < size:
        n = os.preadv(fd, [view[pos:]], offset + pos)  # EINTR: retried (PEP 475)
        if n == 0:
            raise truncated(key, pos, size)
        pos += n
    buf.flags.writeable = False
    return memoryview(buf)


def pread_exact(fd: int, length: int, offset: int) -> bytes:
    """Read ``length`` bytes at ``offset`` (fewer only at end of file)."""
    data = os.pread(fd, length, offset)
    if len(data) == length or not data:
        return data
    pieces = [data]
    got = len(data)
    while got < length:
        piece = os.pread(fd, length - got, offset + got)
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


try:
    _IOV_MAX = max(16, os.sysconf("SC_IOV_MAX"))
except (AttributeError, ValueError, OSError):  # pragma: no cover - not a POSIX system
    _IOV_MAX = 1024


def _write_all(fd: int, views: list[memoryview]) -> None:
    """Write every byte of ``views`` in order (``writev`` may write less than asked)."""
    views = [v for v in views if v.nbytes]
    while views:
        n = os.writev(fd, views[:_IOV_MAX])
        while views and n >= views[0].nbytes:
            n -= views[0].nbytes
            views.pop(0)
        if n:
            views[0] = views[0][n:]


def _fsync_dir(path: str) -> None:
    """Flush a directory entry change (create, rename) to stable storage."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _scan(path: str) -> list[os.DirEntry[str]]:
    """Return the entries of a directory, or ``[]`` if it is missing or not a directory."""
    try:
        with os.scandir(path) as it:
            return list(it)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise _store_error(f"cannot list directory {path!r}", exc) from exc


class _FileReader(RangeReader):
    """A `RangeReader` holding the file open: size and ranges from one file version."""

    def __init__(self, store: LocalStore, key: str, fd: int, size: int) -> None:
        super().__init__(store, key, size)
        self._fd = fd

    def fileno(self) -> int:
        """The open file's descriptor (-1 once closed): it pins the version read."""
        return self._fd

    def read(self, offset: int, length: int | None) -> Buffer:
        start, stop = resolve_range(self.size, offset, length)
        if stop <= start:
            return b""
        try:
            return pread_exact(self._fd, stop - start, start)
        except OSError as exc:
            raise _store_error(f"{self.key!r}: cannot read a byte range", exc) from exc

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()


class LocalStore(Store):
    """A store in a directory of the local file system.

    Parameters
    ----------
    root : str or os.PathLike
        The directory holding the store; created (with its parents) on the first write.
    read_only : bool, default False
        Refuse writes with `ReadOnlyError`.
    durable : bool, default False
        ``fsync`` every written file before renaming it into place and its directory
        after, so that a value survives a machine crash once `set` returns. Costs one or
        two synchronous disk flushes per write; checkpoints want it, scratch data not.

    Attributes
    ----------
    mmap_threshold : int
        Files at least this large (default 1 MiB) are read by `get` into a numpy
        buffer (returned as a read-only ``memoryview``) rather than a new ``bytes``. The name is historical: nothing is memory-mapped. A class attribute;
        set it on an instance to change one store.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp, LocalStore(tmp) as store:
    ...     store.set("a/b/zarr.json", b"{}")
    ...     store.list_dir("a"), bytes(store.get("a/b/zarr.json"))
    (['b'], b'{}')
    """

    mmap_threshold: int = 1 << 20

    def __init__(
        self, root: str | os.PathLike[str], read_only: bool = False, durable: bool = False
    ) -> None:
        super().__init__(read_only=read_only)
        try:
            path = os.fspath(root)
        except TypeError:
            raise TypeError(
                f"LocalStore root must be a str or path-like, got {type(root).__name__}"
            ) from None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not path:
            raise ValueError("LocalStore root must not be empty")
        self._root = os.path.abspath(path)
        # the root as given, for the URL and repr (zarr-python shows it so: a relative
        # path stays relative); I/O uses the absolute one. Formatted when shown: pathlib
        # costs ~4 us, a tenth of opening an array.
        self._given = path
        self._durable = bool(durable)
        self._inside: dict[str, bool] = {}  # directory -> its real path is below the root

    # -- state -------------------------------------------------------------------------

    @property
    def _shown(self) -> str:
        """The root as the user gave it, as a POSIX path (for the URL, repr and info)."""
        return pathlib.Path(self._given).as_posix()

    @property
    def root(self) -> pathlib.Path:
        """pathlib.Path: the absolute path of the store's directory."""
        return pathlib.Path(self._root)

    @property
    def native_root(self) -> str | None:
        """The root directory, for the native engine (None once closed)."""
        return None if self._closed or type(self) is not LocalStore else self._root

    @property
    def durable(self) -> bool:
        """bool: whether writes are flushed to stable storage before returning."""
        return self._durable

    def with_read_only(self, read_only: bool = True) -> LocalStore:
        """Return a new `LocalStore` on the same root with the given mode.

        Parameters
        ----------
        read_only : bool, default True

        Returns
        -------
        LocalStore
            Same root, ``durable`` flag and ``mmap_threshold``.
        """
        store = type(self)(self._root, read_only=read_only, durable=self._durable)
        store._given = self._given
        if "mmap_threshold" in self.__dict__:
            store.mmap_threshold = self.mmap_threshold
        return store

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LocalStore):
            return NotImplemented
        return self._root == other._root and self._read_only == other._read_only

    def __hash__(self) -> int:
        return hash((LocalStore, self._root, self._read_only))

    def __str__(self) -> str:
        return f"file://{self._shown}"

    def __repr__(self) -> str:
        # as zarr-python prints it: the URL only (the mode shows in ``read_only``)
        return f"LocalStore({str(self)!r})"

    # -- paths -------------------------------------------------------------------------

    def _validate_key(self, key: object) -> str:
        key = validate_key(key)
        if _TEMP_PREFIX in key and any(_is_temp_name(s) for s in key.split("/")):
            raise InvalidKeyError(
                f"{key!r}: invalid key for LocalStore: segments named "
                f"'{_TEMP_PREFIX}*{_TEMP_SUFFIX}' are reserved for temporary files"
            )
        return key

    def _path(self, key: str) -> str:
        """The file path of a valid key (or of a canonical prefix without its "/")."""
        if not key:
            return self._root
        if os.sep != "/":  # pragma: no cover - POSIX is the target
            key = key.replace("/", os.sep)
        return self._root + os.sep + key

    def _key_of(self, path: str) -> str:
        """The key (or prefix without "/") that a path under the root stands for."""
        return os.path.relpath(path, self._root).replace(os.sep, "/")

    def _make_dirs(self, key: str, dirpath: str) -> list[str]:
        """Create ``dirpath`` and its missing parents; return the ones created."""
        missing = []
        d = dirpath
        while not os.path.isdir(d):
            missing.append(d)
            if d == self._root:
                break
            d = os.path.dirname(d)
        created = []
        for d in reversed(missing):
            try:
                if d == self._root:
                    os.makedirs(d, exist_ok=True)
                else:
                    os.mkdir(d)
                created.append(d)
            except FileExistsError:
                # one lstat: a concurrent erase may prune the directory at any moment, and
                # only a path that exists as a non-directory is a value in the way
                try:
                    is_dir = stat.S_ISDIR(os.lstat(d).st_mode)
                except FileNotFoundError:
                    raise FileNotFoundError(d) from None  # pruned meanwhile: try again
                if not is_dir:
                    raise StoreError(
                        f"{key!r}: cannot set: {self._key_of(d)!r} is a value, so it "
                        f"cannot also be a prefix in {self!r}"
                    ) from None
            except FileNotFoundError:
                raise  # a concurrent erase pruned a parent: the caller tries again
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot create the directory for it", exc) from exc
        return created

    def _prune(self, dirpath: str) -> None:
        """Remove ``dirpath`` and its ancestors while they are empty, stopping at root."""
        root = self._root
        while len(dirpath) > len(root) and dirpath.startswith(root):
            try:
                os.rmdir(dirpath)
            except OSError:  # not empty (another key, a writer's temp file) or gone
                return
            dirpath = os.path.dirname(dirpath)

    def _real_inside(self, path: str) -> bool:
        """Whether ``path`` (symbolic links resolved) lies in the store's real root."""
        real_root = os.path.realpath(self._root)
        real = os.path.realpath(path)
        return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)

    def _check_beneath(self, key: str, path: str) -> None:
        """Refuse a key whose directory is reached through a link out of the root."""
        dirpath = os.path.dirname(path)
        if dirpath == self._root:
            return  # the root itself (a key's last part is opened with O_NOFOLLOW)
        ok = self._inside.get(dirpath)
        if ok is None:
            ok = self._real_inside(dirpath)
            if ok and os.path.isdir(dirpath):  # cache only what exists (and is fine)
                if len(self._inside) > 4096:
                    self._inside.clear()
                self._inside[dirpath] = True
        if not ok:
            raise StoreError(f"{key!r}: refused: a symbolic link below {self._root} leads "
                             f"out of the store root")

    # -- readable ----------------------------------------------------------------------

    def _open_regular(self, key: str) -> tuple[int, int] | None:
        """Open the file of ``key``: ``(fd, size)``, or ``None`` if there is no value.

        Never through a symbolic link that leaves the root (see the module docstring).
        """
        path = self._path(key)
        try:
            self._check_beneath(key, path)
            try:
                fd = os.open(path, _O_READ | _O_NOFOLLOW)
            except OSError as exc:
                if exc.errno != _ELOOP or not self._real_inside(path):
                    raise
                fd = os.open(path, _O_READ)  # a link to a file inside the root
        except _MISSING:
            return None
        except OSError as exc:
            if exc.errno == _ELOOP:
                raise StoreError(f"{key!r}: refused: {path} is a symbolic link leading out "
                                 f"of the store root") from None
            raise _store_error(f"{key!r}: cannot open for reading", exc) from exc
        try:
            st = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            raise _store_error(f"{key!r}: cannot stat", exc) from exc
        if not stat.S_ISREG(st.st_mode):  # a directory is a prefix, not a value
            os.close(fd)
            return None
        return fd, st.st_size

    def _get(self, key: str) -> Buffer | None:
        opened = self._open_regular(key)
        if opened is None:
            return None
        fd, _ = opened
        try:
            return read_stable(fd, key, self.mmap_threshold)
        except OSError as exc:
            raise _store_error(f"{key!r}: cannot read", exc) from exc
        finally:
            os.close(fd)

    def _exists(self, key: str) -> bool:
        path = self._path(key)
        if not os.path.isfile(path):
            return False
        self._check_beneath(key, path)
        if os.path.islink(path) and not self._real_inside(path):
            raise StoreError(f"{key!r}: refused: {path} is a symbolic link leading out "
                             f"of the store root")
        return True

    def _open_reader(self, key: str) -> RangeReader | None:
        opened = self._open_regular(key)
        if opened is None:
            return None
        return _FileReader(self, key, *opened)

    def _getsize(self, key: str) -> int | None:
        opened = self._open_regular(key)
        if opened is None:
            return None
        os.close(opened[0])
        return opened[1]

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        out: list[Buffer | None] = [None] * len(requests)
        # Group by key so that each file is opened once and at most one is open at a time.
        by_key: dict[str, list[int]] = {}
        for i, (key, _, _) in enumerate(requests):
            by_key.setdefault(key, []).append(i)
        for key, indices in by_key.items():
            opened = self._open_regular(key)
            if opened is None:
                continue
            fd, size = opened
            try:
                for i in indices:
                    _, offset, length = requests[i]
                    start, stop = resolve_range(size, offset, length)
                    out[i] = pread_exact(fd, stop - start, start) if stop > start else b""
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot read a byte range", exc) from exc
            finally:
                os.close(fd)
        return out

    # -- writeable ---------------------------------------------------------------------

    def _set(self, key: str, data: memoryview) -> None:
        self._write_file(key, [data])

    def _set_vectored(self, key: str, views: list[memoryview]) -> None:
        if type(self)._set is not LocalStore._set:  # a subclass hooks _set: it sees every write
            self._set(key, memoryview(b"".join(views)))
        else:
            self._write_file(key, views)

    def _write_file(self, key: str, views: list[memoryview]) -> None:
        path = self._path(key)
        dirpath = os.path.dirname(path)
        if os.path.lexists(dirpath):
            self._check_beneath(key, path)
        tmp = os.path.join(dirpath, f"{_TEMP_PREFIX}{uuid.uuid4().hex}{_TEMP_SUFFIX}")
        created: list[str] = []
        # A concurrent erase may prune a directory (or a parent of it) that we just
        # created, before our temporary file lands in it: then create it again.
        for _ in range(64):
            try:
                fd = os.open(tmp, _O_CREATE, 0o666)
                break
            except (FileNotFoundError, NotADirectoryError):
                try:
                    # NotADirectoryError: raises naming the value in the way
                    created += self._make_dirs(key, dirpath)
                except FileNotFoundError:
                    continue
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot create a temporary file", exc) from exc
        else:  # pragma: no cover - needs a pathological race
            raise StoreError(f"{key!r}: cannot set: its directory keeps disappearing")
        try:
            try:
                _write_all(fd, views)
                if self._durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if created:
                self._prune(dirpath)  # leave no empty directories behind a failed write
            if isinstance(exc, OSError):
                if os.path.isdir(path):
                    raise StoreError(
                        f"{key!r}: cannot set: it is a prefix of other keys (a directory) "
                        f"in {self!r}"
                    ) from exc
                raise _store_error(f"{key!r}: cannot set", exc) from exc
            raise
        if self._durable:
            try:
                _fsync_dir(dirpath)
                for d in created:
                    _fsync_dir(os.path.dirname(d))
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot flush its directory", exc) from exc

    def _set_partial_values(self, items: list[tuple[str, int, memoryview]]) -> None:
        by_key: dict[str, list[tuple[int, memoryview]]] = {}
        for key, offset, data in items:
            by_key.setdefault(key, []).append((offset, data))
        for key, writes in by_key.items():
            old = self._get(key)
            try:
                new = apply_writes(old, writes)
            finally:
                if isinstance(old, memoryview):
                    old.release()  # unmap now rather than at garbage collection
            self._set(key, memoryview(new))

    def _erase(self, key: str) -> None:
        path = self._path(key)
        try:
            os.unlink(path)
        except _MISSING:
            return
        except PermissionError as exc:
            if os.path.isdir(path):  # some systems say EPERM for unlink(directory)
                return
            raise _store_error(f"{key!r}: cannot erase", exc) from exc
        except OSError as exc:
            raise _store_error(f"{key!r}: cannot erase", exc) from exc
        dirpath = os.path.dirname(path)
        if self._durable:
            try:
                _fsync_dir(dirpath)
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot flush its directory", exc) from exc
        self._prune(dirpath)

    # -- locks -------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Hold an exclusive advisory lock for a read-modify-write of ``key`` (the
        ``shard_lock`` setting: shard writes from several processes).

        The lock is ``flock`` on the key's file itself, so it needs no extra file. A
        writer replaces the file by a rename, so after the lock is granted the path is
        checked to still name the locked file; if another writer replaced or erased it
        meanwhile, the lock is taken again on what is there now. A key with no file yet
        is locked through the store's root directory (never removed), so writers that
        create values wait on each other there. Other processes only wait when they
        take the lock too; readers never do (they see the old file or the new one). The
        file system must support ``flock`` across the processes involved (local file
        systems; NFS emulates it with POSIX locks; Lustre needs ``-o flock``).
        """
        key = self._validate_key(key)
        path = self._path(key)
        while True:
            try:
                try:
                    fd = os.open(path, os.O_RDWR | _O_NOFOLLOW | os.O_CLOEXEC)
                    missing = False
                except FileNotFoundError:
                    os.makedirs(self._root, exist_ok=True)
                    fd = os.open(self._root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                    missing = True
            except OSError as exc:
                raise _store_error(f"{key!r}: cannot open for locking", exc) from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)  # EINTR is retried by Python (PEP 475)
                if missing:
                    current = not os.path.lexists(path)
                else:
                    try:
                        st, locked = os.lstat(path), os.fstat(fd)
                        current = (st.st_ino, st.st_dev) == (locked.st_ino, locked.st_dev)
                    except FileNotFoundError:
                        current = False
            except OSError as exc:
                os.close(fd)
                raise _store_error(f"{key!r}: cannot lock", exc) from exc
            except BaseException:
                os.close(fd)
                raise
            if current:
                break
            os.close(fd)  # replaced or created meanwhile: lock what is there now
        try:
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _remove_tree(self, path: str) -> None:
        """Remove everything below the directory ``path`` (not ``path`` itself)."""
        for entry in _scan(path):
            try:
                if entry.is_dir(follow_symlinks=False):
                    self._remove_tree(entry.path)
                    os.rmdir(entry.path)
                else:
                    os.unlink(entry.path)
            except FileNotFoundError:
                pass

    def _erase_prefix(self, prefix: str) -> None:
        path = self._path(prefix[:-1])
        try:
            self._remove_tree(path)
            if prefix:
                try:
                    os.rmdir(path)
                except (FileNotFoundError, NotADirectoryError):
                    return
                self._prune(os.path.dirname(path))
        except OSError as exc:
            raise _store_error(f"{prefix!r}: cannot erase prefix", exc) from exc

    # -- listable ----------------------------------------------------------------------

    def _walk(self, dirpath: str, prefix: str) -> Iterator[str]:
        # Each directory is read whole and closed before descending, so an abandoned
        # iterator never leaves a directory handle open.
        for entry in _scan(dirpath):
            name = entry.name
            if _is_temp_name(name):
                continue
            try:
                if entry.is_dir():
                    yield from self._walk(entry.path, prefix + name + "/")
                elif entry.is_file():
                    yield prefix + name
            except FileNotFoundError:  # removed while we were listing
                continue

    def _list(self) -> Iterator[str]:
        return self._walk(self._root, "")

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return self._walk(self._path(prefix[:-1]), prefix)

    def _list_dir(self, prefix: str) -> Iterable[str]:
        names = []
        for entry in _scan(self._path(prefix[:-1])):
            if _is_temp_name(entry.name):
                continue
            try:
                if entry.is_dir() or entry.is_file():
                    names.append(entry.name)
            except FileNotFoundError:
                continue
        return names
