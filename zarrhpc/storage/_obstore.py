"""ObstoreStore: S3, GCS, Azure and HTTP(S) through obstore (Rust object_store).

Life cycle: ``ObstoreStore("s3://bucket/root", storage_options={...})`` builds the obstore
clients of the bucket (no request is made), or reuses the ones built for the same bucket
and options in this process, whatever the root, with their open connections
(`_make_client`: building one takes milliseconds, loading the system's CA certificates,
with the GIL held); keys map to ``root/key`` objects (`ObstoreStore._path`; an HTTP
store's client holds its root URL). Pickles by reference: URL, options, mode and settings.

``storage_options`` are spelled as zarr-python's fsspec store (s3fs, gcsfs, adlfs) takes
them and translated here (`translate_options`): ``endpoint_url`` (also inside
``client_kwargs``), ``key``, ``secret``, ``token``, ``anon``, ``region``/``region_name``
for S3; ``token="anon"``/``anon`` for GCS; ``account_name``, ``account_key``, ``anon`` for
Azure. obstore's own configuration keys (``access_key_id``, ``endpoint``...) pass through
unchanged. A plain ``http://`` endpoint is allowed.

Retries and the deadline: ``retry_timeout`` bounds each operation as a whole (a GET, a
PUT, a listing, a delete: every try and every pause between them), ``request_timeout``
each try (connection, answer, body: the client's ``timeout``;
``client_options={"timeout": ...}`` wins). The first try is a synchronous call through a
client that retries nothing (`_make_client`'s first-try twin, its timeout cut to
``retry_timeout``): the path every request takes while the server answers. A failure
that may be transient (anything but a missing object, a failed precondition, a refused
permission, a refused range or a 501) is tried again through obstore's async API on the
process's event-loop thread (`_run_async`), where obstore's own retries (5xx, timeouts,
dropped connections, a GET's cut body) go on until the deadline cuts the whole call
(``asyncio.wait_for``: an unfinished try is dropped, its connection closed). So a request
that keeps failing ends within ``retry_timeout`` (default 30 s) on this backend, whatever
``request_timeout`` is; ``retry_timeout=0``: one try, within ``request_timeout``.

Payload signing of S3 PUTs: over HTTPS, and over plain HTTP to a loopback endpoint
(127.0.0.0/8, ``::1``, ``localhost``: no network path to corrupt the body), the request
is signed ``UNSIGNED-PAYLOAD``, as botocore does over HTTPS, which saves hashing every
byte uploaded (SHA-256, most of a PUT's client CPU). A plain-HTTP endpoint elsewhere
keeps the body's SHA-256 in the signature, the body's only check there. Force either
with ``storage_options={"unsigned_payload": True}`` (never hash) or ``False`` (always
hash), as for obstore's own ``S3Store``.

HTTP(S) stores are read-only (a web server takes no writes) and cannot list.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import os
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any

from zarrhpc.errors import ReadOnlyError, StoreError, StorePermissionError, UnsupportedError
from zarrhpc.storage._remotebase import (
    SINGLE_PUT_MAX,
    Fetched,
    ObjectChanged,
    RemoteStore,
    backoff,
)

__all__ = ["OBSTORE_SCHEMES", "ObstoreStore", "OptionsNotUnderstood", "is_loopback",
           "translate_options"]

#: URL schemes this backend serves, and the obstore class behind each.
OBSTORE_SCHEMES = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "azure",
                   "abfs": "azure", "abfss": "azure", "azure": "azure", "http": "http",
                   "https": "http"}

_S3 = {"key": "access_key_id", "secret": "secret_access_key", "token": "session_token",
       "region": "region", "region_name": "region", "endpoint_url": "endpoint",
       "aws_access_key_id": "access_key_id", "aws_secret_access_key": "secret_access_key",
       "aws_session_token": "session_token", "requester_pays": "request_payer"}
#: fsspec options that change how a file system caches, buffers or schedules, never
#: what is read or written: nothing to translate (obstore neither lists nor caches
#: behind our back).
_TUNING = ("use_listings_cache", "skip_instance_cache", "listings_expiry_time",
           "max_paths", "default_fill_cache", "default_block_size", "default_cache_type",
           "cache_regions", "max_concurrency", "fixed_upload_size", "asynchronous", "loop",
           "batch_size")
#: s3fs's ``client_kwargs`` (botocore client arguments) that have an obstore spelling.
_S3_CLIENT_KWARGS = {"endpoint_url": "endpoint_url", "region_name": "region",
                     "aws_access_key_id": "key", "aws_secret_access_key": "secret",
                     "aws_session_token": "token"}
_GCS = {"token": "service_account_path"}
_AZURE = {"account_name": "account_name", "account_key": "account_key",
          "sas_token": "sas_key", "connection_string": "connection_string"}


def translate_options(kind: str, options: dict[str, Any]) -> tuple[dict, dict]:
    """fsspec-style ``storage_options`` -> obstore ``(config, client_options)``.

    Parameters
    ----------
    kind : {"s3", "gcs", "azure", "http"}
    options : dict
        As zarr-python's FsspecStore takes them (store settings already removed).

    Returns
    -------
    tuple of dict
    """
    options = dict(options)
    client: dict[str, Any] = dict(options.pop("client_options", None) or {})
    config: dict[str, Any] = {}
    kwargs = dict(options.pop("client_kwargs", None) or {})
    for name, ours in _S3_CLIENT_KWARGS.items():
        if name in kwargs:
            options.setdefault(ours, kwargs.pop(name))
    if kwargs.pop("verify", True) is False:
        client.setdefault("allow_invalid_certificates", True)
    if kwargs:
        raise OptionsNotUnderstood(f"storage_options client_kwargs {sorted(kwargs)} have "
                                   "no obstore spelling")
    anon = options.pop("anon", False)
    for name in _TUNING:
        options.pop(name, None)
    if options.get("version_aware") is False:
        options.pop("version_aware")
    if options.get("use_ssl") is False and str(options.get("endpoint_url", "")).startswith(
            "http://"):
        options.pop("use_ssl")  # the endpoint says plain HTTP already
    if kind == "s3":
        table = _S3
        if anon:
            config["skip_signature"] = True
        config.setdefault("region", "us-east-1")
    elif kind == "gcs":
        table = _GCS
        if anon or options.get("token") == "anon":
            options.pop("token", None)
            config["skip_signature"] = True
        options.pop("project", None)
    elif kind == "azure":
        table = _AZURE
        if anon:
            config["skip_signature"] = True
    else:
        table = {}
    for name, value in options.items():
        if value is None:
            continue
        config[table.get(name, name)] = value
    endpoint = str(config.get("endpoint") or "")
    plain = endpoint.startswith("http://")
    if plain:
        client.setdefault("allow_http", True)
    if kind == "s3" and not config.get("skip_signature") and (
            not plain or is_loopback(endpoint)):
        # sign "UNSIGNED-PAYLOAD" instead of the body's SHA-256 (most of a PUT's client
        # CPU) where nothing on the way can change the body: over HTTPS, where TLS guards
        # it (as botocore does for PutObject/UploadPart over HTTPS), and over plain HTTP
        # to this machine (127.0.0.0/8, ::1, localhost), which no network path reaches.
        # Any other plain-HTTP endpoint keeps the signed body, its only check. The
        # caller's ``unsigned_payload`` (True or False) wins either way.
        config.setdefault("unsigned_payload", True)
    if kind == "http" and config:
        raise OptionsNotUnderstood(f"storage_options {sorted(config)} are not understood "
                                   "for an HTTP(S) URL (only client_options)")
    return config, client


class OptionsNotUnderstood(ValueError):
    """``storage_options`` that obstore has no spelling for (``profile``,
    ``config_kwargs``, ``s3_additional_kwargs``...): `zarrhpc.storage.remote.open_url`
    then opens the URL with fsspec, which takes them as zarr-python passes them."""


class ObstoreStore(RemoteStore):
    """A store over obstore (see the module docstring).

    Parameters
    ----------
    url : str
        ``s3://bucket/root``, ``gs://bucket/root``, ``az://container/root``,
        ``https://host/root``...
    storage_options : dict, optional
        fsspec-style options (see `translate_options`).
    read_only : bool, default False
    **settings
        Store settings: ``concurrency``, ``retry_timeout``, ``request_timeout``, ``coalesce_gap``,
        ``coalesce_max``, ``coalesce_rate``, ``tail_bytes``, ``cache_bytes``, ``readahead``
        (`zarrhpc.storage._remotebase`).
    """

    def __init__(self, url: str, *, storage_options: dict | None = None,
                 read_only: bool = False, **settings: Any) -> None:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        kind = OBSTORE_SCHEMES.get(scheme)
        if kind is None:
            raise UnsupportedError(f"{url}: obstore serves {sorted(OBSTORE_SCHEMES)} URLs, "
                                   f"not {scheme!r}")
        super().__init__(url, read_only=read_only or kind == "http", **settings)
        self.kind = kind
        self.storage_options = dict(storage_options or {})
        self._delete_opener: Any = None  # `_delete_signed`'s, made on its first use
        retry, request = self.settings["retry_timeout"], self.settings["request_timeout"]
        # the retrying client (its tries each within request_timeout; the whole call
        # cut at the deadline by _run_async) and the first-try client: no retries, one
        # try within the deadline, synchronous (no thread hop on the path of every
        # request that succeeds)
        # the client serves the whole bucket (shared by every root in it: `_make_client`);
        # keys are joined to the root here
        self._root = "" if kind == "http" else parts.path.strip("/")
        self._obs = _make_client(kind, parts, self.storage_options, retry, request)
        self._obs1 = (self._obs if retry == 0 else
                      _make_client(kind, parts, self.storage_options, 0, min(request, retry)))

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.url, self.storage_options, self._read_only,
                           self.settings))

    def _check_writable(self, key: str, action: str) -> None:
        if self.kind == "http" and not self._closed:
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self.url} is an HTTP store, "
                                "which is read-only")
        super()._check_writable(key, action)

    def _path(self, key: str) -> str:
        """The object path of ``key`` in the client's bucket."""
        return f"{self._root}/{key}" if self._root and key else (self._root or key)

    def _relative(self, path: str) -> str:
        """A listed object path back to a key of this store."""
        n = len(self._root) + 1 if self._root else 0
        return path[n:]

    def _error(self, action: str, key: str, exc: BaseException) -> StoreError:
        from obstore.exceptions import PermissionDeniedError, UnauthenticatedError

        msg = str(exc).split("\n\nDebug source:")[0]
        cls = (StorePermissionError
               if isinstance(exc, (PermissionDeniedError, UnauthenticatedError, PermissionError))
               or getattr(exc, "code", None) in (401, 403) else StoreError)
        return cls(f"{self.url_of(key)}: {action} failed: {msg}")

    # -- primitives --------------------------------------------------------------------

    def _fetch(self, key: str, start: int | None = None, stop: int | None = None,
               suffix: int | None = None, etag: str | None = None,
               if_match: bool = False) -> Fetched | None:
        import obstore
        from obstore.exceptions import PreconditionError

        options: dict[str, Any] = {}
        if suffix is not None:
            options["range"] = {"suffix": suffix}
        elif start is not None:
            options["range"] = {"offset": start} if stop is None else (start, stop)
        # the version check: object stores answer every GET with the served version's
        # ETag, compared below (a conditional GET costs some servers a checksum of the
        # whole object: moto +31 ms per request); plain web servers may not, so they
        # get If-Match, as does an answer that came without an ETag
        conditional = etag is not None and (self.kind == "http" or if_match)
        if conditional:
            options["if_match"] = etag
        options = options or None
        path = self._path(key)

        def first(client: Any) -> tuple[Any, dict]:
            result = obstore.get(client, path, options=options)
            return result.bytes(), result.meta

        async def again(client: Any) -> tuple[Any, dict]:
            result = await obstore.get_async(client, path, options=options)
            return await result.bytes_async(), result.meta

        try:
            raw, meta = self._call(first, again)
            data = memoryview(raw)
        except FileNotFoundError:
            return None
        except PreconditionError:
            raise ObjectChanged(key) from None
        except Exception as exc:
            if _is_416(exc):
                # past the end (an existing object: a missing one answers 404)
                if suffix is not None:  # an empty object
                    head = self._head(key)
                    return None if head is None else Fetched(b"", head[0], head[1])
                return Fetched(b"", None, None)
            if (("non-partial response" in str(exc) or "Range request not supported" in str(exc))
                    and options.get("range") is not None):
                # the server ignored the Range (it does for an empty object): cut it here
                return _cut(self._fetch(key, etag=etag), start, stop, suffix)
            raise self._error("GET", key, exc) from None
        served = meta.get("e_tag")
        if etag is not None and not conditional and served != etag:
            if served is not None:
                raise ObjectChanged(key)
            return self._fetch(key, start, stop, suffix, etag, if_match=True)
        return Fetched(data, meta.get("size"), served)

    def _head(self, key: str) -> tuple[int, str | None] | None:
        import obstore

        try:
            path = self._path(key)
            meta = self._call(lambda c: obstore.head(c, path),
                              lambda c: obstore.head_async(c, path))
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._error("HEAD", key, exc) from None
        return meta["size"], meta.get("e_tag")

    def _put(self, key: str, data: memoryview) -> None:
        import obstore

        try:
            # one PUT up to SINGLE_PUT_MAX: atomic, and nothing to clean up whatever
            # fails or is cut. obstore would start a multipart upload above 5 MiB,
            # which it aborts only when a part fails while it is still sending parts:
            # not when the last parts or the completion fail, nor when the deadline
            # cuts the call, and it never tells the upload's id. Larger values (more than
            # a PUT may carry) are such an upload: if that fails, an unfinished
            # upload may remain (never visible as an object; a bucket lifecycle rule
            # removes them)
            # a retry gets its own copy: obstore reads the caller's buffer while it
            # uploads, and the write path reuses its encode buffers once the call
            # has returned -- which a cut retry may do before the cancelled upload is
            # dropped on obstore's threads
            path = self._path(key)
            one = data.nbytes <= SINGLE_PUT_MAX
            self._call(lambda c: obstore.put(c, path, data, use_multipart=not one),
                       lambda c: obstore.put_async(c, path, bytes(data), use_multipart=not one))
        except Exception as exc:
            raise self._error("PUT", key, exc) from None

    def _delete(self, keys: list[str]) -> None:
        if not _is_s3(self._obs):
            try:
                self._delete_objects(keys)
            except Exception as exc:
                raise self._error("DELETE", keys[0], exc) from None
            return
        if _BULK_DELETE.get(self._server()) is not False and self._bulk_delete(keys):
            return
        self._map(self._delete_signed, keys)

    def _call(self, first: Callable[[Any], Any], again: Callable[[Any], Awaitable[Any]],
              unsent: bool = False) -> Any:
        """``first(client)`` once through the first-try client; if that fails in a way
        that may be transient, ``await again(client)`` through the retrying client on the
        event-loop thread, the whole call ending by the deadline (``retry_timeout`` from
        now; see the module docstring). obstore retries a cut answer for a GET only: a
        listing's or a multi-object delete's is tried again here, as, with ``unsent``, a
        delete that got no answer (a dropped connection, a timeout; deleting again is
        harmless), each after a backoff pause that ends before the deadline."""
        settings = self.settings
        limit = settings["retry_timeout"]
        deadline = time.monotonic() + limit
        try:
            return first(self._obs1)
        except Exception as exc:
            if limit <= 0 or not _may_be_transient(exc):
                raise
            failure: BaseException = exc
        pauses = backoff(limit)
        while True:
            pause = next(pauses, None)
            if pause is None or time.monotonic() + pause >= deadline:
                raise failure
            time.sleep(pause)
            try:
                return _run_async(lambda: again(self._obs), deadline - time.monotonic())
            except TimeoutError:
                raise _Deadline(f"no success within retry_timeout={limit} s; first "
                                f"failure: {_words(failure)}") from None
            except Exception as exc:
                if not (_is_cut(exc) or (unsent and _is_unanswered(exc))):
                    raise
                failure = exc

    def _delete_objects(self, keys: list[str]) -> None:
        """Delete ``keys`` with one obstore call (on S3 a multi-object ``POST ?delete``);
        a missing key is no error; obstore's own exceptions otherwise."""
        import obstore

        paths = [self._path(k) for k in keys] if len(keys) > 1 else self._path(keys[0])
        try:
            self._call(lambda c: obstore.delete(c, paths),
                       lambda c: obstore.delete_async(c, paths), unsent=True)
        except FileNotFoundError:
            pass

    def _server(self) -> str:
        """What tells apart the servers whose multi-object delete may differ."""
        config = self._obs.config
        return f"{config.get('endpoint')} {config.get('bucket')}"

    def _bulk_delete(self, keys: list[str]) -> bool:
        """Delete ``keys`` with S3's multi-object delete (``POST ?delete``: obstore sends
        every delete so, one key too); False if the server does not implement it (then
        nothing was deleted).

        Some S3 servers answer it 501 NotImplemented (localbucket; some gateways), which
        obstore would retry as a server error until the deadline. The first try retries
        nothing and a 501 is never tried again (`_call`): known at once, and remembered
        for the process (every later delete to that server is one plain ``DELETE`` per
        key: `_delete_signed`).
        """
        try:
            self._delete_objects(keys)
        except Exception as exc:
            if _is_501(exc):
                _BULK_DELETE[self._server()] = False
                return False
            raise self._error("DELETE", keys[0], exc) from None
        _BULK_DELETE[self._server()] = True
        return True

    def _delete_signed(self, key: str) -> None:
        """One ``DELETE`` of ``key`` (obstore has no call that sends one): a URL signed by
        the client for that method, sent with urllib the way the client sends its own
        requests (`_opener`: its proxy, proxy exclusions, CA certificate and certificate
        checks; its ``request_timeout``); transient failures retried while the
        deadline (``retry_timeout``) allows, each try within the time left. A missing key
        is no error."""
        import urllib.error
        import urllib.request

        import obstore

        try:
            url = obstore.sign(self._obs, "DELETE", self._path(key),
                               datetime.timedelta(minutes=10))
        except Exception as exc:
            raise self._error("DELETE", key, exc) from None
        opener = self._delete_opener
        if opener is None:
            opener = self._delete_opener = _opener(
                getattr(self._obs, "client_options", None) or {}, url)
        limit, request = self.settings["retry_timeout"], self.settings["request_timeout"]
        deadline = time.monotonic() + (limit if limit > 0 else request)
        pauses = backoff(limit)
        while True:
            try:
                with opener.open(urllib.request.Request(url, method="DELETE"),
                                 timeout=max(min(request, deadline - time.monotonic()),
                                             0.001)) as resp:
                    resp.read()
                return
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return
                failure: BaseException = exc
                transient = exc.code >= 500 and exc.code != 501
            except OSError as exc:  # refused, reset, timed out
                failure, transient = exc, True
            pause = next(pauses, None) if transient else None
            if pause is None or time.monotonic() + pause >= deadline:
                raise self._error("DELETE", key, failure)
            time.sleep(pause)

    def _require_listing(self, prefix: str) -> None:
        if self.kind == "http":
            raise UnsupportedError(f"{self.url_of(prefix)}: an HTTP store cannot list keys")

    def _list_keys(self, prefix: str) -> Iterator[str]:
        import obstore

        self._require_listing(prefix)
        try:
            root = self._path(prefix.rstrip("/")) or None
            batches = self._call(
                lambda c: list(obstore.list(c, root, chunk_size=1000)),
                lambda c: obstore.list(c, root, chunk_size=1000).collect_async())
            if batches and isinstance(batches[0], dict):  # collect_async: one flat list
                batches = [batches]
        except Exception as exc:
            raise self._error("LIST", prefix, exc) from None
        return (self._relative(meta["path"]) for batch in batches for meta in batch)

    def _list_names(self, prefix: str) -> Iterable[str]:
        import obstore

        self._require_listing(prefix)
        try:
            root = self._path(prefix.rstrip("/")) or None
            found = self._call(lambda c: obstore.list_with_delimiter(c, root),
                               lambda c: obstore.list_with_delimiter_async(c, root))
        except Exception as exc:
            raise self._error("LIST", prefix, exc) from None
        n = len(prefix)
        names = [self._relative(p)[n:].rstrip("/") for p in found["common_prefixes"]]
        names += [self._relative(meta["path"])[n:] for meta in found["objects"]]
        return [name for name in names if name]


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine: ``localhost``, 127.0.0.0/8 or ``::1``."""
    host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _cut(got: Fetched | None, start: int | None, stop: int | None,
         suffix: int | None) -> Fetched | None:
    if got is None:
        return None
    view = memoryview(got.data)
    n = view.nbytes
    if suffix is not None:
        a, b = max(n - suffix, 0), n
    else:
        a, b = min(start or 0, n), n if stop is None else min(stop, n)
    return Fetched(view[a:b], n, got.etag)


def _opener(client_options: dict, url: str) -> Any:
    """A urllib opener sending ``url`` as an obstore client with ``client_options``
    sends its requests: through its ``proxy_url`` (unless the host is in
    ``proxy_excludes``; without one, the environment's proxies, as the client), trusting
    ``proxy_ca_certificate`` too, and checking no certificate when
    ``allow_invalid_certificates`` is set. Made once per such set (`_OPENERS`: a TLS
    context loads the system's CA certificates, milliseconds each time)."""
    import ssl
    import urllib.request

    def flag(name: str) -> bool:
        return str(client_options.get(name, "")).lower() in ("true", "1", "yes", "on")

    proxy = client_options.get("proxy_url")
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if proxy:
        excludes = [h.strip().lower().lstrip(".")
                    for h in str(client_options.get("proxy_excludes") or "").split(",")]
        if any(h and (host == h or host.endswith("." + h)) for h in excludes):
            proxy = None
    ca = client_options.get("proxy_ca_certificate")
    insecure = flag("allow_invalid_certificates")
    key = (str(proxy) if proxy else None, str(ca) if ca else None, insecure)
    with _CLIENTS_LOCK:
        opener = _OPENERS.get(key)
    if opener is not None:
        return opener
    handlers: list = []
    if proxy:
        handlers.append(urllib.request.ProxyHandler({"http": str(proxy), "https": str(proxy)}))
    context = ssl.create_default_context()
    if ca:
        context.load_verify_locations(cadata=str(ca))
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    with _CLIENTS_LOCK:
        return _OPENERS.setdefault(key, opener)


#: `_opener`'s openers by (proxy, CA certificate, certificate checks off).
_OPENERS: dict[tuple, Any] = {}


def _is_501(exc: BaseException) -> bool:
    # the status line obstore quotes, or S3's error code in the body
    text = str(exc)
    return "501 Not Implemented" in text or "<Code>NotImplemented</Code>" in text


#: Per server (`ObstoreStore._server`): whether its multi-object delete works (absent:
#: not yet tried).
_BULK_DELETE: dict[str, bool] = {}


def _is_s3(client: Any) -> bool:
    from obstore.store import S3Store

    return isinstance(client, S3Store)


class _Deadline(Exception):
    """A call still failing when its deadline (``retry_timeout``) came."""


def _words(exc: BaseException) -> str:
    return str(exc).split("\n\nDebug source:")[0] or type(exc).__name__


def _may_be_transient(exc: BaseException) -> bool:
    """Whether a first try's failure is worth the retrying path: everything but what
    no retry changes (a missing object, a failed precondition, refused credentials or
    permission, a refused range, a 501, a server ignoring the Range)."""
    from obstore.exceptions import (
        AlreadyExistsError,
        NotSupportedError,
        PermissionDeniedError,
        PreconditionError,
        UnauthenticatedError,
    )

    if isinstance(exc, (FileNotFoundError, PermissionError, PreconditionError,
                        PermissionDeniedError, UnauthenticatedError, AlreadyExistsError,
                        NotSupportedError)):
        return False
    return not (_is_416(exc) or _is_501(exc) or "non-partial response" in str(exc))


_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_PID = 0
_LOOP_LOCK = threading.Lock()


def _run_async(make: Callable[[], Awaitable[Any]], seconds: float) -> Any:
    """``await make()`` on the process's event-loop thread (started on first use; a
    forked child starts its own), cut after ``seconds`` (`TimeoutError`: the unfinished
    obstore call is dropped, which closes its connection)."""
    global _LOOP, _LOOP_PID
    with _LOOP_LOCK:
        if _LOOP is None or _LOOP_PID != os.getpid():
            _LOOP = asyncio.new_event_loop()
            _LOOP_PID = os.getpid()
            threading.Thread(target=_LOOP.run_forever, name="zarrhpc-obstore-loop",
                             daemon=True).start()
        loop = _LOOP
    if seconds <= 0:
        raise TimeoutError

    async def bounded() -> Any:
        return await asyncio.wait_for(make(), seconds)

    return asyncio.run_coroutine_threadsafe(bounded(), loop).result()


def _is_unanswered(exc: BaseException) -> bool:
    text = str(exc)
    return "error sending request" in text or "timed out" in text


def _is_cut(exc: BaseException) -> bool:
    """Whether obstore's error says an answer's body was cut short (or its connection
    closed while it was being read)."""
    text = str(exc)
    return ("body error" in text or "error decoding response body" in text
            or "connection closed before message completed" in text)


def _is_416(exc: BaseException) -> bool:
    """Whether obstore's error is the server refusing a range past the end, read from the
    words obstore and S3 put around the status (a URL names the key: a key holding
    "InvalidRange" made every failed GET of it an empty object)."""
    text = str(exc)
    return ("status code: 416 Range Not Satisfiable" in text
            or "<Code>InvalidRange</Code>" in text
            or "Wanted range starting at" in text  # obstore's memory store
            or "Requested range was invalid" in text)  # obstore's local-file store


def _rebuild(cls: type, url: str, options: dict, read_only: bool, settings: dict) -> Any:
    return cls(url, storage_options=options, read_only=read_only, **settings)


#: obstore clients by everything they were built from, most recently used last (at most
#: `_CLIENTS_MAX`): opening a root of the same bucket again -- the benchmark's rounds, a
#: dask task unpickling its store, xarray reopening a dataset, another array or dataset
#: in the bucket -- reuses the client and so its pool
#: of open connections (no new TCP or TLS handshake, no new proxy thread), as
#: tensorstore's shared context does. The process id is part of the key: a forked child
#: never uses the parent's connections.
_CLIENTS: OrderedDict[str, Any] = OrderedDict()
_CLIENTS_MAX = 64
_CLIENTS_LOCK = threading.Lock()


def _make_client(kind: str, parts: urllib.parse.SplitResult, options: dict,
                 retry_timeout: float, request_timeout: float) -> Any:
    try:
        where = parts.path if kind == "http" else ""  # other clients serve a whole bucket
        key = json.dumps([os.getpid(), kind, parts.scheme.lower(), parts.netloc, where,
                          options, retry_timeout, request_timeout], sort_keys=True)
    except (TypeError, ValueError):
        # an option json cannot spell (a credential provider, a timedelta): built anew,
        # since telling two such objects apart safely is not possible here
        return _new_client(kind, parts, options, retry_timeout, request_timeout)
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is not None:
            _CLIENTS.move_to_end(key)
            return client
    client = _new_client(kind, parts, options, retry_timeout, request_timeout)
    with _CLIENTS_LOCK:
        client = _CLIENTS.setdefault(key, client)
        while len(_CLIENTS) > _CLIENTS_MAX:
            _CLIENTS.popitem(last=False)
    return client


def _new_client(kind: str, parts: urllib.parse.SplitResult, options: dict,
                retry_timeout: float, request_timeout: float) -> Any:
    from obstore.store import AzureStore, GCSStore, HTTPStore, S3Store

    config, client = translate_options(kind, options)
    if parts.scheme.lower() == "http":
        client.setdefault("allow_http", True)  # the URL itself says plain HTTP
    # one try: connection, answer and body within request_timeout (the caller's own
    # client_options win); with retry_timeout this bounds a request that keeps failing
    client.setdefault("timeout", datetime.timedelta(seconds=request_timeout))
    client.setdefault("connect_timeout", datetime.timedelta(seconds=min(5.0, request_timeout)))
    retry = {"max_retries": 1000, "retry_timeout": datetime.timedelta(seconds=retry_timeout),
             "backoff": {"init_backoff": datetime.timedelta(milliseconds=50),
                         "max_backoff": datetime.timedelta(seconds=5), "base": 2}}
    if retry_timeout == 0:
        retry["max_retries"] = 0
    common = {"client_options": client or None, "retry_config": retry}
    try:
        if kind == "http":
            base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
            return HTTPStore.from_url(base.rstrip("/") + "/", **common)
        if not parts.netloc:
            raise ValueError(f"{parts.geturl()}: the URL names no bucket or container")
        if kind == "s3":
            return S3Store(parts.netloc, config=config, **common)
        if kind == "gcs":
            return GCSStore(parts.netloc, config=config, **common)
        return AzureStore(parts.netloc, config=config, **common)
    except ValueError:
        raise
    except Exception as exc:
        raise OptionsNotUnderstood(f"{parts.geturl()}: invalid storage_options for obstore: "
                                   f"{str(exc).splitlines()[0]}") from None
