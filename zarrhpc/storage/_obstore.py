"""ObstoreStore: S3, GCS, Azure and HTTP(S) through obstore (Rust object_store).

Life cycle: ``ObstoreStore("s3://bucket/root", storage_options={...})`` builds the obstore
client (no request is made), or reuses the one built for the same root and options in
this process, with its open connections (`_make_client`); keys map to ``root/key``
objects. Pickles by reference: URL, options, mode and settings.

``storage_options`` are spelled as zarr-python's fsspec store (s3fs, gcsfs, adlfs) takes
them and translated here (`translate_options`): ``endpoint_url`` (also inside
``client_kwargs``), ``key``, ``secret``, ``token``, ``anon``, ``region``/``region_name``
for S3; ``token="anon"``/``anon`` for GCS; ``account_name``, ``account_key``, ``anon`` for
Azure. obstore's own configuration keys (``access_key_id``, ``endpoint``...) pass through
unchanged. A plain ``http://`` endpoint is allowed. Retries of transient errors (5xx,
timeouts, dropped connections, cut answers) are obstore's: no try starts after the
store's ``retry_timeout``, and each try (connection, answer, body) is cut at its
``request_timeout`` (the client's ``timeout``; ``client_options={"timeout": ...}`` wins).

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

import datetime
import ipaddress
import json
import os
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from zarrhpc.errors import ReadOnlyError, StoreError, StorePermissionError, UnsupportedError
from zarrhpc.storage._remotebase import Fetched, ObjectChanged, RemoteStore, backoff

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
        self._obs = _make_client(kind, parts, self.storage_options,
                                 self.settings["retry_timeout"],
                                 self.settings["request_timeout"])

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.url, self.storage_options, self._read_only,
                           self.settings))

    def _check_writable(self, key: str, action: str) -> None:
        if self.kind == "http" and not self._closed:
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self.url} is an HTTP store, "
                                "which is read-only")
        super()._check_writable(key, action)

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
        try:
            result = obstore.get(self._obs, key, options=options or None)
            data = memoryview(result.bytes())
            meta = result.meta
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
            meta = obstore.head(self._obs, key)
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._error("HEAD", key, exc) from None
        return meta["size"], meta.get("e_tag")

    def _put(self, key: str, data: memoryview) -> None:
        import obstore

        try:
            # bytes larger than a part go up as a multipart upload, completed or aborted
            # as a whole: no reader sees a partial object
            obstore.put(self._obs, key, data)
        except Exception as exc:
            raise self._error("PUT", key, exc) from None

    def _delete(self, keys: list[str]) -> None:
        import obstore

        if not _is_s3(self._obs):
            try:
                obstore.delete(self._obs, keys if len(keys) > 1 else keys[0])
            except FileNotFoundError:
                pass
            except Exception as exc:
                raise self._error("DELETE", keys[0], exc) from None
            return
        if _BULK_DELETE.get(self._server()) is not False and self._bulk_delete(keys):
            return
        self._map(self._delete_signed, keys)

    def _retry_cut(self, fn: Any, client: Any = None, unsent: bool = False) -> Any:
        """``fn(client)`` (this store's client by default), tried again while
        ``retry_timeout`` lasts when an answer was cut in its body: obstore retries that
        for a GET, not for a listing or a multi-object delete (`_is_cut`); with
        ``unsent`` also when no answer came (a dropped connection, a timeout), which
        obstore does not retry for a POST, though deleting again is harmless. Each later
        try goes through a twin client whose own retries end at the same deadline, so
        the whole call stays within ``retry_timeout + request_timeout``."""
        client = self._obs if client is None else client
        deadline = time.monotonic() + self.settings["retry_timeout"]
        pauses = backoff(self.settings["retry_timeout"])
        while True:
            try:
                return fn(client)
            except Exception as exc:
                again = _is_cut(exc) or (unsent and _is_unanswered(exc))
                pause = next(pauses, None) if again else None
                if pause is None:
                    raise
                time.sleep(pause)
                client = _retry_twin(client, max(deadline - time.monotonic(), 0.0))

    def _server(self) -> str:
        """What tells apart the servers whose multi-object delete may differ."""
        config = self._obs.config
        return f"{config.get('endpoint')} {config.get('bucket')}"

    def _bulk_delete(self, keys: list[str]) -> bool:
        """Delete ``keys`` with S3's multi-object delete (``POST ?delete``: obstore sends
        every delete so, one key too); False if the server does not implement it (then
        nothing was deleted).

        Some S3 servers answer it 501 NotImplemented (localbucket; some gateways), which
        obstore retries as a server error for the whole ``retry_timeout`` (30 s). So the
        first delete to a server goes through a twin client with no retries: a 501 is
        then known at once and remembered for the process (every later delete to that
        server is one plain ``DELETE`` per key: `_delete_signed`); any other failure is
        retried as usual.
        """
        import obstore

        server = self._server()
        client = self._obs if server in _BULK_DELETE else _no_retry_twin(self._obs)
        while True:
            try:
                self._retry_cut(lambda c: obstore.delete(c, keys if len(keys) > 1 else keys[0]),
                                client, unsent=True)
            except FileNotFoundError:
                pass
            except Exception as exc:
                if _is_501(exc):
                    _BULK_DELETE[server] = False
                    return False
                if client is self._obs:
                    raise self._error("DELETE", keys[0], exc) from None
                client = self._obs  # another failure, untried server: again, with retries
                continue
            _BULK_DELETE[server] = True
            return True

    def _delete_signed(self, key: str) -> None:
        """One ``DELETE`` of ``key`` (obstore has no call that sends one): a URL signed by
        the client for that method, sent with urllib the way the client sends its own
        requests (`_opener`: its proxy, proxy exclusions, CA certificate and certificate
        checks; its ``request_timeout``); transient failures retried for up to
        ``retry_timeout`` seconds. A missing key is no error."""
        import urllib.error
        import urllib.request

        import obstore

        try:
            url = obstore.sign(self._obs, "DELETE", key, datetime.timedelta(minutes=10))
        except Exception as exc:
            raise self._error("DELETE", key, exc) from None
        opener = self._delete_opener
        if opener is None:
            opener = self._delete_opener = _opener(
                getattr(self._obs, "client_options", None) or {}, url)
        pauses = backoff(self.settings["retry_timeout"])
        while True:
            try:
                with opener.open(urllib.request.Request(url, method="DELETE"),
                                 timeout=self.settings["request_timeout"]) as resp:
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
            if pause is None:
                raise self._error("DELETE", key, failure)
            time.sleep(pause)

    def _require_listing(self, prefix: str) -> None:
        if self.kind == "http":
            raise UnsupportedError(f"{self.url_of(prefix)}: an HTTP store cannot list keys")

    def _list_keys(self, prefix: str) -> Iterator[str]:
        import obstore

        self._require_listing(prefix)
        try:
            batches = self._retry_cut(lambda client: list(obstore.list(
                client, prefix.rstrip("/") or None, chunk_size=1000)))
        except Exception as exc:
            raise self._error("LIST", prefix, exc) from None
        return (meta["path"] for batch in batches for meta in batch)

    def _list_names(self, prefix: str) -> Iterable[str]:
        import obstore

        self._require_listing(prefix)
        try:
            found = self._retry_cut(lambda client: obstore.list_with_delimiter(
                client, prefix.rstrip("/") or None))
        except Exception as exc:
            raise self._error("LIST", prefix, exc) from None
        n = len(prefix)
        names = [p[n:].rstrip("/") for p in found["common_prefixes"]]
        names += [meta["path"][n:] for meta in found["objects"]]
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


def _no_retry_twin(client: Any) -> Any:
    """An S3 client like ``client`` (same bucket, prefix, credentials, options) that
    retries nothing; ``client`` itself when it cannot be rebuilt."""
    return _twin(client, {"max_retries": 0})


def _retry_twin(client: Any, retry_timeout: float) -> Any:
    """A client like ``client`` whose retries end after ``retry_timeout`` seconds (none
    when 0)."""
    retry = dict(client.retry_config or {}) if hasattr(client, "retry_config") else {}
    retry["retry_timeout"] = datetime.timedelta(seconds=retry_timeout)
    if retry_timeout <= 0:
        retry["max_retries"] = 0
    return _twin(client, retry)


def _twin(client: Any, retry_config: dict) -> Any:
    try:
        args, kwargs = client.__getnewargs_ex__()
        kwargs = dict(kwargs, retry_config=retry_config)
        return type(client)(*args, **kwargs)
    except Exception:
        return client


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
#: `_CLIENTS_MAX`): opening the same root again -- the benchmark's rounds, a dask task
#: unpickling its store, xarray reopening a dataset -- reuses the client and so its pool
#: of open connections (no new TCP or TLS handshake, no new proxy thread), as
#: tensorstore's shared context does. The process id is part of the key: a forked child
#: never uses the parent's connections.
_CLIENTS: OrderedDict[str, Any] = OrderedDict()
_CLIENTS_MAX = 64
_CLIENTS_LOCK = threading.Lock()


def _make_client(kind: str, parts: urllib.parse.SplitResult, options: dict,
                 retry_timeout: float, request_timeout: float) -> Any:
    try:
        key = json.dumps([os.getpid(), kind, parts.scheme.lower(), parts.netloc, parts.path,
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
    prefix = parts.path.strip("/") or None
    common = {"client_options": client or None, "retry_config": retry}
    try:
        if kind == "http":
            base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
            return HTTPStore.from_url(base.rstrip("/") + "/", **common)
        if not parts.netloc:
            raise ValueError(f"{parts.geturl()}: the URL names no bucket or container")
        if kind == "s3":
            return S3Store(parts.netloc, prefix=prefix, config=config, **common)
        if kind == "gcs":
            return GCSStore(parts.netloc, prefix=prefix, config=config, **common)
        return AzureStore(parts.netloc, prefix=prefix, config=config, **common)
    except ValueError:
        raise
    except Exception as exc:
        raise OptionsNotUnderstood(f"{parts.geturl()}: invalid storage_options for obstore: "
                                   f"{str(exc).splitlines()[0]}") from None
