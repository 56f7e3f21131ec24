"""Run downstream libraries' own Zarr tests with ``zarr`` switched to zarrhpc, and the same
tests on zarr-python as the baseline; print one row per library and run.

Usage (not part of ``make test``; README.md says how the venv is made)::

    .venv-ds/bin/python tests/downstream/upstream.py fetch /tmp/ds-src
    .venv-ds/bin/python tests/downstream/upstream.py run /tmp/ds-src --json /tmp/ds.json
    .venv-ds/bin/python tests/downstream/upstream.py run /tmp/ds-src --only anndata --lib zarrhpc

``fetch`` downloads each library's source distribution at the installed version (its tests
are not in the wheels) with pip and unpacks it. ``run`` runs each library's selected tests
in a fresh pytest process per library and Zarr (``ds_plugin.py`` does the switch), from the
unpacked source so the library's own pytest configuration applies, against the installed
library.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

HERE = pathlib.Path(__file__).parent
WORKTREE = HERE.parent.parent

# library -> (import name, test paths in its sdist, extra pytest arguments, other packages
# of its stack that import zarr themselves and are switched with it). The arguments replace
# a library's addopts where those need plugins it does not require at run time (xdist,
# coverage); its markers and warning filters stay its own.
STACK = ("ome_zarr_models", "pydantic_zarr")
LIBS = {
    # its zarr I/O tests (-k zarr: 598 of them); left out for time (1,090 more, ~1 h on
    # this machine): test_backed_sparse.py, test_concatenate_disk.py, lazy/test_concat.py
    "anndata": ("anndata", ["tests/test_readwrite.py", "tests/test_io_elementwise.py",
                            "tests/test_io_dispatched.py", "tests/test_io_partial.py",
                            "tests/test_io_utils.py", "tests/test_backed_dense.py",
                            "tests/test_structured_arrays.py", "tests/test_dask.py",
                            "tests/lazy/test_read.py", "tests/lazy/test_write.py",
                            "tests/test_io_backwards_compat.py"],
                ["-o", "addopts=--import-mode=importlib", "-p", "testing.anndata._pytest",
                 "-k", "zarr", "-m", "not gpu"], ()),
    # deselected: tests that read public buckets (no network at test time)
    "ome-zarr": ("ome_zarr", ["tests"],
                 ["-o", "addopts=", "-k", "not s3_info and not class_reader"], STACK),
    "ngff-zarr": ("ngff_zarr", ["test"], ["-o", "addopts=", "-m", "not network"], STACK),
    # the keras/torch loaders' tests need those frameworks
    "xbatcher": ("xbatcher", ["xbatcher/tests"],
                 ["-o", "addopts=", "--ignore=xbatcher/tests/test_keras_loaders.py",
                  "--ignore=xbatcher/tests/test_torch_loaders.py"], ()),
    # cloud/slow marks are not registered in the sdist; --tb=native: pytest's traceback
    # rendering of tenacity's retried failures crashes CPython 3.11's AST parser
    # (INTERNALERROR ending the run)
    "cubed": ("cubed", ["cubed/tests"],
              ["-o", "addopts=", "--ignore=cubed/tests/runtime", "--tb=native",
               "--ignore=cubed/tests/test_icechunk.py",
               "-W", "ignore::pytest.PytestUnknownMarkWarning"], ()),
    # its I/O tests; spatialdata stores its tables through anndata and its images through
    # ome-zarr: both switched with it
    "spatialdata": ("spatialdata", ["tests/io"],
                    ["-o", "addopts=--import-mode=importlib", "-m", "not gpu"],
                    ("anndata", "ome_zarr", *STACK)),
    # its pydantic models over zarr-python's metadata (the library of the STACK above)
    # the docs examples need pytest-examples
    "pydantic-zarr": ("pydantic_zarr", ["tests"],
                      ["-o", "addopts=--strict-markers", "--ignore=tests/test_docs"], ()),
    # doctests left out (they print zarr-python reprs); network/minio/flaky marks are
    # skipped by its own conftest
    "virtualizarr": ("virtualizarr", ["virtualizarr/tests"], ["-o", "addopts="], ()),
}


def _src(root: pathlib.Path, lib: str) -> pathlib.Path:
    version = importlib.metadata.version(lib)
    for name in (lib, lib.replace("-", "_")):
        path = root / f"{name}-{version}"
        if path.is_dir():
            return path
    raise FileNotFoundError(f"no unpacked {lib}-{version} under {root}: run `fetch` first")


def fetch(root: pathlib.Path, libs) -> None:
    """Download and unpack each library's sdist (the installed version) under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for lib in libs:
        spec = f"{lib}=={importlib.metadata.version(lib)}"
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", ":all:", "-d", str(root), spec], check=True)
    for archive in root.glob("*.tar.gz"):
        with tarfile.open(archive) as tar:
            tar.extractall(root, filter="data")


