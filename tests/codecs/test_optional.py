"""zarrs' ``optional`` data type and codec, against zarrs' own test stores.

The two stores are zarrs' ``zarrs/tests/data/v3/array_optional.zarr`` and
``array_optional_nested.zarr`` (their ``zarr.json`` members and chunk bytes, rebuilt here);
their ``attributes.description`` gives the values zarrs wrote (N: no element, SN: an element
that is itself null).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError, MetadataError

_PACK = {"name": "packbits"}
_BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def _meta(dtype, fill, codecs):
    return {"zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": codecs, "attributes": {},
            "dimension_names": ["y", "x"]}


U8 = {"name": "uint8", "configuration": {}}
SINGLE = _meta({"name": "optional", "configuration": U8}, None, [
    {"name": "optional", "configuration": {"mask_codecs": [_PACK], "data_codecs": [_BYTES]}}])
SINGLE_CHUNKS = {"0/0": "01000000000000000200000000000000090005",
                 "0/1": "010000000000000003000000000000000b020307",
                 "1/0": "010000000000000003000000000000000708090c"}
NESTED = _meta({"name": "optional", "configuration": {"name": "optional",
                                                      "configuration": U8}}, [None], [
    {"name": "optional", "configuration": {"mask_codecs": [_PACK], "data_codecs": [
        {"name": "optional", "configuration": {"mask_codecs": [_PACK],
                                               "data_codecs": [_BYTES]}}]}}])
NESTED_CHUNKS = {
    "0/0": "010000000000000012000000000000000a010000000000000001000000000000000205",
    "0/1": "010000000000000014000000000000000b0100000000000000030000000000000007020307",
    "1/1": "0100000000000000000000000000000000"}


def _store(root, meta, chunks):
    arr = root / "array"
    (arr / "c" / "0").mkdir(parents=True)
    (arr / "c" / "1").mkdir()
    (arr / "zarr.json").write_text(json.dumps(meta))
    for key, hexed in chunks.items():
        (arr / "c" / key).write_bytes(bytes.fromhex(hexed))
    return str(root)


def test_single_reads_as_zarrs_wrote_it(tmp_path):
    a = zarrhpc.open_array(_store(tmp_path, SINGLE, SINGLE_CHUNKS), path="array", mode="r")
    got = a[...]
    assert isinstance(got, np.ma.MaskedArray)
    # 0 N 2 3 / N 5 N 7 / 8 9 N N / 12 N N N (chunk 1/1 absent: fill null)
    want_mask = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1], [0, 1, 1, 1]], bool)
    assert np.array_equal(np.ma.getmaskarray(got), want_mask)
    assert got.dtype == np.uint8
    assert got[~want_mask].tolist() == [0, 2, 3, 5, 7, 8, 9, 12]
    # every selection kind agrees with the whole read
    assert np.array_equal(np.ma.getmaskarray(a[1:3, ::-1]), want_mask[1:3, ::-1])
    pts = a.vindex[[0, 1, 2], [1, 1, 0]]
    assert np.ma.getmaskarray(pts).tolist() == [True, False, False]
    assert pts[1:].tolist() == [5, 8]
    assert a.oindex[[3], [0, 1]].tolist() == [[12, None]]
    # ints: 0-d arrays (as zarr-python hands them out), masked where no element
    assert a[0, 0] == 0 and not np.ma.getmaskarray(a[0, 0])
    assert np.ma.getmaskarray(a[0, 1])


def test_nested_reads_as_zarrs_wrote_it(tmp_path):
    a = zarrhpc.open_array(_store(tmp_path, NESTED, NESTED_CHUNKS), path="array", mode="r")
    got = a[...]
    # N SN 2 3 / N 5 N 7 / SN SN N N / SN SN N N (chunk 1/0 absent: fill [null] = SN)
    outer_missing = np.array([[1, 0, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1], [0, 0, 1, 1]], bool)
    assert np.array_equal(np.ma.getmaskarray(got)["valid"], outer_missing)
    inner = np.ma.getdata(got)
    some_none = ~outer_missing & ~inner["valid"]
    assert np.argwhere(some_none).tolist() == [[0, 1], [2, 0], [2, 1], [3, 0], [3, 1]]
    present = ~outer_missing & inner["valid"]
    assert inner["value"][present].tolist() == [2, 3, 5, 7]


@pytest.mark.parametrize(("meta", "chunks"), [(SINGLE, SINGLE_CHUNKS), (NESTED, NESTED_CHUNKS)])
def test_rewrite_gives_zarrs_bytes(tmp_path, meta, chunks):
    """Writing back what was read gives zarrs' chunk bytes exactly."""
    src = zarrhpc.open_array(_store(tmp_path / "src", meta, chunks), path="array", mode="r")
    values = src[...]
    dst_root = tmp_path / "dst" / "array"
    dst_root.mkdir(parents=True)
    (dst_root / "zarr.json").write_text(json.dumps(meta))
    dst = zarrhpc.open_array(str(tmp_path / "dst"), path="array", mode="r+")
    dst[...] = values
    for key, hexed in chunks.items():
        assert (dst_root / "c" / key).read_bytes().hex() == hexed, key
    # the chunk that holds only the fill value is not written
    missing = {"0/0", "0/1", "1/0", "1/1"} - set(chunks)
    assert not any((dst_root / "c" / k).exists() for k in missing)


