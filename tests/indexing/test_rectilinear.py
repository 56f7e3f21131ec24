"""Irregular rectilinear chunk grids: every selection kind, read and write, against numpy.

Random grids (edges of 1-4 per axis, overflow chunks past the end, at least one axis
irregular) are projected by the indexing layer (checked chunk by chunk against numpy on
an array cut into those chunks) and run end to end through ``zarrhpc.create_array(chunks=
[[...], ...])``: basic (any step), oindex, vindex, masks, blocks, resize and append, with
plain and compressed/transposed chains. No other reader of the rectilinear grid is
installed (zarr-python 3.1.6 refuses it, zarrs-python uses zarr-python's metadata), so
the on-disk form is checked directly: each chunk is stored with its own edge lengths.
"""

import json

import numpy as np
import pytest
import zarr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import BoundsCheckError, UnsupportedError
from zarrhpc.indexing import (
    RectilinearChunkGrid,
    block_to_basic,
    coordinate_projection,
    iter_chunk_projections,
    mask_projection,
    normalize_basic_selection,
    normalize_orthogonal,
    orthogonal_projection,
)
from zarrhpc.storage import LocalStore, MemoryStore
from zarrhpc.testing.strategies import basic_selections
from zarrhpc.testing.strategies_select import (
    coordinate_selections,
    mask_selections,
    numpy_oindex,
    numpy_outer_index,
    orthogonal_selections,
)

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def irregular_grids(draw, max_dims=3, max_len=9):
    """(shape, edges): edges reach each axis (maybe overflow); one axis at least irregular."""
    ndim = draw(st.integers(1, max_dims))
    shape, edges = [], []
    for _ in range(ndim):
        n = draw(st.integers(0, max_len))
        e = []
        while sum(e) < n or not e:
            e.append(draw(st.integers(1, 4)))
        if draw(st.booleans()):
            e.append(draw(st.integers(1, 4)))  # a chunk wholly past the end
        shape.append(n)
        edges.append(e)
    if all(len(set(e)) == 1 for e in edges):
        edges[0].append(edges[0][0] % 4 + 1)  # make axis 0 irregular (an overflow chunk)
    return tuple(shape), [list(e) for e in edges]


def chunks_of(a, grid):
    """Every chunk of ``a`` in its stored shape (-7 past the array's end)."""
    out = {}
    for coords in grid.all_chunk_coords():
        chunk = np.full(grid.stored_shape(coords), -7, a.dtype)
        part = a[grid.chunk_region(coords)]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        out[coords] = chunk
    return out


@SETTINGS
@given(geom=irregular_grids(), data=st.data())
def test_basic_projection_matches_numpy(geom, data):
    shape, edges = geom
    grid = RectilinearChunkGrid(shape, edges)
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    chunks = chunks_of(a, grid)
    sel = data.draw(basic_selections(shape))
    norm = normalize_basic_selection(sel, shape)
    out = np.full(norm.full_shape, -1, np.int64)
    seen = set()
    for p in iter_chunk_projections(norm, grid):
        assert p.chunk_coords not in seen
        seen.add(p.chunk_coords)
        out[p.out_selection] = chunks[p.chunk_coords][p.chunk_selection]
        region = grid.chunk_region(p.chunk_coords)
        assert p.covers_chunk == all(
            len(range(*s.indices(e))) == r.stop - r.start
            for r, s, e in zip(region, p.chunk_selection[:-1],
                               grid.stored_shape(p.chunk_coords)))
    np.testing.assert_array_equal(out.reshape(np.shape(a[sel])), a[sel])


