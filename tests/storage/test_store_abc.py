"""The Store base class: argument checking and the generic fallbacks of its hooks.

`MinimalStore` implements only the four required hooks, so passing the conformance suite
proves the fallbacks (partial reads and writes, erase_values, erase_prefix, list_prefix,
list_dir, exists) correct.
"""

from __future__ import annotations

import pytest

from zarrhpc.errors import UnsupportedError
from zarrhpc.storage.abc import (
    Store,
    apply_writes,
    as_byte_view,
    check_range,
    resolve_range,
)
from zarrhpc.testing.store import StoreTests


class MinimalStore(Store):
    def __init__(self, data=None, *, read_only=False):
        super().__init__(read_only=read_only)
        self._data = {} if data is None else data

    def with_read_only(self, read_only=True):
        return MinimalStore(self._data, read_only=read_only)

    def _get(self, key):
        return self._data.get(key)

    def _set(self, key, data):
        self._data[key] = bytes(data)

    def _erase(self, key):
        self._data.pop(key, None)

    def _list(self):
        return iter(list(self._data))


class TestMinimalStore(StoreTests):
    concurrent_threads = 4

    def make_store(self, tmp_path):
        return MinimalStore()


def test_abstract_hooks_required():
    class Incomplete(Store):
        def _get(self, key):
            return None

    with pytest.raises(TypeError):
        Incomplete()


def test_with_read_only_default_is_unsupported():
    class NoViews(MinimalStore):
        with_read_only = Store.with_read_only

    with pytest.raises(UnsupportedError, match="NoViews"):
        NoViews().with_read_only()


@pytest.mark.parametrize(
    ("size", "offset", "length", "expected"),
    [
        (10, 0, None, (0, 10)),
        (10, 3, 4, (3, 7)),
        (10, 8, 5, (8, 10)),
        (10, 12, None, (10, 10)),
        (10, 12, 3, (10, 10)),
        (10, -3, None, (7, 10)),
        (10, -3, 1, (7, 8)),
        (10, -30, None, (0, 10)),
        (0, -1, None, (0, 0)),
        (0, 0, 0, (0, 0)),
    ],
)
def test_resolve_range(size, offset, length, expected):
    assert resolve_range(size, offset, length) == expected


def test_check_range():
    assert check_range("k", 3, None) == (3, None)
    assert check_range("k", True, 2) == (1, 2)  # bool is an int, as in slicing
    with pytest.raises(ValueError, match="'k'.*-1"):
        check_range("k", 0, -1)
    with pytest.raises(TypeError, match="'k'"):
        check_range("k", None, None)


def test_as_byte_view():
    import numpy as np

    a = np.arange(6, dtype="<u2").reshape(2, 3)
    view = as_byte_view("k", a)
    assert view.format == "B" and view.ndim == 1 and view.nbytes == 12
    assert view.obj is a or bytes(view) == a.tobytes()
    a[0, 0] = 7  # a contiguous array is not copied
    assert view[0] == 7
    with pytest.raises(TypeError, match="'k'.*str"):
        as_byte_view("k", "text")


def test_apply_writes():
    assert apply_writes(None, [(2, memoryview(b"ab"))]) == bytearray(b"\x00\x00ab")
    assert apply_writes(b"xyz", [(0, memoryview(b"A")), (0, memoryview(b"B"))]) == b"Byz"
