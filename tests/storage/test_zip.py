"""ZipStore: the shared conformance suite plus what is particular to a zip file."""

from __future__ import annotations

import pytest

from zarrhpc.storage import ZipStore
from zarrhpc.testing.store import StoreTests


class TestZipStore(StoreTests):
    def make_store(self, tmp_path):
        return ZipStore(tmp_path / "store.zip", mode="w")
