"""Fixtures of the remote-store tests: one moto S3 server and one counting proxy per session.

Everything runs on 127.0.0.1 (zarrhpc.testing.servers). Each test gets a fresh root
prefix in the shared bucket, and the proxy's counts and faults are reset around it.
"""

from __future__ import annotations

import uuid

import pytest

pytest.importorskip("moto.server")

from zarrhpc.testing.servers import CountingProxy, S3Server

BUCKET = "zarrhpc-tests"


@pytest.fixture(scope="session")
def s3():
    with S3Server() as server:
        server.create_bucket(BUCKET)
        yield server


@pytest.fixture(scope="session")
def _session_proxy(s3):
    with CountingProxy(s3.endpoint) as proxy:
        yield proxy


@pytest.fixture
def proxy(_session_proxy):
    """The counting proxy in front of the S3 server, reset (no counts, faults or delay)."""
    _session_proxy.reset()
    _session_proxy.clear_faults()
    _session_proxy.delay = 0.0
    yield _session_proxy
    _session_proxy.clear_faults()
    _session_proxy.delay = 0.0


@pytest.fixture
def s3_url():
    """A fresh, empty root in the test bucket."""
    return f"s3://{BUCKET}/{uuid.uuid4().hex}"


@pytest.fixture
def s3_options(s3, proxy):
    """storage_options (zarr-python's spelling) reaching the server through the proxy."""
    return s3.storage_options(proxy.endpoint)
