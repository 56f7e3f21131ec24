"""Long-lived handles, two worlds: the same program through zarr-python handles on one
store and zarrhpc handles on another (zarrhpc.testing.differential_handles), every read
compared between the worlds and with numpy, the stored chunk keys compared at the end.

Short in `make test`; long: ZARRHPC_LONG=1 (or ZARRHPC_DIFF_EXAMPLES=N).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zarrhpc.testing.differential_handles import programs, run_program

pytest.importorskip("zarr")

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning:numpy.*")]

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
EXAMPLES = int(os.environ.get("ZARRHPC_DIFF_EXAMPLES", "1000" if LONG else "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_handle_programs_agree(tmp_path_factory, data):
    prog = data.draw(programs(), label="program")
    run_program(prog, str(tmp_path_factory.mktemp("handles")))


@settings(SETTINGS, max_examples=max(EXAMPLES // 3, 10))
@given(data=st.data())
def test_many_chunk_handle_programs_agree(tmp_path_factory, data):
    prog = data.draw(programs(big=True), label="program")
    run_program(prog, str(tmp_path_factory.mktemp("handles")))


@pytest.fixture(scope="module")
def s3():
    pytest.importorskip("moto.server")
    from zarrhpc.testing.servers import S3Server

    with S3Server() as server:
        server.create_bucket("zarrhpc-hunt-handles")
        yield "zarrhpc-hunt-handles", server.storage_options(server.endpoint)


@settings(SETTINGS, max_examples=max(EXAMPLES // 3, 10))
@given(data=st.data())
def test_handle_programs_on_s3_agree(tmp_path_factory, s3, data):
    """Every handle its own remote store object on one URL (each with its tail cache)."""
    prog = data.draw(programs(kinds=("s3",)), label="program")
    run_program(prog, str(tmp_path_factory.mktemp("handles")), s3=s3)


@settings(SETTINGS, max_examples=max(EXAMPLES // 3, 10))
@given(data=st.data())
def test_handle_programs_on_a_cache_store_agree(tmp_path_factory, data):
    """Every handle on one small CacheStore over a directory (odd handles through a
    view sharing its cache): what the cache serves must be what the writes left."""
    prog = data.draw(programs(kinds=("cache",)), label="program")
    run_program(prog, str(tmp_path_factory.mktemp("handles")))
