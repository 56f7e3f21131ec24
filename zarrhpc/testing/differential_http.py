"""Differential read programs over HTTP servers that fail and lie, on both remote backends.

Why: a read of a remote array trusts the server's answers -- a status, a Content-Range, a
body's length -- and the fsspec and obstore libraries read those differently. A server
ignoring ``Range`` (200, the whole object), cutting a 206 short (with an honest or a lying
Content-Range), answering 503 or dropping connections for a while, or refusing for good
(403, 500) must give the array's values or a zarrhpc error, never other values: these
programs found a shard read as missing (fill values) when fsspec's HTTP ``info`` failed,
a short or whole answer read as the range, and keys named "InvalidRange" read as empty.

Life cycle of one program (``run_program(seed, root)``):

- Write a random array with zarrhpc into ``root`` (1-3 dimensions, edge chunks, sometimes
  missing chunks, unsharded or sharded -- sometimes with an index without crc32c, so that
  a wrong range of it is not caught by a checksum --, raw or compressed) and serve it with
  a :class:`LyingServer` (a static file server with Range, ETag and If-Match).
- Per read: the server is given a mode for the next requests (honest, a burst of 503 /
  dropped connections, a refusal for good, a server ignoring Range, a short 206 with an
  honest or a lying Content-Range), then a random selection (box, element, orthogonal,
  points, whole) is read through a fresh store of a random backend.
- Oracle: numpy's values of the array. A read that returns must equal them; one that
  raises must raise a zarrhpc error (`ZarrhpcError` or `StoreError`). Honest and burst
  modes must succeed. ``problems`` lists every other outcome.

The tests are tests/reliability/test_http_lies_differential.py (a short run in
``make test``; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
import warnings

import numpy as np

import zarrhpc
from zarrhpc.errors import StoreError, ZarrhpcError
from zarrhpc.storage import LocalStore
from zarrhpc.storage.remote import open_url
from zarrhpc.testing import servers

__all__ = ["LyingServer", "MODES", "Outcome", "run_program"]

#: modes: must succeed (honest, bursts, whole200) or may raise (the rest)
MODES = ["honest", "burst503", "burst_reset", "whole200", "short_honest", "short_lie",
         "refuse403", "refuse500"]
_MUST_READ = {"honest", "burst503", "burst_reset", "whole200"}


class _Lying(servers._FileHandler):
    def _fault(self) -> str | None:
        owner = self.owner
        with owner.lock:
            if owner.burst > 0:
                owner.burst -= 1
                return owner.mode
            return owner.mode if owner.mode in ("refuse403", "refuse500") else None

    def do_GET(self, head: bool = False) -> None:
        fault = self._fault()
        if fault in ("burst503", "refuse403", "refuse500"):
            status = {"burst503": 503, "refuse403": 403, "refuse500": 500}[fault]
            self._send(status, b"", head=True)  # no body: a HEAD's answer has none either
            return
        if fault == "burst_reset":
            self.close_connection = True
            self.connection.close()
            return
        super().do_GET(head)

    def _send(self, status, body=b"", headers=None, head=False):
        mode, rng = self.owner.mode, self.headers.get("Range")
        headers = dict(headers or {})
        if rng and status == 206 and mode in ("whole200", "short_honest", "short_lie"):
            first, _, total = re.match(r"bytes (\d+)-(\d+)/(\d+)",
                                       headers["Content-Range"]).groups()
            if mode == "whole200":
                path = os.path.join(self.owner.root, self.path.split("?")[0].lstrip("/"))
                with open(path, "rb") as f:
                    status, body = 200, f.read()
                del headers["Content-Range"]
            elif len(body) > 1:
                body = body[:len(body) // 2]
                if mode == "short_honest":
                    headers["Content-Range"] = \
                        f"bytes {first}-{int(first) + len(body) - 1}/{total}"
        super()._send(status, body, headers, head)


class LyingServer(servers._Served):
    """A static file server for ``root`` whose answers follow ``mode`` (module docstring);
    ``burst`` counts the requests a burst mode still fails."""

    handler = _Lying

    def __init__(self, root) -> None:
        super().__init__()
        self.root = os.path.realpath(os.fspath(root))
        self.mode = "honest"
        self.burst = 0
        self.lock = threading.Lock()

    def set_mode(self, mode: str, burst: int = 0) -> None:
        with self.lock:
            self.mode, self.burst = mode, burst


@dataclasses.dataclass
class Outcome:
    reads: int = 0
    raised: int = 0
    problems: list = dataclasses.field(default_factory=list)


def _array(rng: np.random.Generator, root: str) -> tuple[np.ndarray, str]:
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 40 if ndim == 1 else 14)) for _ in range(ndim))
    chunks = tuple(int(rng.integers(1, s + 2)) for s in shape)
    dtype = str(rng.choice(["<i4", ">f8", "u1", "<u2"]))
    kw = {"shape": shape, "chunks": chunks, "dtype": dtype, "fill_value": 0}
    if rng.random() < 0.5:
        kw["shards"] = tuple(c * int(rng.integers(1, 4)) for c in chunks)
    if rng.random() < 0.5:
        kw["compressors"] = None
    a = zarrhpc.create_array(LocalStore(root), name="a", **kw)
    data = (rng.integers(1, 100, shape)).astype(dtype)
    box = tuple(slice(int(rng.integers(0, s)), None) if rng.random() < 0.3 else slice(None)
                for s in shape)
    a[box] = data[box]
    model = np.zeros(shape, dtype)
    model[box] = data[box]
    label = f"{kw}"
    if "shards" in kw and rng.random() < 0.5:  # an index without crc32c
        store = LocalStore(root)
        meta = json.loads(bytes(store.get("a/zarr.json")))
        conf = meta["codecs"][0]["configuration"]
        if conf["index_codecs"][-1]["name"] == "crc32c":
            del conf["index_codecs"][-1]
            store.set("a/zarr.json", json.dumps(meta).encode())
            for key in list(store.list_prefix("a/c")):
                store.set(key, bytes(store.get(key))[:-4])
            label += " index without crc32c"
    return model, label


def _selection(rng: np.random.Generator, shape: tuple) -> tuple[str, object]:
    kind = str(rng.choice(["box", "element", "ortho", "points", "all"]))
    if kind == "all":
        return kind, Ellipsis
    if kind == "element":
        return kind, tuple(int(rng.integers(0, s)) for s in shape)
    if kind == "box":
        sel = []
        for s in shape:
            a = int(rng.integers(0, s))
            sel.append(slice(a, int(rng.integers(a + 1, s + 1))))
        return kind, tuple(sel)
    if kind == "ortho":
        return kind, tuple(np.unique(rng.integers(0, s, int(rng.integers(1, 4)))) for s in shape)
    n = int(rng.integers(1, 6))
    return kind, tuple(rng.integers(0, s, n) for s in shape)


def _read(a, kind: str, sel):
    if kind == "ortho":
        return a.oindex[sel]
    if kind == "points":
        return a.vindex[sel]
    return a[sel]


def _want(model: np.ndarray, kind: str, sel):
    if kind == "ortho":
        return model[np.ix_(*sel)]
    return model[sel]


def run_program(seed: int, root: str, reads: int = 12) -> Outcome:
    """One program (module docstring) with ``root`` an empty directory."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_program(seed, root, reads)


