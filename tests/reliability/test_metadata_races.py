"""Metadata changes of one node from several threads or gathered awaits are all kept.

Silent loss found by the hunt (wave 11): an attribute update read the node's attributes,
merged, and stored the document without a lock, so updates side by side (threads, or
``asyncio.gather`` of ``update_attributes``: the async API runs each in a worker thread)
lost each other's keys, in the handle and in the store (4-31 of 60 kept); and one built
from the document a resize was replacing stored the older shape back (the stored array
read back empty after 30 grows, its chunks still there). Now every read-change-store of a
node's document holds the node's metadata lock (core/node.py ``metadata_lock``)."""

import asyncio
import json
import threading

import numpy as np
import pytest

import zarrhpc
import zarrhpc.api.asynchronous as za


def _stored(root):
    with open(f"{root}/zarr.json") as f:
        return json.load(f)


def _set_attrs(a, prefix):
    for i in range(30):
        a.attrs[f"{prefix}{i}"] = i


def _grow(a):
    for i in range(30):
        a.resize((i + 1,))
        a[i] = i


def test_threads_changing_attributes_and_shape_keep_every_change(tmp_path):
    for trial in range(5):
        root = str(tmp_path / str(trial))
        a = zarrhpc.create_array(root, shape=(0,), chunks=(4,), dtype="i4", fill_value=-1)

        threads = [threading.Thread(target=_set_attrs, args=(a, p)) for p in "xy"]
        threads.append(threading.Thread(target=_grow, args=(a,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        want = {f"{p}{i}": i for p in "xy" for i in range(30)}
        doc = _stored(root)
        assert doc["shape"] == [30] and a.shape == (30,)
        assert doc["attributes"] == want and dict(a.attrs) == want
        np.testing.assert_array_equal(zarrhpc.open_array(root)[...], np.arange(30))


def test_gathered_appends_and_attribute_updates_keep_every_change(tmp_path):
    async def main(root):
        a = await za.create_array(root, shape=(0, 4), chunks=(2, 4), dtype="i4")
        await asyncio.gather(*(op for i in range(20) for op in (
            a.append(np.full((1, 4), i, "i4")), a.update_attributes({f"k{i}": i}))))
        return a

    for trial in range(3):
        root = str(tmp_path / str(trial))
        a = asyncio.run(main(root))
        want = {f"k{i}": i for i in range(20)}
        doc = _stored(root)
        assert doc["attributes"] == want and a.attrs == want
        assert doc["shape"] == [20, 4]
        got = zarrhpc.open_array(root)[...]
        assert sorted(got[:, 0].tolist()) == list(range(20))
        assert (got == got[:, :1]).all()


def test_deleting_an_attribute_beside_updates(tmp_path):
    g = zarrhpc.group(str(tmp_path / "g"), attributes={f"d{i}": i for i in range(20)})

    def drop():
        for i in range(20):
            del g.attrs[f"d{i}"]

    def add():
        for i in range(20):
            g.attrs.update({f"n{i}": i})

    threads = [threading.Thread(target=drop), threading.Thread(target=add)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = {f"n{i}": i for i in range(20)}
    assert dict(g.attrs) == want
    assert dict(zarrhpc.open_group(str(tmp_path / "g")).attrs) == want


def test_gathered_deletes_all_leave_the_consolidated_metadata(tmp_path):
    """Each delete rewrote the group's consolidated metadata from the document it had read:
    deleted arrays stayed listed (1-3 of 5) and a consolidated open read them as fill."""
    async def main(root, fmt):
        g = await za.open_group(root, mode="w", zarr_format=fmt)
        for i in range(10):
            await g.create_array(f"a{i}", shape=(4,), dtype="i4", fill_value=-1)
        await za.consolidate_metadata(root, zarr_format=fmt)
        g = await za.open_group(root, mode="r+", zarr_format=fmt)
        await asyncio.gather(*(g.delitem(f"a{i}") for i in range(5)))

    for fmt in (3, 2):
        for trial in range(3):
            root = str(tmp_path / f"{fmt}-{trial}")
            asyncio.run(main(root, fmt))
            g = zarrhpc.open_consolidated(root, zarr_format=fmt)
            assert sorted(g.array_keys()) == [f"a{i}" for i in range(5, 10)]


def test_array_of_an_async_array_shares_its_state(tmp_path):
    """``zarrhpc.Array(async_array)`` copied the node's state: after a shrink through the
    async handle it kept the old shape, and a write past the new edge was taken without an
    error (zarr-python raises) and vanished at the next grow. Now both are one state (and
    one metadata lock)."""
    root = str(tmp_path / "a")
    zarrhpc.create_array(root, shape=(8,), chunks=(2,), dtype="i4", fill_value=-1)
    aa = asyncio.run(za.open_array(store=root, mode="r+"))
    b = zarrhpc.Array(aa)
    asyncio.run(aa.resize((2,)))
    assert b.shape == (2,)
    with pytest.raises(IndexError):
        b[5] = 7
    asyncio.run(aa.update_attributes({"q": 1}))
    assert dict(b.attrs) == {"q": 1}

    def sync_attrs():
        for i in range(30):
            b.attrs[f"s{i}"] = i

    async def async_attrs():
        await asyncio.gather(*(aa.update_attributes({f"a{i}": i}) for i in range(30)))

    t = threading.Thread(target=sync_attrs)
    t.start()
    asyncio.run(async_attrs())
    t.join()
    want = {"q": 1, **{f"s{i}": i for i in range(30)}, **{f"a{i}": i for i in range(30)}}
    assert _stored(root)["attributes"] == want and dict(b.attrs) == want
