"""The second S3 server of the benchmarks (`LocalBucketServer`: ``localbucket`` in several
processes on one socket): zarrhpc and zarr-python read each other's arrays through it,
with the same request counts as on moto, and stopping it leaves no process or file."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("localbucket")

import zarrhpc
from zarrhpc.storage.remote import open_url
from zarrhpc.testing.servers import CountingProxy, LocalBucketServer

BUCKET = "zarrhpc-lb"


@pytest.fixture(scope="module")
def server():
    with LocalBucketServer(workers=2) as s3:
        s3.create_bucket(BUCKET)
        yield s3


def _children(pid: int) -> list[int]:
    path = f"/proc/{pid}/task/{pid}/children"
    if not os.path.exists(path):
        pytest.skip("needs /proc/<pid>/task/<pid>/children (Linux)")
    with open(path) as f:
        return [int(p) for p in f.read().split()]


def test_workers_serve_one_socket_and_stop_cleanly():
    s3 = LocalBucketServer(workers=3).start()
    try:
        workers = _children(s3._proc.pid)
        assert len(workers) == 3
        root = s3._root
        s3.create_bucket(BUCKET)
        store = open_url(f"s3://{BUCKET}/x", storage_options=s3.storage_options())
        store.set_values([(f"k{i}", memoryview(bytes([i]) * 100)) for i in range(20)])
        assert [bytes(v) for v in store.get_values([f"k{i}" for i in range(20)])] == [
            bytes([i]) * 100 for i in range(20)]
        assert os.path.isdir(root)
    finally:
        s3.stop()
    assert not os.path.exists(root)
    for pid in workers:  # every worker exited and was reaped
        assert not os.path.exists(f"/proc/{pid}")


def test_sharded_round_trip_and_request_counts(server):
    data = np.random.default_rng(3).random((64, 64, 64), dtype="f4")
    with CountingProxy(server.endpoint) as proxy:
        opts = server.storage_options(proxy.endpoint)
        store = open_url(f"s3://{BUCKET}/sharded", storage_options=opts)
        a = zarrhpc.create_array(store, shape=data.shape, dtype="f4", chunks=(16,) * 3,
                                 shards=(32,) * 3, overwrite=True)
        a[...] = data
        b = zarrhpc.open_array(open_url(f"s3://{BUCKET}/sharded", storage_options=opts),
                               mode="r")
        proxy.reset()
        assert b[1, 2, 3] == data[1, 2, 3]
        assert proxy.total == 2  # the shard's index (with its size), the inner chunk
        proxy.reset()
        assert b[1, 2, 4] == data[1, 2, 4]
        assert proxy.total == 1  # the index is cached
        np.testing.assert_array_equal(b[...], data)


def test_interop_with_zarr_python(server):
    zarr = pytest.importorskip("zarr")
    data = np.arange(40 * 30, dtype="i4").reshape(40, 30)
    fs_opts = {"endpoint_url": server.endpoint, "key": server.access_key,
               "secret": server.secret_key, "client_kwargs": {"region_name": server.region}}
    z = zarr.create_array(zarr.storage.FsspecStore.from_url(
        f"s3://{BUCKET}/by-zarr", storage_options=fs_opts), shape=data.shape, dtype="i4",
        chunks=(16, 16), overwrite=True)
    z[...] = data
    ours = zarrhpc.open_array(open_url(f"s3://{BUCKET}/by-zarr",
                                       storage_options=server.storage_options()), mode="r")
    np.testing.assert_array_equal(ours[...], data)
    w = zarrhpc.create_array(open_url(f"s3://{BUCKET}/by-zarrhpc",
                                      storage_options=server.storage_options()),
                             shape=data.shape, dtype="i4", chunks=(16, 16), overwrite=True)
    w[...] = data + 1
    back = zarr.open_array(zarr.storage.FsspecStore.from_url(
        f"s3://{BUCKET}/by-zarrhpc", storage_options=fs_opts), mode="r")
    np.testing.assert_array_equal(back[...], data + 1)


def test_multi_object_delete_refused_falls_back_at_once(server):
    """localbucket answers S3's multi-object delete (POST ?delete) 501 NotImplemented,
    which obstore retries as a server error for the whole retry_timeout (30 s). The
    first one to a server is sent once, without retries; then every key is deleted by
    its own DELETE (a signed URL), and later deletes to that server skip the POST."""
    with CountingProxy(server.endpoint) as proxy:
        store = open_url(f"s3://{BUCKET}/deletes", storage_options=server.storage_options(
            proxy.endpoint))
        keys = [f"k{i}" for i in range(6)]
        store.set_values([(k, memoryview(b"x")) for k in keys])
        proxy.reset()
        store.erase_values(keys[:3])
        assert proxy.counts == {"POST": 1, "DELETE": 3}, proxy.log
        assert [store.get(k) is None for k in keys] == [True] * 3 + [False] * 3
        proxy.reset()
        store.erase(keys[3])  # obstore sends one key as a multi-object delete too
        assert proxy.counts == {"DELETE": 1}, proxy.log
        proxy.reset()
        # another store object on the same server knows it already
        other = open_url(f"s3://{BUCKET}/deletes", storage_options=server.storage_options(
            proxy.endpoint))
        other.erase_prefix("")
        assert proxy.counts == {"LIST": 1, "DELETE": 2}, proxy.log
        assert list(other.list()) == []