def run_one(root: pathlib.Path, lib: str, zarr_lib: str, extra=(), timeout=3000) -> dict:
    """``{test id: (outcome, detail)}`` of ``lib``'s tests on ``zarr_lib``."""
    module, paths, args, stack = LIBS[lib]
    src = _src(root, lib)
    packages = [pathlib.Path(importlib.util.find_spec(m).origin).parent
                for m in (module, *stack) if importlib.util.find_spec(m) is not None]
    with tempfile.TemporaryDirectory(prefix="ds-") as tmp:
        out = pathlib.Path(tmp) / "outcomes.json"
        env = dict(os.environ, DS_LIB=zarr_lib, DS_OUT=str(out),
                   DS_ROOTS=os.pathsep.join([*map(str, packages), str(src)]),
                   PYTHONPATH=os.pathsep.join([str(HERE), str(WORKTREE)]))
        # the switch goes in before pytest reads the library's configuration (its
        # filterwarnings name the library's warning classes: anndata is imported then)
        boot = "import sys, ds_plugin, pytest; sys.exit(pytest.main(sys.argv[1:]))"
        cmd = [sys.executable, "-c", boot, "-q", "-p", "ds_plugin", "-p",
               "no:cacheprovider", "--continue-on-collection-errors", "--rootdir", str(src),
               # pytest-asyncio (installed for xarray) warns at start-up without it, and
               # cubed's configuration makes that warning an error
               "-o", "asyncio_default_fixture_loop_scope=function",
               # pytest's note that the switch plugin was imported before it could rewrite
               # its asserts (the boot line above) is the runner's, not the library's: an
               # error where the library makes warnings errors (pydantic-zarr, cubed)
               "-W", "ignore::pytest.PytestAssertRewriteWarning",
               *args, *extra, *paths]
        proc = subprocess.run(cmd, cwd=src, env=env, timeout=timeout,
                              capture_output=True, text=True)
        if not out.exists():
            return {"<run>": ("error", (proc.stdout + proc.stderr)[-2000:])}
        return json.loads(out.read_text())


def _counts(outcomes: dict) -> dict:
    counts = {"passed": 0, "failed": 0, "skipped": 0, "internal": 0}
    for outcome, detail in outcomes.values():
        if outcome == "skipped" and detail.startswith("internal"):
            counts["internal"] += 1
        else:
            counts["failed" if outcome == "error" else outcome] += 1
    return counts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["fetch", "run"])
    p.add_argument("root", help="where the sdists are unpacked")
    p.add_argument("--only", action="append", choices=list(LIBS), help="these libraries")
    p.add_argument("--lib", choices=["zarr", "zarrhpc"], action="append",
                   help="zarr (baseline) and/or zarrhpc; default both")
    p.add_argument("--json", help="write every test's outcome here")
    args, extra = p.parse_known_args(argv)
    root = pathlib.Path(args.root)
    libs = args.only or list(LIBS)
    if args.action == "fetch":
        return fetch(root, libs)
    results = {}
    print("| library | version | zarr | passed | failed | skipped | internal |")
    print("|---|---|---|---|---|---|---|")
    for lib in libs:
        for zarr_lib in args.lib or ["zarr", "zarrhpc"]:
            outcomes = run_one(root, lib, zarr_lib, extra)
            results[f"{lib}/{zarr_lib}"] = outcomes
            c = _counts(outcomes)
            print(f"| {lib} | {importlib.metadata.version(lib)} | {zarr_lib} | {c['passed']} "
                  f"| {c['failed']} | {c['skipped']} | {c['internal']} |", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
