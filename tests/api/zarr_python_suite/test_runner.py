"""The runner of zarr-python's suite (upstream.py, zp_conftest.py) on a small test
module of our own written in zarr-python's style: ``import zarr`` in the test files is
zarrhpc, zarr-python's internals (and awaited store methods: zarrhpc's Store API is
synchronous) become skips naming them, async tests run, and the outcomes are counted. (The real suite needs a zarr-python checkout; see README.md.)"""

import json
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("zarr")

HERE = pathlib.Path(__file__).parent

TEST_MODULE = '''
import numpy as np
import pytest

import zarr
import zarr.api.synchronous
from zarr.core.buffer import default_buffer_prototype
from zarr.core.sync import sync
from zarr.storage import MemoryStore


def test_public_api_is_zarrhpc(store):
    arr = zarr.api.synchronous.create_array(store, shape=(4,), dtype="i4")
    arr[:] = np.arange(4)
    assert type(arr).__module__.startswith("zarrhpc")
    assert arr[:].tolist() == [0, 1, 2, 3]


test_public_api_is_zarrhpc = pytest.mark.parametrize(
    "store", ["memory", "local", "zip"], indirect=True)(test_public_api_is_zarrhpc)


def test_internal_name():
    default_buffer_prototype()


def test_sync_runs_coroutines():
    arr = zarr.zeros((2,)).async_array
    assert sync(arr.getitem(0)) == 0
    assert sync(None) is None  # a synchronous store method's result passes through


def test_private_attribute():
    zarr.zeros((2,))._iter_chunk_coords


def test_plain_failure():
    assert zarr.zeros((2,)).shape == (3,)


async def test_async():
    arr = await zarr.api.asynchronous.create_array({}, shape=(2,), dtype="i1")
    assert type(arr).__name__ == "AsyncArray"
    assert (await arr.getitem(...)).tolist() == [0, 0]


async def test_awaited_store():
    await MemoryStore().get("x")
'''

DRIVER = '''
import json, pathlib, sys
sys.path.insert(0, sys.argv[1])
import upstream
outcomes = upstream.run(pathlib.Path(sys.argv[2]), "zarrhpc", ["tests/test_mine.py"])
print(json.dumps(outcomes))
'''


def test_runner_sorts_outcomes(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    shutil.copy(HERE / "zp_conftest.py", tests / "conftest.py")
    (tests / "_zp_conftest.py").write_text(textwrap.dedent('''
        deep_nan_equal = meta_from_array = nan_equal = parse_store = skip_object_dtype = None
    '''))
    (tests / "test_mine.py").write_text(TEST_MODULE)
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n"
                                         "asyncio_default_fixture_loop_scope = function\n")
    out = subprocess.run([sys.executable, "-c", DRIVER, str(HERE), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    outcomes = json.loads(out.stdout.strip().splitlines()[-1])
    got = {k.split("::")[1]: (o, d.splitlines()[0] if d else "")
           for k, (o, d) in outcomes.items()}
    assert got == {
        "test_public_api_is_zarrhpc[memory]": ("passed", ""),
        "test_public_api_is_zarrhpc[local]": ("passed", ""),
        "test_public_api_is_zarrhpc[zip]": ("passed", ""),
        "test_internal_name": ("skipped", "internal: zarr.core.buffer.default_buffer_prototype"),
        "test_sync_runs_coroutines": ("passed", ""),
        "test_private_attribute": ("skipped",
                                   "internal: private attribute Array._iter_chunk_coords"),
        "test_plain_failure": ("failed", "assert (2,) == (3,)"),
        "test_async": ("passed", ""),
        "test_awaited_store": ("skipped", "internal: zarr-python's asynchronous Store API"),
    }
