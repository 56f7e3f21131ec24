"""zarr-python names outside its documented API that libraries built on zarr call in their
own code (not only in their tests), so that ``import zarrhpc as zarr`` broke them: cubed
indexes with ``zarr.core.indexing.OrthogonalIndexer``, anndata writes a root element with
``zarr.core.sync.sync(store.clear())``. Checked side by side with zarr-python."""

import asyncio
import json
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

zarr = pytest.importorskip("zarr")

import zarr.core.chunk_grids as zp_grids  # noqa: E402
import zarr.core.indexing as zp_indexing  # noqa: E402
import zarr.core.sync as zp_sync  # noqa: E402

import zarrhpc  # noqa: E402
from zarrhpc.core import chunk_grids, indexing  # noqa: E402
from zarrhpc.core.sync import sync  # noqa: E402


@st.composite
def orthogonal_cases(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 9)) for _ in range(nd))
    chunks = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    sel = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "ints", "bools", "list"]))
        if kind == "int":
            sel.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            sel.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 4))))
        elif kind in ("ints", "list"):
            # (an empty list is a float array: refused by both)
            items = draw(st.lists(st.integers(-n, n - 1), min_size=kind == "list",
                                  max_size=6))
            sel.append(items if kind == "list" else np.array(items, dtype=np.int64))
        else:
            sel.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
    if draw(st.booleans()):  # fewer items than dimensions, or an Ellipsis
        sel = sel[:-1] if draw(st.booleans()) else [Ellipsis, *sel[1:]]
    return shape, chunks, tuple(sel)


def _assemble(indexer, data, chunks):
    """The result as cubed builds it: each chunk's part, placed at its out selection."""
    out = np.full(indexer.shape, -1, dtype=data.dtype)
    for p in indexer:
        block = data[tuple(slice(c * k, (c + 1) * k) for c, k in zip(p.chunk_coords, chunks))]
        part = block[p.chunk_selection]
        if indexer.drop_axes:
            part = part.squeeze(axis=indexer.drop_axes)
        out[p.out_selection] = part
    return out


@settings(max_examples=400, deadline=None)
@given(orthogonal_cases())
def test_orthogonal_indexer_as_zarr_python(case):
    shape, chunks, sel = case
    data = np.arange(int(np.prod(shape))).reshape(shape)
    theirs = zp_indexing.OrthogonalIndexer(sel, shape, zp_grids.RegularChunkGrid(
        chunk_shape=chunks))
    ours = indexing.OrthogonalIndexer(sel, shape, chunk_grids.RegularChunkGrid(
        chunk_shape=chunks))
    assert (ours.shape, ours.drop_axes, ours.is_advanced) == (
        theirs.shape, theirs.drop_axes, theirs.is_advanced)
    got = _assemble(ours, data, chunks)
    np.testing.assert_array_equal(got, _assemble(theirs, data, chunks))
    np.testing.assert_array_equal(got, zarrhpc.array(data, chunks=chunks).oindex[sel])
    if 0 in theirs.shape:  # zarr-python yields empty projections there; zarrhpc none
        assert 0 in ours.shape
        return
    t, o = list(theirs), list(ours)
    assert [p.chunk_coords for p in o] == [tuple(map(int, p.chunk_coords)) for p in t]
    assert [p.is_complete_chunk for p in o] == [p.is_complete_chunk for p in t]
    assert all(p._fields == q._fields for p, q in zip(o, t))


def test_orthogonal_indexer_any_step_and_errors():
    # zarrhpc's oindex takes negative steps (zarr-python refuses them): so does the indexer
    data = np.arange(60).reshape(6, 10)
    grid = chunk_grids.RegularChunkGrid(chunk_shape=(4, 3))
    for sel in [(slice(None, None, -2), [7, 1, 1]), (slice(5, 0, -3), slice(9, None, -4))]:
        ix = indexing.OrthogonalIndexer(sel, data.shape, grid)
        expect = data[sel[0]][:, sel[1]]
        np.testing.assert_array_equal(_assemble(ix, data, (4, 3)), expect)
    with pytest.raises(IndexError, match="out of bounds"):
        indexing.OrthogonalIndexer((6, 0), data.shape, grid)
    with pytest.raises(IndexError):
        indexing.OrthogonalIndexer(("a", 0), data.shape, grid)
    with pytest.raises(IndexError, match="too many indices"):
        indexing.OrthogonalIndexer((0, 0, 0), data.shape, grid)


