"""A shard reader reads one version of the shard, whoever replaces it meanwhile.

A sharded read opens each shard (size), reads its index, then the inner chunks it wants
at the index's offsets. MemoryStore and ZipStore used the generic reader, which asked the
store again for every range: a shard replaced by another writer (thread) between the
index and the inner chunks was read at the old offsets from the new bytes. With an
inner chunk left out of the new shard (all fill) the offsets of the others move, and the
read returned another inner chunk's values: silent wrong data (with compression or a
checksum, a CorruptChunkError at best). Found by tests/reliability/test_threads_stress.py
(a reader thread beside a writer thread, sharded, memory and zip stores).
"""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.storage import MemoryStore, ZipStore


class _ReplacingStore(MemoryStore):
    """Replaces values (another writer) after the first ranges of a request were read
    (a sharded read: the shard indexes, then the inner chunks)."""

    replace: dict = {}

    def read_ranges(self, requests):
        out = super().read_ranges(requests)
        for key, value in list(self.replace.items()):
            self.set(key, value)
            del self.replace[key]
        return out


def test_memory_reader_keeps_the_version_it_opened():
    store = MemoryStore()
    store.set("k", b"0123456789")
    reader = store.open_reader("k")
    store.set("k", b"abcdefghijklmnop")
    assert bytes(reader.read(2, 3)) == b"234"
    assert bytes(reader.read(-2, None)) == b"89"
    store.erase("k")
    assert bytes(reader.read(0, None)) == b"0123456789"


def test_zip_reader_keeps_the_version_it_opened(tmp_path):
    store = ZipStore(str(tmp_path / "a.zip"), mode="w")
    store.set("k", b"0123456789")
    reader = store.open_reader("k")
    store.set("k", b"abcdefghijklmnop")
    assert bytes(reader.read(2, 3)) == b"234"
    store.close()


@pytest.mark.parametrize("index_codecs", ["crc32c", "bytes-only"])
def test_sharded_read_with_the_shard_replaced_in_between(index_codecs):
    store = _ReplacingStore()
    kw = {}
    if index_codecs == "bytes-only":
        kw["serializer"] = {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2], "codecs": [{"name": "bytes",
                                             "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}
        a = zarrhpc.create_array(store, shape=(8,), chunks=(8,), dtype="i4", fill_value=0,
                                 compressors=None, **kw)
    else:
        a = zarrhpc.create_array(store, shape=(8,), chunks=(2,), shards=(8,), dtype="i4",
                                 fill_value=0, compressors=None)
    old = np.arange(1, 9, dtype="i4")
    new = np.array([0, 0, 30, 40, 50, 60, 70, 80], dtype="i4")  # inner chunk 0: fill
    a[...] = new
    new_shard = bytes(store.get("c/0"))
    a[...] = old
    store.replace = {"c/0": new_shard}
    got = a[2:4]  # a quarter of the shard: index first, then one inner chunk
    assert np.array_equal(got, old[2:4]) or np.array_equal(got, new[2:4]), got


@pytest.mark.xfail(strict=True, reason="open: the fsspec backend reads a shard's inner "
                   "chunks from whatever version is stored now (no ETag check)")
def test_fsspec_shard_replaced_between_index_and_inner_chunks():
    """The same race on a remote store through the fsspec backend (another process
    rewrites the shard): obstore's reads carry If-Match and fail instead; fsspec's
    cat_file has no such check, so the read mixes the two versions (remote's area)."""
    pytest.importorskip("moto.server")
    import uuid

    from zarrhpc.storage.remote import open_url
    from zarrhpc.testing.servers import S3Server

    with S3Server() as s3:
        s3.create_bucket("zarrhpc-hunt-fsspec")
        url = f"s3://zarrhpc-hunt-fsspec/{uuid.uuid4().hex}"
        opts = dict(s3.storage_options(s3.endpoint), backend="fsspec")
        store = open_url(url, storage_options=opts)
        a = zarrhpc.create_array(store, shape=(8,), chunks=(2,), shards=(8,), dtype="i4",
                                 fill_value=0, compressors=None)
        new = np.array([0, 0, 30, 40, 50, 60, 70, 80], dtype="i4")
        a[...] = new
        new_shard = bytes(store.get("c/0"))
        old = np.arange(1, 9, dtype="i4")
        a[...] = old
        other = open_url(url, storage_options=opts)  # the other writer
        real = type(store).read_ranges
        done = []

        def read_ranges(self, requests):  # the index first; then the shard is replaced
            out = real(self, requests)
            if not done:
                done.append(True)
                other.set("c/0", new_shard)
            return out

        try:
            type(store).read_ranges = read_ranges
            got = a[2:4]
        finally:
            type(store).read_ranges = real
        assert np.array_equal(got, old[2:4]) or np.array_equal(got, new[2:4]), got
