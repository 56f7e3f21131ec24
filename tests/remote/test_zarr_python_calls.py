"""What remote users of zarr-python 3 call, side by side with zarr-python on moto: URLs
with ``storage_options`` in s3fs's spellings, store objects (ours under zarr-python's
names, and zarr-python's own), an fsspec ``FSMap``, ``read_only``, consolidated metadata,
listing. Each call runs in both libraries; the results must be equal, and an error must be
of zarr-python's class (or derive from it)."""

from __future__ import annotations

import uuid
import warnings

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage.remote import FsspecStore, ObstoreStore, open_url

zarr = pytest.importorskip("zarr")
pytest.importorskip("s3fs")

from .conftest import BUCKET  # noqa: E402


def _both(fn):
    """``fn(zarr)`` and ``fn(zarrhpc)``: each a result, or the exception raised."""
    out = []
    for lib in (zarr, zarrhpc):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # zarr-python's asynchronous=False warning
                out.append(fn(lib))
        except Exception as exc:  # compared below
            out.append(exc)
    return out


def _compatible(theirs: Exception, ours: object) -> bool:
    """``ours`` is of ``theirs``' class, or of zarrhpc's class of that name (zarrhpc.errors
    mirrors zarr.errors) deriving from the same builtins."""
    if isinstance(ours, type(theirs)):
        return True
    builtin = {c for c in type(theirs).__mro__ if c.__module__ == "builtins"}
    return (type(ours).__name__ == type(theirs).__name__
            and builtin <= set(type(ours).__mro__))


def _same(fn):
    theirs, ours = _both(fn)
    if isinstance(theirs, Exception):
        assert _compatible(theirs, ours), (theirs, ours)
    else:
        assert not isinstance(ours, Exception), ours
        assert ours == theirs
    return ours


def _url(lib, name):
    return f"s3://{BUCKET}/{lib.__name__}-{uuid.uuid4().hex}/{name}"


def _spellings(s3):
    ep = s3.endpoint
    return {
        "endpoint_url": {"endpoint_url": ep, "key": "testing", "secret": "testing"},
        "client_kwargs": {"key": "testing", "secret": "testing",
                          "client_kwargs": {"endpoint_url": ep, "region_name": "us-east-1"}},
        "s3fs tuning": {"endpoint_url": ep, "key": "testing", "secret": "testing",
                        "default_fill_cache": False, "use_listings_cache": False,
                        "default_block_size": 1 << 20, "asynchronous": True,
                        "version_aware": False, "use_ssl": False},
        "botocore config": {"endpoint_url": ep, "key": "testing", "secret": "testing",
                            "config_kwargs": {"max_pool_connections": 20}},
    }


@pytest.mark.parametrize("spelling", ["endpoint_url", "client_kwargs", "s3fs tuning",
                                      "botocore config"])
def test_urls_with_storage_options(s3, spelling):
    opts = _spellings(s3)[spelling]

    def run(z):
        url = _url(z, "g")
        g = z.open_group(url, mode="w", storage_options=opts)
        g.create_array("x", shape=(10,), chunks=(4,), dtype="i4")[:] = np.arange(10)
        g.create_group("sub").create_array("y", shape=(2,), dtype="f8")
        z.create_array(url + "/z", storage_options=opts, shape=(3,), dtype="u1", fill_value=7)
        n = z.open(url, storage_options=opts, mode="r")
        a = z.open_array(url, path="x", storage_options=opts, mode="r")
        b = z.open(url + "/z", storage_options=opts)
        return (type(n).__name__, sorted(k for k, _ in n.members(max_depth=None)),
                a[:].tolist(), a.read_only, type(b).__name__, b[:].tolist(),
                str(z.open_group(url, storage_options=opts, mode="r").tree()))

    _same(run)
    # the options obstore has no spelling for went to fsspec, the rest to obstore
    store = open_url(f"s3://{BUCKET}/x", storage_options=opts)
    assert isinstance(store, FsspecStore if spelling == "botocore config" else ObstoreStore)


