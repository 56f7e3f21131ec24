"""Fixtures shared by the native selection-write tests."""

import pytest

from zarrhpc.core import _select


@pytest.fixture
def python_writes(monkeypatch):
    """The chunks (inner chunks, for shards) the Python path wrote: it must write none
    when the engine applies."""
    seen = []
    real = _select._update_chunks

    def spy(prep, coords, apply):
        seen.extend(map(tuple, coords))
        return real(prep, coords, apply)

    monkeypatch.setattr(_select, "_update_chunks", spy)
    return seen
