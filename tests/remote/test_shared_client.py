"""Stores of one bucket share one obstore client (`_obstore._make_client`): each still sees
only its own root. Two roots holding the same keys, a root nested in the other, and the
bucket's root: reads, listings and erases of one never reach the other's objects."""

from __future__ import annotations

import pytest

from zarrhpc.storage.remote import open_url


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_roots_of_one_bucket_stay_apart(s3_url, s3_options, backend):
    opts = dict(s3_options, backend=backend)
    a = open_url(f"{s3_url}/a", storage_options=opts)
    b = open_url(f"{s3_url}/a/b", storage_options=opts)  # nested: a's "b/..." keys
    c = open_url(f"{s3_url}/c", storage_options=opts)
    if backend == "obstore":
        assert a._obs is b._obs is c._obs
    for store, tag in ((a, b"A"), (b, b"B"), (c, b"C")):
        store.set("k", tag)
        store.set("d/x", tag + b"x")
    assert [bytes(s.get("k")) for s in (a, b, c)] == [b"A", b"B", b"C"]
    assert sorted(a.list()) == ["b/d/x", "b/k", "d/x", "k"]
    assert sorted(b.list()) == ["d/x", "k"]
    assert sorted(c.list_prefix("d/")) == ["d/x"]
    assert sorted(a.list_dir("")) == ["b", "d", "k"]
    assert sorted(b.list_dir("d")) == ["x"]
    assert [bytes(v) for v in c.get_partial_values([("k", 0, 1), ("d/x", 1, 1)])] == \
        [b"C", b"x"]
    top = open_url(s3_url, storage_options=opts)
    assert sorted(top.list()) == ["a/b/d/x", "a/b/k", "a/d/x", "a/k", "c/d/x", "c/k"]
    b.erase_prefix("d/")
    c.erase("k")
    assert sorted(top.list()) == ["a/b/k", "a/d/x", "a/k", "c/d/x"]
    a.clear()
    assert sorted(top.list()) == ["c/d/x"]
    assert c.get("k") is None and bytes(c.get("d/x")) == b"Cx"
