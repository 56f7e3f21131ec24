"""FsspecStore: any fsspec file system (s3fs, gcsfs, adlfs, HTTP, ...) as a zarrhpc store.

Life cycle: ``FsspecStore("s3://bucket/root", storage_options={...})`` resolves the file
system with ``fsspec.url_to_fs`` (``storage_options`` go to it unchanged, as zarr-python's
FsspecStore passes them); keys map to ``root/key``. Pickles by reference: URL, options,
mode and settings. The file system's listing cache is bypassed (another writer's keys
must show up).

On s3fs every read is one GET of ours (`_fetch_s3`), its answer telling the object's size
and ETag: a shard opens with one suffix GET (size, version and index together) and the tail
cache keeps indexes as with obstore (`zarrhpc.storage._remotebase`). Other file systems
give no ETag in a uniform way, so there the store keeps no tail cache: a shard reader asks
the object's size and version (one HEAD: ``fs.info``) and then reads ranges. Every
range a reader reads must come from the version it opened, or the read fails with
`StoreError` ("replaced by another writer"), as the obstore backend's If-Match reads do:
an index from one version of a shard and inner chunks from another gave wrong values with
no error (tests/reliability/test_reader_versions.py). On s3fs the range GET carries
``If-Match: <ETag>`` (the server refuses a replaced object: exact); on other file systems
the version (`_version`: ETag, generation, modification time) is asked again after the
range was read and compared (one more HEAD per range request; an object replaced twice,
ending with the version the reader opened, goes unseen). A file system whose ``info``
tells no version is read unchecked. s3fs's own whole-object read would send a HEAD
before each GET. Transient errors (5xx, timeouts, dropped
connections, cut answers) are retried with exponential backoff until the operation's
deadline, ``retry_timeout`` seconds after it began (default 30; 0: one try); on an async
file system (s3fs, gcsfs, adlfs, HTTP) each try -- with whatever retries the file system
makes inside it -- is cancelled after ``request_timeout`` seconds or at the deadline,
whichever comes first, so a request that keeps failing ends within ``retry_timeout``.

HTTP(S) through fsspec is read-only.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from zarrhpc.errors import ReadOnlyError, StoreError, StorePermissionError, UnsupportedError
from zarrhpc.storage._remotebase import (
    ABORT_SECONDS,
    PART_BYTES,
    SETTINGS,
    SINGLE_PUT_MAX,
    Fetched,
    ObjectChanged,
    RemoteStore,
    _register_cache,
    _RemoteReader,
    _TailCache,
    backoff,
    store_settings,
)
from zarrhpc.storage.abc import RangeReader

__all__ = ["ALLOWED_EXCEPTIONS", "FsspecStore", "is_transient"]

#: HTTP statuses worth another try, read only from the status the library recorded
_TRANSIENT_STATUS = frozenset({500, 502, 503, 504})
#: S3 error codes worth another try (RequestTimeout comes with status 400)
_TRANSIENT_CODES = frozenset({"InternalError", "SlowDown", "ServiceUnavailable",
                              "RequestTimeout"})
_TRANSIENT_WORDS = ("InternalError", "SlowDown",
                    "ServiceUnavailable", "RequestTimeout", "Server disconnected",
                    "Connection reset", "timed out", "Timeout",
                    # an answer cut short (aiohttp, botocore, http.client)
                    "payload is not completed", "ContentLengthError", "IncompleteRead",
                    "ResponseStreamingError", "ServerDisconnected", "ConnectionClosed",
                    "Connection closed", "ClientOSError", "EndpointConnectionError",
                    "Connection was closed")
# a URL (or aiohttp's ``url='...'``) in a message: its words are the user's, not the library's
_URL = re.compile(r"url=(?:'[^']*'|\S*)|[a-zA-Z][a-zA-Z0-9+.-]*://\S*")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _answer(exc: BaseException) -> tuple[int | None, str | None]:
    """The HTTP status and S3 error code the library recorded with ``exc`` or its causes
    (aiohttp's ``status``, botocore's ``response``), or ``(None, None)``."""
    for e in _chain(exc):
        status = getattr(e, "status", None)
        if isinstance(status, int) and not isinstance(status, bool):
            return status, None
        response = getattr(e, "response", None)
        if isinstance(response, dict):
            status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
            code = (response.get("Error") or {}).get("Code")
            return (status if isinstance(status, int) else None,
                    code if isinstance(code, str) else None)
    return None, None


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` looks like a transient failure worth retrying.

    A status is read from what the library recorded (`_answer`), never from the message:
    a message names the URL, and a URL can hold "503" (a path, a port), which retried a
    403 until ``retry_timeout``. Words are read from the message with its URLs removed.
    """
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError,
                        NotADirectoryError, ValueError, TypeError)):
        return False
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    status, code = _answer(exc)
    if status is not None or code is not None:
        return status in _TRANSIENT_STATUS or code in _TRANSIENT_CODES
    text = " ".join(f"{type(e).__name__}: {_URL.sub('', str(e))}" for e in _chain(exc))
    return any(word in text for word in _TRANSIENT_WORDS)


