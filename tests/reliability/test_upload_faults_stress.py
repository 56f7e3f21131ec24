"""Random write programs on S3 (moto, loopback) with failing PUTs, DELETEs and GETs
(zarrhpc.testing.differential_faults): a write that returns stored everything; a write
that fails raises a ZarrhpcError and leaves each chunk whole (its old or new version),
the stored shape old or new, and the writing handle's shape equal to the stored one.

Short in ``make test``; long: ``ZARRHPC_LONG=1``."""

import os
import uuid
import warnings

import pytest

pytest.importorskip("moto.server")

from zarrhpc.testing.differential_faults import run_program  # noqa: E402
from zarrhpc.testing.servers import CountingProxy, S3Server  # noqa: E402

BUCKET = "hunt-faults"
N = 150 if os.environ.get("ZARRHPC_LONG", "") not in ("", "0") else 2


@pytest.fixture(scope="module")
def proxied():
    with S3Server() as s3:
        s3.create_bucket(BUCKET)
        with CountingProxy(s3.endpoint) as proxy:
            yield s3, proxy


@pytest.mark.parametrize("backend", ["obstore", "fsspec"])
@pytest.mark.parametrize("seed", range(N))
def test_write_programs_with_failing_requests(proxied, backend, seed):
    s3, proxy = proxied
    options = dict(s3.storage_options(proxy.endpoint), backend=backend,
                   retry_timeout=2.0)  # the deadline of every request, healthy ones too
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            counts = run_program(f"s3://{BUCKET}/{uuid.uuid4().hex}", options, proxy, seed,
                                 persistent_drops=backend == "obstore")
    finally:
        proxy._faults.clear()
    assert counts["ops"] == 10
