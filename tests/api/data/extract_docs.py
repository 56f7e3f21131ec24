"""Write the two corpus files of zarr-python's own examples from a zarr-python checkout at
the version the corpus is for (the installed one), for tests/api/test_user_guide_corpus.py
to run with ``zarr`` and with zarrhpc:

- ``zarr_user_guide_<version>.json``: every fenced ```python block of every page under
  ``docs/`` (quick start, user guide, migration guide, API pages, contributing), indented
  ones inside lists and admonitions included, with the ``session`` and ``exec`` attributes
  the documentation builder runs them by;
- ``zarr_docstrings_<version>.json``: every example (doctest ``>>>`` lines and ```python
  blocks) in every docstring under ``src/zarr/`` (modules, classes, functions, methods,
  properties; nested classes included), keyed ``<file>:<qualname>`` ("Array.x",
  "Group.x" and "api.x" for zarr.Array, zarr.Group and zarr.api.synchronous, the names
  the corpus test knew them by). One session per docstring, one block per example.

Docstrings are read from the source with ``ast`` (nothing of the checkout is imported), so
private and asynchronous members are seen too; the corpus test decides which it runs.

Usage: ``python tests/api/data/extract_docs.py PATH/TO/zarr-python [VERSION]``.
"""

import ast
import doctest
import json
import pathlib
import re
import sys
import textwrap

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>python|py|pycon)\b(?P<attrs>[^\n]*)\n"
                    r"(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
# zarr.api.synchronous's functions, some defined in zarr.core.sync_group
_API = ("src/zarr/api/synchronous.py", "src/zarr/core/sync_group.py")
# owners the corpus test names by their public names
_NAMES = {("src/zarr/core/array.py", "Array"): "Array",
          ("src/zarr/core/group.py", "Group"): "Group"}


_INCLUDE = re.compile(r'^--8<-- "([^"]+)"\s*$')


def page_blocks(text: str, checkout: pathlib.Path) -> list[dict]:
    """The fenced python blocks of one markdown page, in order; a block that only includes
    a file of the checkout (mkdocs' ``--8<-- "path"``) holds that file."""
    out = []
    for m in _FENCE.finditer(text):
        attrs = dict(_ATTR.findall(m["attrs"]))
        body = textwrap.dedent(m["body"])
        include = _INCLUDE.match(body.strip())
        if include:
            body = (checkout / include[1]).read_text()
        out.append({"session": attrs.get("session"), "exec": attrs.get("exec") == "true",
                    "code": body})
    return out


def docs(checkout: pathlib.Path) -> dict:
    pages = {}
    for path in sorted((checkout / "docs").rglob("*.md")):
        blocks = page_blocks(path.read_text(), checkout)
        if blocks:
            pages[str(path.relative_to(checkout / "docs"))] = blocks
    return pages


def _doctest_sources(doc: str) -> list[str]:
    """The ``>>>`` examples of ``doc``; lines of one example indented unevenly (zarr-python
    has a few) are aligned first, as doctest would refuse them."""
    try:
        return [ex.source for ex in doctest.DocTestParser().get_examples(doc)]
    except ValueError:
        lines = [re.sub(r"^[ \t]*(>>>|\.\.\.)", r"\1", line) for line in doc.splitlines()]
        return [ex.source for ex in doctest.DocTestParser().get_examples("\n".join(lines))]


def _docstring_blocks(doc: str) -> list[str]:
    blocks = _doctest_sources(doc)
    blocks += [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", doc, re.S)]
    return blocks


def _walk(body, qual, visit):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{qual}.{node.name}" if qual else node.name
            visit(name, node)
            if isinstance(node, ast.ClassDef):
                _walk(node.body, name, visit)


def docstrings(checkout: pathlib.Path) -> dict:
    out = {}
    src = checkout / "src"
    for path in sorted((src / "zarr").rglob("*.py")):
        rel = str(path.relative_to(checkout))
        tree = ast.parse(path.read_text())

        def visit(name, node, rel=rel):
            doc = ast.get_docstring(node) or ""
            blocks = _docstring_blocks(doc)
            if not blocks:
                return
            owner, _, member = name.partition(".")
            if rel in _API and not member:
                key = f"api.{name}"
            elif (rel, owner) in _NAMES and member:
                key = f"{_NAMES[rel, owner]}.{member}"
            else:
                key = f"{rel}:{name}"
            out[key] = blocks

        visit("<module>", tree)
        _walk(tree.body, "", visit)
    return out


def main(checkout: str, version: str | None = None) -> None:
    if version is None:
        import zarr

        version = zarr.__version__
    root = pathlib.Path(checkout)
    here = pathlib.Path(__file__).parent
    guide = {"source": f"zarr-developers/zarr-python v{version} docs/ (MIT licence, "
                       f"(c) Zarr Developers)", "docs": docs(root)}
    strings = {"source": f"docstrings under src/zarr/ of zarr-python v{version} (MIT "
                         f"licence, (c) Zarr Developers), examples in doctest and "
                         f"```python form", "docs": docstrings(root)}
    for name, doc in ((f"zarr_user_guide_{version}.json", guide),
                      (f"zarr_docstrings_{version}.json", strings)):
        (here / name).write_text(json.dumps(doc, indent=1) + "\n")
        print(name, sum(len(v) for v in doc["docs"].values()), "blocks in",
              len(doc["docs"]), "pages/docstrings")


if __name__ == "__main__":
    main(*sys.argv[1:])