_PART = re.compile(r"bytes (\d+)-(\d+)/(\d+)$")


def _check_part(rng: str | None, content_range: str, n: int) -> None:
    """Refuse a partial answer that is not the range asked (``rng``: ``bytes=a-b``,
    ``bytes=a-`` or ``bytes=-n``): another part, or a body of another length than its
    Content-Range names, would be read at the wrong offsets."""
    m = _PART.match(content_range.strip())
    if m is None:
        raise ValueError(f"a partial answer {content_range!r} to {rng or 'a whole GET'}")
    first, last, size = map(int, m.groups())
    a, _, b = (rng or "bytes=0-")[len("bytes="):].partition("-")
    if a == "":
        want = (max(size - int(b), 0), size - 1)
    else:
        want = (int(a), size - 1 if b == "" else min(int(b), size - 1))
    if (first, last) != want or n != last - first + 1:
        raise ValueError(f"the answer {content_range!r} ({n} bytes) is not the range {rng}")


def _missing(exc: FileNotFoundError) -> bool:
    """Whether ``exc`` says the object is missing. fsspec's HTTP ``info`` raises
    `FileNotFoundError` for any failure of its HEAD and GET -- a 503, a 403, a reset
    connection -- the failure as its cause: a shard read over HTTP then read as missing
    (fill values, no error). Missing: no cause, or an answer of 404 / 410."""
    cause = exc.__cause__
    if cause is None or isinstance(cause, FileNotFoundError):
        return True
    status, _ = _answer(cause)
    if status is not None:
        return status in (404, 410)
    return not (isinstance(cause, (OSError, TimeoutError)) or is_transient(cause))


def _range_refused(exc: StoreError) -> bool:
    """Whether a failed read was the server refusing the range (416: past the end of the
    object), read from the library's own words, never the status number: a URL can hold
    "416" too (a bucket path of random hex did: a read failing for good was then taken as an
    empty range, and a shard as 0 bytes)."""
    status, code = getattr(exc, "answer", (None, None))
    if status is not None or code is not None:
        return status == 416 or code == "InvalidRange"
    # aiohttp's text names the URL as well (a key named "InvalidRange" read as empty)
    reason = _URL.sub("", getattr(exc, "reason", "")).lower()
    return "invalidrange" in reason or "not satisfiable" in reason


#: What zarr-python's FsspecStore reads as a missing key by default.
ALLOWED_EXCEPTIONS: tuple[type[Exception], ...] = (
    FileNotFoundError, IsADirectoryError, NotADirectoryError)


