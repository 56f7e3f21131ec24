"""Ranged answers of the wrong length are never read as data (both backends, over HTTP).

A web server that ignores ``Range`` answers 200 with the whole object: fsspec's HTTP read
returns that as the range asked (`get_partial_values` gave the object's first bytes; a
shard index was read from offset 0). A 206 cut short -- honestly (its Content-Range names
fewer bytes) or not (a Content-Length shorter than its Content-Range) -- was taken as the
range on fsspec, and the lying one on obstore too; obstore refused a server ignoring Range.
The store now cuts a whole answer to the
range and refuses any other length (`_remotebase._checked_length`). A server sending other
bytes than it names with the right length is not detectable here (checksums are).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError, StoreError
from zarrhpc.storage import LocalStore
from zarrhpc.storage.remote import open_url
from zarrhpc.testing.differential_http import LyingServer

BLOB = bytes(range(256)) * 8
DATA = np.arange(64 * 64, dtype="i4").reshape(64, 64) + 1
MODES = ["whole200", "short_honest", "short_lie"]


@pytest.fixture(scope="module")
def lying(tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    local = LocalStore(root)
    zarrhpc.create_array(local, name="s", shape=DATA.shape, dtype="i4", chunks=(4, 4),
                         shards=(32, 32), fill_value=0, compressors=None)[...] = DATA
    # no crc32c on the index: a wrong range of it is not caught by a checksum
    meta = json.loads(bytes(local.get("s/zarr.json")))
    assert meta["codecs"][0]["configuration"]["index_codecs"][1]["name"] == "crc32c"
    del meta["codecs"][0]["configuration"]["index_codecs"][1]
    local.set("s/zarr.json", json.dumps(meta).encode())
    for key in [k for k in local.list_prefix("s/c/")]:
        local.set(key, bytes(local.get(key))[:-4])
    np.testing.assert_array_equal(zarrhpc.open_array(local, path="s")[...], DATA)
    local.set("blob", BLOB)
    with LyingServer(root) as server:
        yield server


def _store(server, backend):
    return open_url(server.endpoint, storage_options={"backend": backend,
                                                      "retry_timeout": 0.2})


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("mode", MODES)
def test_partial_values_never_wrong(lying, backend, mode):
    store = _store(lying, backend)
    lying.set_mode(mode)
    try:
        got = store.get_partial_values([("blob", 100, 50), ("blob", 1000, 30),
                                        ("blob", -20, None)])
    except StoreError as exc:
        assert mode != "whole200"  # a server ignoring Range is read (and cut)
        assert "blob" in str(exc)
        return
    finally:
        lying.set_mode("honest")
    assert [bytes(g) for g in got] == [BLOB[100:150], BLOB[1000:1030], BLOB[-20:]]


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sel", [np.s_[0:2, 0:2], np.s_[5, 9], np.s_[33:40, 1:60],
                                 np.s_[[1, 40], [2, 63]]], ids=["box", "element", "rows", "points"])
def test_shard_reads_never_wrong(lying, backend, mode, sel):
    a = zarrhpc.open_array(_store(lying, backend), path="s")
    lying.set_mode(mode)
    try:
        got = a.vindex[sel] if isinstance(sel[0], list) else a[sel]
    except (StoreError, CorruptChunkError) as exc:
        assert mode != "whole200"
        assert "s/c/" in str(exc)
        return
    finally:
        lying.set_mode("honest")
    np.testing.assert_array_equal(got, DATA[sel])