def _run_program(seed: int, root: str, reads: int) -> Outcome:
    rng = np.random.default_rng(seed)
    out = Outcome()
    model, label = _array(rng, root)
    with LyingServer(root) as server:
        for _ in range(reads):
            mode = str(rng.choice(MODES))
            backend = str(rng.choice(["obstore", "fsspec"]))
            kind, sel = _selection(rng, model.shape)
            store = open_url(server.endpoint, storage_options={
                "backend": backend, "retry_timeout": 5.0 if mode.startswith("burst") else 0.3,
                "request_timeout": 5.0})
            server.set_mode("honest")
            a = zarrhpc.open_array(store, path="a")
            server.set_mode(mode, burst=2 if mode.startswith("burst") else 0)
            where = f"seed {seed} {label} {backend} {mode} {kind} {sel!r}"
            out.reads += 1
            try:
                got = _read(a, kind, sel)
            except (ZarrhpcError, StoreError) as exc:
                out.raised += 1
                if mode in _MUST_READ:
                    out.problems.append(f"{where}: raised {exc!r}"[:600])
                continue
            except Exception as exc:  # noqa: BLE001 - a foreign class is a problem
                out.problems.append(f"{where}: foreign {type(exc).__name__}: {exc}"[:600])
                continue
            finally:
                server.set_mode("honest")
            want = _want(model, kind, sel)
            if not np.array_equal(np.asarray(got), want):
                out.problems.append(f"{where}: wrong values {np.asarray(got).ravel()[:6]!r} "
                                    f"vs {np.asarray(want).ravel()[:6]!r}")
    return out