class FsspecStore(RemoteStore):
    """A store over an fsspec file system (see the module docstring).

    Takes zarr-python's arguments too: ``FsspecStore(fs, read_only=False, path="/")``
    with an fsspec file system (async or not) and the root path in it, and the
    constructors `from_url`, `from_mapper` and `from_upath`.

    Parameters
    ----------
    fs : str or fsspec.AbstractFileSystem
        Any URL fsspec understands (``s3://bucket/root``, ``https://host/root``,
        ``memory://root``...), or a file system (then ``path`` is the root in it).
    read_only : bool, default False
    path : str, default "/"
        The root inside ``fs`` when ``fs`` is a file system; a path below the URL when
        it is a URL.
    allowed_exceptions : tuple of exception types
        Errors of the file system read as a missing key (zarr-python's argument; the
        default: not found, is a directory, not a directory).
    storage_options : dict, optional
        Passed to ``fsspec.url_to_fs`` with a URL.
    **settings
        Store settings (`zarrhpc.storage._remotebase`).
    """

    def __init__(self, fs: Any, read_only: bool = False, path: str = "/",
                 allowed_exceptions: tuple[type[Exception], ...] = ALLOWED_EXCEPTIONS, *,
                 storage_options: dict | None = None, **settings: Any) -> None:
        import fsspec

        self.allowed_exceptions = tuple(allowed_exceptions)
        if isinstance(fs, str):
            url = fs.rstrip("/") + "/" + path.strip("/") if path.strip("/") else fs
            filesystem = None
        else:
            if storage_options:
                raise TypeError("FsspecStore: storage_options are for a URL; this file "
                                "system is built already")
            filesystem = _sync_twin(fs)
            protocol = filesystem.protocol
            protocol = protocol if isinstance(protocol, str) else protocol[0]
            root = path if path not in ("", "/") else ""
            url = f"{protocol}://{root.lstrip('/') if protocol != 'memory' else root}"
            storage_options = _options_of(filesystem)
        scheme = urllib.parse.urlsplit(url).scheme.lower()
        if scheme not in fsspec.available_protocols():
            raise UnsupportedError(f"{url}: no store serves {scheme}:// URLs (fsspec knows "
                                   "no such protocol)")
        self.is_http = scheme in ("http", "https")
        # the tail cache needs ETags: s3fs's answers tell them (`_kinds`), others' not
        cache_bytes = settings.pop("cache_bytes", SETTINGS["cache_bytes"])
        super().__init__(url, read_only=read_only or self.is_http, cache_bytes=0, **settings)
        self._cache_wanted = cache_bytes
        self.storage_options = dict(storage_options or {})
        self.storage_options.pop("asynchronous", None)  # zarr-python's; ours are sync calls
        if filesystem is not None:
            self.fs, self.root = filesystem, root.rstrip("/")
            self._kinds()
            return
        options = dict(self.storage_options)
        if scheme in ("s3", "s3a"):  # s3fs takes the region inside client_kwargs
            region = options.pop("region", None) or options.pop("region_name", None)
            if region is not None:
                options["client_kwargs"] = {"region_name": region,
                                            **(options.get("client_kwargs") or {})}
        try:
            self.fs, root = fsspec.url_to_fs(url, **options)
        except (ImportError, ValueError):
            raise
        except Exception as exc:
            raise ValueError(f"{url}: fsspec could not open it: {exc}") from None
        self.root = root.rstrip("/")
        self._kinds()

    def _kinds(self) -> None:
        # an async file system takes a timeout per call (`_call`); s3fs is read with
        # one GET per object (`_s3_get`)
        self._async = bool(getattr(self.fs, "async_impl", False))
        self._s3 = self._async and hasattr(self.fs, "_call_s3") and hasattr(self.fs, "loop")
        if self._s3 and self._cache_wanted:
            store_settings({"cache_bytes": self._cache_wanted})  # checked as any setting
            self.settings["cache_bytes"] = self._cache_wanted
            self._cache = _TailCache(self._cache_wanted)
            _register_cache(self._cache, self.url)

    @classmethod
    def from_url(cls, url: str, storage_options: dict | None = None, read_only: bool = False,
                 allowed_exceptions: tuple[type[Exception], ...] = ALLOWED_EXCEPTIONS,
                 **settings: Any) -> FsspecStore:
        """The store at ``url``, as zarr-python's ``FsspecStore.from_url``.

        Parameters
        ----------
        url : str or os.PathLike
            Any URL fsspec understands, or a local path.
        storage_options : dict, optional
            Passed to fsspec (zarrhpc's store settings may be given here too).
        read_only : bool, default False
        allowed_exceptions : tuple of exception types

        Returns
        -------
        FsspecStore
        """
        if isinstance(url, os.PathLike):  # a local pathlib.Path, as fsspec.url_to_fs takes
            url = os.fspath(url)
        if "://" not in url and "::" not in url:  # a local path: fsspec's local file system
            url = "file://" + os.path.abspath(url)
        options = dict(storage_options or {})
        given = {name: options.pop(name) for name in SETTINGS if name in options}
        return cls(url, read_only, allowed_exceptions=allowed_exceptions,
                   storage_options=options, **given, **settings)

    @classmethod
    def from_mapper(cls, fs_map: Any, read_only: bool = False,
                    allowed_exceptions: tuple[type[Exception], ...] = ALLOWED_EXCEPTIONS
                    ) -> FsspecStore:
        """The store over an ``fsspec.FSMap`` (``fsspec.get_mapper(url)``), as zarr-python's
        ``FsspecStore.from_mapper``."""
        return cls(fs_map.fs, read_only, path=fs_map.root,
                   allowed_exceptions=allowed_exceptions)

    @classmethod
    def from_upath(cls, upath: Any, read_only: bool = False,
                   allowed_exceptions: tuple[type[Exception], ...] = ALLOWED_EXCEPTIONS
                   ) -> FsspecStore:
        """The store at a ``universal_pathlib.UPath``, as zarr-python's
        ``FsspecStore.from_upath``."""
        return cls(upath.fs, read_only, path=upath.path.rstrip("/"),
                   allowed_exceptions=allowed_exceptions)

    def __repr__(self) -> str:
        # zarr-python's form
        return f"<FsspecStore({type(self.fs).__name__}, {self.root})>"

    @property
    def path(self) -> str:
        """str: the root path inside the file system (zarr-python's attribute)."""
        return self.root

    def __reduce__(self) -> Any:
        settings = dict(self.settings, cache_bytes=self._cache_wanted)
        return (_rebuild, (self.url, self.storage_options, self._read_only, settings))

    def _check_writable(self, key: str, action: str) -> None:
        if self.is_http and not self._closed:
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self.url} is an HTTP store, "
                                "which is read-only")
        super()._check_writable(key, action)

    def _path(self, key: str) -> str:
        return f"{self.root}/{key}" if key else self.root

    def _call(self, action: str, key: str, fn: Callable[..., Any]) -> Any:
        """``fn(**kw)``, retrying transient errors until the deadline, ``retry_timeout``
        seconds from now (``request_timeout`` when that is 0: one try).

        On an async file system ``kw`` is ``{"timeout": t}``, which fsspec's blocking
        wrappers (and `fsspec.asyn.sync`) take as the time after which the call is
        cancelled: one try -- with every retry the file system makes inside it (s3fs and
        botocore retry a dropped connection for minutes) -- ends within ``t``, the lesser
        of ``request_timeout`` and the time left. No pause runs past the deadline.
        """
        retry, limit = self.settings["retry_timeout"], self.settings["request_timeout"]
        deadline = time.monotonic() + (retry if retry > 0 else limit)
        pauses = backoff(retry)
        timed = self._async
        while True:
            kw = {"timeout": max(min(limit, deadline - time.monotonic()), 0.001)} if timed else {}
            try:
                return fn(**kw)
            except ObjectChanged:
                raise
            except FileNotFoundError as exc:
                if _missing(exc):
                    raise
                failure = exc.__cause__  # fsspec's HTTP `info`: any failure is "not found"
            except self.allowed_exceptions as exc:  # a missing key, as zarr-python reads it
                raise FileNotFoundError(str(exc)) from None
            except TypeError as exc:
                if not kw or "timeout" not in str(exc):
                    raise StoreError(f"{self.url_of(key)}: {action} failed: "
                                     f"{type(exc).__name__}: {exc}") from None
                # a method the file system defines itself, not through fsspec's
                # blocking wrapper: it takes no timeout (its tries are not cut)
                timed = False
                continue
            except Exception as exc:
                failure = exc
                if timed and isinstance(exc, TimeoutError):
                    self._settle()
            pause = next(pauses, None) if is_transient(failure) else None
            if pause is not None and time.monotonic() + pause >= deadline:
                pause = None
            if pause is None:
                denied = (isinstance(failure, PermissionError)
                          or _answer(failure)[0] in (401, 403))
                cls = StorePermissionError if denied else StoreError
                why = (f"no answer within request_timeout={limit} s or "
                       f"retry_timeout={retry} s" if isinstance(failure, TimeoutError)
                       and not str(failure) else f"{type(failure).__name__}: {failure}")
                err = cls(f"{self.url_of(key)}: {action} failed: {why}")
                err.reason = why  # the library's words alone: see _range_refused
                err.answer = _answer(failure)
                raise err from None
            time.sleep(pause)

    def _settle(self) -> None:
        """Let fsspec's loop finish cancelling a try that timed out.

        fsspec's blocking wrapper also checks the time itself, once a second, and may raise
        before its loop has cancelled the try: the try could still send a request after
        the caller was told the call failed. A short sleep queued on that loop ends after
        the try's own cancellation (its timer is due earlier), so nothing of it runs on.
        """
        import asyncio

        from fsspec.asyn import sync

        with contextlib.suppress(Exception):
            sync(self.fs.loop, asyncio.sleep, 0.05)

    # -- primitives --------------------------------------------------------------------

    def _fetch(self, key: str, start: int | None = None, stop: int | None = None,
               suffix: int | None = None, etag: str | None = None) -> Fetched | None:
        path = self._path(key)
        size = None
        if self._s3:
            return self._fetch_s3(key, path, start, stop, suffix, etag)
        try:
            if suffix is not None or (start is not None and self.is_http):
                size = self._call("HEAD", key, lambda **kw: self.fs.size(path, **kw))
                if size is None:
                    raise StoreError(f"{self.url_of(key)}: the server does not tell its size")
                if suffix is not None:
                    start, stop = max(size - suffix, 0), size
                else:
                    stop = size if stop is None else min(stop, size)
                if start >= stop:
                    return Fetched(b"", size, None)
            if start is None:
                data = self._call("GET", key, lambda **kw: self.fs.cat_file(path, **kw))
            else:
                data = self._call("GET", key, lambda **kw: self.fs.cat_file(
                    path, start=start, end=stop, **kw))
                if size is not None and len(data) == size != stop - start:
                    # the server ignored the Range (200, the whole object): fsspec's
                    # HTTP read returns it as the range; cut it here
                    data = memoryview(data)[start:stop]
            if etag is not None:
                # no conditional read: the bytes are this version's if it is still there
                # (asked of the server, not of a listing cached before another writer)
                self._invalidate(path)
                info = self._call("HEAD", key, lambda **kw: self.fs.info(path, **kw))
                if _version(info) != etag:
                    raise ObjectChanged(key)
        except FileNotFoundError:
            return None
        except StoreError as exc:
            if _range_refused(exc):
                return Fetched(b"", size, None)
            raise
        return Fetched(data, size, None)

    def _fetch_s3(self, key: str, path: str, start: int | None, stop: int | None,
                  suffix: int | None, etag: str | None) -> Fetched | None:
        """`_fetch` on s3fs: one GET, whatever is asked (a suffix too: ``Range:
        bytes=-N``), its answer telling the object's size and ETag (so a shard opens
        with one request, its index and version with it, as with obstore)."""
        if suffix is not None:
            rng = f"bytes=-{suffix}"
        elif start is not None:
            if stop is not None and stop <= start:
                return Fetched(b"", None, None)
            rng = f"bytes={start}-{'' if stop is None else stop - 1}"
        else:
            rng = None
        try:
            data, size, served, whole = self._call(
                "GET", key, lambda **kw: self._s3_get(key, path, rng, etag, **kw))
        except FileNotFoundError:
            return None
        except StoreError as exc:
            if not _range_refused(exc):
                raise
            if suffix is None:  # a range past the end
                return Fetched(b"", None, None)
            head = self._head(key)  # a suffix of an empty object
            return None if head is None else Fetched(b"", head[0], head[1])
        if whole and rng is not None:  # the server ignored the Range: cut it here
            view = memoryview(data)
            n = view.nbytes
            if suffix is not None:
                data = view[max(n - suffix, 0):]
            else:
                data = view[min(start, n):n if stop is None else min(stop, n)]
        return Fetched(data, size, served)

    def _s3_get(self, key: str, path: str, rng: str | None, etag: str | None,
                timeout: float | None = None) -> tuple[bytes, int | None, str | None, bool]:
        """A GET of ``path`` on s3fs (``Range: rng`` when given), sent with ``If-Match``
        when ``etag`` is given; cancelled after ``timeout`` seconds. Returns the body, the
        object's size, its ETag and whether the body is the whole object.

        One request: s3fs's own whole-object read asks the size first (a HEAD, to split
        a large object into concurrent ranges), which doubled the requests of reading
        chunks; a missing key answers this GET with 404 as well."""
        from fsspec.asyn import sync

        bucket, obj, vers = self.fs.split_path(path)
        kw = {"Bucket": bucket, "Key": obj}
        if etag is not None:
            kw["IfMatch"] = etag
        if vers:
            kw["VersionId"] = vers
        if rng is not None:
            kw["Range"] = rng

        async def get() -> tuple[bytes, int | None, str | None, bool]:
            resp = await self.fs._call_s3("get_object", **kw)
            try:
                body = await resp["Body"].read()
            finally:
                resp["Body"].close()
            content_range = resp.get("ContentRange") or ""  # "bytes 0-99/1234"
            total = content_range.rpartition("/")[2]
            if total.isdigit():
                _check_part(rng, content_range, len(body))
                return body, int(total), resp.get("ETag"), False
            if (resp.get("ResponseMetadata") or {}).get("HTTPStatusCode") == 206:
                # a part without its place: taken for the whole object, it was cut again
                # (a range read as other bytes, or as empty)
                raise ValueError("a partial answer (206) without a Content-Range")
            return body, len(body), resp.get("ETag"), True

        try:
            return sync(self.fs.loop, get, timeout=timeout)
        except OSError as exc:
            cause = getattr(exc.__cause__, "response", None) or {}
            if cause.get("Error", {}).get("Code") in ("PreconditionFailed", "412"):
                raise ObjectChanged(key) from None
            raise

    def _s3_put(self, path: str, body: bytes, timeout: float | None = None) -> None:
        """``body`` to ``path`` on s3fs: one PUT up to `SINGLE_PUT_MAX` (atomic, nothing
        left behind when it fails), else a multipart upload of `PART_BYTES` parts that
        is aborted (``AbortMultipartUpload``, `ABORT_SECONDS` at most) when a part or
        the completion fails or the try is cut at its timeout -- s3fs's own
        ``pipe_file`` starts multipart uploads from 100 MiB and leaves them unfinished
        when the call is cancelled."""
        import asyncio

        from fsspec.asyn import sync

        fs = self.fs
        bucket, obj, _ = fs.split_path(path)

        async def put() -> None:
            if len(body) <= SINGLE_PUT_MAX:
                await fs._call_s3("put_object", Bucket=bucket, Key=obj, Body=body)
                return
            upload = (await fs._call_s3("create_multipart_upload", Bucket=bucket,
                                        Key=obj))["UploadId"]
            try:
                slots = asyncio.Semaphore(8)

                async def part(number: int, start: int) -> dict:
                    async with slots:
                        got = await fs._call_s3(
                            "upload_part", Bucket=bucket, Key=obj, UploadId=upload,
                            PartNumber=number, Body=body[start:start + PART_BYTES])
                    return {"PartNumber": number, "ETag": got["ETag"]}

                parts = await asyncio.gather(*(
                    part(n, start)
                    for n, start in enumerate(range(0, len(body), PART_BYTES), 1)))
                await fs._call_s3("complete_multipart_upload", Bucket=bucket, Key=obj,
                                  UploadId=upload, MultipartUpload={"Parts": parts})
            except BaseException:  # a cancelled try too (the deadline)
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(fs._call_s3(
                        "abort_multipart_upload", Bucket=bucket, Key=obj,
                        UploadId=upload), ABORT_SECONDS)
                raise

        sync(fs.loop, put, timeout=timeout)

    def _open_reader(self, key: str) -> RangeReader | None:
        if self._s3:  # one suffix GET: size, ETag and the index (RemoteStore's)
            return super()._open_reader(key)
        head = self._head(key)  # no ETag to gain from a suffix read: size and version
        return None if head is None else _RemoteReader(self, key, head[0], head[1])

    def _head(self, key: str) -> tuple[int, str | None] | None:
        path = self._path(key)
        self._invalidate(path)  # size and version from the server, not a cached listing
        try:
            info = self._call("HEAD", key, lambda **kw: self.fs.info(path, **kw))
        except FileNotFoundError:
            return None
        if info.get("type") == "directory":
            return None
        return int(info["size"]), _version(info)

    def _put(self, key: str, data: memoryview) -> None:
        path = self._path(key)
        # one PUT (or a multipart upload completed as a whole): never a partial object
        body = bytes(data)  # a copy: a cut try may still be sending it (s3fs's loop)
        try:
            if self._s3:
                self._call("PUT", key, lambda **kw: self._s3_put(path, body, **kw))
            else:
                self._call("PUT", key, lambda **kw: self.fs.pipe_file(path, body, **kw))
        except FileNotFoundError as exc:  # no such bucket or container
            raise StoreError(f"{self.url_of(key)}: PUT failed: {exc}") from None
        self._invalidate()

    def _delete(self, keys: list[str]) -> None:
        paths = [self._path(k) for k in keys]
        try:
            if len(paths) == 1:
                self._call("DELETE", keys[0], lambda **kw: self.fs.rm_file(paths[0], **kw))
            else:
                self._call("DELETE", keys[0], lambda **kw: self.fs.rm(paths, **kw))
        except FileNotFoundError:
            if len(paths) > 1:  # some were missing: delete the rest one by one
                for key in keys:
                    self._delete([key])
        self._invalidate()

    def _invalidate(self, path: str | None = None) -> None:
        invalidate = getattr(self.fs, "invalidate_cache", None)
        if invalidate is not None:
            invalidate(path)

    def _require_listing(self, prefix: str) -> None:
        if self.is_http:
            raise UnsupportedError(f"{self.url_of(prefix)}: an HTTP store cannot list keys")

    def _list_keys(self, prefix: str) -> Iterator[str]:
        self._require_listing(prefix)
        self._invalidate()
        base = self._path(prefix.rstrip("/"))
        try:
            found = self._call("LIST", prefix,
                               lambda **kw: self.fs.find(base, withdirs=False, **kw))
        except FileNotFoundError:
            return iter(())
        n = len(self.root) + 1 if self.root else 0
        keys = [p[n:] for p in found if p.startswith(self.root)]
        if prefix:
            keys = [k for k in keys if k.startswith(prefix)]
        return iter(keys)

    def _list_names(self, prefix: str) -> Iterable[str]:
        self._require_listing(prefix)
        self._invalidate()
        base = self._path(prefix.rstrip("/"))
        try:
            found = self._call("LIST", prefix, lambda **kw: self.fs.ls(base, detail=True, **kw))
        except FileNotFoundError:
            return []
        names = []
        for info in found:
            name = info["name"].rstrip("/").rsplit("/", 1)[-1]
            if info["name"].rstrip("/") == base.rstrip("/"):
                continue  # ls of a file lists the file itself: a value is no prefix
            names.append(name)
        return names


