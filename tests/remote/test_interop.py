"""Interop on one S3 endpoint: zarrhpc writes, zarr-python (FsspecStore and ObjectStore)
and tensorstore's S3 driver read; they write, zarrhpc reads (both backends)."""

from __future__ import annotations

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage.remote import open_url

from .conftest import BUCKET

zarr = pytest.importorskip("zarr")
pytestmark = pytest.mark.interop

BACKENDS = ["obstore", "fsspec"]


def _zarr_stores(s3, s3_url, proxy):
    """zarr-python's two S3 stores on the same root."""
    from obstore.store import S3Store

    fs = zarr.storage.FsspecStore.from_url(
        s3_url, storage_options={"endpoint_url": proxy.endpoint, "key": s3.access_key,
                                 "secret": s3.secret_key,
                                 "client_kwargs": {"region_name": s3.region}})
    prefix = s3_url.split(f"{BUCKET}/", 1)[1]
    obs = zarr.storage.ObjectStore(S3Store(
        BUCKET, prefix=prefix, endpoint=proxy.endpoint, access_key_id=s3.access_key,
        secret_access_key=s3.secret_key, region=s3.region,
        client_options={"allow_http": True}))
    return {"fsspec": fs, "obstore": obs}


def _data(shape, dtype="f4", seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("peer_store", ["fsspec", "obstore"])
@pytest.mark.parametrize("shards", [None, (16, 16)])
def test_zarrhpc_writes_zarr_python_reads(s3, s3_url, s3_options, proxy, backend, peer_store,
                                          shards):
    data = _data((40, 30))
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend))
    a = zarrhpc.create_array(store, name="a", shape=data.shape, dtype="f4", chunks=(8, 8),
                             shards=shards, compressors={"name": "blosc", "configuration":
                                                         {"cname": "lz4", "clevel": 5,
                                                          "shuffle": "shuffle"}})
    a[...] = data
    z = zarr.open_array(_zarr_stores(s3, s3_url, proxy)[peer_store], path="a", mode="r")
    np.testing.assert_array_equal(z[...], data)
    np.testing.assert_array_equal(z[3:29, 7:8], data[3:29, 7:8])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("peer_store", ["fsspec", "obstore"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_python_writes_zarrhpc_reads(s3, s3_url, s3_options, proxy, backend, peer_store,
                                          zarr_format):
    data = _data((33, 21), "f8", seed=1)
    zstore = _zarr_stores(s3, s3_url, proxy)[peer_store]
    g = zarr.open_group(zstore, mode="w", zarr_format=zarr_format)
    z = g.create_array("x", shape=data.shape, dtype="f8", chunks=(10, 10), fill_value=0.0)
    z[...] = data
    if zarr_format == 3:
        zs = g.create_array("s", shape=data.shape, dtype="f8", chunks=(5, 7), shards=(10, 21))
        zs[...] = data
    zarr.consolidate_metadata(zstore)
    store = open_url(s3_url, storage_options=dict(s3_options, backend=backend),
                     read_only=True)
    grp = zarrhpc.open_group(store, mode="r")
    np.testing.assert_array_equal(grp["x"][...], data)
    np.testing.assert_array_equal(grp["x"][30:, ::3], data[30:, ::3])
    if zarr_format == 3:
        np.testing.assert_array_equal(grp["s"][...], data)
        np.testing.assert_array_equal(grp["s"][12:14, 4:19], data[12:14, 4:19])


def _ts_spec(s3, s3_url, proxy, path, driver="zarr3"):
    prefix = s3_url.split(f"{BUCKET}/", 1)[1]
    return {"driver": driver,
            "kvstore": {"driver": "s3", "bucket": BUCKET, "path": f"{prefix}/{path}/",
                        "endpoint": proxy.endpoint, "aws_region": s3.region,
                        "aws_credentials": {"type": "environment"}}}


@pytest.fixture
def aws_env(s3, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret_key)
    monkeypatch.setenv("AWS_REGION", s3.region)


@pytest.mark.parametrize("shards", [None, (16, 16)])
def test_tensorstore_both_ways(s3, s3_url, s3_options, proxy, aws_env, shards):
    ts = pytest.importorskip("tensorstore")
    data = _data((40, 30), seed=3)
    store = open_url(s3_url, storage_options=s3_options)
    a = zarrhpc.create_array(store, name="mine", shape=data.shape, dtype="f4",
                             chunks=(8, 8), shards=shards)
    a[...] = data
    t = ts.open(_ts_spec(s3, s3_url, proxy, "mine")).result()
    np.testing.assert_array_equal(t.read().result(), data)
    # tensorstore writes, zarrhpc reads
    theirs = ts.open(_ts_spec(s3, s3_url, proxy, "theirs"), create=True, dtype="float32",
                     shape=data.shape, chunk_layout=ts.ChunkLayout(chunk_shape=[8, 8])).result()
    theirs[...] = data * 2
    b = zarrhpc.open_array(open_url(s3_url, storage_options=s3_options), path="theirs")
    np.testing.assert_array_equal(b[...], data * 2)
