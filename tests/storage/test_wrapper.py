"""WrapperStore and LoggingStore (zarr-python's names): the shared conformance suite run
through each wrapper (around a LocalStore, so ranged reads and listings go through the
wrapped store's own hooks), plus what is particular to logging."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ReadOnlyError
from zarrhpc.storage import LocalStore, LoggingStore, MemoryStore, WrapperStore
from zarrhpc.testing.store import StoreTests


class TestWrapperStore(StoreTests):
    def make_store(self, tmp_path):
        return WrapperStore(LocalStore(tmp_path / "wrapped"))


class TestLoggingStore(StoreTests):
    def make_store(self, tmp_path):
        return LoggingStore(LocalStore(tmp_path / "logged"), log_handler=logging.NullHandler())


def test_wrapper_writes_reach_the_wrapped_store():
    inner = MemoryStore()
    a = zarrhpc.create_array(WrapperStore(inner), shape=(5,), chunks=(2,), dtype="i2")
    a[:] = np.arange(5)
    assert sorted(inner._store_dict) == ["c/0", "c/1", "c/2", "zarr.json"]
    np.testing.assert_array_equal(zarrhpc.open_array(inner, mode="r")[:], np.arange(5))


def test_wrapper_is_read_only_with_its_store():
    inner = MemoryStore()
    inner.set("k", b"v")
    ro = WrapperStore(inner).with_read_only(True)
    assert ro.read_only and type(ro) is WrapperStore
    with pytest.raises(ReadOnlyError):
        ro.set("k", b"w")
    assert bytes(WrapperStore(inner.with_read_only(True)).get("k")) == b"v"
    with pytest.raises(TypeError):
        WrapperStore({})


def test_logging_store_logs_and_counts(caplog):
    # the logger has a handler above it here (pytest's), so none is added: as zarr-python
    store = LoggingStore(MemoryStore())
    with caplog.at_level(logging.INFO, logger=store.logger.name):
        a = zarrhpc.create_array(store, shape=(4,), chunks=(2,), dtype="u1")
        a[:] = [1, 2, 3, 4]
        assert a[1:3].tolist() == [2, 3]
        with store.log("hint"):
            pass
    assert store.counter["set"] == 3  # zarr.json, c/0, c/1
    log = caplog.text
    assert " Calling MemoryStore.set(c/0)" in log and "Finished MemoryStore.set(c/0) [" in log
    assert "test_logging_store_logs_and_counts(hint)" in log


def test_logging_store_default_handler_is_stdout(capsys):
    store = LoggingStore(MemoryStore(), log_level="INFO")
    store.logger.propagate = False  # as in a script without logging configured
    for h in list(store.logger.handlers):
        store.logger.removeHandler(h)
    store = LoggingStore(store._store, log_level="INFO")
    store.set("k", b"v")
    assert "Calling MemoryStore.set(k)" in capsys.readouterr().out


def test_wrappers_pickle_with_their_store():
    inner = MemoryStore()
    zarrhpc.create_array(inner, shape=(2,), dtype="i1")[:] = [7, 8]
    for store in (WrapperStore(inner), LoggingStore(inner, log_level="INFO",
                                                    log_handler=logging.NullHandler())):
        back = pickle.loads(pickle.dumps(store))
        assert type(back) is type(store)
        assert zarrhpc.open_array(back, mode="r")[:].tolist() == [7, 8]
