"""The runner of zarr-python's suite (upstream.py, zp_conftest.py) on a small test
module of our own written in zarr-python's style: ``import zarr`` in the test files is
zarrhpc, zarr-python's internals become skips naming them, async tests are skipped, and
the outcomes are counted. (The real suite needs a zarr-python checkout; see README.md.)"""

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


def test_private_attribute():
    zarr.zeros((2,)).async_array


def test_plain_failure():
    assert zarr.zeros((2,)).shape == (3,)


async def test_async():
    raise AssertionError("never runs")
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
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    out = subprocess.run([sys.executable, "-c", DRIVER, str(HERE), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    outcomes = json.loads(out.stdout.strip().splitlines()[-1])
    got = {k.split("::")[1]: (o, d.splitlines()[0] if d else "")
           for k, (o, d) in outcomes.items()}
    assert got == {
        "test_public_api_is_zarrhpc[memory]": ("passed", ""),
        "test_public_api_is_zarrhpc[local]": ("passed", ""),
        "test_public_api_is_zarrhpc[zip]": ("passed", ""),
        "test_internal_name": ("skipped",
                               "internal: zarr.core.buffer.default_buffer_prototype"),
        "test_private_attribute": ("skipped", "internal: private attribute Array.async_array"),
        "test_plain_failure": ("failed", "assert (2,) == (3,)"),
        "test_async": ("skipped", "async API"),
    }
