"""``zarr.core.chunk_key_encodings`` under ``import zarrhpc as zarr``: the chunk key
encoding classes downstream code passes as ``chunk_key_encoding=`` (zarr-python's
``DefaultChunkKeyEncoding(separator=".")``, ``V2ChunkKeyEncoding(separator="/")``); they
are the views of :mod:`zarrhpc.core.metadata`, with ``to_dict`` and
``encode_chunk_key``/``decode_chunk_key``."""

from zarrhpc.core.metadata import DefaultChunkKeyEncoding, V2ChunkKeyEncoding

__all__ = ["DefaultChunkKeyEncoding", "V2ChunkKeyEncoding"]
