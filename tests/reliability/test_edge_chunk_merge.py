"""Edge chunks keep what lies past the array's edge, as zarr-python keeps it.

A chunk (or shard) cut by the array's edge holds elements beyond the edge. zarr-python
treats such a chunk as never wholly covered by a write: it reads the stored chunk and
merges. zarrhpc wrote a fill-valued buffer instead whenever the selection covered the
chunk's in-array part. Two consequences, both silent:

- **data loss through a stale handle**: an Array opened before another handle grew the
  array (a dask worker's handle, an xarray append) sees the old, smaller shape; its write
  to the old edge chunk wiped the elements the other handle had written past the old
  edge, inside the current array;
- after shrink then grow, a write to the edge chunk replaced the old elements that
  zarr-python shows again (``resize`` keeps edge chunks as they are) by the fill value.

Each case runs the same program with zarr-python and with zarrhpc on two stores and
compares the final arrays (read by zarr-python) and the stored chunk keys; every write
path: the native engine (LocalStore), the Python path (MemoryStore, ZipStore), sharded
(engine and Python), v2, basic / orthogonal / point / block writes, append.
"""

import os
import warnings

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

LAYOUTS = {
    "plain": dict(chunks=(4, 3)),
    "sharded": dict(chunks=(2, 3), shards=(4, 6)),
    "sharded-edge-inner": dict(chunks=(3, 2), shards=(6, 4)),
    "v2": dict(chunks=(4, 3), zarr_format=2),
    "blosc": dict(chunks=(4, 3), compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 1, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
}
WRITES = {
    "basic": lambda a: a.__setitem__((slice(4, 5), slice(None)), 40),
    "basic-all": lambda a: a.__setitem__(Ellipsis, 41),
    # an integer (or a step) taking the one element of an edge chunk: zarr-python merges
    "int": lambda a: a.__setitem__(4, 45),
    "step": lambda a: a.__setitem__((slice(0, None, 2), slice(None)), 46),
    "oindex": lambda a: a.oindex.__setitem__(([4], slice(None)), 42),
    "vindex": lambda a: a.vindex.__setitem__((np.array([4, 4]), np.array([0, 4])), 43),
    "blocks": lambda a: a.blocks.__setitem__((-1, slice(None)), 44),
}


def _create(lib, store, layout):
    kw = dict(LAYOUTS[layout])
    if lib is zarr and "compressors" in kw:
        kw["compressors"] = zarr.codecs.BloscCodec(cname="lz4", clevel=1, shuffle="shuffle")
    return lib.create_array(store, shape=(5, 5), dtype="i4", fill_value=-1, overwrite=True,
                            **kw)


def _store(lib, kind, path):
    if kind == "local":
        return str(path)
    if lib is zarr:
        return zarr.storage.MemoryStore()
    if kind == "memory":
        return zarrhpc.storage.MemoryStore()
    return zarrhpc.storage.ZipStore(str(path) + ".zip", mode="a")


def _keys(lib, store, path):
    if isinstance(store, str):
        return sorted(os.path.relpath(os.path.join(d, f), store)
                      for d, _, fs in os.walk(store) for f in fs
                      if not f.startswith(("zarr.json", ".z")))
    return sorted(k for k in _list(store) if not k.rsplit("/", 1)[-1].startswith(
        ("zarr.json", ".z")))


def _list(store):
    got = store.list()
    if hasattr(got, "__aiter__"):
        import asyncio

        async def collect():
            return [k async for k in got]
        return asyncio.run(collect())
    return list(got)


def _run(lib, kind, path, layout, write, stale: bool):
    store = _store(lib, kind, path)
    a = _create(lib, store, layout)
    if stale:
        b = lib.open_array(store, mode="r+")  # still sees shape (5, 5)
        a.resize((8, 7))
        a[...] = np.arange(56, dtype="i4").reshape(8, 7)
        WRITES[write](b)
    else:
        a[...] = np.arange(25, dtype="i4").reshape(5, 5)
        a.resize((8, 7))
        a[...] = np.arange(56, dtype="i4").reshape(8, 7)
        a.resize((5, 5))
        WRITES[write](a)
        a.resize((8, 7))
    got = lib.open_array(store)[...]
    keys = _keys(lib, store, path)
    if hasattr(store, "close"):
        store.close()
    return got, keys


@pytest.mark.parametrize("stale", [True, False], ids=["stale-handle", "shrink-grow"])
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("kind", ["local", "memory", "zip"])
def test_edge_chunk_write_keeps_elements_past_the_edge(tmp_path, kind, layout, write, stale):
    if kind == "zip" and layout not in ("plain", "sharded"):
        pytest.skip("the zip store takes the memory store's write path")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, want_keys = _run(zarr, kind, tmp_path / "z.zarr", layout, write, stale)
        got, got_keys = _run(zarrhpc, kind, tmp_path / "h.zarr", layout, write, stale)
    assert np.array_equal(got, want), f"zarrhpc\n{got}\nzarr-python\n{want}"
    if kind == "local":
        assert got_keys == want_keys
