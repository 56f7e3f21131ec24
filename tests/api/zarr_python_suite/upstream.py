"""Run a chosen set of zarr-python's own test modules against zarrhpc (or, for the
baseline, against zarr-python itself) and sort every outcome into a cause.

Usage (not part of ``make test``: it needs a zarr-python source checkout, which tests
never fetch)::

    python tests/api/zarr_python_suite/upstream.py --checkout ~/src/zarr-python \
        --ref v3.1.6 --lib zarrhpc --json /tmp/zp-zarrhpc.json

The modules are copied (``git archive`` of ``--ref``) into a scratch directory with
``zp_conftest.py`` as their conftest (see its docstring: how ``import zarr`` resolves to
zarrhpc, and which fixtures replace zarr-python's asynchronous ones). Outcomes:

- ``passed`` / ``failed``: the test ran on the public API;
- ``skipped (internal: <name>)``: it used a zarr-python name zarrhpc does not provide
  (``zarr.core.buffer``, ``AsyncArray``, ``zarr.testing.store.StoreTests``...);
- ``skipped (async API | GPU | store ...)``: outside local/memory/zip stores and the
  synchronous public API, or skipped by zarr-python itself.

The failures are what ``tests/api/zarr_python_suite/test_*.py`` keep an eye on: each
behaviour found different is checked there by our own test comparing zarrhpc with
zarr-python, and the ones left are listed in README.md with their cause.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = pathlib.Path(__file__).parent
# tests/test_api/test_synchronous.py is left out: it compares the docstrings of
# zarr.api.synchronous with zarr.api.asynchronous's (and needs numpydoc).

# Small edits to the copied files, each (file, old, new, why):
PATCHES = [
    ("tests/test_dtype/conftest.py", "elif issubclass(wrapper_cls, HasLength):",
     'elif "length" in __import__("inspect").signature(wrapper_cls).parameters:',
     "HasLength is zarr.core.dtype.common's (internal); test_array.py imports these "
     "examples at collection, so ask the constructor instead"),
    ("tests/test_dtype/conftest.py",
     "for wrapper_cls in data_type_registry.contents.values():",
     "for _name, wrapper_cls in data_type_registry.contents.items():\n"
     "    if _name not in __import__('importlib').import_module("
     "'zarr.core.dtype').data_type_registry.contents:\n        continue",
     "the examples are zarr-python's data types only (zarrhpc's registry has more: bfloat16, "
     "float8/6/4, int2/4... which zarr-python's tests treat as raw bytes)"),
    ("tests/test_dtype/conftest.py", "if wrapper_cls is Structured:",
     'if wrapper_cls.__name__ == "Structured":', "the same (zarr.core.dtype.npy is internal)"),
    ("tests/test_dtype/conftest.py", "elif issubclass(wrapper_cls, DateTime64 | TimeDelta64):",
     'elif wrapper_cls.__name__ in ("DateTime64", "TimeDelta64"):', "the same"),
    ("tests/test_group.py",
     "async def store(request: pytest.FixtureRequest, tmpdir: LEGACY_PATH) -> Store:\n"
     "    result = await parse_store(request.param, str(tmpdir))\n"
     "    if not isinstance(result, Store):\n"
     '        raise TypeError("Wrong store class returned by test fixture! got " + result + '
     '" instead")\n    return result',
     "def store(request: pytest.FixtureRequest, tmpdir: LEGACY_PATH) -> Store:\n"
     "    from .conftest import _sync_store\n\n"
     "    return _sync_store(request.param, str(tmpdir))",
     "the module's own asynchronous store fixture, opened synchronously"),
    ("tests/test_indexing.py",
     "async def store() -> AsyncGenerator[StorePath]:\n"
     "    return StorePath(await MemoryStore.open())",
     "def store() -> StorePath:\n    return StorePath(MemoryStore())", "the same"),
]
MODULES = [
    "tests/test_api.py",
    "tests/test_group.py",
    "tests/test_array.py",
    "tests/test_attributes.py",
    "tests/test_indexing.py",
    "tests/test_properties.py",
    "tests/test_tree.py",
    "tests/test_errors.py",
    "tests/test_v2.py",
    "tests/test_info.py",
    "tests/test_store/test_local.py",
    "tests/test_store/test_memory.py",
    "tests/test_store/test_zip.py",
]


def prepare(checkout: str, ref: str, dest: pathlib.Path) -> pathlib.Path:
    """Extract ``tests/`` of ``ref`` into ``dest`` with our conftest in place."""
    tar = subprocess.run(["git", "-C", checkout, "archive", ref, "tests"], check=True,
                         capture_output=True).stdout
    tmp = dest / "tests.tar"
    tmp.write_bytes(tar)
    with tarfile.open(tmp) as tf:
        tf.extractall(dest, filter="data")
    tmp.unlink()
    tests = dest / "tests"
    (tests / "conftest.py").rename(tests / "_zp_conftest.py")
    for name, old, new, _why in PATCHES:
        path = dest / name
        text = path.read_text()
        assert old in text, f"{name}: {old!r} not found (another zarr-python version?)"
        path.write_text(text.replace(old, new))
    shutil.copy(HERE / "zp_conftest.py", tests / "conftest.py")
    (dest / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    gpu: GPU\n    slow_hypothesis: slow\n    asyncio: async\n"
        "filterwarnings =\n    ignore::DeprecationWarning\n    ignore::FutureWarning\n"
        "    ignore::UserWarning\n    ignore::RuntimeWarning\n"
        "    ignore::pytest.PytestUnraisableExceptionWarning\n")
    return dest


class _Collector:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            prev = self.outcomes.get(report.nodeid)
            if prev and prev[0] == "failed":
                return
            detail = ""
            if report.outcome == "skipped":
                lr = report.longrepr
                detail = lr[2] if isinstance(lr, tuple) else str(lr)
                detail = detail.removeprefix("Skipped: ")
            elif report.outcome == "failed":
                crash = getattr(report.longrepr, "reprcrash", None)
                detail = crash.message if crash else str(report.longrepr)[-300:]
                if report.when != "call":
                    detail = f"[{report.when}] {detail}"
            self.outcomes[report.nodeid] = (report.outcome, detail)

    def pytest_collectreport(self, report):
        if report.failed:
            self.outcomes[report.nodeid] = ("error", str(report.longrepr)[-400:])


def run(dest: pathlib.Path, lib: str, modules, extra=()) -> dict:
    import pytest

    os.environ["ZP_SUITE_LIB"] = lib
    col = _Collector()
    old = os.getcwd()
    os.chdir(dest)
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--continue-on-collection-errors",
                     "--rootdir",
                     str(dest), "-c", str(dest / "pytest.ini"), *extra, *modules],
                    plugins=[col])
    finally:
        os.chdir(old)
    return col.outcomes


def summarize(outcomes: dict, width: int = 60) -> dict:
    """Counts per outcome (skips by reason, cut to ``width``) and failures by cause; the
    xarray suite runner uses it too."""
    counts = collections.Counter()
    causes = collections.Counter()
    for outcome, detail in outcomes.values():
        key = outcome
        if outcome == "skipped":
            key = "skipped: " + (detail.split(":")[0] if detail.startswith("internal")
                                 else detail[:width])
        counts[key] += 1
        if outcome in ("failed", "error"):
            causes[detail.splitlines()[0][:160] if detail else "?"] += 1
    return {"counts": dict(counts.most_common()), "failure_causes": dict(causes.most_common())}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkout", required=True, help="a zarr-python git checkout")
    p.add_argument("--ref", default="v3.1.6")
    p.add_argument("--lib", choices=["zarr", "zarrhpc"], default="zarrhpc")
    p.add_argument("--json", help="write every test's outcome here")
    p.add_argument("modules", nargs="*", default=MODULES)
    args, extra = p.parse_known_args(argv)
    with tempfile.TemporaryDirectory(prefix="zp-suite-") as tmp:
        dest = prepare(args.checkout, args.ref, pathlib.Path(tmp))
        outcomes = run(dest, args.lib, args.modules, extra)
    summary = summarize(outcomes)
    print(json.dumps(summary, indent=1))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"summary": summary,
                                                       "outcomes": outcomes}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
