"""Write zarr_docstrings_<version>.json: the examples in the docstrings of zarr-python's
public functions and classes (``zarr.api.synchronous``'s functions, ``Array`` and
``Group`` members), one session per docstring, each example one block, for the corpus
test (tests/api/test_user_guide_corpus.py) to run with ``zarr`` and with zarrhpc.

Run with the zarr-python version the corpus is for installed:
``python tests/api/data/extract_docstrings.py``.
"""

import doctest
import json
import pathlib
import re
import textwrap


def sessions() -> dict:
    import zarr
    from zarr.api import synchronous

    out = {}
    owners = [("api", synchronous, sorted(synchronous.__all__)),
              ("Array", zarr.Array, sorted(vars(zarr.Array))),
              ("Group", zarr.Group, sorted(vars(zarr.Group)))]
    parser = doctest.DocTestParser()
    for prefix, owner, names in owners:
        for name in names:
            member = (getattr(owner, name, None) if prefix == "api"
                      else vars(owner).get(name))
            obj = member.fget if isinstance(member, property) else member
            doc = getattr(obj, "__doc__", None) or ""
            if "async" in name or (name.startswith("_") and not name.startswith("__")):
                continue
            blocks = [ex.source for ex in parser.get_examples(doc)]
            blocks += [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", doc, re.S)]
            if blocks:
                out[f"{prefix}.{name}"] = blocks
    return out


def main() -> None:
    import zarr

    path = pathlib.Path(__file__).with_name(f"zarr_docstrings_{zarr.__version__}.json")
    doc = {"source": f"docstrings of zarr-python {zarr.__version__} (zarr.api.synchronous, "
                     f"zarr.Array, zarr.Group), examples in doctest and ```python form",
           "docs": sessions()}
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(path, sum(len(v) for v in doc["docs"].values()), "blocks")


if __name__ == "__main__":
    main()
