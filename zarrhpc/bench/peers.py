"""The libraries ``zarrhpc bench`` compares, behind one small interface.

Every peer writes the same numpy array with the same chunking and codec into its own
directory and reads it back; each is imported only when it is used, and a peer that is
not installed (or cannot do a codec) is skipped with a reason.
"""

from __future__ import annotations

import os
import shutil

import numpy as np

__all__ = ["CODECS", "PEERS", "Unavailable"]

#: codec name -> (blosc/zstd/gzip settings) of the standard workloads
CODECS = {
    "none": None,
    "blosc-lz4": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle", "blocksize": 0}},
    "zstd-1": {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
    "gzip-1": {"name": "gzip", "configuration": {"level": 1}},
}


class Unavailable(Exception):
    """This peer cannot run this case (not installed, or no such codec)."""


def _v3_codecs(codec: str, dtype: np.dtype) -> list[dict]:
    entry = CODECS[codec]
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if entry is not None:
        entry = {"name": entry["name"], "configuration": dict(entry["configuration"])}
        if entry["name"] == "blosc":
            entry["configuration"]["typesize"] = dtype.itemsize
        codecs.append(entry)
    return codecs


class Peer:
    name = ""

    def available(self) -> None:
        """Raise Unavailable when the library is missing."""

    def write(self, path: str, data: np.ndarray, chunks, codec: str, shards=None) -> None:
        """Write ``data``; with ``shards``, ``chunks`` is the inner chunk shape."""
        raise NotImplementedError

    def open(self, path: str):
        raise NotImplementedError

    def read(self, handle, selection) -> np.ndarray:
        return np.asarray(handle[selection])

    def select(self, handle, kind: str, selection) -> np.ndarray:
        """A ``kind`` selection: "vindex" (coordinate arrays), "oindex" (one index array
        per axis) or "mask" (a boolean array of the whole shape)."""
        if kind == "mask":
            return np.asarray(handle.vindex[selection])
        return np.asarray(getattr(handle, kind)[selection])

    def open_writable(self, path: str):
        return self.open(path)

    def select_write(self, handle, kind: str, selection, value) -> None:
        """Store ``value`` at a ``kind`` selection (as `select`)."""
        if kind == "mask":
            handle.vindex[selection] = value
        else:
            getattr(handle, kind)[selection] = value

    def clear(self, path: str) -> None:
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.unlink(path)


class Zarrhpc(Peer):
    name = "zarrhpc"

    def __init__(self, durable: bool = False):
        self.durable = durable
        if durable:
            self.name = "zarrhpc-durable"

    zarr_format = 3

    def write(self, path, data, chunks, codec, shards=None):
        import zarrhpc
        from zarrhpc.storage import LocalStore

        if shards is not None and self.zarr_format == 2:
            raise Unavailable("Zarr v2 has no sharding")
        entry = CODECS[codec]
        a = zarrhpc.create_array(
            LocalStore(path, durable=self.durable), shape=data.shape, dtype=data.dtype,
            chunks=chunks, shards=shards, compressors=[entry] if entry else None,
            overwrite=True, zarr_format=self.zarr_format,
        )
        a[...] = data

    def open(self, path):
        import zarrhpc

        return zarrhpc.open_array(path, mode="r")

    def open_writable(self, path):
        import zarrhpc

        return zarrhpc.open_array(path, mode="r+")


class ZarrhpcV2(Zarrhpc):
    """zarrhpc writing and reading Zarr v2 (.zarray): should run as fast as v3."""

    name = "zarrhpc-v2"
    zarr_format = 2


class ZarrPython(Peer):
    name = "zarr-python"
    pipeline = None

    def available(self):
        try:
            import zarr  # noqa: F401
        except ImportError:
            raise Unavailable("zarr not installed") from None
        if self.pipeline:
            try:
                __import__(self.pipeline.split(".")[0])
            except ImportError:
                raise Unavailable(f"{self.pipeline.split('.')[0]} not installed") from None

    def _config(self):
        import zarr

        if self.pipeline:
            return zarr.config.set({"codec_pipeline.path": self.pipeline})
        return zarr.config.set({})

    def write(self, path, data, chunks, codec, shards=None):
        import zarr

        entry = CODECS[codec]
        with self._config():
            a = zarr.create_array(
                store=path, shape=data.shape, dtype=data.dtype, chunks=chunks, shards=shards,
                compressors=[entry] if entry else None, overwrite=True, zarr_format=3,
            )
            a[...] = data

    def open(self, path):
        import zarr

        with self._config():
            return zarr.open_array(path, mode="r")

    def open_writable(self, path):
        import zarr

        with self._config():
            return zarr.open_array(path, mode="r+")

    def read(self, handle, selection):
        with self._config():
            return np.asarray(handle[selection])

    def select(self, handle, kind, selection):
        with self._config():
            return super().select(handle, kind, selection)

    def select_write(self, handle, kind, selection, value):
        with self._config():
            super().select_write(handle, kind, selection, value)


class ZarrsPipeline(ZarrPython):
    name = "zarr-python+zarrs"
    pipeline = "zarrs.ZarrsCodecPipeline"


class Tensorstore(Peer):
    name = "tensorstore"

    def available(self):
        try:
            import tensorstore  # noqa: F401
        except ImportError:
            raise Unavailable("tensorstore not installed") from None

    def _spec(self, path):
        return {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}

    def write(self, path, data, chunks, codec, shards=None):
        import tensorstore as ts

        spec = self._spec(path)
        codecs = _v3_codecs(codec, data.dtype)
        grid = chunks
        if shards is not None:
            grid = shards
            codecs = [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": list(chunks), "codecs": codecs,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end"}}]
        spec["metadata"] = {
            "shape": list(data.shape),
            "data_type": data.dtype.name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(grid)}},
            "codecs": codecs,
        }
        t = ts.open(spec, create=True, delete_existing=True).result()
        t.write(data).result()

    def open(self, path):
        import tensorstore as ts

        return ts.open(self._spec(path), open=True).result()

    def read(self, handle, selection):
        return handle[selection].read().result()

    def select(self, handle, kind, selection):
        if kind == "mask":  # a boolean array indexes like its nonzero() coordinates
            return handle[selection].read().result()
        return getattr(handle, kind)[selection].read().result()

    def select_write(self, handle, kind, selection, value):
        view = handle[selection] if kind == "mask" else getattr(handle, kind)[selection]
        view.write(value).result()


