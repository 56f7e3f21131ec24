"""Outcomes the fault matrix left undefined, defined and tested.

- **A listing interrupted mid-pagination** (a later page failing: 503, a dropped
  connection, a cut body, no answer): a listing is the whole listing or a `StoreError`
  naming the prefix, never the pages that came; a burst of such failures is retried and
  gives every key. (Both backends collect every page before answering, and a failed page
  restarts the listing from its first page.)
- **A request the server did but never answered** (``"late"``: the PUT or DELETE reached
  the server, its answer was lost): tried again until the deadline, each try doing the
  same thing again (a PUT of the same bytes, a DELETE of a key already gone: no error),
  so the call ends well once an answer comes -- or, if none comes before the deadline,
  with a `StoreError` naming the key within the bound, the write or delete being done
  on the server all the same (an error after a delete says "it may have been done", as
  any failed write does: the caller cannot tell, so neither may we).
"""

from __future__ import annotations

import time
import uuid

import pytest

from zarrhpc.errors import StoreError
from zarrhpc.storage.remote import open_url

from .conftest import BUCKET

RETRY_TIMEOUT = 1.0
BOUND = RETRY_TIMEOUT + 3.0
N_KEYS = 1005  # more than one page (1,000 keys) of an S3 listing


def _store(url, options, backend, **settings):
    settings.setdefault("retry_timeout", RETRY_TIMEOUT)
    settings.setdefault("request_timeout", 5.0)
    return open_url(url, storage_options=dict(options, backend=backend, **settings))


@pytest.fixture(scope="module")
def paged(s3):
    """A root holding ``N_KEYS`` keys under ``many/`` (written past the proxy)."""
    url = f"s3://{BUCKET}/{uuid.uuid4().hex}"
    store = _store(url, s3.storage_options(), "obstore", retry_timeout=30)
    store.set_values([(f"many/k{i:05d}", b"x") for i in range(N_KEYS)])
    return url


def _second_page(kind, path):
    return kind == "LIST" and "continuation-token" in path


#: a listing of 1,005 keys takes s3fs ~0.5 s of Python on a quiet machine: its deadline
#: must leave room for a loaded one
LIST_TIMEOUT = 4.0


@pytest.mark.parametrize("fault", [503, "reset", "truncate", "stall"], ids=str)
@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_a_listing_cut_after_its_first_page_fails_whole(paged, s3_options, proxy, backend,
                                                        fault):
    store = _store(paged, s3_options, backend, retry_timeout=LIST_TIMEOUT,
                   request_timeout=LIST_TIMEOUT + 5)
    proxy.stall = LIST_TIMEOUT + 10
    proxy.reset()
    proxy.fail_next(10**9, fault, when=_second_page)
    t0 = time.monotonic()
    try:
        with pytest.raises(StoreError, match=f"{paged}/many"):
            list(store.list_prefix("many/"))
    finally:
        proxy.clear_faults()
    assert time.monotonic() - t0 < LIST_TIMEOUT + 3.0
    assert any(_second_page(kind, path) for kind, path, _ in proxy.log)  # page 2 was asked


@pytest.mark.parametrize("fault", [503, "reset", "truncate", "stall"], ids=str)
@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_a_listing_cut_after_its_first_page_is_retried_whole(paged, s3_options, proxy,
                                                             backend, fault):
    store = _store(paged, s3_options, backend, retry_timeout=60, request_timeout=LIST_TIMEOUT)
    proxy.stall = 2 * LIST_TIMEOUT
    proxy.reset()
    proxy.fail_next(2, fault, when=_second_page)
    try:
        keys = sorted(store.list_prefix("many/"))
    finally:
        proxy.clear_faults()
    assert keys == [f"many/k{i:05d}" for i in range(N_KEYS)]
    assert sum(_second_page(kind, path) for kind, path, _ in proxy.log) >= 3


PAYLOAD = bytes(range(256)) * 16


def _late_call(op, store):
    if op == "put":
        return lambda: store.set("obj", PAYLOAD)
    if op == "delete":
        return lambda: store.erase("obj")
    return lambda: store.erase_prefix("dir/")  # several keys: a multi-object delete


def _check_done(op, store):
    if op == "put":
        assert bytes(store.get("obj")) == PAYLOAD
    elif op == "delete":
        assert store.get("obj") is None
    else:
        assert list(store.list_prefix("dir/")) == []


def _prepare_late(op, url, options, backend):
    store = _store(url, options, backend, retry_timeout=30)
    if op != "put":
        store.set("obj", PAYLOAD)
        store.set_values([(f"dir/{i}", b"v") for i in range(3)])


_LATE_KINDS = {"put": ("PUT",), "delete": ("DELETE", "POST"), "erase_prefix": ("DELETE", "POST")}


@pytest.mark.parametrize("op", ["put", "delete", "erase_prefix"])
@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_done_but_never_answered_fails_within_the_bound_and_is_done(s3_url, s3_options, proxy,
                                                                    backend, op):
    _prepare_late(op, s3_url, s3_options, backend)
    store = _store(s3_url, s3_options, backend)
    proxy.stall = BOUND + 5
    proxy.reset()
    proxy.fail_next(10**9, "late", when=lambda kind, path: kind in _LATE_KINDS[op])
    t0 = time.monotonic()
    try:
        with pytest.raises(StoreError, match=s3_url):
            _late_call(op, store)()
    finally:
        proxy.clear_faults()
    assert time.monotonic() - t0 < BOUND
    assert proxy.total >= 1
    _check_done(op, _store(s3_url, s3_options, backend))


@pytest.mark.parametrize("op", ["put", "delete", "erase_prefix"])
@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
def test_done_but_answered_late_is_retried_and_ends_well(s3_url, s3_options, proxy, backend,
                                                         op):
    _prepare_late(op, s3_url, s3_options, backend)
    store = _store(s3_url, s3_options, backend, retry_timeout=30, request_timeout=1.0)
    proxy.stall = 5.0
    proxy.reset()
    proxy.fail_next(2, "late", when=lambda kind, path: kind in _LATE_KINDS[op])
    try:
        _late_call(op, store)()  # no error: the repeated PUT / DELETE is harmless
    finally:
        proxy.clear_faults()
    _check_done(op, _store(s3_url, s3_options, backend))
