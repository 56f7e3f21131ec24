"""Two store objects on one bucket: what one writes, the other never reads stale.

A remote store keeps the tail of each shard it opened (size, ETag, index: the tail cache
of storage/_remotebase.py). A small shard lies wholly in that tail, so its inner chunks
were served from the cache with no request at all, and an If-Match check never ran:
after a second store object of the same process (another ``open_array`` of the URL: a
dask task, an xarray dataset) rewrote the shard, the first went on returning the old
values for point and small reads (while a whole read, fetched anew, showed the new ones).
Writes and erases now drop the key from every tail cache of the process on that bucket.
"""

import uuid

import numpy as np
import pytest

import zarrhpc

pytest.importorskip("moto.server")

from zarrhpc.storage.remote import open_url  # noqa: E402
from zarrhpc.testing.servers import S3Server  # noqa: E402

BUCKET = "zarrhpc-hunt-peers"


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        server.create_bucket(BUCKET)
        yield server


@pytest.mark.parametrize("how", ["rewrite", "fill", "erase-prefix", "sub-root"])
def test_second_store_object_sees_this_process_writes(s3, how):
    url = f"s3://{BUCKET}/{uuid.uuid4().hex}"
    opts = s3.storage_options(s3.endpoint)
    w = zarrhpc.create_array(open_url(url, storage_options=opts), name="a", shape=(8,),
                             chunks=(2,), shards=(8,), dtype="i4", fill_value=0)
    w[...] = np.arange(1, 9)
    reader_url = f"{url}/a" if how == "sub-root" else url
    r = zarrhpc.open_array(open_url(reader_url, storage_options=opts),
                           path="" if how == "sub-root" else "a")
    assert r[1] == 2 and list(r[2:4]) == [3, 4]  # the shard's tail is cached now
    other = zarrhpc.open_array(open_url(url, storage_options=opts), path="a", mode="r+")
    if how == "fill":
        other[...] = 0  # the shard is erased (all fill)
        want = np.zeros(8, "i4")
    elif how == "erase-prefix":
        open_url(url, storage_options=opts).erase_prefix("a/c")
        want = np.zeros(8, "i4")
    else:
        other[...] = np.arange(101, 109)
        want = np.arange(101, 109)
    assert r[1] == want[1]
    assert list(r[2:4]) == list(want[2:4])
    assert np.array_equal(r[...], want)
