"""Arrays, Groups and stores pickle by reference; dask (processes scheduler and a
dask.distributed cluster of worker processes) and multiprocessing (spawn) read and write
zarrhpc arrays."""

import multiprocessing
import operator
import pickle

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage import LocalStore, MemoryStore, StorePath, ZipStore

da = pytest.importorskip("dask.array")


@pytest.fixture
def local_array(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a.zarr", name="x/y", shape=(40, 30), chunks=(10, 7),
                             dtype="f8", attributes={"k": 1})
    a[...] = np.arange(1200.0).reshape(40, 30)
    return a


def test_array_pickles_by_reference(local_array):
    blob = pickle.dumps(local_array)
    assert len(blob) < 1000  # a reference (store root, path, options), not the data
    b = pickle.loads(blob)
    assert isinstance(b.store, LocalStore) and b.path == "x/y"
    np.testing.assert_array_equal(b[...], local_array[...])
    b[0, 0] = -1.0  # writes reach the same store
    assert local_array[0, 0] == -1.0
    r = pickle.loads(pickle.dumps(zarrhpc.open_array(local_array.store.root, path="x/y",
                                                     mode="r")))
    assert r.read_only
    with pytest.raises(zarrhpc.errors.ReadOnlyError):
        r[0, 0] = 2.0


def test_group_memory_zip_and_storepath_pickle(tmp_path):
    g = zarrhpc.group(MemoryStore())
    g.create_array("a", data=np.arange(5))
    g2 = pickle.loads(pickle.dumps(g))
    assert isinstance(g2, zarrhpc.Group) and g2 is not g
    np.testing.assert_array_equal(g2["a"][...], np.arange(5))  # a MemoryStore carries its contents
    g2["a"][0] = 9  # a copy: the original is unchanged
    assert g["a"][0] == 0
    sp = StorePath(LocalStore(tmp_path / "s"), "p/q")
    sp2 = pickle.loads(pickle.dumps(sp))
    assert sp2 == sp and sp2.path == "p/q"
    zpath = tmp_path / "z.zip"
    zarrhpc.create_array(zpath, shape=(4,), dtype="i2")[...] = [1, 2, 3, 4]
    ZipStore(zpath, mode="a").close()
    z = zarrhpc.open_array(zpath, mode="r")
    z2 = pickle.loads(pickle.dumps(z))
    assert isinstance(z2.store, ZipStore)
    assert z2[...].tolist() == [1, 2, 3, 4]


def test_multiprocessing_spawn_reads_and_writes(local_array):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        sums = pool.map(np.sum, [local_array, local_array])
        pool.starmap(operator.setitem, [(local_array, (slice(0, 10), slice(None)), 5.0),
                                        (local_array, (slice(30, 40), slice(None)), 7.0)])
    expected = np.arange(1200.0).sum()
    assert sums == [expected, expected]
    data = local_array[...]
    assert (data[:10] == 5.0).all() and (data[30:] == 7.0).all()
    np.testing.assert_array_equal(data[10:30], np.arange(1200.0).reshape(40, 30)[10:30])


def test_dask_processes_scheduler(local_array, tmp_path):
    x = da.from_array(local_array, chunks=local_array.chunks)
    assert x.sum().compute(scheduler="processes") == np.arange(1200.0).sum()
    out = zarrhpc.create_array(tmp_path / "o.zarr", shape=(40, 30), chunks=(10, 7), dtype="f8")
    da.store(x * 2, out, lock=False, scheduler="processes")
    np.testing.assert_array_equal(out[...], np.arange(1200.0).reshape(40, 30) * 2)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def test_distributed_sum_and_store(client, local_array, tmp_path):
    x = da.from_array(local_array, chunks=local_array.chunks)
    assert x.sum().compute() == np.arange(1200.0).sum()
    assert client.run(lambda: __import__("os").getpid()).keys()  # workers are processes
    y = da.random.default_rng(1).standard_normal((50, 60), chunks=(10, 20))
    out = zarrhpc.create_array(tmp_path / "d.zarr", shape=y.shape, chunks=(10, 20), dtype="f8")
    da.store(y, out, lock=False)
    np.testing.assert_array_equal(out[...], y.compute())


def test_distributed_xarray_to_zarr(client, tmp_path):
    xr = pytest.importorskip("xarray")
    ds = xr.Dataset({"v": (("t", "x"), np.arange(600.0).reshape(20, 30))},
                    coords={"t": np.arange(20)}).chunk({"t": 5, "x": 10})
    zarrhpc.xarray.to_zarr(ds, tmp_path / "ds.zarr")
    back = xr.open_dataset(tmp_path / "ds.zarr", engine="zarrhpc", chunks={})
    assert back["v"].data.chunks == ((5,) * 4, (10,) * 3)
    xr.testing.assert_identical(back.compute(), ds.compute())
