"""Chunks encoded by zarrhpc's codecs are read by zarr-python and tensorstore, and chunks
they write are decoded by zarrhpc's codecs (both ways, one array per codec chain)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from zarrhpc.codecs import ChunkSpec, CodecPipeline
from zarrhpc.testing.codec_helpers import random_array, to_native

pytestmark = pytest.mark.interop

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

SHAPE = (7, 10)
CHUNKS = (4, 6)
BLOSC = {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}
CHAINS = {
    "bytes-little": [{"name": "bytes", "configuration": {"endian": "little"}}],
    "bytes-big": [{"name": "bytes", "configuration": {"endian": "big"}}],
    "transpose-big": [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "big"}},
    ],
    "gzip": [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "gzip", "configuration": {"level": 5}},
    ],
    "zstd": [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "zstd", "configuration": {"level": 3, "checksum": False}},
    ],
    "zstd-checksum": [
        {"name": "bytes", "configuration": {"endian": "big"}},
        {"name": "zstd", "configuration": {"level": 1, "checksum": True}},
    ],
    "blosc": [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "blosc", "configuration": BLOSC},
    ],
    "blosc-bitshuffle-zstd": [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "blosc", "configuration": {**BLOSC, "cname": "zstd", "shuffle": "bitshuffle"}},
    ],
    "crc32c": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
    "everything": [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "big"}},
        {"name": "blosc", "configuration": {**BLOSC, "cname": "zlib"}},
        {"name": "zstd", "configuration": {"level": 0}},
        {"name": "crc32c"},
    ],
}
DTYPES = ["int32", "float32", "complex64", "uint8"]


def _chain_for(chain: list, dtype: np.dtype) -> list:
    out = []
    for entry in chain:
        entry = json.loads(json.dumps(entry))
        if entry["name"] == "blosc":
            entry["configuration"]["typesize"] = dtype.itemsize
        if entry["name"] == "bytes" and dtype.itemsize == 1:
            entry.pop("configuration")
        out.append(entry)
    return out


def _write_metadata(root: pathlib.Path, dtype: np.dtype, codecs: list) -> None:
    fill = [0.0, 0.0] if dtype.kind == "c" else 0
    meta = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": list(SHAPE),
        "data_type": dtype.name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(CHUNKS)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": codecs,
        "attributes": {},
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "zarr.json").write_text(json.dumps(meta))


def _chunk_regions():
    for i in range(0, SHAPE[0], CHUNKS[0]):
        for j in range(0, SHAPE[1], CHUNKS[1]):
            yield (
                (i // CHUNKS[0], j // CHUNKS[1]),
                (slice(i, i + CHUNKS[0]), slice(j, j + CHUNKS[1])),
            )


def _padded(data: np.ndarray, region) -> np.ndarray:
    chunk = np.zeros(CHUNKS, dtype=data.dtype)
    part = data[region]
    chunk[: part.shape[0], : part.shape[1]] = part
    return chunk


def _write_ours(root: pathlib.Path, data: np.ndarray, pipeline: CodecPipeline) -> None:
    for (ci, cj), region in _chunk_regions():
        path = root / "c" / str(ci) / str(cj)
        path.parent.mkdir(parents=True, exist_ok=True)
        enc = pipeline.encode(_padded(data, region), f"c/{ci}/{cj}")
        path.write_bytes(bytes(memoryview(enc).cast("B")))


def _check_ours_reads(root: pathlib.Path, data: np.ndarray, pipeline: CodecPipeline) -> None:
    for (ci, cj), region in _chunk_regions():
        raw = (root / "c" / str(ci) / str(cj)).read_bytes()
        chunk = to_native(pipeline.decode(raw, f"c/{ci}/{cj}"))
        part = data[region]
        assert np.array_equal(chunk[: part.shape[0], : part.shape[1]], part)


def _ts_spec(root: pathlib.Path) -> dict:
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(root)}}


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(CHAINS))
def test_ours_read_by_zarr_python_and_tensorstore(tmp_path, name, dt):
    dtype = np.dtype(dt)
    codecs = _chain_for(CHAINS[name], dtype)
    data = random_array(SHAPE, dtype, 5)
    _write_metadata(tmp_path, dtype, codecs)
    pipeline = CodecPipeline.from_json(codecs, ChunkSpec(CHUNKS, dtype), "zarr.json")
    assert pipeline.to_json() == codecs
    _write_ours(tmp_path, data, pipeline)
    assert np.array_equal(zarr.open_array(str(tmp_path), mode="r")[...], data)
    assert np.array_equal(ts.open(_ts_spec(tmp_path), open=True).result().read().result(), data)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(CHAINS))
def test_zarr_python_chunks_decoded_by_ours(tmp_path, name, dt):
    dtype = np.dtype(dt)
    codecs = _chain_for(CHAINS[name], dtype)
    data = random_array(SHAPE, dtype, 6)
    _write_metadata(tmp_path, dtype, codecs)
    zarr.open_array(str(tmp_path), mode="r+")[...] = data
    written = json.loads((tmp_path / "zarr.json").read_text())["codecs"]
    pipeline = CodecPipeline.from_json(written, ChunkSpec(CHUNKS, dtype), "zarr.json")
    _check_ours_reads(tmp_path, data, pipeline)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(CHAINS))
def test_tensorstore_chunks_decoded_by_ours(tmp_path, name, dt):
    dtype = np.dtype(dt)
    codecs = _chain_for(CHAINS[name], dtype)
    data = random_array(SHAPE, dtype, 7)
    _write_metadata(tmp_path, dtype, codecs)
    ts.open(_ts_spec(tmp_path), open=True).result().write(data).result()
    written = json.loads((tmp_path / "zarr.json").read_text())["codecs"]
    pipeline = CodecPipeline.from_json(written, ChunkSpec(CHUNKS, dtype), "zarr.json")
    _check_ours_reads(tmp_path, data, pipeline)


def test_tensorstore_zstd_frames_decode(tmp_path):
    """Whatever tensorstore writes in its zstd frame headers, the pipeline reads it."""
    import zstandard

    dtype = np.dtype("float32")
    codecs = _chain_for(CHAINS["zstd"], dtype)
    _write_metadata(tmp_path, dtype, codecs)
    data = random_array(SHAPE, dtype, 8)
    ts.open(_ts_spec(tmp_path), open=True).result().write(data).result()
    raw = (tmp_path / "c" / "0" / "0").read_bytes()
    assert zstandard.frame_content_size(raw) in (-1, int(np.prod(CHUNKS)) * 4)
    _check_ours_reads(tmp_path, data, CodecPipeline.from_json(codecs, ChunkSpec(CHUNKS, dtype)))