@SETTINGS
@given(geom=irregular_grids(), data=st.data())
def test_orthogonal_and_point_projections_match_numpy(geom, data):
    shape, edges = geom
    grid = RectilinearChunkGrid(shape, edges)
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    chunks = chunks_of(a, grid)
    sel = data.draw(orthogonal_selections(shape))
    proj = orthogonal_projection(normalize_orthogonal(sel, shape), shape, grid)
    out = np.full(proj.full_shape, -1, np.int64)
    for t, coords in enumerate(proj.task_coords()):
        cidx, oidx = proj.task_parts(t)
        out[np.ix_(*oidx)] = chunks[tuple(int(c) for c in coords)][np.ix_(*cidx)]
    np.testing.assert_array_equal(out.reshape(proj.out_shape), numpy_oindex(a, sel))
    if 0 in shape:
        return
    if data.draw(st.booleans()):
        csel = data.draw(coordinate_selections(shape))
        csel = csel if isinstance(csel, tuple) else (csel,)
        proj = coordinate_projection(csel, shape, grid)
        expected = a[csel].reshape(proj.out_shape)
    else:
        mask = data.draw(mask_selections(shape))
        proj = mask_projection(mask, shape, grid)
        expected = a[mask]
    flat = np.full(proj.npoints, -1, np.int64)
    for k, coords in enumerate(proj.chunk_coords):
        lo, hi = proj.offsets[k], proj.offsets[k + 1]
        flat[proj.out_index[lo:hi]] = chunks[tuple(int(c) for c in coords)][
            tuple(proj.in_chunk[lo:hi].T)]
    np.testing.assert_array_equal(flat.reshape(proj.out_shape), expected)


@st.composite
def irregular_block_selections(draw, grid):
    sel = []
    for nb in grid.grid_shape:
        if draw(st.booleans()):
            sel.append(draw(st.integers(-nb, nb - 1)))
        else:
            lo = draw(st.integers(0, nb - 1))
            sel.append(slice(lo, draw(st.integers(lo, nb + 1))))
    return tuple(sel)


def _numpy_blocks(a, grid, sel):
    idx = []
    for d, s in enumerate(sel):
        starts = [grid.start(d, k) for k in range(grid.grid_shape[d])] + [a.shape[d]]
        if isinstance(s, slice):
            lo, hi = s.start, min(s.stop, grid.grid_shape[d])
        else:
            lo = s % grid.grid_shape[d]
            hi = lo + 1
        idx.append(slice(starts[lo], starts[max(hi, lo)]))
    return tuple(idx)


@SETTINGS
@given(geom=irregular_grids(), data=st.data())
def test_block_selection_covers_whole_chunks(geom, data):
    shape, edges = geom
    if 0 in shape:
        return
    grid = RectilinearChunkGrid(shape, edges)
    sel = data.draw(irregular_block_selections(grid))
    assert block_to_basic(sel, shape, grid) == _numpy_blocks(np.empty(shape), grid, sel)


def test_block_index_past_the_grid_is_refused():
    grid = RectilinearChunkGrid((5,), [[2, 3, 4]])
    with pytest.raises(BoundsCheckError):
        block_to_basic((2,), (5,), grid)
    with pytest.raises(BoundsCheckError):
        block_to_basic((slice(2, 3),), (5,), grid)


# -- end to end ---------------------------------------------------------------------------

_CHAINS = {
    "plain": {"compressors": None},
    "zstd": {"compressors": {"name": "zstd", "configuration": {"level": 1}}},
    "transpose": {"filters": [{"name": "transpose", "configuration": {"order": "reverse"}}]},
}


def _create(store, shape, edges, chain, dtype="i4"):
    kw = dict(_CHAINS[chain])
    if chain == "transpose":
        kw["filters"] = [{"name": "transpose",
                          "configuration": {"order": list(range(len(shape)))[::-1]}}]
    return zarrhpc.create_array(store, shape=shape, chunks=edges, dtype=dtype,
                                fill_value=-1, **kw)


def _kinds(draw, shape, grid):
    kinds = ["basic", "orthogonal"]
    if 0 not in shape:
        kinds += ["block", "coordinate", "mask"]
    kind = draw(st.sampled_from(kinds))
    if kind == "basic":
        return kind, draw(basic_selections(shape))
    if kind == "orthogonal":
        return kind, draw(orthogonal_selections(shape))
    if kind == "coordinate":
        sel = draw(coordinate_selections(shape))
        return kind, sel if isinstance(sel, tuple) else (sel,)
    if kind == "mask":
        return kind, draw(mask_selections(shape))
    return kind, draw(irregular_block_selections(grid))


def _numpy_read(ref, grid, kind, sel):
    if kind == "basic":
        return ref[sel]
    if kind == "orthogonal":
        return numpy_oindex(ref, sel)
    if kind == "block":
        return ref[_numpy_blocks(ref, grid, sel)]
    return ref[sel]