def test_cubed_grid_fallback_as_zarr_python():
    # cubed: ``ChunkGrid.from_sizes`` where it exists, else ``RegularChunkGrid``
    for mod in (zp_grids, chunk_grids):
        assert not hasattr(mod.ChunkGrid, "from_sizes")
        assert isinstance(mod.RegularChunkGrid(chunk_shape=(2,)), mod.ChunkGrid)


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_sync_store_clear_as_anndata_writes_a_root(tmp_path, kind):
    # anndata: ``sync(group.store.clear())`` before writing element "/"
    for lib, run in ((zarr, zp_sync.sync), (zarrhpc, sync)):
        store = (lib.storage.MemoryStore() if kind == "memory"
                 else lib.storage.LocalStore(str(tmp_path / lib.__name__)))
        g = lib.open_group(store, mode="w")
        g.create_array("a", shape=(2,), dtype="i4")[:] = 1
        assert run(g.store.clear()) is None
        again = lib.open_group(store, mode="a")
        assert again.nmembers() == 0, lib.__name__
        assert "a" not in again


def test_sync_runs_awaitables_as_zarr_python():
    async def add(a, b, pause=0.0):
        await asyncio.sleep(pause)
        return a + b

    for run in (zp_sync.sync, sync):
        assert run(add(1, 2)) == 3
        with pytest.raises(TimeoutError):
            run(add(1, 2, pause=5), timeout=0.05)

    # called from inside a running loop (a notebook): runs, in a worker thread
    async def inside():
        return sync(add(2, 3))

    assert asyncio.run(inside()) == 5

    # on a loop the caller runs in another thread
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        assert sync(add(4, 5), loop=loop) == 9
        with pytest.raises(TimeoutError):
            sync(add(1, 1, pause=5), loop=loop, timeout=0.05)
        # the timed-out task's cancellation runs before the loop stops
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0.01), loop).result()
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
    with pytest.raises(RuntimeError, match="not running"):  # zarr-python's words
        sync(add(1, 1), loop=loop)


JSON_DTYPES = [
    ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 40}}, 3),
    ({"name": "null_terminated_bytes", "configuration": {"length_bytes": 10}}, 3),
    ({"name": "structured", "configuration": {"fields": [["a", "int32"], ["b", "float16"]]}}, 3),
    ({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}}, 3),
    ({"name": "numpy.timedelta64", "configuration": {"unit": "ms", "scale_factor": 1}}, 3),
    ([["a", "<i4"], ["b", "<f2"]], 2),
    ([["a", "<i4"], ["b", "<f8"]], 3),
]


@pytest.mark.parametrize("dtype,zarr_format", JSON_DTYPES)
def test_create_array_json_dtype_as_zarr_python(dtype, zarr_format):
    # pydantic-zarr creates arrays from the data type's JSON form (``dt.to_json()``)
    made = [lib.create_array({}, shape=(3,), dtype=dtype, zarr_format=zarr_format)
            for lib in (zarr, zarrhpc)]
    theirs, ours = made
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(ours.fill_value), np.asarray(theirs.fill_value))
    np.testing.assert_array_equal(ours[:], theirs[:])
    key = "dtype" if zarr_format == 2 else "data_type"
    stored = [json.loads(json.dumps(a.metadata.to_dict()[key], default=str)) for a in made]
    assert stored[0] == stored[1]


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e8m0fnu", "int4"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_ml_dtypes_default_fill_for_every_format(name, zarr_format):
    # zarr-python 3.1.6 has no such types (pydantic-zarr tests each registered type): a v2
    # array of one was refused, its default fill taken as the raw bytes of a void type
    ml_dtypes = pytest.importorskip("ml_dtypes")
    npdt = np.dtype(getattr(ml_dtypes, name))
    store = {}
    a = zarrhpc.create_array(store, shape=(4,), chunks=(2,), dtype=name,
                             zarr_format=zarr_format)
    zero = np.zeros((), npdt)  # float8_e8m0fnu has no zero: its smallest value
    assert a.dtype == npdt and a.fill_value.tobytes() == zero.tobytes()
    a[:2] = np.ones(2, npdt)
    back = zarrhpc.open_array(store, mode="r")
    assert back[:].tobytes() == (np.ones(2, npdt).tobytes() + np.zeros(2, npdt).tobytes())
