"""Runs zarr-python 3's user-guide code blocks (tests/api/data/zarr_user_guide_*.json, taken
from its documentation at the installed version) with either ``zarr`` or ``zarrhpc`` bound to
the name ``zarr``, and records what each block prints and raises.

The blocks of one page and session run in order in one namespace, in a fresh working
directory (the pages write to relative paths such as ``data/example-1.zarr``), exactly as the
documentation builder runs them. For the zarrhpc run every ``import zarr...`` resolves to the
matching ``zarrhpc...`` module, as ``import zarrhpc as zarr`` would for a user script.
"""

import ast
import asyncio
import builtins
import contextlib
import inspect
import io
import json
import os
import pathlib
import re
import sys
import warnings

DATA = pathlib.Path(__file__).parent / "data" / "zarr_user_guide_3.1.6.json"
DOCSTRINGS = DATA.with_name("zarr_docstrings_3.1.6.json")
# blocks that reach the network (public S3 buckets) or need a GPU: never run in tests
NETWORK = ("s3://", "S3Store(", "fsspec.filesystem(")
GPU = ("cupy", "enable_gpu", "GpuMemoryStore")


def docstring_kind(name, blocks):
    """Why a docstring's examples are not run, or None when they are: ``"private"`` for
    a private name (``_iter_grid``, ``Store._get_bytes``: not zarr-python's API for users),
    ``"network"`` (remote, GPU). Examples of the asynchronous API run (top-level ``await``
    as in a notebook, see `_compile`)."""
    qual = name.rpartition(":")[2]
    if any(part.startswith("_") and not part.endswith("__") for part in qual.split(".")):
        return "private"
    if not all(_runnable(b) for b in blocks):
        return "network"
    return None


def _runnable(code):
    return not any(n in code for n in NETWORK + GPU)


def load_sessions():
    """``{(page, session): [code, ...]}`` for every block of zarr-python's docs pages
    (DATA, made by data/extract_docs.py): the blocks the documentation builder executes,
    grouped by their session in page order, and every other block as a session of its own
    (``"#<index on the page>"``); plus ``("docstrings", name)`` for the examples of every
    docstring under src/zarr/ (DOCSTRINGS) that `docstring_kind` does not leave out."""
    docs = json.loads(DATA.read_text())["docs"]
    sessions = {}
    for page, blocks in docs.items():
        for i, block in enumerate(blocks):
            if _runnable(block["code"]):
                session = block["session"] if block["exec"] else f"#{i}"
                sessions.setdefault((page, session), []).append(block["code"])
    for name, blocks in json.loads(DOCSTRINGS.read_text())["docs"].items():
        if docstring_kind(name, blocks) is None:
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


def _compile(source, name, mode):
    """``compile`` that takes top-level ``await`` / ``async for`` (as IPython and the
    documentation builder do for the asynchronous API's examples)."""
    return compile(source, name, mode, flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def _eval(code, namespace, loop):
    """Run compiled ``code``; a top-level ``await`` runs to completion on ``loop`` (one
    event loop per session, as a notebook's)."""
    result = eval(code, namespace)
    if code.co_flags & inspect.CO_COROUTINE:
        result = loop.run_until_complete(result)
    return result


def _run_shown(code, namespace, name, loop):
    """Run ``code`` statement by statement, printing the repr of every expression's and
    assignment's value, as the docstrings' ``# <Array ...>`` comments show them."""
    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr):
            value = _eval(_compile(ast.Expression(node.value), name, "eval"), namespace, loop)
            print(repr(value))
            continue
        _eval(_compile(ast.Module([node], []), name, "exec"), namespace, loop)
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
    loop = asyncio.new_event_loop()
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
                            _run_shown(code, namespace, f"<{lib} docstring>", loop)
                        else:
                            _eval(_compile(code, f"<{lib} guide>", "exec"), namespace, loop)
                except Exception as e:  # recorded and compared by class
                    name = f"{type(e).__name__}|{_classes(e)}" if classes else type(e).__name__
                    err = f"{name}: {e}"
                records.append((buf.getvalue(), err))
    finally:
        os.chdir(old)
        loop.close()
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


_CAUGHT = re.compile(r"<caught (\w+)\|([\w,]+)>")


def _error_class(err):
    return err.split(":")[0] if err else None


def agree(theirs, ours):
    """``(theirs, ours)`` records agree: the same text once each caught exception of ours
    is replaced by theirs where ours derives from it; the same class for an uncaught one."""
    t_text, t_err = theirs
    o_text, o_err = ours
    t_caught = _CAUGHT.findall(t_text)
    o_caught = _CAUGHT.findall(o_text)
    if len(t_caught) != len(o_caught):
        return False
    for (t_name, _), (_, o_mro) in zip(t_caught, o_caught):
        if t_name not in o_mro.split(","):
            return False
    if _CAUGHT.sub("<caught>", t_text) != _CAUGHT.sub("<caught>", o_text):
        return False
    if (t_err is None) != (o_err is None):
        return False
    if t_err is None:
        return True
    t_name = _error_class(t_err).split("|")[0]
    return t_name in _error_class(o_err).split("|")[1].split(",")


def both(fn):
    """``fn(lib)`` for zarr-python then zarrhpc (the side-by-side tests), warnings of
    either silenced."""
    import zarr

    import zarrhpc

    out = []
    for lib in (zarr, zarrhpc):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(fn(lib))
    return out


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
                          show=page == "docstrings", classes=True)
    texts = [(normalize(text, os.path.realpath(workdir)), err) for text, err in records]
    pathlib.Path(out).write_text(json.dumps(texts))


if __name__ == "__main__":
    main(*sys.argv[1:])
