"""The public API on s3:// URLs: routing through open_url, and batched chunk reads.

A whole-array read of an array on S3 fetches its chunks through one ``get_values`` call,
so they are in flight together (the proxy's ``max_in_flight``), with one GET per chunk.
"""

from __future__ import annotations

import numpy as np
import pytest

import zarrhpc

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                            "shuffle": "shuffle", "typesize": 4,
                                            "blocksize": 0}}


@pytest.mark.parametrize("compressors", [None, BLOSC], ids=["none", "blosc"])
def test_url_round_trip_and_concurrent_chunk_reads(s3_url, s3_options, proxy, compressors):
    data = np.arange(32 * 32, dtype="f4").reshape(32, 32)
    a = zarrhpc.create_array(s3_url, storage_options=s3_options, name="t", shape=data.shape,
                             chunks=(8, 8), dtype="f4", compressors=compressors)
    a[...] = data
    b = zarrhpc.open_array(s3_url, path="t", storage_options=s3_options, mode="r")
    proxy.delay = 0.05  # answers overlap only when the requests are sent together
    proxy.reset()
    np.testing.assert_array_equal(b[...], data)
    assert proxy.counts.get("GET", 0) == 16  # one per chunk, nothing else
    assert proxy.max_in_flight >= 4
    with pytest.raises(zarrhpc.errors.ReadOnlyError):
        b[0, 0] = 1.0


def test_open_on_url_never_creates_a_local_directory(tmp_path, monkeypatch, s3_url,
                                                     s3_options):
    monkeypatch.chdir(tmp_path)
    g = zarrhpc.open_group(s3_url, storage_options=s3_options, mode="a")
    g.create_array("x", shape=(4,), dtype="i4")[...] = [1, 2, 3, 4]
    assert list(zarrhpc.open(s3_url, storage_options=s3_options, mode="r")["x"][...]) == [
        1, 2, 3, 4]
    assert list(tmp_path.iterdir()) == []
