"""zarrs' ``zarrs.regular_bounded`` chunk grid and ``zarrs.default_suffix`` chunk key
encoding: stores laid out as zarrs' sources describe them (edge chunks stored cut to the
array, keys ``c/1/2<suffix>``), read and written back, bad configurations named."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import MetadataError, UnsupportedError


def _store(root, shape, chunks, values, suffix=".bin", sep="/"):
    root.mkdir()
    cke = {"name": "zarrs.default_suffix", "configuration": {"separator": sep, "suffix": suffix}}
    (root / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": "int32",
        "chunk_grid": {"name": "zarrs.regular_bounded", "configuration": {"chunk_shape": list(chunks)}},
        "chunk_key_encoding": cke, "fill_value": -7,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
    grid = [-(-n // c) for n, c in zip(shape, chunks)]
    for idx in np.ndindex(*grid):
        sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, chunks))
        block = np.ascontiguousarray(values[sl])  # cut at the array's end, as zarrs stores it
        key = "c" + "".join(f"{sep}{i}" for i in idx) + suffix
        p = root / key
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(block.astype("<i4").tobytes())


@pytest.mark.parametrize(("shape", "chunks"), [((7, 5), (3, 2)), ((6, 4), (3, 2)), ((10,), (4,)),
                                              ((3, 1, 9), (2, 1, 4))])
@pytest.mark.parametrize("sep", ["/", "."])
def test_regular_bounded_with_suffix_keys(tmp_path, shape, chunks, sep):
    values = np.arange(np.prod(shape), dtype="i4").reshape(shape) * 3 - 5
    _store(tmp_path / "a", shape, chunks, values, sep=sep)
    a = zarrhpc.open_array(tmp_path / "a", mode="r+")
    np.testing.assert_array_equal(a[...], values)
    sel = tuple(slice(1, n - 1) for n in shape)
    np.testing.assert_array_equal(a[sel], values[sel])
    a[sel] = -1
    values[sel] = -1
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "a")[...], values)
    # the rewritten edge chunks keep their cut size and key
    last = tuple(-(-n // c) - 1 for n, c in zip(shape, chunks))
    key = "c" + "".join(f"{sep}{i}" for i in last) + ".bin"
    cut = [n - i * c for n, c, i in zip(shape, chunks, last)]
    assert (tmp_path / "a" / key).stat().st_size == 4 * np.prod(cut)
    doc = json.loads((tmp_path / "a" / "zarr.json").read_text())
    assert doc["chunk_key_encoding"]["configuration"]["suffix"] == ".bin"


def test_missing_chunks_and_new_arrays(tmp_path):
    values = np.arange(35, dtype="i4").reshape(7, 5)
    _store(tmp_path / "a", (7, 5), (3, 2), values)
    (tmp_path / "a" / "c/2/2.bin").unlink()
    a = zarrhpc.open_array(tmp_path / "a")
    expected = values.copy()
    expected[6:, 4:] = -7
    np.testing.assert_array_equal(a[...], expected)


def test_resize_across_a_cut_edge_is_refused(tmp_path):
    values = np.arange(35, dtype="i4").reshape(7, 5)
    _store(tmp_path / "a", (7, 5), (3, 2), values)
    a = zarrhpc.open_array(tmp_path / "a", mode="r+")
    with pytest.raises(UnsupportedError, match="regular_bounded"):
        a.resize((9, 5))


@pytest.mark.parametrize(("grid", "cke", "match"), [
    ({"name": "zarrs.regular_bounded", "configuration": {"chunk_shape": [0, 2]}}, "default",
     "chunk_shape"),
    ({"name": "zarrs.regular_bounded", "configuration": {}}, "default", "chunk_shape"),
    ({"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
     {"name": "zarrs.default_suffix", "configuration": {}}, "suffix"),
    ({"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
     {"name": "zarrs.default_suffix", "configuration": {"suffix": "a/b"}}, "suffix"),
    ({"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
     {"name": "default", "configuration": {"suffix": ".x"}}, "suffix"),
])
def test_bad_configurations_are_named(tmp_path, grid, cke, match):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": "int32",
        "chunk_grid": grid, "chunk_key_encoding": cke, "fill_value": 0, "codecs": ["bytes"]}))
    with pytest.raises(MetadataError, match=match):
        zarrhpc.open_array(tmp_path / "a")