def _numpy_write(ref, grid, kind, sel, value):
    if kind == "orthogonal":
        index, dropped = numpy_outer_index(sel, ref.shape)
        view_shape = tuple(len(i.reshape(-1)) for i in index)
        ref[index] = np.broadcast_to(value, numpy_oindex(ref, sel).shape).reshape(view_shape)
    elif kind == "block":
        ref[_numpy_blocks(ref, grid, sel)] = value
    else:
        ref[sel] = value


@SETTINGS
@given(geom=irregular_grids(), chain=st.sampled_from(sorted(_CHAINS)), data=st.data())
def test_every_selection_kind_reads_and_writes_as_numpy(geom, chain, data):
    shape, edges = geom
    if 0 in shape and data.draw(st.booleans()):
        return
    a = _create(MemoryStore(), shape, edges, chain)
    grid = RectilinearChunkGrid(shape, edges)
    assert a._prep.engine is None and a.chunks == grid.chunk_lengths()
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    ref = rng.integers(-50, 50, size=shape, dtype=np.int32)
    a[...] = ref
    np.testing.assert_array_equal(a[...], ref)
    for _ in range(3):
        kind, sel = _kinds(data.draw, shape, grid)
        getter = {"basic": a.get_basic_selection, "orthogonal": a.get_orthogonal_selection,
                  "coordinate": a.get_coordinate_selection, "mask": a.get_mask_selection,
                  "block": a.get_block_selection}[kind]
        np.testing.assert_array_equal(getter(sel), _numpy_read(ref, grid, kind, sel))
        expected_shape = np.shape(_numpy_read(ref, grid, kind, sel))
        value = rng.integers(-9, 9, size=expected_shape, dtype=np.int32)
        if data.draw(st.booleans()):
            value = np.int32(-1)  # the fill value: chunks may be erased
        setter = {"basic": a.set_basic_selection, "orthogonal": a.set_orthogonal_selection,
                  "coordinate": a.set_coordinate_selection, "mask": a.set_mask_selection,
                  "block": a.set_block_selection}[kind]
        _numpy_write(ref, grid, kind, sel, value)  # repeated indices: the last value wins
        setter(sel, value)
        np.testing.assert_array_equal(a[...], ref)


def test_chunks_are_stored_with_their_own_edge_lengths(tmp_path):
    edges = [[1, 4, 3], [5, 2]]
    a = _create(LocalStore(tmp_path), (7, 6), edges, "plain", dtype="<i2")
    ref = np.arange(42, dtype="i2").reshape(7, 6)
    a[...] = ref
    doc = json.loads((tmp_path / "zarr.json").read_text())
    assert doc["chunk_grid"] == {"name": "rectilinear", "configuration": {
        "kind": "inline", "chunk_shapes": [[1, 4, 3], [5, 2]]}}
    for i, (r0, r1) in enumerate([(0, 1), (1, 5), (5, 8)]):
        for j, (c0, c1) in enumerate([(0, 5), (5, 7)]):
            raw = np.frombuffer((tmp_path / f"c/{i}/{j}").read_bytes(), "<i2")
            chunk = raw.reshape(r1 - r0, c1 - c0)
            part = ref[r0:min(r1, 7), c0:min(c1, 6)]
            np.testing.assert_array_equal(chunk[:part.shape[0], :part.shape[1]], part)
    b = zarrhpc.open_array(tmp_path)  # a fresh open reads the same
    np.testing.assert_array_equal(b[...], ref)
    assert b.chunks == ((1, 4, 2), (5, 1))


@settings(max_examples=40, deadline=None)
@given(geom=irregular_grids(max_dims=2), data=st.data())
def test_resize_and_append_follow_numpy(geom, data):
    shape, edges = geom
    store = MemoryStore()
    a = _create(store, shape, edges, "zstd")
    ref = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    a[...] = ref
    new = tuple(data.draw(st.integers(0, 12)) for _ in shape)
    a.resize(new)
    grown = np.full(new, -1, np.int32)
    keep = tuple(slice(0, min(n, m)) for n, m in zip(shape, new))
    grown[keep] = ref[keep]
    # the part of a chunk cut by a shrink keeps its bytes (as zarr-python): only compare
    # where the old array reached or whole new chunks lie
    np.testing.assert_array_equal(a[keep], grown[keep])
    reopened = zarrhpc.open_array(store)
    assert reopened.shape == new and reopened.chunks == a.chunks
    assert sum(reopened.chunks[0]) == new[0]
    extra = np.full((3,) + new[1:], 5, np.int32)
    a.append(extra, axis=0)
    np.testing.assert_array_equal(a[new[0]:], extra)
    np.testing.assert_array_equal(a[keep], grown[keep])


