"""StoreTests: the conformance tests every zarrhpc store must pass.

Each store's test module is a small subclass that says how to make an empty, writable
store; everything else is inherited::

    from zarrhpc.storage import LocalStore
    from zarrhpc.testing.store import StoreTests

    class TestLocalStore(StoreTests):
        def make_store(self, tmp_path):
            return LocalStore(tmp_path / "store")

The ``store`` fixture calls `StoreTests.make_store` once per test and closes the store
afterwards. The tests use only the public `zarrhpc.storage.Store` interface and check the
semantics written down in :mod:`zarrhpc.storage.abc`: round trips (empty, small, and
larger than the store's ``mmap_threshold`` if it has one), missing keys, partial reads
and writes, the erase operations, the three listings, read-only refusal (through
`Store.with_read_only`; skipped when a store does not support it), invalid keys and
prefixes, every kind of bytes-like value, closing, and concurrent writers from threads
(no torn values, no lost keys).

Stores with hierarchical storage (a file system) cannot hold a key that is also a
prefix (``a`` and ``a/b``); the tests never ask for that.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np
import pytest

from zarrhpc.errors import InvalidKeyError, ReadOnlyError, StoreError, UnsupportedError
from zarrhpc.storage.abc import Store

__all__ = ["StoreTests", "INVALID_KEYS", "INVALID_PREFIXES", "expected_range"]

#: Keys every store must refuse with `InvalidKeyError`.
INVALID_KEYS = [
    "",
    "/a",
    "a/",
    "a//b",
    ".",
    "..",
    "../a",
    "a/..",
    "a/../b",
    "./a",
    "a/./b",
    "a\\b",
    "a\x00b",
    "/",
]

#: Prefixes every store must refuse with `InvalidKeyError` ("" and "a", "a/" are valid).
INVALID_PREFIXES = ["/", "/a/", "a//", "a//b/", "../", "a/../", "./", "a\\b/"]

#: Keys that look like Zarr v2 and v3 metadata and chunk keys.
SAMPLE_KEYS = ["zarr.json", "c/0", "a/b/c/0.0", ".zattrs", "a/.zarray", "x/c/1/2/3", "é/ü"]


def expected_range(data: bytes, offset: int, length: int | None) -> bytes:
    """The bytes a partial read of ``data`` must return (the model of the semantics).

    Parameters
    ----------
    data : bytes
        The whole stored value.
    offset : int
        First byte, or negative for a suffix of ``-offset`` bytes.
    length : int or None
        Byte count, or ``None`` for "to the end".

    Returns
    -------
    bytes
    """
    start = max(len(data) + offset, 0) if offset < 0 else offset
    return data[start:] if length is None else data[start : start + length]


def _bytes(value: Any) -> bytes:
    assert value is not None, "expected a value, got None"
    return memoryview(value).tobytes()


class StoreTests:
    """Conformance tests for a `zarrhpc.storage.Store` implementation (pytest style).

    Subclasses implement `make_store`. Class attributes a subclass may override:

    Attributes
    ----------
    concurrent_threads : int
        Threads used by the concurrency tests.
    replaced_error : str or None
        For stores whose readers cannot keep the version they opened (remote stores): a
        regex of the `StoreError` a reader raises when its object was replaced, instead of
        mixing two versions. None: the reader reads the old or the new value.
    """

    concurrent_threads: int = 8
    replaced_error: str | None = None

    def make_store(self, tmp_path: Any) -> Store:
        """Return a new, empty, writable store (``tmp_path`` is pytest's per-test dir)."""
        raise NotImplementedError("StoreTests subclasses must implement make_store")

    @pytest.fixture
    def store(self, tmp_path: Any) -> Any:
        store = self.make_store(tmp_path)
        yield store
        store.close()

    @pytest.fixture
    def large_size(self, store: Store) -> int:
        """A value size above the store's mmap threshold (or 1 MiB), not a round number."""
        threshold = getattr(store, "mmap_threshold", 1 << 20)
        return int(threshold) + 12345

    @staticmethod
    def random_bytes(size: int, seed: int = 0) -> bytes:
        """``size`` reproducible pseudo-random bytes."""
        return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()

    def read_only_view(self, store: Store) -> Store:
        """A read-only view of ``store``'s data; skips the test if unsupported."""
        try:
            return store.with_read_only(True)
        except UnsupportedError:
            pytest.skip(f"{type(store).__name__} does not implement with_read_only")

    # -- basics ------------------------------------------------------------------------

    def test_is_store(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert store.read_only is False
        assert store.closed is False
        assert isinstance(repr(store), str) and type(store).__name__ in repr(store)
        assert store == store

    def test_read_only_is_not_settable(self, store: Store) -> None:
        with pytest.raises(AttributeError):
            store.read_only = True  # type: ignore[misc]

    def test_empty_store(self, store: Store) -> None:
        assert list(store.list()) == []
        assert list(store.list_prefix("")) == []
        assert list(store.list_prefix("a/")) == []
        assert store.list_dir("") == []
        assert store.list_dir("a") == []
        assert store.get("zarr.json") is None
        assert store.exists("zarr.json") is False

    def test_close_and_context_manager(self, store: Store) -> None:
        store.set("k", b"v")
        with store as entered:
            assert entered is store
        assert store.closed
        store.close()  # closing twice is fine
        with pytest.raises(StoreError, match="closed"):
            store.get("k")
        with pytest.raises(StoreError, match="closed"):
            store.set("k", b"w")
        with pytest.raises(StoreError, match="closed"):
            list(store.list())

    # -- get / set ---------------------------------------------------------------------

    @pytest.mark.parametrize("key", SAMPLE_KEYS)
    @pytest.mark.parametrize("data", [b"", b"\x00", b"\x01\x02\x03\x04", bytes(range(256)) * 5])
    def test_set_get(self, store: Store, key: str, data: bytes) -> None:
        assert store.get(key) is None
        store.set(key, data)
        assert _bytes(store.get(key)) == data
        assert store.exists(key)
        assert set(store.list()) == {key}

    def test_set_get_large(self, store: Store, large_size: int) -> None:
        data = self.random_bytes(large_size)
        store.set("c/0/0", data)
        value = store.get("c/0/0")
        assert _bytes(value) == data
        assert memoryview(value).nbytes == large_size
        del value

    def test_overwrite(self, store: Store, large_size: int) -> None:
        store.set("k", b"first value, long")
        store.set("k", b"second")
        assert _bytes(store.get("k")) == b"second"
        big = self.random_bytes(large_size, seed=1)
        store.set("k", big)
        assert _bytes(store.get("k")) == big
        store.set("k", b"")
        assert _bytes(store.get("k")) == b""
        assert list(store.list()) == ["k"]

    @pytest.mark.parametrize(
        "value",
        [
            pytest.param(b"abc", id="bytes"),
            pytest.param(bytearray(b"abc"), id="bytearray"),
            pytest.param(memoryview(b"xabcx")[1:4], id="memoryview-slice"),
            pytest.param(np.arange(10, dtype=np.uint8), id="numpy-uint8"),
            pytest.param(np.arange(12, dtype=">f8").reshape(3, 4), id="numpy-f8-2d"),
            pytest.param(np.arange(24, dtype="<i4").reshape(4, 6)[:, ::2], id="numpy-strided"),
            pytest.param(np.asfortranarray(np.arange(6, dtype="u2").reshape(2, 3)), id="fortran"),
            pytest.param(np.zeros(3, dtype=[("a", "<i4"), ("b", ">f2")]), id="numpy-structured"),
            pytest.param(np.zeros((0, 4), dtype="f4"), id="numpy-empty"),
        ],
    )
    def test_value_types(self, store: Store, value: Any) -> None:
        # Non-contiguous buffers are stored in C order, like numpy's tobytes().
        expected = value.tobytes() if isinstance(value, np.ndarray) else bytes(value)
        store.set("v", value)
        assert _bytes(store.get("v")) == expected

    def test_set_copies_the_value(self, store: Store) -> None:
        value = bytearray(b"original")
        store.set("k", value)
        value[:] = b"mutated!"
        assert _bytes(store.get("k")) == b"original"

    @pytest.mark.parametrize("value", ["text", 123, None, [1, 2], 1.5])
    def test_set_refuses_non_buffers(self, store: Store, value: Any) -> None:
        with pytest.raises(TypeError, match=re.escape("'k'")):
            store.set("k", value)
        assert store.get("k") is None

    def test_missing_keys(self, store: Store) -> None:
        store.set("a/b", b"x")
        for key in ["a", "a/c", "a/b/c", "b", "A/b"]:
            assert store.get(key) is None, key
            assert store.exists(key) is False, key
        assert store.get_partial_values([("a", 0, None), ("a/c", -1, None)]) == [None, None]

    def test_keys_are_case_sensitive(self, store: Store) -> None:
        store.set("foo", b"a")
        store.set("FOO", b"b")
        if set(store.list()) != {"foo", "FOO"}:
            pytest.skip("case-insensitive backing storage")
        assert _bytes(store.get("foo")) == b"a"
        assert _bytes(store.get("FOO")) == b"b"

    # -- partial reads -----------------------------------------------------------------

    RANGES = [
        (0, None),
        (0, 0),
        (0, 1),
        (10, 5),
        (10, None),
        (99, None),
        (99, 5),
        (100, None),
        (100, 3),
        (150, 5),
        (-1, None),
        (-10, None),
        (-10, 3),
        (-10, 20),
        (-100, None),
        (-200, None),
        (-200, 5),
    ]

    @pytest.mark.parametrize(("offset", "length"), RANGES)
    def test_get_partial_values_ranges(
        self, store: Store, offset: int, length: int | None
    ) -> None:
        data = bytes(range(100))
        store.set("a/k", data)
        (value,) = store.get_partial_values([("a/k", offset, length)])
        assert _bytes(value) == expected_range(data, offset, length)

    def test_get_partial_values_many(self, store: Store) -> None:
        values = {"c/0": b"0123456789", "c/1": b"abcdef", "zarr.json": b"{}"}
        for key, value in values.items():
            store.set(key, value)
        requests = [
            ("c/0", 2, 3),
            ("missing", 0, None),
            ("c/1", -2, None),
            ("c/0", 0, None),
            ("zarr.json", 0, 1),
            ("c/0", -3, 1),
            ("c/1", 10, None),
        ]
        # A one-shot generator must work (and yield one result per request).
        result = store.get_partial_values(r for r in requests)
        assert len(result) == len(requests)
        for (key, offset, length), got in zip(requests, result):
            if key not in values:
                assert got is None
            else:
                assert _bytes(got) == expected_range(values[key], offset, length)
        assert store.get_partial_values([]) == []

    def test_get_values(self, store: Store) -> None:
        store.set("a/x", b"one")
        store.set("b", b"")
        keys = ["a/x", "missing", "b", "a/x"]
        got = store.get_values(k for k in keys)  # a one-shot generator works
        assert [None if v is None else _bytes(v) for v in got] == [b"one", None, b"", b"one"]
        assert store.get_values([]) == []
        with pytest.raises(InvalidKeyError):
            store.get_values(["a/x", "../up"])

    def test_getsize(self, store: Store, large_size: int) -> None:
        store.set("a/b", b"12345")
        store.set("big", self.random_bytes(large_size))
        store.set("e", b"")
        assert store.getsize("a/b") == 5
        assert store.getsize("big") == large_size
        assert store.getsize("e") == 0
        assert store.getsize("missing") is None
        assert store.getsize("a") is None  # a prefix holds no value

    def test_open_reader(self, store: Store, large_size: int) -> None:
        data = self.random_bytes(large_size)
        store.set("k", data)
        assert store.open_reader("missing") is None
        with store.open_reader("k") as reader:
            assert reader.size == large_size
            assert _bytes(reader.read(3, 10)) == data[3:13]
            assert _bytes(reader.read(-7, None)) == data[-7:]
            assert _bytes(reader.read(large_size - 2, 10)) == data[-2:]
            assert _bytes(reader.read(large_size + 5, 10)) == b""
            store.set("k", b"new")  # the reader keeps what it opened, or reads the new value
            if self.replaced_error is None:
                assert _bytes(reader.read(0, 3)) in (data[:3], b"new")
            else:  # ... or refuses, but never mixes the two
                with pytest.raises(StoreError, match=self.replaced_error):
                    reader.read(0, 3)
        with store.open_reader("k") as reader:  # reopened: the new value
            assert reader.size == 3 and _bytes(reader.read(0, 3)) == b"new"

    def test_get_partial_values_empty_value(self, store: Store) -> None:
        store.set("e", b"")
        assert [_bytes(v) for v in store.get_partial_values([("e", 0, None), ("e", -4, 2)])] == [
            b"",
            b"",
        ]

    def test_get_partial_values_large(self, store: Store, large_size: int) -> None:
        data = self.random_bytes(large_size, seed=2)
        store.set("shard", data)
        ranges = [(0, 100), (large_size // 2, 4096), (-16, None), (large_size - 10, 100)]
        got = store.get_partial_values([("shard", o, n) for o, n in ranges])
        assert [_bytes(g) for g in got] == [expected_range(data, o, n) for o, n in ranges]

    @pytest.mark.parametrize(
        ("offset", "length", "error"),
        [(0, -1, ValueError), ("0", None, TypeError), (1.5, None, TypeError), (0, 2.0, TypeError)],
    )
    def test_get_partial_values_bad_ranges(
        self, store: Store, offset: Any, length: Any, error: type
    ) -> None:
        store.set("k", b"abc")
        with pytest.raises(error, match=re.escape("'k'")):
            store.get_partial_values([("k", offset, length)])

    # -- partial writes ----------------------------------------------------------------

    def test_set_partial_values(self, store: Store) -> None:
        store.set("a/k", b"0123456789")
        store.set_partial_values([("a/k", 0, b"AB"), ("a/k", 5, bytearray(b"xy"))])
        assert _bytes(store.get("a/k")) == b"AB234xy789"
        store.set_partial_values([("a/k", 8, b"WXYZ")])  # grows the value
        assert _bytes(store.get("a/k")) == b"AB234xy7WXYZ"
        store.set_partial_values([("a/k", 14, b"!")])  # a gap is zero-filled
        assert _bytes(store.get("a/k")) == b"AB234xy7WXYZ\x00\x00!"
        store.set_partial_values([])

    def test_set_partial_values_several_keys(self, store: Store) -> None:
        store.set("x", b"aaaa")
        store.set_partial_values(
            [("x", 1, b"B"), ("new/key", 2, np.array([1, 2], dtype=np.uint8)), ("x", 3, b"D")]
        )
        assert _bytes(store.get("x")) == b"aBaD"
        assert _bytes(store.get("new/key")) == b"\x00\x00\x01\x02"

    def test_set_partial_values_large(self, store: Store, large_size: int) -> None:
        data = bytearray(self.random_bytes(large_size, seed=3))
        store.set("big", data)
        store.set_partial_values([("big", 1000, b"\xff" * 10), ("big", large_size, b"tail")])
        data[1000:1010] = b"\xff" * 10
        data += b"tail"
        assert _bytes(store.get("big")) == bytes(data)

    def test_set_partial_values_bad_offset(self, store: Store) -> None:
        store.set("k", b"abc")
        with pytest.raises(ValueError, match=re.escape("'k'")):
            store.set_partial_values([("k", -1, b"x")])
        with pytest.raises(TypeError, match=re.escape("'k'")):
            store.set_partial_values([("k", "1", b"x")])
        with pytest.raises(TypeError, match=re.escape("'k'")):
            store.set_partial_values([("k", 0, "text")])
        assert _bytes(store.get("k")) == b"abc"

    # -- erase -------------------------------------------------------------------------

    def test_erase(self, store: Store) -> None:
        store.set("a/b/c", b"1")
        store.set("a/d", b"2")
        store.erase("a/b/c")
        assert store.get("a/b/c") is None
        assert set(store.list()) == {"a/d"}
        store.erase("a/b/c")  # missing: no error
        store.erase("never/was")
        store.erase("a/d")
        assert list(store.list()) == []
        assert store.list_dir("") == []

    def test_erase_values(self, store: Store) -> None:
        for key in ["k1", "k2", "d/k3", "d/k4"]:
            store.set(key, key.encode())
        store.erase_values(["k1", "d/k3", "missing"])
        assert set(store.list()) == {"k2", "d/k4"}
        store.erase_values(k for k in ["k2"])
        store.erase_values([])
        assert set(store.list()) == {"d/k4"}

    @pytest.mark.parametrize("prefix", ["a/", "a"])
    def test_erase_prefix(self, store: Store, prefix: str) -> None:
        keys = ["a/b", "a/c/d", "a/c/e/f", "ab/x", "e/f", "zarr.json"]
        for key in keys:
            store.set(key, b"v")
        store.erase_prefix(prefix)
        assert set(store.list()) == {"ab/x", "e/f", "zarr.json"}
        assert store.list_dir("") == ["ab", "e", "zarr.json"]
        store.erase_prefix("nothing/here/")
        store.erase_prefix("e/f/")  # "e/f" is a value, not a prefix: nothing below it
        assert set(store.list()) == {"ab/x", "e/f", "zarr.json"}
        store.erase_prefix("")
        assert list(store.list()) == []
        assert store.list_dir("") == []

    # -- listing -----------------------------------------------------------------------

    def test_list(self, store: Store) -> None:
        keys = {"zarr.json", "a/zarr.json", "a/c/0/0", "a/c/0/1", "b/.zarray", "b/0.0"}
        for key in keys:
            store.set(key, b"x")
        listed = list(store.list())
        assert len(listed) == len(keys)
        assert set(listed) == keys

    def test_list_iterator_can_be_abandoned(self, store: Store) -> None:
        for i in range(5):
            store.set(f"d{i}/k", b"x")
        it = iter(store.list())
        next(it)
        del it  # no warning about an unclosed resource (warnings are errors)
        it = iter(store.list_prefix("d1/"))
        assert next(it) == "d1/k"
        del it

    def test_list_prefix(self, store: Store) -> None:
        keys = ["a/b", "a/c/d", "a/c/e/f", "ab/x", "e/f/g", "zarr.json"]
        for key in keys:
            store.set(key, b"x")
        assert set(store.list_prefix("a/")) == {"a/b", "a/c/d", "a/c/e/f"}
        assert set(store.list_prefix("a")) == {"a/b", "a/c/d", "a/c/e/f"}
        assert set(store.list_prefix("a/c/")) == {"a/c/d", "a/c/e/f"}
        assert set(store.list_prefix("a/c/e/")) == {"a/c/e/f"}
        assert set(store.list_prefix("")) == set(keys)
        assert list(store.list_prefix("nope/")) == []
        assert list(store.list_prefix("a/b/")) == []  # a value, not a prefix

    def test_list_dir(self, store: Store) -> None:
        # The example of the specification, plus a deeper level.
        for key in ["a/b", "a/c", "a/d/e", "a/f/g", "a/f/h/i", "z"]:
            store.set(key, b"x")
        assert store.list_dir("a/") == ["b", "c", "d", "f"]
        assert store.list_dir("a") == ["b", "c", "d", "f"]
        assert store.list_dir("b/") == []
        assert store.list_dir("") == ["a", "z"]
        assert store.list_dir() == ["a", "z"]
        assert store.list_dir("a/f/") == ["g", "h"]
        assert store.list_dir("a/f/h") == ["i"]
        assert store.list_dir("a/b/") == []  # a value, not a prefix

    def test_list_dir_is_sorted(self, store: Store) -> None:
        names = ["c", "a", "b10", "b2", "B", ".zattrs", "zarr.json"]
        for name in names:
            store.set(f"p/{name}", b"x")
        assert store.list_dir("p") == sorted(names)

    def test_listings_after_erase(self, store: Store) -> None:
        store.set("x/y/z", b"1")
        store.set("x/w", b"2")
        store.erase("x/y/z")
        assert store.list_dir("x") == ["w"]
        assert store.list_dir("x/y") == []
        store.erase("x/w")
        assert store.list_dir("") == []
        assert list(store.list_prefix("x/")) == []

    # -- invalid keys and prefixes -----------------------------------------------------

    @pytest.mark.parametrize("key", INVALID_KEYS)
    def test_invalid_keys_refused(self, store: Store, key: str) -> None:
        message = re.escape(repr(key))
        calls = [
            lambda: store.get(key),
            lambda: store.exists(key),
            lambda: store.set(key, b"x"),
            lambda: store.erase(key),
            lambda: store.erase_values(["ok", key]),
            lambda: store.get_partial_values([("ok", 0, None), (key, 0, None)]),
            lambda: store.set_partial_values([(key, 0, b"x")]),
        ]
        for call in calls:
            with pytest.raises(InvalidKeyError, match=message):
                call()
        assert list(store.list()) == []

    @pytest.mark.parametrize("key", [1, b"a", None, ("a",)])
    def test_non_str_keys_refused(self, store: Store, key: Any) -> None:
        with pytest.raises(InvalidKeyError):
            store.get(key)
        with pytest.raises(InvalidKeyError):
            store.set(key, b"x")
        with pytest.raises(InvalidKeyError):
            store.list_dir(key)

    @pytest.mark.parametrize("prefix", INVALID_PREFIXES)
    def test_invalid_prefixes_refused(self, store: Store, prefix: str) -> None:
        message = re.escape(repr(prefix))
        with pytest.raises(InvalidKeyError, match=message):
            store.list_prefix(prefix)
        with pytest.raises(InvalidKeyError, match=message):
            store.list_dir(prefix)
        with pytest.raises(InvalidKeyError, match=message):
            store.erase_prefix(prefix)

    # -- read-only ---------------------------------------------------------------------

    def test_read_only_refuses_writes(self, store: Store) -> None:
        store.set("a/k", b"value")
        reader = self.read_only_view(store)
        try:
            assert reader.read_only
            assert _bytes(reader.get("a/k")) == b"value"
            assert [_bytes(v) for v in reader.get_partial_values([("a/k", 1, 2)])] == [b"al"]
            assert set(reader.list()) == {"a/k"}
            assert reader.list_dir("a") == ["k"]
            writes = [
                ("a/k", lambda: reader.set("a/k", b"new")),
                ("new/key", lambda: reader.set("new/key", b"new")),
                ("a/k", lambda: reader.set_partial_values([("a/k", 0, b"N")])),
                ("a/k", lambda: reader.erase("a/k")),
                ("missing", lambda: reader.erase("missing")),
                ("a/k", lambda: reader.erase_values(["a/k"])),
                ("a/", lambda: reader.erase_prefix("a")),
                ("", lambda: reader.erase_prefix("")),
            ]
            for key, write in writes:
                with pytest.raises(ReadOnlyError, match=re.escape(repr(key))):
                    write()
            assert _bytes(store.get("a/k")) == b"value"
            assert set(store.list()) == {"a/k"}
            # The writable view sees the same data and can still write.
            writer = reader.with_read_only(False)
            try:
                assert not writer.read_only
                writer.set("a/k", b"changed")
                assert _bytes(reader.get("a/k")) == b"changed"
            finally:
                writer.close()
        finally:
            reader.close()

    # -- threads -----------------------------------------------------------------------

    def _run_threads(self, targets: list[Any]) -> None:
        errors: list[BaseException] = []
        barrier = threading.Barrier(len(targets))

        def wrap(target: Any) -> None:
            try:
                barrier.wait()
                target()
            except BaseException as exc:  # re-raised in the main thread
                errors.append(exc)

        threads = [threading.Thread(target=wrap, args=(t,)) for t in targets]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def test_concurrent_writers_same_key(self, store: Store, large_size: int) -> None:
        n = self.concurrent_threads
        values = [bytes([i + 1]) * (large_size + i) for i in range(n)]

        def writer(i: int) -> Any:
            def run() -> None:
                for _ in range(3):
                    store.set("c/0", values[i])
            return run

        def reader() -> None:
            for _ in range(20):
                value = store.get("c/0")
                if value is not None:
                    data = _bytes(value)
                    del value
                    first = data[0]
                    # Complete and untorn: exactly one writer's value.
                    assert data == values[first - 1], "torn or partial value"

        self._run_threads([writer(i) for i in range(n)] + [reader, reader])
        final = _bytes(store.get("c/0"))
        assert final in values
        assert list(store.list()) == ["c/0"]

    def test_concurrent_writers_distinct_keys(self, store: Store) -> None:
        n = self.concurrent_threads

        def writer(i: int) -> Any:
            def run() -> None:
                for j in range(10):
                    store.set(f"g/c/{i}/{j}", f"{i}.{j}".encode())
            return run

        self._run_threads([writer(i) for i in range(n)])
        keys = set(store.list_prefix("g/"))
        assert keys == {f"g/c/{i}/{j}" for i in range(n) for j in range(10)}
        assert store.list_dir("g/c") == sorted(str(i) for i in range(n))

    def test_concurrent_set_and_erase_in_one_prefix(self, store: Store) -> None:
        # Erasing the last key of a prefix must not break a writer creating a sibling.
        def eraser() -> None:
            for _ in range(50):
                store.set("p/q/x", b"x")
                store.erase("p/q/x")

        def writer() -> None:
            for i in range(50):
                store.set("p/q/y", str(i).encode())
                assert store.get("p/q/y") is not None

        self._run_threads([eraser, writer, eraser, writer])
        assert set(store.list()) == {"p/q/y"}
