"""Remote workload: zarrhpc and its peers on one S3 server on loopback, side by side.

``python -m zarrhpc.bench.remote [--size 256] [--repeat 3] [--latency 0.005]
[--server moto|localbucket] [--workers 2] [--payload-ab]``

An S3 server on loopback (zarrhpc.testing.servers) runs in a child process: moto (the
default; in effect one request at a time, ~2 ms of Python each, so it bounds every
client), or ``localbucket`` in ``--workers`` processes (objects as files on tmpfs,
requests answered concurrently). zarrhpc writes the
dataset once -- float32 ``size``^3, chunks 64^3, blosc lz4 (shuffle), and the same data
sharded (shards ``min(size, 256)``^3, inner chunks 32^3) -- and every peer reads those same
objects (interop is tested elsewhere):

- full read of the chunked array;
- sharded sub-volume: 128^3 inside one shard (64 inner chunks);
- single elements: 50 random elements of the sharded array (per element);
- write: each peer writes the chunked array under its own prefix, empty at the start of
  every round (the copy of the round before is erased untimed, object by object: so
  the time is the write's, not an erase's, and servers without multi-object delete
  serve it too);
- fetch floor: every object of the chunked array fetched concurrently with obstore's
  async API, nothing decoded (the best a reader can do on this server);
- upload floor: the same objects (already encoded) PUT back concurrently the same way,
  each body's SHA-256 signed as obstore does by default over plain HTTP, and again signed
  ``UNSIGNED-PAYLOAD`` as zarrhpc's loopback PUTs are (the best a writer can do: the
  floor of the write's bound);
- sub-volume floor: the byte ranges of the sub-volume's inner chunks (runs of adjacent
  ones joined), the shard index already known, fetched concurrently with obstore and not
  decoded; element floor: per element, the one range of its inner chunk (a reader that
  has the index cached can do no less).

With ``--payload-ab`` zarrhpc's write is also timed with every body's SHA-256 signed
(``unsigned_payload=False``, what it did on loopback before), in the same rounds.

Peers: zarr-python with its default S3 store (FsspecStore, s3fs) and with ObjectStore
(obstore), tensorstore's S3 driver. With ``--latency`` the same table is measured again
with every request delayed by that many seconds in a proxy (all peers through it; the
proxy runs in a child process, off this process's GIL). Reported: medians of
``--repeat`` rounds (the peers run in turn within each round), and the requests each
operation made (counted by the proxy). Before the tables, what the server itself costs
(`server_costs`): per request, per MiB, and for a small range of a large object (moto
reads a whole object to answer any range of it, so that cost grows with the object).
After each table, the client CPU each operation took (``time.process_time`` of this
process: every peer runs in it), the figure to compare on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np

from zarrhpc.storage.abc import resolve_range
from zarrhpc.testing.servers import LocalBucketServer, ProxyProcess, S3Server

BUCKET = "bench"
BLOSC_V3 = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                               "shuffle": "shuffle", "typesize": 4}}


def make_data(size: int) -> np.ndarray:
    """A smooth field plus a little noise: compressible as simulation output is."""
    x = np.linspace(0, 4 * np.pi, size, dtype=np.float32)
    field = (np.sin(x)[:, None, None] * np.cos(x)[None, :, None]
             + 0.5 * np.sin(2 * x)[None, None, :]).astype(np.float32)
    noise = np.random.default_rng(0).standard_normal(field.shape, dtype=np.float32)
    return field + np.float32(1e-3) * noise


class Env:
    """Endpoint, credentials and prefix shared by every peer."""

    def __init__(self, s3: Any, endpoint: str) -> None:
        self.s3 = s3
        self.endpoint = endpoint

    def url(self, name: str) -> str:
        return f"s3://{BUCKET}/{name}"

    def options(self) -> dict:
        return self.s3.storage_options(self.endpoint)


# -- peers: open(name) -> handle; read(handle, sel); write(name, data, chunks) -------------


class Zarrhpc:
    name = "zarrhpc"

    def __init__(self, env: Env) -> None:
        self.env = env

    def store(self, name: str) -> Any:
        from zarrhpc.storage.remote import open_url

        return open_url(self.env.url(name), storage_options=self.env.options())

    def open(self, name: str) -> Any:
        import zarrhpc

        return zarrhpc.open_array(self.store(name), mode="r")

    def write(self, name: str, data: np.ndarray, chunks: tuple, shards: Any = None) -> None:
        import zarrhpc

        a = zarrhpc.create_array(self.store(name), shape=data.shape, dtype=data.dtype,
                                 chunks=chunks, shards=shards, compressors=BLOSC_V3,
                                 overwrite=True)
        a[...] = data


class ZarrhpcSigned(Zarrhpc):
    """zarrhpc with every PUT's body hashed into its signature (``unsigned_payload=False``):
    what it did on a plain-HTTP endpoint before loopback was signed ``UNSIGNED-PAYLOAD``;
    the write only (``--payload-ab``)."""

    name = "zarrhpc, sha256 body"
    only = ("write",)

    def store(self, name: str) -> Any:
        from zarrhpc.storage.remote import open_url

        return open_url(self.env.url(name),
                        storage_options=dict(self.env.options(), unsigned_payload=False))


class ZarrPython:
    name = "zarr-python"

    def __init__(self, env: Env) -> None:
        self.env = env

    def store(self, name: str) -> Any:
        import zarr

        s3 = self.env.s3
        return zarr.storage.FsspecStore.from_url(
            self.env.url(name), storage_options={
                "endpoint_url": self.env.endpoint, "key": s3.access_key,
                "secret": s3.secret_key, "client_kwargs": {"region_name": s3.region}})

    def open(self, name: str) -> Any:
        import zarr

        return zarr.open_array(self.store(name), mode="r")

    def write(self, name: str, data: np.ndarray, chunks: tuple, shards: Any = None) -> None:
        import zarr
        from zarr.codecs import BloscCodec

        z = zarr.create_array(self.store(name), shape=data.shape, dtype=data.dtype,
                              chunks=chunks, shards=shards, overwrite=True,
                              compressors=BloscCodec(cname="lz4", clevel=5,
                                                     shuffle="shuffle"))
        z[...] = data


class ZarrPythonObstore(ZarrPython):
    name = "zarr-python+obstore"

    def store(self, name: str) -> Any:
        import zarr
        from obstore.store import S3Store

        s3 = self.env.s3
        return zarr.storage.ObjectStore(S3Store(
            BUCKET, prefix=name, endpoint=self.env.endpoint, access_key_id=s3.access_key,
            secret_access_key=s3.secret_key, region=s3.region,
            client_options={"allow_http": True}))


class Tensorstore:
    name = "tensorstore"

    def __init__(self, env: Env) -> None:
        self.env = env
        os.environ.setdefault("AWS_ACCESS_KEY_ID", env.s3.access_key)
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", env.s3.secret_key)
        os.environ.setdefault("AWS_REGION", env.s3.region)

    def spec(self, name: str) -> dict:
        return {"driver": "zarr3", "kvstore": {
            "driver": "s3", "bucket": BUCKET, "path": f"{name}/",
            "endpoint": self.env.endpoint, "aws_region": self.env.s3.region,
            "aws_credentials": {"type": "environment"}}}

    def open(self, name: str) -> Any:
        import tensorstore as ts

        return ts.open(self.spec(name), read=True).result()

    def write(self, name: str, data: np.ndarray, chunks: tuple, shards: Any = None) -> None:
        import tensorstore as ts

        spec = self.spec(name)
        spec["metadata"] = {
            "shape": list(data.shape), "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, BLOSC_V3]}
        t = ts.open(spec, create=True, delete_existing=True).result()
        t.write(data).result()


def _read(peer: Any, handle: Any, sel: Any) -> np.ndarray:
    if isinstance(peer, Tensorstore):
        return handle[sel].read().result()
    return handle[sel]


def floor_client(env: Env, name: str, **config: Any) -> tuple:
    """An obstore client on ``name`` (obstore's defaults, or ``config``) and the paths of
    its chunk objects."""
    import obstore
    from obstore.store import S3Store

    s3 = env.s3
    store = S3Store(BUCKET, prefix=name, endpoint=env.endpoint, access_key_id=s3.access_key,
                    secret_access_key=s3.secret_key, region=s3.region,
                    client_options={"allow_http": True}, **config)
    paths = [m["path"] for batch in obstore.list(store) for m in batch
             if not m["path"].endswith("zarr.json") and not m["path"].startswith("w-floor/")]
    return store, paths


def _points(peer: Any, handle: Any, points: list) -> list:
    return [_read(peer, handle, q) for q in points]


def fetch_floor(store: Any, paths: list) -> float:
    """Seconds to fetch every object of ``paths`` concurrently with obstore (no decode)."""
    import obstore

    async def all_of() -> int:
        sem = asyncio.Semaphore(64)

        async def one(path: str) -> int:
            async with sem:
                result = await obstore.get_async(store, path)
                return len(await result.bytes_async())

        return sum(await asyncio.gather(*(one(p) for p in paths)))

    t0 = time.perf_counter()
    asyncio.run(all_of())
    return time.perf_counter() - t0


def exact_ranges(store: Any, handle: Any, sel: tuple, indexes: dict) -> tuple:
    """``(shard key, byte ranges)`` of the inner chunks a basic selection ``sel`` (inside
    one shard) of the sharded array needs, from that shard's index (kept in ``indexes``),
    runs of adjacent inner chunks joined (as tensorstore asks for them): what any reader
    must fetch."""
    import obstore

    prep = handle._prep
    layout = prep.sharding
    inner = layout.chunk_shape
    per_shard = layout.grid_shape
    shard = tuple(s.start // (c * r) for s, c, r in zip(sel, inner, per_shard))
    key = prep.chunk_key(shard)
    if key not in indexes:
        size = obstore.head(store, key)["size"]
        start, stop = resolve_range(size, *layout.index_range(size))
        buf = obstore.get_range(store, key, start=start, end=stop)
        indexes[key] = layout.decode_index(memoryview(buf), size, key)
    index = indexes[key]
    wanted = itertools.product(*(range(s.start // c - k * r, -(-s.stop // c) - k * r)
                                 for s, c, k, r in zip(sel, inner, shard, per_shard)))
    ranges: list[tuple[int, int]] = []
    for local in wanted:
        off, length = (int(v) for v in index[local])
        if ranges and ranges[-1][1] == off:
            ranges[-1] = (ranges[-1][0], off + length)
        else:
            ranges.append((off, off + length))
    return key, ranges


def ranges_floor(store: Any, key: str, ranges: list[tuple[int, int]], pool: Any) -> float:
    """Seconds to fetch ``ranges`` of object ``key`` concurrently (its index already
    known, nothing decoded): the least any reader of those inner chunks pays."""
    import obstore

    def one(r: tuple[int, int]) -> int:
        return len(obstore.get_range(store, key, start=r[0], end=r[1]))

    t0 = time.perf_counter()
    list(pool.map(one, ranges))
    return time.perf_counter() - t0


def upload_floor(store: Any, paths: list, blobs: list) -> float:
    """Seconds to PUT ``blobs`` under ``w-floor/<path>`` concurrently with obstore."""
    import obstore

    async def all_of() -> None:
        sem = asyncio.Semaphore(64)

        async def one(path: str, blob: bytes) -> None:
            async with sem:
                await obstore.put_async(store, f"w-floor/{path}", blob)

        await asyncio.gather(*(one(p, b) for p, b in zip(paths, blobs)))

    t0 = time.perf_counter()
    asyncio.run(all_of())
    return time.perf_counter() - t0


def erase(env: Env, name: str) -> None:
    """Delete every object under ``name`` (untimed). moto: one multi-object delete through
    obstore; localbucket serves no multi-object delete, and checks no signature: one
    plain ``DELETE`` each, straight to the server."""
    import http.client
    import urllib.parse
    from concurrent.futures import ThreadPoolExecutor

    import obstore

    store, _ = floor_client(env, name)
    paths = [m["path"] for batch in obstore.list(store) for m in batch]
    if not paths:
        return
    if env.s3.name != "localbucket":
        obstore.delete(store, paths)
        return
    port = urllib.parse.urlsplit(env.s3.endpoint).port

    def delete(path: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("DELETE", f"/{BUCKET}/{urllib.parse.quote(f'{name}/{path}')}")
            resp = conn.getresponse()
            resp.read()
            if resp.status not in (200, 204, 404):
                raise RuntimeError(f"DELETE {name}/{path}: HTTP {resp.status}")
        finally:
            conn.close()

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(delete, paths))


def server_costs(env: Env, shard_path: str) -> list[str]:
    """What the server costs, measured with obstore (medians of 3; lines to print)."""
    import obstore

    store, _ = floor_client(env, "costs")
    blob = np.random.default_rng(0).bytes(1 << 20)
    obstore.put(store, "small", blob[:1024])
    obstore.put(store, "mib", blob)
    shard_store, _ = floor_client(env, "sharded")
    size = obstore.head(shard_store, shard_path)["size"]

    def per_call(fn: Callable[[], Any], n: int) -> float:
        rounds = []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            rounds.append((time.perf_counter() - t0) / n)
        return statistics.median(rounds) * 1e3

    get_small = per_call(lambda: obstore.get(store, "small").bytes(), 20)
    get_mib = per_call(lambda: obstore.get(store, "mib").bytes(), 10)
    put_mib = per_call(lambda: obstore.put(store, "mib2", blob), 10)
    ranged = per_call(lambda: obstore.get(shard_store, shard_path,
                                          options={"range": (0, 131072)}).bytes(), 5)
    return [f"# server costs, one request at a time: GET 1 KiB {get_small:.2f} ms, "
            f"GET 1 MiB {get_mib:.2f} ms, PUT 1 MiB {put_mib:.2f} ms, "
            f"GET 128 KiB of the {size / 2**20:.0f} MiB shard {ranged:.2f} ms"]


#: Seconds of idle before each timed operation: right after a heavy one (a full read,
#: a write) the next one measured 2-3x slower for every peer and for obstore alone (0.67
#: vs 0.30 ms per small GET on a loaded machine; gone after 50 ms), so each starts idle.
SETTLE = 0.1


def _server_cpu(servers: list) -> float:
    return sum(s.cpu_seconds() or 0.0 for s in servers)


def _timed(fn: Callable[[], Any], servers: list = ()) -> tuple[float, float, float]:
    """``(wall seconds, CPU seconds of this process, CPU seconds of the server processes
    in ``servers``)`` of ``fn()``: the client's CPU time counts every thread of the
    client (the peers' I/O and codec threads included), not the server's or the
    proxy's, so it changes little when other work loads the machine; the server's
    (S3 server and proxy, ``/proc``) says how much of the wall time it was busy."""
    time.sleep(SETTLE)
    s0 = _server_cpu(servers)
    c0 = time.process_time()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0, time.process_time() - c0,
            _server_cpu(servers) - s0)


def _cpu_of(fn: Callable[[], float], servers: list = ()) -> tuple[float, float, float]:
    """``(what fn returns: its own wall seconds, CPU seconds of this process, of the
    servers)``."""
    time.sleep(SETTLE)
    s0 = _server_cpu(servers)
    c0 = time.process_time()
    wall = fn()
    return wall, time.process_time() - c0, _server_cpu(servers) - s0


def run(size: int, repeat: int, latency: float, s3: Any, data: np.ndarray,
        payload_ab: bool = False) -> dict:
    """One table: {workload: {peer: [seconds per round]}}."""
    import obstore

    proxy = ProxyProcess(s3.endpoint, delay=latency).start() if latency else None
    env = Env(s3, proxy.endpoint if proxy else s3.endpoint)
    try:
        peers = []
        extra = (ZarrhpcSigned,) if payload_ab else ()
        for cls in (Zarrhpc, *extra, ZarrPython, ZarrPythonObstore, Tensorstore):
            try:
                peers.append(cls(env))
            except Exception as exc:  # pragma: no cover - a peer missing here
                print(f"# {cls.name}: unavailable ({exc})")
        sub = np.s_[32:160, 32:160, 32:160] if size >= 160 else (slice(0, size // 2),) * 3
        rng = np.random.default_rng(1)
        points = [tuple(int(i) for i in rng.integers(0, size, 3)) for _ in range(50)]
        times: dict = {}

        requests: dict = {}

        cpu: dict = {}
        server_cpu: dict = {}
        servers = [s3] + ([proxy] if proxy is not None else [])
        timed, cpu_of = partial(_timed, servers=servers), partial(_cpu_of, servers=servers)

        def add(workload: str, peer: str, measured: tuple[float, float, float],
                per: int = 1) -> None:
            seconds, cpu_seconds, server_seconds = measured
            times.setdefault(workload, {}).setdefault(peer, []).append(seconds / per)
            cpu.setdefault(workload, {}).setdefault(peer, []).append(cpu_seconds / per)
            server_cpu.setdefault(workload, {}).setdefault(peer, []).append(
                server_seconds / per)
            if proxy is not None:  # requests of the last round, as the proxy counted them
                requests.setdefault(workload, {})[peer] = proxy.total
                proxy.reset()

        handles = {}
        for p in peers:  # open once, check once
            if getattr(p, "only", None):
                continue
            handles[p.name] = (p.open("plain"), p.open("sharded"))
            got = _read(p, handles[p.name][1], sub)
            if not np.array_equal(got, data[sub]):
                raise AssertionError(f"{p.name}: sharded sub-volume differs")
            if _read(p, handles[p.name][0], points[0]) != data[points[0]]:
                raise AssertionError(f"{p.name}: element differs")
        floor = floor_client(env, "plain")
        unsigned = floor_client(env, "plain", unsigned_payload=True)
        blobs = [bytes(obstore.get(floor[0], path).bytes()) for path in floor[1]]
        shard_store, _ = floor_client(env, "sharded")
        zh_sharded, indexes = handles["zarrhpc"][1], {}
        sub_ranges = exact_ranges(shard_store, zh_sharded, sub, indexes)
        point_ranges = [exact_ranges(shard_store, zh_sharded,
                                     tuple(slice(i, i + 1) for i in q), indexes)
                        for q in points]
        range_pool = ThreadPoolExecutor(64)
        if proxy is not None:
            proxy.reset()
        for _ in range(repeat):
            add("fetch floor (obstore, no decode)", "floor",
                cpu_of(partial(fetch_floor, *floor)))
            add("upload floor (obstore, encoded bytes)", "floor",
                cpu_of(partial(upload_floor, floor[0], floor[1], blobs)))
            add(UNSIGNED_FLOOR, "floor",
                cpu_of(partial(upload_floor, unsigned[0], floor[1], blobs)))
            add(SUB_FLOOR, "floor",
                cpu_of(partial(ranges_floor, shard_store, *sub_ranges, range_pool)))
            add(POINT_FLOOR, "floor", cpu_of(lambda: sum(
                ranges_floor(shard_store, *kr, range_pool) for kr in point_ranges)),
                len(points))
            peers = peers[1:] + peers[:1]  # each peer goes first in some round
            for p in peers:
                if getattr(p, "only", None):  # a variant measured on its workloads only
                    add("write", p.name, timed(partial(p.write, f"w-{p.name}", data,
                                                        (64,) * 3)))
                    erase(env, f"w-{p.name}")
                    if proxy is not None:
                        proxy.reset()
                    continue
                plain, sharded = handles[p.name]
                full = np.s_[...]
                add("full read", p.name, timed(partial(_read, p, plain, full)))
                add("sharded sub-volume 128^3", p.name, timed(partial(_read, p, sharded, sub)))
                add("single element (sharded), per element", p.name,
                    timed(partial(_points, p, sharded, points)), len(points))
                add("write", p.name, timed(partial(p.write, f"w-{p.name}", data, (64,) * 3)))
                erase(env, f"w-{p.name}")
                if proxy is not None:
                    proxy.reset()  # the erase is no peer's request
        if requests:
            times["requests (last round)"] = requests
        times["client cpu"] = cpu
        times["server cpu"] = server_cpu
        return times
    finally:
        if proxy is not None:
            proxy.stop()


SUB_FLOOR = "sub-volume floor (exact ranges, index known)"
UNSIGNED_FLOOR = "upload floor, UNSIGNED-PAYLOAD"
POINT_FLOOR = "element floor (its inner chunk, index known)"
FLOORS = {"full read": "fetch floor (obstore, no decode)",
          "sharded sub-volume 128^3": SUB_FLOOR,
          "single element (sharded), per element": POINT_FLOOR,
          "write": UNSIGNED_FLOOR}


def floor_bounds(times: dict) -> list[str]:
    """Per workload with a floor: the most any reader (writer) could beat the best peer by
    on this server (best peer / floor) and how far zarrhpc is from the floor."""
    lines = []
    for workload, floor_name in FLOORS.items():
        by_peer, floor = times.get(workload), times.get(floor_name)
        if not by_peer or not floor or "zarrhpc" not in by_peer:
            continue
        best = min(statistics.median(v) for p, v in by_peer.items()
                   if not p.startswith("zarrhpc"))
        low = statistics.median(floor["floor"])
        ours = statistics.median(by_peer["zarrhpc"])
        lines.append(f"# {workload}: best peer / floor {best / low:.2f}x (the most beating "
                     f"the best peer can reach here); zarrhpc / floor {ours / low:.2f}x")
    return lines


def format_table(times: dict, title: str) -> str:
    peers = ["zarrhpc", "zarr-python", "zarr-python+obstore", "tensorstore"]
    if any(ZarrhpcSigned.name in by_peer for by_peer in times.values()):
        peers.insert(1, ZarrhpcSigned.name)
    lines = [title, f"{'workload':42s}" + "".join(f"{p:>22s}" for p in peers)
             + f"{'zarrhpc/best peer':>20s}"]
    times = dict(times)
    counts = times.pop("requests (last round)", None)
    cpu = times.pop("client cpu", None)
    server_cpu = times.pop("server cpu", None)
    for workload, by_peer in times.items():
        if "floor" in by_peer:
            lines.append(f"{workload:42s}{statistics.median(by_peer['floor']) * 1e3:>19.1f} ms")
            continue
        med = {p: statistics.median(v) for p, v in by_peer.items()}
        row = f"{workload:42s}" + "".join(
            f"{med[p] * 1e3:>19.2f} ms" if p in med else f"{'-':>22s}" for p in peers)
        others = [med[p] for p in med if not p.startswith("zarrhpc")]
        speedup = min(others) / med["zarrhpc"] if others and "zarrhpc" in med else float("nan")
        lines.append(row + f"{speedup:>19.2f}x")
    lines.extend(floor_bounds(times))
    if counts:
        lines.append("requests per operation (last round, counted by the proxy):")
        for workload, by_peer in counts.items():
            if "floor" in by_peer:
                continue
            lines.append(f"{workload:42s}" + "".join(f"{by_peer.get(p, '-'):>22}"
                                                     for p in peers))
    if cpu:
        lines.append("client CPU per operation (this process, every thread; medians; "
                     "little changed by other load):")
        for workload, by_peer in cpu.items():
            med = {p: statistics.median(v) * 1e3 for p, v in by_peer.items()}
            if "floor" in med:
                lines.append(f"{workload:42s}{med['floor']:>19.1f} ms")
                continue
            lines.append(f"{workload:42s}" + "".join(
                f"{med[p]:>19.2f} ms" if p in med else f"{'-':>22s}" for p in peers))
    if server_cpu:
        lines.append("server CPU per operation (S3 server and proxy processes, /proc; "
                     "medians) / its wall time = the server's busy cores:")
        for workload, by_peer in server_cpu.items():
            wall = times.get(workload, {})
            cells = []
            for p in (["floor"] if "floor" in by_peer else peers):
                if p not in by_peer or p not in wall:
                    cells.append(f"{'-':>22s}")
                    continue
                busy = statistics.median(by_peer[p])
                cells.append(f"{busy * 1e3:>12.1f} ms {busy / statistics.median(wall[p]):4.2f}c")
            lines.append(f"{workload:42s}" + "".join(cells))
    return "\n".join(lines)


def _server_name(s3: Any) -> str:
    workers = getattr(s3, "workers", None)
    return s3.name if workers is None else f"{s3.name}, {workers} processes"


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="edge of the cube (512: W1)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.005,
                        help="seconds added per request in the second table (0: none)")
    parser.add_argument("--server", choices=("moto", "localbucket"), default="moto",
                        help="the S3 server every peer reads from and writes to")
    parser.add_argument("--workers", type=int, default=2,
                        help="processes of the localbucket server")
    parser.add_argument("--payload-ab", action="store_true",
                        help="also time zarrhpc's write with every body's SHA-256 signed")
    args = parser.parse_args(argv)
    data = make_data(args.size)
    server = S3Server() if args.server == "moto" else LocalBucketServer(args.workers)
    with server as s3:
        s3.create_bucket(BUCKET)
        env = Env(s3, s3.endpoint)
        Zarrhpc(env).write("plain", data, (64,) * 3)
        Zarrhpc(env).write("sharded", data, (32,) * 3, shards=(min(args.size, 256),) * 3)
        print(f"# float32 {args.size}^3 ({data.nbytes / 2**20:.0f} MiB), chunks 64^3 blosc "
              f"lz4; sharded {min(args.size, 256)}^3 / 32^3; medians of {args.repeat} rounds")
        print(*server_costs(env, "c/0/0/0"), sep="\n")
        print(format_table(run(args.size, args.repeat, 0.0, s3, data, args.payload_ab),
                           f"## loopback S3 ({_server_name(s3)}), no added latency"))
        if args.latency:
            print(format_table(run(args.size, args.repeat, args.latency, s3, data,
                                   args.payload_ab),
                               f"## same, {args.latency * 1e3:g} ms added per request "
                               "(proxy)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
