"""zarrhpc.dask.from_zarr / to_zarr against dask's own da.from_zarr / da.to_zarr
(zarr-python) on the same data: same values, same chunks, the stores each writes read
back by the other library; threads, processes and a dask.distributed cluster."""

import inspect

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
zarr = pytest.importorskip("zarr")

import zarrhpc  # noqa: E402
import zarrhpc.dask as zd  # noqa: E402

pytestmark = pytest.mark.interop


@pytest.fixture
def data():
    return da.random.default_rng(3).standard_normal((60, 45), chunks=(20, 15))


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_to_zarr_and_from_zarr_as_dask(tmp_path, data, zarr_format):
    da.to_zarr(data, str(tmp_path / "theirs.zarr"), zarr_format=zarr_format)
    zd.to_zarr(data, tmp_path / "ours.zarr", zarr_format=zarr_format)
    ours = zarrhpc.open_array(tmp_path / "ours.zarr", mode="r")
    theirs = zarr.open_array(str(tmp_path / "theirs.zarr"), mode="r")
    assert ours.chunks == theirs.chunks == (20, 15) and ours.shape == theirs.shape
    np.testing.assert_array_equal(theirs[...], data.compute())
    # each library reads what the other wrote
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "ours.zarr"))[...],
                                  data.compute())
    for url in (tmp_path / "theirs.zarr", f"file://{tmp_path}/theirs.zarr", ours):
        x = zd.from_zarr(url)
        assert x.chunks == da.from_zarr(str(tmp_path / "theirs.zarr")).chunks
        np.testing.assert_array_equal(x.compute(), data.compute())


def test_component_region_and_mode(tmp_path, data):
    zd.to_zarr(data, tmp_path / "g.zarr", component="a/b")
    x = zd.from_zarr(tmp_path / "g.zarr", component="a/b")
    np.testing.assert_array_equal(x.compute(), data.compute())
    with pytest.raises(zarrhpc.errors.ContainsArrayError):
        zd.to_zarr(data, tmp_path / "g.zarr", component="a/b")
    zd.to_zarr(data * 2, tmp_path / "g.zarr", component="a/b", mode="w")
    z = zarrhpc.open_array(tmp_path / "g.zarr", path="a/b", mode="r+")
    # a region of an existing array, its dask chunks (7) not aligned with the Zarr chunks
    # (20, 15): rechunked onto them, so no two tasks write one chunk
    part = da.ones((40, 45), chunks=(7, 45))
    zd.to_zarr(part, z, region=(slice(20, 60), slice(None)))
    expect = data.compute() * 2
    expect[20:60] = 1
    np.testing.assert_array_equal(z[...], expect)
    with pytest.raises(ValueError, match="region"):
        zd.to_zarr(part, tmp_path / "h.zarr", region=(slice(0, 40),))


def test_unaligned_writes_are_rechunked_not_lost(tmp_path):
    # 13-row dask chunks into 10-row Zarr chunks: written by many threads at once, a
    # chunk shared by two tasks would lose one task's rows
    x = da.arange(200 * 30, chunks=13 * 30).reshape(200, 30).rechunk((13, 30))
    z = zarrhpc.create_array(tmp_path / "u.zarr", shape=(200, 30), chunks=(10, 30),
                             dtype=x.dtype)
    zd.to_zarr(x, z)
    np.testing.assert_array_equal(z[...], np.arange(6000).reshape(200, 30))


def test_sharded_target_written_by_whole_shards(tmp_path):
    x = da.arange(96 * 8, chunks=40).reshape(96, 8)
    z = zarrhpc.create_array(tmp_path / "s.zarr", shape=(96, 8), chunks=(4, 8),
                             shards=(32, 8), dtype=x.dtype)
    import dask

    with dask.config.set({"array.chunk-size": "3KiB"}):  # dask alone: ~48-row tasks
        stored = zd.to_zarr(x, z, return_stored=True, compute=False)
    assert len(stored.chunks[0]) > 1 and all(c % 32 == 0 for c in stored.chunks[0])
    stored.compute()
    np.testing.assert_array_equal(z[...], np.arange(768).reshape(96, 8))


def test_processes_scheduler(tmp_path, data):
    zd.to_zarr(data, tmp_path / "p.zarr")
    x = zd.from_zarr(tmp_path / "p.zarr")
    assert float(x.sum().compute(scheduler="processes")) == pytest.approx(
        float(data.sum().compute()))


def test_distributed_cluster(tmp_path, data):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as cluster, \
            distributed.Client(cluster):
        zd.to_zarr(data, tmp_path / "c.zarr")
        x = zd.from_zarr(tmp_path / "c.zarr")
        np.testing.assert_array_equal(x.compute(), data.compute())
        with pytest.raises(RuntimeError, match="in memory"):
            zd.to_zarr(data, zarrhpc.create_array({}, shape=data.shape, chunks=(20, 15),
                                                  dtype=data.dtype))


@pytest.mark.parametrize("return_stored", [False, True])
def test_aligned_chunks_kept_as_dask_keeps_them(tmp_path, return_stored):
    # dask chunks already on the Zarr chunks (a smaller last one included) are written as
    # they are, as dask's own to_zarr writes them: no rechunk step, same stored chunks
    from dask.utils import key_split

    x = da.from_array(np.arange(7 * 4).reshape(7, 4), chunks=((2, 2, 2, 1), (1, 1, 1, 1)))
    ours = zd.to_zarr(x, tmp_path / "o.zarr", compute=False, return_stored=return_stored)
    theirs = da.to_zarr(x, str(tmp_path / "t.zarr"), compute=False,
                        return_stored=return_stored)
    for graph in (ours, theirs):
        assert not any("rechunk" in key_split(k) for k in dict(graph.dask))
    if return_stored:
        assert ours.chunks == theirs.chunks == x.chunks
        np.testing.assert_array_equal(ours.compute(), x.compute())
    else:
        ours.compute()
        theirs.compute()
    assert zarrhpc.open_array(tmp_path / "o.zarr").chunks == (2, 1)
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "o.zarr"))[...],
                                  x.compute())