# what fsspec file systems put in ``info`` that changes when an object is replaced:
# s3fs "ETag" (sent as If-Match), gcsfs "generation", adlfs "etag", local and memory
# file systems a modification or creation time
_VERSION_FIELDS = ("ETag", "generation", "etag", "mtime", "LastModified", "last_modified",
                   "created")


def _version(info: dict) -> str | None:
    """The version of an object ``info`` describes, None when it tells none."""
    for name in _VERSION_FIELDS:
        value = info.get(name)
        if value not in (None, ""):
            return value if name == "ETag" else f"{name}={value}"
    return None


def _sync_twin(fs: Any) -> Any:
    """``fs``, or the same file system made for blocking calls: zarr-python makes async
    ones (``asynchronous=True``, whose blocking methods need a running loop) and wraps
    blocking ones (``AsyncFileSystemWrapper.sync_fs``)."""
    inner = getattr(fs, "sync_fs", None)
    if inner is not None:
        return inner
    if getattr(fs, "async_impl", False) and getattr(fs, "asynchronous", False):
        options = dict(getattr(fs, "storage_options", {}) or {})
        options["asynchronous"] = False
        return type(fs)(**options)
    return fs


def _options_of(fs: Any) -> dict:
    """The options that rebuild ``fs`` from its URL (for pickling)."""
    options = dict(getattr(fs, "storage_options", {}) or {})
    options.pop("asynchronous", None)
    return options


def _rebuild(url: str, options: dict, read_only: bool, settings: dict) -> FsspecStore:
    return FsspecStore(url, read_only, storage_options=options, **settings)
