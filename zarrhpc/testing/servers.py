"""Servers on loopback for the remote-store tests and benchmarks: S3, plain HTTP, a proxy.

Nothing here reaches the network: every server binds 127.0.0.1 on a free port chosen by
the kernel (port 0) and is stopped by its context manager.

- `S3Server`: moto's S3 in server mode, in a child process (so that its Python work does
  not compete for this process's GIL). ``server.endpoint`` is its ``http://`` URL;
  `S3Server.create_bucket` makes a bucket. Credentials are any strings
  (`S3Server.storage_options` gives a ready set). moto keeps its objects in the memory of
  that one process and answers one request at a time in effect (threads, one GIL, ~2 ms
  of Python per request), so it is the limit of any client's speed.
- `LocalBucketServer`: the same S3 calls served by the ``localbucket`` package (stdlib
  only; objects are files in a temporary directory, on tmpfs where there is one) in
  ``workers`` forked processes accepting on one socket: requests are answered
  concurrently, each with little Python. It does not check ``If-Match`` on a GET (a
  replaced object is not detected while cached: the benchmarks replace none). The
  benchmarks' ``--server localbucket``.
- `HTTPRangeServer`: a static file server over a directory, read-only, with ``Range``
  (single ranges, suffixes, open ends), ``HEAD``, ``ETag`` and ``If-Match``, in threads of
  this process. It lists nothing: a plain web server.
- `CountingProxy`: a forwarding HTTP proxy put *in front of* either server (clients use
  ``proxy.endpoint`` instead of the server's). It counts every request (HEAD and LIST
  included: ``proxy.counts`` by kind, ``proxy.log``, ``proxy.max_in_flight``; PUTs by
  how their body is signed: ``proxy.payloads``), and
  injects faults into the next N requests that match (`CountingProxy.fail_next`): a
  status code, a connection dropped before the answer, after its headers or halfway
  through its body, or no answer at all (a stall); and a delay before every request
  (``proxy.delay``).
- `ProxyProcess`: the same proxy in a child process, so that its Python work (every byte
  passes through it) does not compete with the client for this process's GIL: what the
  benchmarks use. It offers ``endpoint``, ``total`` and `ProxyProcess.reset`.

Life cycle: ``with S3Server() as s3, CountingProxy(s3.endpoint) as proxy: ...``.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["CountingProxy", "HTTPRangeServer", "LocalBucketServer", "ProxyProcess",
           "S3Server", "request_kind"]

_MOTO_CHILD = r"""
import sys
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
print(server.get_host_and_port()[1], flush=True)
sys.stdin.read()  # until the parent closes our stdin
server.stop()
"""


class _Child:
    """A server in a child process that prints its port, then serves until its stdin
    closes; a context manager."""

    def __init__(self, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        """str: the server's URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, args: list[str], what: str, env: dict | None = None) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, text=True)
        line = self._proc.stdout.readline()  # blocks until the child prints its port
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"{what} did not start (said {line!r})")
        self.port = int(line)
        _wait_listening(self.port, self.timeout)

    def cpu_seconds(self) -> float | None:
        """CPU seconds (user + system) the child and every process under it have used so
        far (Linux ``/proc``; None elsewhere): what the server costs per operation, apart
        from the client's."""
        if self._proc is None or not os.path.isdir("/proc"):
            return None
        tick = os.sysconf("SC_CLK_TCK")
        stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, seconds)
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rpartition(")")[2].split()
            except OSError:  # gone meanwhile
                continue
            stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
        wanted, total = {self._proc.pid}, 0.0
        grew = True
        while grew:
            grew = False
            for pid, (parent, _) in stats.items():
                if parent in wanted and pid not in wanted:
                    wanted.add(pid)
                    grew = True
        for pid in wanted:
            total += stats.get(pid, (0, 0.0))[1]
        return total

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        finally:
            proc.stdout.close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _S3Child(_Child):
    """An S3 server in a child process: credentials, options and bucket creation."""

    name = "s3"
    access_key = "testing"
    secret_key = "testing"
    region = "us-east-1"

    def storage_options(self, endpoint: str | None = None) -> dict[str, Any]:
        """Options in zarr-python's (s3fs) spelling to reach this server (or a proxy)."""
        return {"endpoint_url": endpoint or self.endpoint, "key": self.access_key,
                "secret": self.secret_key, "region": self.region}

    def create_bucket(self, name: str) -> None:
        """Create bucket ``name`` (a plain ``PUT /name``; the server checks no signature)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            conn.request("PUT", f"/{name}", headers={"Content-Length": "0"})
            resp = conn.getresponse()
            body = resp.read()
            if resp.status not in (200, 409):
                raise RuntimeError(f"create bucket {name!r}: HTTP {resp.status} {body[:200]!r}")
        finally:
            conn.close()


class S3Server(_S3Child):
    """moto's S3 server on 127.0.0.1 and a free port, in a child process.

    Parameters
    ----------
    timeout : float
        Seconds to wait for the server to start.
    """

    name = "moto"

    def start(self) -> S3Server:
        env = dict(os.environ, AWS_ACCESS_KEY_ID=self.access_key,
                   AWS_SECRET_ACCESS_KEY=self.secret_key, AWS_DEFAULT_REGION=self.region,
                   PYTHONWARNINGS="ignore")
        self._spawn([_MOTO_CHILD], "moto S3 server", env)
        return self


_LOCALBUCKET_CHILD = r"""
import os, sys, threading, time
from http.server import ThreadingHTTPServer
from pathlib import Path
from localbucket import S3Handler

