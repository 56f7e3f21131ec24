"""The rectilinear chunk grid: expansion, validation, compact writing, location, and
reading when it equals a regular grid."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import MetadataError
from zarrhpc.metadata.grids import RectilinearGrid

CONF = {"kind": "inline", "chunk_shapes": [4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]]}


def test_spec_example_expands():
    g = RectilinearGrid.from_json(CONF, (6, 6, 6, 6, 6), "a/zarr.json")
    assert g.edges == ((4, 4), (1, 2, 3), (4, 4), (1, 1, 1, 3), (4, 4, 4))
    assert g.to_json()["configuration"]["chunk_shapes"] == [
        [[4, 2]], [1, 2, 3], [[4, 2]], [[1, 3], 3], [[4, 3]]]
    assert RectilinearGrid.from_json(g.to_json()["configuration"], (6,) * 5, "z") == g
    assert g.grid_shape((6,) * 5) == (2, 3, 2, 4, 2)
    assert g.regular_chunk_shape((6,) * 5) is None
    assert g.chunk_slices((1, 2, 0, 3, 1)) == (slice(4, 8), slice(3, 6), slice(0, 4),
                                               slice(3, 6), slice(4, 8))


@pytest.mark.parametrize(
    ("conf", "needle"),
    [({"kind": "inline", "chunk_shapes": [[1, 2]]}, "add up to 3, less than"),
     ({"kind": "inline", "chunk_shapes": [0]}, "positive integer"),
     ({"kind": "inline", "chunk_shapes": [[[2, 0]]]}, "[length, count]"),
     ({"kind": "file", "chunk_shapes": [4]}, "kind"),
     ({"kind": "inline", "chunk_shapes": [4, 4]}, "one entry per dimension"),
     ({"kind": "inline", "chunk_shapes": [4], "x": 1}, "unexpected member")],
)
def test_bad_grids_name_the_member(conf, needle):
    with pytest.raises(MetadataError) as info:
        RectilinearGrid.from_json(conf, (10,), "a/zarr.json")
    assert str(info.value).startswith("a/zarr.json: chunk_grid.configuration") and needle in str(
        info.value)


@given(st.lists(st.integers(1, 5), min_size=1, max_size=12), st.data())
def test_chunk_index_matches_cumulative_sums(edges, data):
    n = sum(edges)
    g = RectilinearGrid.from_json({"kind": "inline", "chunk_shapes": [edges]}, (n,), "z")
    pos = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=20)), dtype=np.int64)
    k, inner = g.chunk_index(0, pos)
    starts = np.concatenate(([0], np.cumsum(edges)))
    for p, kk, ii in zip(pos, k, inner):
        assert starts[kk] <= p < starts[kk + 1] and ii == p - starts[kk]


def _store(tmp_path, chunk_shapes, shape, chunks_written):
    (tmp_path / "r.zarr").mkdir()
    (tmp_path / "r.zarr/zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": "int16",
        "chunk_grid": {"name": "rectilinear",
                       "configuration": {"kind": "inline", "chunk_shapes": chunk_shapes}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": -1,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
    for key, arr in chunks_written.items():
        p = tmp_path / "r.zarr" / key
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(arr.astype("<i2").tobytes())


def test_regular_in_disguise_reads(tmp_path):
    data = np.arange(30, dtype="i2").reshape(5, 6)
    chunks = {f"c/{i}/{j}": np.pad(data, ((0, 1), (0, 0)))[3 * i:3 * i + 3, 3 * j:3 * j + 3]
              for i in range(2) for j in range(2)}
    _store(tmp_path, [[[3, 2]], 3], (5, 6), chunks)  # edges 3,3 and 3,3: regular (3, 3)
    a = zarrhpc.open_array(tmp_path / "r.zarr")
    assert a.chunks == (3, 3)
    np.testing.assert_array_equal(a[...], data)


def test_irregular_grid_reads(tmp_path):
    data = np.arange(30, dtype="i2").reshape(5, 6)
    chunks = {"c/0/0": data[:2], "c/1/0": np.pad(data[2:], ((0, 1), (0, 0)))}
    _store(tmp_path, [[2, 4], 6], (5, 6), chunks)  # rows 0-1 and 2-5 (one past the end)
    a = zarrhpc.open_array(tmp_path / "r.zarr")
    assert a.chunks == ((2, 3), (6,))
    np.testing.assert_array_equal(a[...], data)
    np.testing.assert_array_equal(a[1:4, ::5], data[1:4, ::5])


def test_regular_needs_every_declared_edge_equal():
    g = RectilinearGrid.from_json({"kind": "inline", "chunk_shapes": [[10, 10, 5]]}, (20,), "z")
    assert g.regular_chunk_shape((20,)) is None  # growing would meet the 5 edge
    assert RectilinearGrid.from_json({"kind": "inline", "chunk_shapes": [[4, 4, 4]]}, (6,),
                                     "z").regular_chunk_shape((6,)) == (4,)


def test_hostile_repetition_count_is_refused_before_expanding():
    with pytest.raises(MetadataError, match="too many"):
        RectilinearGrid.from_json({"kind": "inline", "chunk_shapes": [[[1, 2**40]]]}, (5,), "z")
    with pytest.raises(MetadataError, match="too many"):
        RectilinearGrid.from_json({"kind": "inline", "chunk_shapes": [1]}, (2**40,), "z")


def test_covering_adds_edges_of_the_last_length():
    g = RectilinearGrid(((3, 5),))
    assert g.covering((20,)).edges == ((3, 5, 5, 5, 5),)
    assert g.covering((4,)) == g
