"""Resize in crash-safe order: a process killed between the metadata write and the erase
leaves the old shape over the old chunks or the new shape over the new ones, and a later
grow never shows chunks a killed shrink left behind (core/_resize.py)."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import zarrhpc


class Killed(BaseException):
    """Stands for SIGKILL at the store call it is raised from."""


def _array(tmp_path, shards):
    a = zarrhpc.create_array(str(tmp_path), shape=(8, 6), chunks=(2, 3), dtype="i4",
                             shards=shards, fill_value=-1)
    a[...] = np.arange(48, dtype="i4").reshape(8, 6)
    return a


@pytest.mark.parametrize("shards", [None, (4, 6)])
def test_shrink_killed_before_erase_then_grow(tmp_path, monkeypatch, shards):
    a = _array(tmp_path, shards)
    before = a[...]
    store_cls = type(a.store)

    def killed(self, keys):
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(store_cls, "erase_values", killed)
        with pytest.raises(Killed):
            a.resize((4, 6))
    b = zarrhpc.open_array(str(tmp_path), mode="r+")
    # new metadata is committed, the chunks past its end are still on disk but unreachable
    assert b.shape == (4, 6)
    np.testing.assert_array_equal(b[...], before[:4])
    b.resize((8, 6))  # grow: the stale chunks must not come back
    want = np.full((8, 6), -1, "i4")
    want[:4] = before[:4]
    np.testing.assert_array_equal(b[...], want)
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path), mode="r")[...], want)


@pytest.mark.parametrize("shards", [None, (4, 6)])
def test_grow_killed_before_metadata_keeps_old(tmp_path, monkeypatch, shards):
    a = _array(tmp_path, shards)
    before = a[...]
    import zarrhpc.core._resize as resize_mod

    def killed(*args, **kwargs):
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(resize_mod, "write_node", killed)
        with pytest.raises(Killed):
            a.resize((12, 6))
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    assert b.shape == (8, 6)
    np.testing.assert_array_equal(b[...], before)


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(1, 4)),
                min_size=1, max_size=4))
def test_outside_chunks_are_those_of_the_old_grid_past_the_new_shape(dims):
    from zarrhpc.core._resize import outside_chunks

    old, new, chunks = zip(*dims)
    got = list(outside_chunks(old, new, chunks))
    grid = [range(-(-n // c)) for n, c in zip(old, chunks)]
    new_grid = [-(-n // c) for n, c in zip(new, chunks)]
    want = {c for c in itertools.product(*grid)
            if any(i >= g for i, g in zip(c, new_grid))}
    assert len(got) == len(set(got)) and set(got) == want