@pytest.mark.parametrize("start, rechunked", [(20, False), (10, True)])
def test_region_kept_only_when_on_chunk_boundaries(tmp_path, start, rechunked):
    from dask.utils import key_split

    z = zarrhpc.create_array(tmp_path / "r.zarr", shape=(100,), chunks=(20,), dtype="i8")
    part = da.arange(60, chunks=20) + 1
    stored = zd.to_zarr(part, z, region=(slice(start, start + 60),), compute=False)
    assert any("rechunk" in key_split(k) for k in dict(stored.dask)) is rechunked
    stored.compute()
    expect = np.zeros(100, "i8")
    expect[start:start + 60] = np.arange(60) + 1
    np.testing.assert_array_equal(z[...], expect)


def test_dask_token_reads_no_metadata(tmp_path, monkeypatch):
    # dask tokenizes every Array it reads or writes; by pickling and unpickling it when
    # the Array has no __dask_tokenize__, and each unpickle read the metadata again (a
    # request per array on an object store)
    from dask.base import tokenize

    from zarrhpc.storage.local import LocalStore

    a = zarrhpc.create_array(tmp_path / "t.zarr", name="a", shape=(8,), chunks=(4,),
                             dtype="f8")
    b = zarrhpc.create_array(tmp_path / "t.zarr", name="b", shape=(8,), chunks=(4,),
                             dtype="f8")
    reads = []
    get = LocalStore.get
    monkeypatch.setattr(LocalStore, "get",
                        lambda self, key, *args, **kw: reads.append(key) or get(self, key,
                                                                               *args, **kw))
    x = da.from_array(a, chunks=a.chunks)
    da.store(x + 1, b, lock=False, compute=False)
    assert tokenize(a) == tokenize(a) != tokenize(b)
    assert reads == []
    grown = zarrhpc.open_array(tmp_path / "t.zarr", path="a", mode="r+")
    token = tokenize(grown)
    grown.resize((16,))
    assert tokenize(grown) != token  # other metadata, another token
    m1 = zarrhpc.create_array({}, shape=(3,), dtype="i1")
    m2 = zarrhpc.create_array({}, shape=(3,), dtype="i1")
    assert tokenize(m1) == tokenize(m1) != tokenize(m2)  # in-memory: by identity


def test_to_zarr_array_and_read_kwargs_as_dask(tmp_path, data):
    """dask >= 2025.12's ``zarr_array_kwargs`` / ``zarr_read_kwargs`` (ome-zarr writes its
    axes as ``dimension_names`` this way): the same metadata as dask's own."""
    kwargs = {"dimension_names": ["y", "x"], "chunks": (30, 15),
              "attributes": {"a": 1}, "fill_value": 0.5}
    group = zarr.open_group(str(tmp_path / "theirs.zarr"), mode="w")
    param = inspect.signature(da.to_zarr).parameters["zarr_array_kwargs"]
    if param.kind is not param.VAR_KEYWORD:  # a dict argument in dask 2025.12-2026.1
        da.to_zarr(data, group.store, component="g/s0", zarr_array_kwargs=kwargs)
    else:
        da.to_zarr(data, group.store, component="g/s0", **kwargs)
    zd.to_zarr(data, tmp_path / "ours.zarr", component="g/s0", zarr_array_kwargs=kwargs)
    theirs = zarr.open_array(str(tmp_path / "theirs.zarr"), path="g/s0", mode="r")
    ours = zarrhpc.open_array(tmp_path / "ours.zarr", path="g/s0", mode="r")
    assert ours.metadata.dimension_names == theirs.metadata.dimension_names == ("y", "x")
    assert ours.chunks == theirs.chunks == (30, 15)
    assert dict(ours.attrs) == dict(theirs.attrs) == {"a": 1}
    assert ours.fill_value == theirs.fill_value == 0.5
    np.testing.assert_array_equal(ours[...], theirs[...])
    with pytest.raises(ValueError, match="Cannot specify both 'component' and 'name'"):
        zd.to_zarr(data, tmp_path / "x.zarr", component="a", zarr_array_kwargs={"name": "b"})
    # the name in zarr_array_kwargs, and mode through zarr_read_kwargs
    zd.to_zarr(data, tmp_path / "n.zarr", zarr_array_kwargs={"name": "b"})
    with pytest.raises(Exception, match="exist|already"):
        zd.to_zarr(data, tmp_path / "n.zarr", zarr_array_kwargs={"name": "b"})
    zd.to_zarr(data * 2, tmp_path / "n.zarr", zarr_array_kwargs={"name": "b"},
               zarr_read_kwargs={"mode": "w"})
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "n.zarr", path="b")[...],
                                  (data * 2).compute())
    with pytest.raises(ValueError, match="read-only"):
        zd.to_zarr(data, tmp_path / "r.zarr", zarr_read_kwargs={"read_only": True})
    with pytest.raises(TypeError, match="zarr_read_kwargs"):
        zd.to_zarr(data, tmp_path / "r.zarr", zarr_read_kwargs={"cache": 1})