def test_growing_past_the_edges_adds_edges_of_the_last_length():
    store = MemoryStore()
    a = zarrhpc.create_array(store, shape=(5,), chunks=[[2, 3]], dtype="u1", fill_value=0)
    a[...] = np.arange(1, 6, dtype="u1")
    a.resize((11,))
    doc = json.loads(store.get("zarr.json"))
    assert doc["chunk_grid"]["configuration"]["chunk_shapes"] == [[2, [3, 3]]]
    a[5:] = 9
    np.testing.assert_array_equal(a[...], [1, 2, 3, 4, 5] + [9] * 6)
    a.resize((3,))
    assert sorted(k for k in store.list_prefix("c/")) == ["c/0", "c/1"]  # others erased


def test_irregular_grid_of_shards_reads_and_writes(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a", shape=(12, 6), chunks=(2, 3), shards=(4, 6),
                             dtype="i4", fill_value=-1)
    doc = json.loads((tmp_path / "a/zarr.json").read_text())
    doc["chunk_grid"] = {"name": "rectilinear",
                         "configuration": {"kind": "inline", "chunk_shapes": [[4, 8], 6]}}
    (tmp_path / "a/zarr.json").write_text(json.dumps(doc))
    a = zarrhpc.open_array(tmp_path / "a", mode="r+")
    ref = np.arange(72, dtype="i4").reshape(12, 6)
    a[...] = ref
    a.vindex[[1, 9], [0, 5]] = [-5, -6]
    ref[[1, 9], [0, 5]] = [-5, -6]
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(a.oindex[[11, 0], ::2], ref[[11, 0], ::2])
    # shard (1, 0) holds rows 4-11: zarr-python reads it as the one shard of an 8x6 array
    z = zarr.create_array(tmp_path / "z", shape=(8, 6), chunks=(2, 3), shards=(8, 6),
                          dtype="i4", fill_value=-1)
    (tmp_path / "z/c/0").mkdir(parents=True)
    (tmp_path / "z/c/0/0").write_bytes((tmp_path / "a/c/1/0").read_bytes())
    np.testing.assert_array_equal(z[...], ref[4:])
    doc["chunk_grid"]["configuration"]["chunk_shapes"] = [[5, 7], 6]
    (tmp_path / "a/zarr.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="multiple of the inner chunk shape"):
        zarrhpc.open_array(tmp_path / "a")[...]


def test_sharding_on_an_irregular_grid_is_refused_clearly():
    with pytest.raises(UnsupportedError, match="irregular"):
        zarrhpc.create_array(MemoryStore(), shape=(5,), chunks=[[2, 3]], shards=(4,),
                             dtype="u1")


def test_strings_on_an_irregular_grid():
    a = zarrhpc.create_array(MemoryStore(), shape=(5,), chunks=[[1, 4]], dtype=str)
    a[...] = ["a", "bé", "", "dd", "e"]
    assert list(a[::-1]) == ["e", "dd", "", "bé", "a"]
    assert list(a.vindex[[4, 0]]) == ["e", "a"]


def test_from_array_keeps_the_grid_and_dask_takes_its_chunks():
    da = pytest.importorskip("dask.array")
    a = zarrhpc.create_array(MemoryStore(), shape=(10, 4), chunks=[[3, 7], [1, 3]], dtype="i2")
    ref = np.arange(40, dtype="i2").reshape(10, 4)
    a[...] = ref
    b = zarrhpc.from_array(MemoryStore(), data=a)
    assert b.chunks == ((3, 7), (1, 3))
    np.testing.assert_array_equal(b[...], ref)
    x = da.from_array(a, chunks=a.chunks)
    assert x.chunks == ((3, 7), (1, 3))
    np.testing.assert_array_equal(x[2:9, 1:].compute(), ref[2:9, 1:])