class H5py(Peer):
    name = "h5py"

    def available(self):
        try:
            import h5py  # noqa: F401
        except ImportError:
            raise Unavailable("h5py not installed") from None

    def write(self, path, data, chunks, codec, shards=None):
        import h5py

        if shards is not None:
            raise Unavailable("no sharding in HDF5")
        opts = {}
        if codec == "gzip-1":
            opts = {"compression": "gzip", "compression_opts": 1}
        elif codec != "none":
            raise Unavailable(f"h5py has no {codec} without plugins")
        self.clear(path)
        with h5py.File(path, "w") as f:
            f.create_dataset("a", data=data, chunks=tuple(chunks), **opts)

    def open(self, path):
        import h5py

        return h5py.File(path, "r")["a"]

    def select(self, handle, kind, selection):
        raise Unavailable("h5py has no vindex/oindex over several index arrays")

    def select_write(self, handle, kind, selection, value):
        raise Unavailable("h5py has no vindex/oindex over several index arrays")


class Raw(Peer):
    """numpy tofile/readinto (and memmap for sub-reads) of the same bytes."""

    name = "raw"

    def __init__(self):
        self.meta = {}

    def write(self, path, data, chunks, codec, shards=None):
        if codec != "none" or shards is not None:
            raise Unavailable("raw bytes only")
        data.tofile(path)
        self.meta[path] = (data.shape, data.dtype)

    def open(self, path):
        shape, dtype = self.meta[path]
        return np.memmap(path, dtype=dtype, mode="r", shape=shape)

    def read(self, handle, selection):
        return np.array(handle[selection])

    def select(self, handle, kind, selection):
        raise Unavailable("raw bytes only")

    def select_write(self, handle, kind, selection, value):
        raise Unavailable("raw bytes only")

    def read_full(self, path, shape, dtype) -> np.ndarray:
        out = np.empty(shape, dtype)
        with open(path, "rb", buffering=0) as f:
            f.readinto(memoryview(out).cast("B"))
        return out


PEERS = {
    "zarrhpc": Zarrhpc,
    "zarrhpc-v2": ZarrhpcV2,
    "zarr-python": ZarrPython,
    "zarr-python+zarrs": ZarrsPipeline,
    "tensorstore": Tensorstore,
    "h5py": H5py,
    "raw": Raw,
}
