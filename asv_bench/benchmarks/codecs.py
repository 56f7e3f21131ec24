"""Benchmarks of zarrhpc.codecs: encode and decode one 4 MiB chunk per codec chain.

Each chain is built with the public `CodecPipeline.from_codecs` and run with its
``encode`` / ``decode``, as the read and write paths call them. Decoding returns the chunk
in the stored layout: for ``bytes-big`` and ``transpose`` it is a view, because the byte
swap and the transpose are fused into the final copy into the output (timed by
kernels.CopySwap / kernels.CopyTranspose and by array.*). `LibraryDecode` times the
compression libraries alone on the same bytes: the codec-bound limit of issue 3.
"""

import zlib

import numpy as np

from zarrhpc.codecs import ChunkSpec, CodecPipeline

from ._data import MIB, field

SHAPE = (64, 128, 128)  # float32: 4 MiB
LE = {"name": "bytes", "configuration": {"endian": "little"}}

CHAINS = {
    "bytes": [LE],
    "bytes-big": [{"name": "bytes", "configuration": {"endian": "big"}}],
    "transpose": [{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, LE],
    "gzip-1": [LE, {"name": "gzip", "configuration": {"level": 1}}],
    "zstd-1": [LE, {"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    "blosc-lz4": [LE, {"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle"}}],
    "blosc-zstd": [LE, {"name": "blosc", "configuration": {
        "cname": "zstd", "clevel": 1, "shuffle": "shuffle"}}],
    "crc32c": [LE, {"name": "crc32c"}],
}


def _pipeline(chain):
    spec = ChunkSpec(SHAPE, np.dtype("f4"), np.zeros((), "f4"))
    return CodecPipeline.from_codecs(chain, spec)


class Codecs:
    """One chunk through a chain; MB/s = 4 MiB / time."""

    params = [list(CHAINS)]
    param_names = ["chain"]

    def setup(self, chain):
        self.pipeline = _pipeline(CHAINS[chain])
        self.chunk = field(SHAPE, "f4")
        self.encoded = bytes(memoryview(self.pipeline.encode(self.chunk)).cast("B"))

    def time_encode(self, chain):
        self.pipeline.encode(self.chunk)

    def time_decode(self, chain):
        self.pipeline.decode(self.encoded)

    def track_ratio(self, chain):
        """Compression ratio (raw size / encoded size)."""
        return 4 * MIB / len(self.encoded)

    track_ratio.unit = "ratio"


class LibraryDecode:
    """The compression library alone on the bytes the codec wrote (no zarrhpc code)."""

    params = [["gzip-1", "zstd-1", "blosc-lz4", "blosc-zstd"]]
    param_names = ["chain"]

    def setup(self, chain):
        pipeline = _pipeline(CHAINS[chain])
        self.encoded = bytes(memoryview(pipeline.encode(field(SHAPE, "f4"))).cast("B"))
        if chain.startswith("gzip"):
            self.decompress = lambda b: zlib.decompress(b, wbits=31)
        elif chain.startswith("zstd"):
            import zstandard

            self.decompress = zstandard.ZstdDecompressor().decompress
        else:
            import blosc2

            self.decompress = blosc2.decompress

    def time_decompress(self, chain):
        self.decompress(self.encoded)
