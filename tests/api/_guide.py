"""Runs zarr-python 3's user-guide code blocks (tests/api/data/zarr_user_guide_*.json, taken
from its documentation at the installed version) with either ``zarr`` or ``zarrhpc`` bound to
the name ``zarr``, and records what each block prints and raises.

The blocks of one page and session run in order in one namespace, in a fresh working
directory (the pages write to relative paths such as ``data/example-1.zarr``), exactly as the
documentation builder runs them. For the zarrhpc run every ``import zarr...`` resolves to the
matching ``zarrhpc...`` module, as ``import zarrhpc as zarr`` would for a user script.
"""

import builtins
import contextlib
import io
import json
import os
import pathlib
import re
import sys
import warnings

DATA = pathlib.Path(__file__).parent / "data" / "zarr_user_guide_3.1.6.json"
DOCSTRINGS = DATA.with_name("zarr_docstrings_3.1.6.json")
# blocks that reach the network (public S3 buckets): never run in tests
NETWORK = ("s3://", "S3Store(", "fsspec.filesystem(")


def load_sessions():
    """``{(page, session): [code, ...]}`` for every executed block, in page order, plus
    ``("docstrings", name)`` for the examples in the docstrings of zarr-python's public
    functions, Array and Group members (DOCSTRINGS, made by data/extract_docstrings.py)."""
    docs = json.loads(DATA.read_text())["docs"]
    sessions = {}
    for page, blocks in docs.items():
        for block in blocks:
            if block["exec"] and not any(n in block["code"] for n in NETWORK):
                sessions.setdefault((page, block["session"]), []).append(block["code"])
    for name, blocks in json.loads(DOCSTRINGS.read_text())["docs"].items():
        sessions[("docstrings", name)] = blocks
    return sessions


def _importer(lib):
    real = builtins.__import__
    if lib == "zarr":
        return real

    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "zarr" or name.startswith("zarr.")):
            name = lib + name[4:]
        return real(name, globals, locals, fromlist, level)

    return imp


def _run_shown(code, namespace, name):
    """Run ``code`` statement by statement, printing the repr of every expression's and
    assignment's value, as the docstrings' ``# <Array ...>`` comments show them."""
    import ast

    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), name, "eval"), namespace)
            print(repr(value))
            continue
        exec(compile(ast.Module([node], []), name, "exec"), namespace)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            print(repr(namespace[node.targets[0].id]))


def _classes(exc):
    return ",".join(c.__name__ for c in type(exc).__mro__)


def caught(exc):
    """What the user snippets print for an exception they catch: its class and the
    classes it derives from (``<caught Name|Name,Base,...>``), so that the comparison
    can accept zarrhpc's class when it derives from the one zarr-python raised."""
    print(f"<caught {type(exc).__name__}|{_classes(exc)}>")


def run_session(lib, blocks, workdir, show=False, classes=False):
    """Run ``blocks`` with ``lib`` ("zarr" or "zarrhpc") as ``zarr``; one record per block:
    ``(printed text, exception class name or None)``. A block after a failed one still runs
    (a later block may not depend on it); the records show where the runs part. ``show``:
    also print the value of every expression and assignment (docstring examples).
    ``classes``: an exception is recorded with the classes it derives from (as caught())."""
    env = dict(vars(builtins))
    env["__import__"] = _importer(lib)
    env["caught"] = caught
    namespace = {"__builtins__": env, "__name__": "__guide__"}
    records = []
    old = os.getcwd()
    os.makedirs(workdir, exist_ok=True)
    os.chdir(workdir)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for code in blocks:
                buf = io.StringIO()
                err = None
                try:
                    with contextlib.redirect_stdout(buf):
                        if show:
                            _run_shown(code, namespace, f"<{lib} docstring>")
                        else:
                            exec(compile(code, f"<{lib} guide>", "exec"), namespace)
                except Exception as e:  # recorded and compared by class
                    name = f"{type(e).__name__}|{_classes(e)}" if classes else type(e).__name__
                    err = f"{name}: {e}"
                records.append((buf.getvalue(), err))
    finally:
        os.chdir(old)
    return records


_VARYING = [
    (re.compile(r" at 0x[0-9a-f]+"), " at 0x"),  # object addresses
    (re.compile(r"memory://\d+"), "memory://<id>"),  # id() of a store's dict
    (re.compile(r"\d+\.\d+(e-?\d+)?s\b"), "<t>s"),  # timings the examples print
    (re.compile(r"(took|Speedup is) \d+\.\d+(e-?\d+)?"), r"\1 <t>"),
]


def normalize(text, workdir):
    """Text as compared: the scratch directory, ids, addresses and timings taken out."""
    for scheme in ("file", "zip"):
        text = text.replace(f"{scheme}://{workdir}/", f"{scheme}://")
    text = text.replace(str(workdir), "<dir>")
    for pattern, repl in _VARYING:
        text = pattern.sub(repl, text)
    return text


SNIPPETS = pathlib.Path(__file__).parent / "data" / "user_snippets.py"


def load_snippets():
    """The user snippets of data/user_snippets.py: ``[{"source": url, "code": code}]``."""
    namespace = {}
    exec(compile(SNIPPETS.read_text(), str(SNIPPETS), "exec"), namespace)
    return namespace["SNIPPETS"]


def run_snippets(lib, workdir, out):
    """Run every user snippet with ``lib`` as ``zarr``, each in its own namespace and fresh
    directory; one ``(printed text, exception or None)`` per snippet, normalised."""
    records = []
    for i, snippet in enumerate(load_snippets()):
        where = os.path.join(workdir, f"s{i}")
        (text, err), = run_session(lib, [snippet["code"]], where, classes=True)
        records.append((normalize(text, os.path.realpath(where)), err))
    pathlib.Path(out).write_text(json.dumps(records))


def main(page, session, lib, workdir, out):
    if page == "snippets":
        return run_snippets(lib, workdir, out)
    records = run_session(lib, load_sessions()[(page, session)], workdir,
                          show=page == "docstrings")
    texts = [(normalize(text, os.path.realpath(workdir)), err) for text, err in records]
    pathlib.Path(out).write_text(json.dumps(texts))


if __name__ == "__main__":
    main(*sys.argv[1:])