def test_masked_write_round_trip_with_compression(tmp_path):
    meta = _meta({"name": "optional", "configuration": {"name": "float64",
                                                         "configuration": {}}}, [2.5], [
        {"name": "optional", "configuration": {
            "mask_codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 1}}],
            "data_codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
                            {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]}}])
    root = tmp_path / "a"
    root.mkdir()
    (root / "zarr.json").write_text(json.dumps(meta))
    a = zarrhpc.open_array(str(root), mode="r+")
    assert a[0, 0] == 2.5  # fill [2.5]: an element 2.5
    data = np.ma.MaskedArray(np.arange(16.0).reshape(4, 4), mask=np.eye(4, dtype=bool))
    a[...] = data
    a[3, 0] = np.ma.masked
    got = zarrhpc.open_array(str(root), mode="r")[...]
    want = data.copy()
    want[3, 0] = np.ma.masked
    assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    assert np.array_equal(got.compressed(), want.compressed())


def test_corrupt_and_bad_metadata(tmp_path):
    bad = dict(SINGLE_CHUNKS, **{"0/0": "0100000000000000050000000000000009"})
    a = zarrhpc.open_array(_store(tmp_path / "c", SINGLE, bad), path="array", mode="r")
    with pytest.raises(CorruptChunkError, match="header says"):
        a[...]
    meta = dict(SINGLE, fill_value=7)
    (tmp_path / "m").mkdir()
    with pytest.raises(MetadataError, match="one-element list"):
        zarrhpc.open_array(_store(tmp_path / "m", meta, {}), path="array", mode="r")


def test_damaged_chunks_raise_zarrhpc_errors(tmp_path):
    """Random and truncated chunks give a clear error, never another exception."""
    from zarrhpc.errors import ZarrhpcError

    rng = np.random.default_rng(5)
    good = bytes.fromhex(SINGLE_CHUNKS["0/1"])
    cases = [good[:n] for n in range(len(good))] + [
        rng.integers(0, 256, rng.integers(0, 40), dtype=np.uint8).tobytes() for _ in range(60)]
    cases += [good[:16] + bytes([b]) + good[17:] for b in range(0, 256, 17)]
    for i, raw in enumerate(cases):
        root = tmp_path / str(i)
        path = _store(root, SINGLE, {"0/0": raw.hex()})
        a = zarrhpc.open_array(path, path="array", mode="r")
        try:
            a[...]
        except ZarrhpcError:
            pass