class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # as _QuietServer: no cap on connections opened at once
    def handle_error(self, request, client_address):
        pass

S3Handler.data_root = Path(sys.argv[1])
S3Handler.disable_nagle_algorithm = True  # as _FileHandler: no ~40 ms on small answers
server = Server(("127.0.0.1", 0), S3Handler)
parent = os.getpid()
workers = []
for _ in range(int(sys.argv[2])):
    pid = os.fork()
    if pid == 0:  # a worker: accepts on the shared socket until its parent goes
        def orphaned():
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(0)
        threading.Thread(target=orphaned, daemon=True).start()
        try:
            server.serve_forever()
        finally:
            os._exit(0)
    workers.append(pid)
print(server.server_address[1], flush=True)
sys.stdin.read()  # until the parent closes our stdin
for pid in workers:
    os.kill(pid, 15)
    os.waitpid(pid, 0)
"""


class LocalBucketServer(_S3Child):
    """``localbucket``'s S3 server in ``workers`` processes on one loopback socket.

    Parameters
    ----------
    workers : int
        Processes accepting requests (each answers its connections in threads).
    timeout : float
        Seconds to wait for the server to start.
    """

    name = "localbucket"

    def __init__(self, workers: int = 2, timeout: float = 60.0) -> None:
        super().__init__(timeout)
        self.workers = workers
        self._root: str | None = None

    def start(self) -> LocalBucketServer:
        shm = "/dev/shm"
        base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
        self._root = tempfile.mkdtemp(prefix="zarrhpc-localbucket-", dir=base)
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        try:
            self._spawn([_LOCALBUCKET_CHILD, self._root, str(self.workers)],
                        "localbucket S3 server", env)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            root, self._root = self._root, None
            if root is not None:
                shutil.rmtree(root, ignore_errors=True)


def _wait_listening(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on 127.0.0.1:{port}") from None
            time.sleep(0.02)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # the listen backlog: socketserver's default of 5 makes a client opening 64
    # connections at once wait for accepts, which would cap the requests in flight
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up mid-response is normal here


class _Served:
    """A ThreadingHTTPServer on 127.0.0.1:0 run by a thread, as a context manager."""

    handler: type

    def __init__(self) -> None:
        self._httpd: _QuietServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() the server first"
        return self._httpd.server_address[1]

    @property
    def endpoint(self) -> str:
        """str: ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Any:
        handler = type(self.handler.__name__, (self.handler,), {"owner": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._httpd = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


class _FileHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes: with Nagle's algorithm the body of a small
    # answer waits for the client's delayed ACK of the headers (~40 ms a request)
    disable_nagle_algorithm = True
    owner: HTTPRangeServer

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None,
              head: bool = False) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
        full = os.path.realpath(os.path.join(self.owner.root, path))
        if not full.startswith(self.owner.root + os.sep) or not os.path.isfile(full):
            self._send(404, b"not found", head=head)
            return
        with open(full, "rb") as f:
            data = f.read()
        etag = '"' + hashlib.md5(data).hexdigest() + '"'
        match = self.headers.get("If-Match")
        if match and match.strip() not in ("*", etag):
            self._send(412, b"precondition failed", head=head)
            return
        headers = {"ETag": etag, "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream"}
        rng = self.headers.get("Range")
        if not rng:
            self._send(200, data, headers, head)
            return
        m = _RANGE.match(rng.strip())
        if m is None or m.groups() == ("", ""):
            self._send(416, b"bad range", {"Content-Range": f"bytes */{len(data)}"}, head)
            return
        first, last = m.groups()
        size = len(data)
        if first == "":  # suffix
            start, stop = max(size - int(last), 0), size
        else:
            start = int(first)
            stop = size if last == "" else min(int(last) + 1, size)
        if start >= size or stop <= start:
            self._send(416, b"range not satisfiable", {"Content-Range": f"bytes */{size}"}, head)
            return
        headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
        self._send(206, data[start:stop], headers, head)


class HTTPRangeServer(_Served):
    """A read-only static file server for ``root`` with Range, ETag and If-Match support.

    Parameters
    ----------
    root : str or os.PathLike
        The directory served: ``GET /a/b`` returns the file ``root/a/b``.
    """

    handler = _FileHandler

    def __init__(self, root: Any) -> None:
        super().__init__()
        self.root = os.path.realpath(os.fspath(root))


def request_kind(method: str, target: str) -> str:
    """``"LIST"`` for an S3 listing (``GET /bucket?list-type=2...``), else the method."""
    query = urllib.parse.urlsplit(target).query
    if method == "GET" and ("list-type" in query or "delimiter" in query or "prefix=" in query):
        return "LIST"
    return method


_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade",
        "trailer"}


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as _FileHandler: no ~40 ms wait on small answers
    owner: CountingProxy

    def log_message(self, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _forward(self) -> None:
        owner = self.owner
        if "://" in self.path.split("?", 1)[0]:
            # absolute form: the proxy was named as a client's forward proxy; counted
            # (``owner.forwarded``) and sent on to the upstream like any other
            parts = urllib.parse.urlsplit(self.path)
            self.path = urllib.parse.urlunsplit(("", "", parts.path, parts.query, ""))
            with owner._lock:
                owner.forwarded += 1
        body = self._body()
        kind = request_kind(self.command, self.path)
        signed = self.headers.get("x-amz-content-sha256")
        with owner._lock:
            if self.headers.get("If-Match") is not None:
                owner.conditional += 1
            if self.command == "PUT" and signed is not None:
                owner.payloads["unsigned" if signed.startswith("UNSIGNED") else "sha256"] += 1
        fault = owner._record(self.command, kind, self.path, self.headers.get("Range"))
        self._counted = True
        try:
            self._answer(owner, body, fault)
        finally:
            self._leave(owner)

    def _leave(self, owner: CountingProxy) -> None:
        """The request stops counting as in flight: called before the last bytes of the
        answer are written, since the client may send its next request the moment they
        arrive (on a busy machine, before this thread runs again)."""
        if self._counted:
            self._counted = False
            with owner._lock:
                owner.in_flight -= 1

    def _drop(self, owner: CountingProxy) -> None:
        self.close_connection = True
        self._leave(owner)
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:  # the client hung up first
            pass

    def _answer(self, owner: CountingProxy, body: bytes, fault: int | str | None) -> None:
        if owner.delay:
            time.sleep(owner.delay)
        if fault == "stall":  # no answer until released (or the stall ends), then a drop
            owner._released.wait(owner.stall)
            self._drop(owner)
            return
        if fault is not None and fault not in ("headers", "truncate", "late"):
            if fault in (0, "reset"):  # drop the connection without an answer
                self._drop(owner)
                return
            msg = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
            self.send_response(fault)
            self.send_header("Content-Length", str(len(msg)))
            self.send_header("Content-Type", "application/xml")
            self.end_headers()
            self._leave(owner)
            if self.command != "HEAD":  # an answer to HEAD has no body (it would be
                self.wfile.write(msg)   # read as the next answer on a kept-alive connection)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        headers["Content-Length"] = str(len(body))
        for attempt in (0, 1):  # a kept-alive upstream connection may have been closed
            conn = owner._connection()
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                break
            except (OSError, http.client.HTTPException):
                owner._drop_connection()
                if attempt:
                    self._leave(owner)
                    self.send_response(502)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
        if fault == "late":  # the server did it; its answer never comes, then a drop
            owner._released.wait(owner.stall)
            self._drop(owner)
            return
        if fault is not None:  # "headers" or "truncate": the answer cut short, then a drop
            self._cut_answer(owner, resp, data, fault)
            return
        self.send_response(resp.status, resp.reason)
        head = self.command == "HEAD"  # a HEAD answer tells the object's length
        for name, value in resp.getheaders():
            if name.lower() not in _HOP and (head or name.lower() != "content-length"):
                self.send_header(name, value)
        if not head:
            self.send_header("Content-Length", str(len(data)))
        if head or not data:
            self._leave(owner)  # the headers are the whole answer
        self.end_headers()
        if self.command != "HEAD":
            self._leave(owner)
            self.wfile.write(data)

    def _cut_answer(self, owner: CountingProxy, resp: Any, data: bytes, fault: str) -> None:
        """The upstream answer's status and headers, a ``Content-Length`` promising a body
        (the whole one, or one byte where there is none; a HEAD's unchanged), then
        ``fault == "truncate"``: half of the body; ``"headers"``: none of it; then the
        connection is dropped."""
        self.send_response(resp.status, resp.reason)
        head = self.command == "HEAD"  # its headers are the whole answer: sent unchanged
        for name, value in resp.getheaders():
            if name.lower() not in _HOP and (head or name.lower() != "content-length"):
                self.send_header(name, value)
        if not head:
            self.send_header("Content-Length", str(max(len(data), 1)))
        self.end_headers()
        if fault == "truncate" and self.command != "HEAD":
            self.wfile.write(data[:len(data) // 2])
        self.wfile.flush()
        self._drop(owner)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    def finish(self) -> None:
        # one thread per client connection: its upstream connection ends with it
        try:
            super().finish()
        finally:
            self.owner._drop_connection()


class CountingProxy(_Served):
    """A forwarding proxy that counts requests and injects faults (see the module docstring).

    Parameters
    ----------
    upstream : str
        ``http://host:port`` of the server behind the proxy.
    delay : float
        Seconds to wait before forwarding each request (an injected latency).
    """

    handler = _ProxyHandler

    def __init__(self, upstream: str, delay: float = 0.0) -> None:
        super().__init__()
        parts = urllib.parse.urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.delay = delay
        self.counts: Counter = Counter()
        self.in_flight = 0  # requests being answered now
        self.max_in_flight = 0  # the most at once since the last reset
        self.log: list[tuple[str, str, str | None]] = []
        self.conditional = 0  # requests carrying If-Match
        self.forwarded = 0  # requests sent to it as a forward proxy (absolute URLs)
        # PUTs by how their body is signed (x-amz-content-sha256): "unsigned"
        # (UNSIGNED-PAYLOAD or a streaming trailer) or "sha256" (the body's hash)
        self.payloads: Counter = Counter()
        self._lock = threading.Lock()
        self._faults: list[list] = []  # [remaining, status, predicate]
        self.stall = 60.0  # seconds a "stall" fault holds a request at most
        self._released = threading.Event()
        self._local = threading.local()

    @property
    def total(self) -> int:
        """int: requests seen since the last `reset`."""
        with self._lock:
            return sum(self.counts.values())

    def reset(self) -> None:
        """Forget the counts and the log (pending faults stay)."""
        with self._lock:
            self.counts.clear()
            self.log.clear()
            self.conditional = 0
            self.forwarded = 0
            self.payloads.clear()
            self.max_in_flight = self.in_flight

    def fail_next(self, n: int, status: int | str = 500,
                  when: Callable[[str, str], bool] | None = None) -> None:
        """Answer the next ``n`` requests (matching ``when(kind, path)``) with a fault.

        ``status``: an HTTP status code (its answer an S3 error body); ``0`` or
        ``"reset"``: the connection dropped before any answer; ``"headers"``: the upstream
        answer's status and headers, then the connection dropped before the body;
        ``"truncate"``: the same with half the body; ``"stall"``: no answer at all for
        ``proxy.stall`` seconds or until `clear_faults`, then a drop (the request never
        reaches the server); ``"late"``: the request done upstream, then no answer for
        as long, then a drop (a write or delete that happened, its client never told).
        """
        if not (isinstance(status, int) or status in ("reset", "headers", "truncate",
                                                       "stall", "late")):
            raise ValueError(f"fail_next: unknown fault {status!r}")
        with self._lock:
            self._released.clear()
            self._faults.append([n, status, when])

    def clear_faults(self) -> None:
        """Drop every pending fault and release the requests held by ``"stall"``."""
        with self._lock:
            self._faults.clear()
            self._released.set()

    def _record(self, method: str, kind: str, path: str, rng: str | None) -> int | str | None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.counts[kind] += 1
            self.log.append((kind, path, rng))
            for fault in self._faults:
                remaining, status, when = fault
                if remaining > 0 and (when is None or when(kind, path)):
                    fault[0] -= 1
                    return status
        return None

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=60)
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


_PROXY_CHILD = r"""
import sys
from zarrhpc.testing.servers import CountingProxy
proxy = CountingProxy(sys.argv[1], delay=float(sys.argv[2])).start()
print(proxy.port, flush=True)
for line in sys.stdin:  # one command a line, one answer a line, until stdin closes
    if line.strip() == "total":
        print(proxy.total, flush=True)
    elif line.strip() == "max_in_flight":
        print(proxy.max_in_flight, flush=True)
    elif line.strip() == "reset":
        proxy.reset()
        print("ok", flush=True)
proxy.stop()
"""


class ProxyProcess(_Child):
    """A `CountingProxy` in a child process (see the module docstring).

    Parameters
    ----------
    upstream : str
        ``http://host:port`` of the server behind the proxy.
    delay : float
        Seconds to wait before forwarding each request.
    timeout : float
        Seconds to wait for the child to start.
    """

    def __init__(self, upstream: str, delay: float = 0.0, timeout: float = 60.0) -> None:
        super().__init__(timeout)
        self.upstream = upstream
        self.delay = delay

    def start(self) -> ProxyProcess:
        self._spawn([_PROXY_CHILD, self.upstream, repr(float(self.delay))], "proxy process")
        return self

    def _ask(self, command: str) -> str:
        assert self._proc is not None, "start() the proxy first"
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        return self._proc.stdout.readline().strip()

    @property
    def total(self) -> int:
        """int: requests seen since the last `reset`."""
        return int(self._ask("total"))

    @property
    def max_in_flight(self) -> int:
        """int: the most requests answered at once since the last `reset`."""
        return int(self._ask("max_in_flight"))

    def reset(self) -> None:
        """Forget the counts."""
        self._ask("reset")
