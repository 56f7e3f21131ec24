"""Write and read Zarr v3 arrays with the peer implementations (zarr-python, tensorstore).

Test helpers: each function takes the array's v3 codec list as JSON, so the same chain can
be given to zarrhpc and to every peer. Peers are imported lazily: this module imports
without them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = [
    "CORE_DTYPES",
    "chain",
    "split_chain",
    "fill_json",
    "random_data",
    "zarr_write",
    "zarr_read",
    "ts_write",
    "ts_read",
    "same_bits",
    "sharding_entry",
    "zarr_write_sharded",
    "ts_write_sharded",
]

CORE_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]


def chain(name: str, dtype: str, ndim: int = 2) -> list[dict]:
    """A named codec chain as v3 JSON (bytes little-endian unless said otherwise)."""
    itemsize = np.dtype(dtype).itemsize
    little = {"name": "bytes", "configuration": {"endian": "little"}}
    if name == "none":
        return [little]
    if name == "gzip":
        return [little, {"name": "gzip", "configuration": {"level": 1}}]
    if name == "zstd":
        return [little, {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]
    if name == "blosc":
        return [little, {"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": itemsize,
            "blocksize": 0}}]
    if name == "crc32c":
        return [little, {"name": "crc32c"}]
    if name == "transpose-big":
        order = list(range(ndim))[::-1]
        return [{"name": "transpose", "configuration": {"order": order}},
                {"name": "bytes", "configuration": {"endian": "big"}}]
    raise ValueError(name)


CHAINS = ["none", "gzip", "zstd", "blosc", "crc32c", "transpose-big"]


def split_chain(codecs: list[dict]) -> dict:
    """filters / serializer / compressors keywords (zarr-python's and zarrhpc's split)."""
    i = next(k for k, c in enumerate(codecs) if c["name"] == "bytes")
    return dict(filters=codecs[:i], serializer=codecs[i], compressors=codecs[i + 1:])


def fill_json(dtype: str, value):
    """The v3 JSON form of a fill value (what tensorstore wants in metadata)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return bool(value)
    if dt.kind == "c":
        v = complex(value)
        return [v.real, v.imag]
    if dt.kind == "f":
        return float(value)
    return int(value)


def random_data(dtype: str, shape, seed: int = 0) -> np.ndarray:
    """Random values covering the whole bit range (NaN payloads and infinities included)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    raw = rng.integers(0, 256, size=(int(np.prod(shape)) * dt.itemsize,), dtype=np.uint8)
    return raw.view(dt).reshape(shape)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape, dtype and bit pattern (NaNs with their payloads)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def zarr_write(path: Path, data: np.ndarray, chunks, codecs, fill_value, region=Ellipsis,
               **kwargs):
    import zarr

    a = zarr.create_array(store=str(path), shape=data.shape, chunks=chunks, dtype=data.dtype,
                          fill_value=fill_value, overwrite=True, **split_chain(codecs), **kwargs)
    a[region] = data[region]
    return a


def zarr_read(path: Path, name: str | None = None) -> np.ndarray:
    import zarr

    a = zarr.open_array(store=str(path), path=name or "", mode="r")
    return a[...]


def _ts_spec(path: Path) -> dict:
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}


def ts_write(path: Path, data: np.ndarray, chunks, codecs, fill_value, region=Ellipsis):
    import tensorstore as ts

    spec = _ts_spec(path)
    spec["metadata"] = {
        "shape": list(data.shape),
        "data_type": str(data.dtype),
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": fill_json(str(data.dtype), fill_value),
        "codecs": codecs,
    }
    t = ts.open(spec, create=True, delete_existing=True).result()
    t[region].write(data[region]).result()
    return t


def ts_read(path: Path) -> np.ndarray:
    import tensorstore as ts

    return ts.open(_ts_spec(path), open=True).result().read().result()


# ---------------------------------------------------------------------- sharding


def sharding_entry(chunks, codecs, index_codecs=None, index_location="end") -> dict:
    """A ``sharding_indexed`` codec entry as v3 JSON (index bytes + crc32c by default)."""
    if index_codecs is None:
        index_codecs = [{"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "crc32c"}]
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(chunks), "codecs": codecs, "index_codecs": index_codecs,
        "index_location": index_location}}


def zarr_write_sharded(path: Path, data: np.ndarray, shards, sharding: dict, fill_value,
                       region=Ellipsis):
    """zarr-python writes an array whose whole chain is the ``sharding`` entry."""
    import zarr
    from zarr.codecs import ShardingCodec

    cfg = sharding["configuration"]
    codec = ShardingCodec(chunk_shape=cfg["chunk_shape"], codecs=cfg["codecs"],
                          index_codecs=cfg["index_codecs"], index_location=cfg["index_location"])
    a = zarr.create_array(store=str(path), shape=data.shape, chunks=shards, dtype=data.dtype,
                          fill_value=fill_value, overwrite=True, filters=None,
                          serializer=codec, compressors=None)
    a[region] = data[region]
    return a


def ts_write_sharded(path: Path, data: np.ndarray, shards, sharding: dict, fill_value,
                     region=Ellipsis):
    """tensorstore writes an array whose whole chain is the ``sharding`` entry."""
    return ts_write(path, data, shards, [sharding], fill_value, region)
