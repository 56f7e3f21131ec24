"""v3 codec names other implementations write or read besides the registered ones:
zarrita.js' bare ``zlib`` / ``lz4`` / ``json2`` (numcodecs' configurations), zarrs'
``vlen-array`` and its experimental ``zarrs.bitround``."""

from __future__ import annotations

import json

import numcodecs
import numpy as np
import pytest

import zarrhpc

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def _store(tmp_path, codecs, data_type="int32", shape=(6, 5), chunks=(4, 5)):
    (tmp_path / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": codecs}))
    return str(tmp_path)


@pytest.mark.parametrize(("entry", "numcodec"), [
    ({"name": "zlib", "configuration": {"level": 3}}, numcodecs.Zlib(level=3)),
    ({"name": "lz4", "configuration": {"acceleration": 1}}, numcodecs.LZ4(acceleration=1)),
])
def test_bare_compressor_names_read_as_numcodecs_writes_them(tmp_path, entry, numcodec):
    data = np.arange(30, dtype="<i4").reshape(6, 5)
    path = _store(tmp_path, [BYTES, entry])
    for i, rows in enumerate((slice(0, 4), slice(4, 8))):
        chunk = np.zeros((4, 5), dtype="<i4")
        part = data[rows]
        chunk[:part.shape[0]] = part
        (tmp_path / "c" / str(i)).mkdir(parents=True, exist_ok=True)
        (tmp_path / "c" / str(i) / "0").write_bytes(bytes(numcodec.encode(chunk.tobytes())))
    assert np.array_equal(zarrhpc.open_array(path, mode="r")[...], data)
    # written back under the same name, read back the same
    a = zarrhpc.open_array(path, mode="r+")
    a[...] = data[::-1]
    assert np.array_equal(zarrhpc.open_array(path, mode="r")[...], data[::-1])
    assert json.loads((tmp_path / "zarr.json").read_text())["codecs"][1]["name"] in (
        entry["name"], f"numcodecs.{entry['name']}")


def test_zarrs_names(tmp_path):
    data = (np.arange(30, dtype="f4") / 7).reshape(6, 5)
    path = _store(tmp_path, [{"name": "zarrs.bitround", "configuration": {"keepbits": 4}},
                             BYTES], data_type="float32")
    a = zarrhpc.open_array(path, mode="r+")
    a[...] = data
    got = zarrhpc.open_array(path, mode="r")[...]
    want = numcodecs.BitRound(keepbits=4).decode(numcodecs.BitRound(keepbits=4).encode(data))
    assert np.array_equal(got, np.asarray(want).reshape(6, 5))
    from zarrhpc.codecs.registry import get_codec_class
    from zarrhpc.codecs.vlen import VLenArrayCodec

    assert get_codec_class("vlen-array") is VLenArrayCodec
    assert get_codec_class("json2") is get_codec_class("numcodecs.json2")