def test_store_objects(s3):
    opts = _spellings(s3)["endpoint_url"]

    def run(z):
        url = _url(z, "a")
        st = z.storage.FsspecStore.from_url(url, storage_options=opts)
        a = z.create_array(st, shape=(6,), chunks=(2,), dtype="i4")
        a[:] = 3
        ro = z.storage.FsspecStore.from_url(url, storage_options=opts, read_only=True)
        got = z.open_array(ro, mode="r")
        path = url[len("s3://"):]
        return got[:].tolist(), ro.read_only, got.read_only, st.path == path, repr(st) == (
            f"<FsspecStore(S3FileSystem, {path})>")

    _same(run)


def test_fsspec_file_system_and_mapper(s3):
    import fsspec
    import s3fs

    opts = _spellings(s3)["endpoint_url"]

    def run(z):
        fs = s3fs.S3FileSystem(key="testing", secret="testing", endpoint_url=s3.endpoint,
                               asynchronous=True)
        url = _url(z, "fs")
        st = z.storage.FsspecStore(fs, path=url[len("s3://"):])
        z.create_array(st, shape=(4,), dtype="i4")[:] = 2
        m = fsspec.get_mapper(url, **opts)
        back = z.open_array(m, mode="r")
        z.create_array(fsspec.get_mapper(url + "2", **opts), shape=(3,), dtype="i4")[:] = 5
        return back[:].tolist(), back.read_only, z.open_array(
            z.storage.FsspecStore.from_mapper(fsspec.get_mapper(url + "2", **opts)))[:].tolist()

    _same(run)


def test_zarr_python_store_objects_given_to_zarrhpc(s3):
    """zarr-python's own FsspecStore / ObjectStore objects work in zarrhpc's calls."""
    from obstore.store import S3Store

    opts = _spellings(s3)["endpoint_url"]
    url = _url(zarrhpc, "zp")
    data = np.arange(12, dtype="f4").reshape(3, 4)
    z = zarr.create_array(zarr.storage.FsspecStore.from_url(url, storage_options=opts),
                          shape=data.shape, chunks=(2, 2), dtype="f4")
    z[...] = data
    ours = zarrhpc.open_array(zarr.storage.FsspecStore.from_url(
        url, storage_options=opts, read_only=True))
    np.testing.assert_array_equal(ours[...], data)
    assert ours.read_only
    obs = S3Store(BUCKET, prefix=url.split("/", 3)[3], endpoint=s3.endpoint,
                  access_key_id="testing", secret_access_key="testing", region="us-east-1",
                  client_options={"allow_http": True})
    w = zarrhpc.open_array(zarr.storage.ObjectStore(obs), mode="r+")
    w[0, 0] = 100.0
    assert z[0, 0] == 100.0


def test_read_only_and_errors(s3):
    opts = _spellings(s3)["endpoint_url"]

    def write_read_only(z):
        url = _url(z, "ro")
        z.create_array(url, storage_options=opts, shape=(2,), dtype="i4")
        st = z.storage.FsspecStore.from_url(url, storage_options=opts, read_only=True)
        z.open_array(st, mode="r+")[:] = 1

    def options_with_a_store(z):
        st = z.storage.FsspecStore.from_url(_url(z, "x"), storage_options=opts)
        z.open_group(st, mode="a", storage_options=opts)

    def missing(z):
        z.open_array(_url(z, "missing"), storage_options=opts, mode="r")

    def anonymous(z):  # moto refuses unsigned requests: a PermissionError in both
        url = _url(z, "anon")
        z.create_array(url, storage_options=opts, shape=(2,), dtype="i4")
        z.open_array(url, storage_options={"anon": True, "endpoint_url": s3.endpoint},
                     mode="r")

    for fn in (write_read_only, options_with_a_store, missing, anonymous):
        theirs, ours = _both(fn)
        assert isinstance(theirs, Exception), theirs
        assert _compatible(theirs, ours), (fn.__name__, theirs, ours)


def test_consolidated_on_s3(s3):
    opts = _spellings(s3)["endpoint_url"]

    def run(z):
        url = _url(z, "c")
        g = z.open_group(url, mode="w", storage_options=opts)
        g.create_array("x", shape=(3,), dtype="i4")[:] = 4
        g.create_array("y", shape=(3,), dtype="i4")
        z.consolidate_metadata(url, storage_options=opts)
        h = z.open_consolidated(url, storage_options=opts, mode="r")
        k = z.open_group(url, storage_options=opts, mode="r", use_consolidated=True)
        return (h["x"][:].tolist(), sorted(h), sorted(k),
                h.metadata.consolidated_metadata is not None)

    _same(run)
