"""zarr-python 3 users' snippets (tests/api/data/user_snippets.py: from zarr-python's
issues and pull requests and downstream projects' reports, each with its source URL) run
once with ``zarr`` and once with ``import zarrhpc as zarr``: what each prints and the class
of what it raises must agree.

Each library runs every snippet in one process of its own (tests/api/_guide.py,
``run_snippets``), each snippet in a fresh directory and namespace. An exception agrees
when zarrhpc's is of, or derives from, the class zarr-python raised (zarrhpc's errors also
derive from the builtin a user catches). ``KNOWN`` lists the snippets whose output differs
today, each with the reason; a listed snippet that starts to agree fails the test, so the
list only shrinks.
"""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

HELPER = pathlib.Path(__file__).with_name("_guide.py")
_spec = importlib.util.spec_from_file_location("_zarrhpc_guide", HELPER)
_guide = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_guide)

pytest.importorskip("zarr")

pytestmark = pytest.mark.interop

SNIPPETS = _guide.load_snippets()
_WIDER = "zarrhpc accepts what zarr-python 3.1.6 refuses"
# each kept difference was run again on zarr-python main (d44f9f9, 2026-08-22, after
# 3.3.0; src/zarr of the fetched snapshot) side by side with 3.1.6
_MAIN = (". zarr-python main (d44f9f9, after 3.3.0) does as 3.1.6 here, so this is "
         "kept")
KNOWN = {
    "https://github.com/NCAS-CMS/cfdm/issues/408":
        f"{_WIDER}: a numpy scalar attribute (np.int32(9)) is stored as its Python value; "
        "zarr-python raises TypeError (not JSON serializable). Kept: zarr-python's own "
        "issues call the refusal a bug (#3478, a regression of 3.1.0) or ask for this "
        "(#156, open); xarray and netCDF attributes are numpy scalars" + _MAIN,
    "https://github.com/zarr-developers/zarr-python/issues/1963#errors":
        f"{_WIDER}: a negative slice step reads as numpy does (NegativeStepError there). "
        "Kept: numpy's slice semantics are zarrhpc's indexing contract, checked against "
        "numpy by tests/indexing and the differential harnesses" + _MAIN,
    "https://github.com/zarr-developers/zarr-python/issues/104":
        f"{_WIDER}: zarr.load of a group gives its arrays by name (zarr-python: "
        "NotImplementedError 'loading groups not yet supported'). Kept: zarr-python's "
        "docstring of load documents exactly this (a dict-like of the group's arrays), and "
        "zarr.save of several arrays writes a group that load must read back" + _MAIN,
    "https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#broadcast-writes":
        "a value of the wrong shape across chunks (z[0] = np.arange(3) for a row of 4, "
        "chunks of 2): zarr-python writes [0, 1, 2, 2] without an error (silently wrong "
        "data); zarrhpc raises BroadcastError (a ValueError, as zarr-python raises within "
        "one chunk)" + _MAIN,
    "https://github.com/zarr-developers/zarr-python/issues/1777":
        f"{_WIDER}: len(a) is the first axis' length, as numpy and zarr-python 2 (zarr-python "
        "3 has no __len__: TypeError). Kept: issue 16 lists __len__ among the Array protocols, "
        "and zarr-python 2 code calls it" + _MAIN,
    "https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array:len-iter":
        f"{_WIDER}: len(a) (as issues/1777 above); iteration and truthiness agree",
    "https://github.com/zarr-developers/zarr-python/pull/2036":
        f"{_WIDER}: dtype=bytes is Zarr v3's variable_length_bytes (and v2's vlen-bytes), "
        "as dtype=str is 'string' in both; zarr-python takes numpy's dtype('S0') and raises "
        "ValueError (length must be >= 1). Kept: the formats' tests and the interop "
        "fixtures write variable-length bytes this way; dtype='variable_length_bytes' is "
        "the same in both libraries",
    "https://github.com/zarr-developers/zarr-python/issues/3983":
        "a structured array's field read (a['B'], get_basic_selection(fields='A')): "
        "zarr-python 3.1.6 raises TypeError (its open regression #3983; the fix, #3996, is "
        "not merged on main d44f9f9); zarrhpc reads the field as zarr-python 2 did and "
        "as that fix does",
    "https://github.com/zarr-developers/zarr-python/issues/2436":
        "a 0-d array's size and nbytes: zarr-python 3.1.6 prints 1.0 and 8.0 (np.prod of "
        "an empty shape is a float); zarr-python main (math.prod) gives 1 and 8, as "
        "zarrhpc does: main is followed",
    "https://github.com/zarr-developers/zarr-python/issues/4059":
        "the attributes dict a user passes to group()/create_array(): zarr-python 3.1.6 "
        "keeps it and later attribute writes change the user's dict (the bug of that "
        "issue); zarr-python main copies it (#4060), as zarrhpc does: main is followed",
    "https://github.com/zarr-developers/zarr-python/issues/632#v2-record-datetime":
        f"{_WIDER}: a v2 structured array with a datetime64 field (zarr.array of such a "
        "record array) is stored and read back; zarr-python raises ValueError ('cannot "
        "include dtype M in a buffer', from base64-encoding the fill value: that issue, "
        "open since 2020). The .zarray zarrhpc writes is zarr-python 2's form for the dtype",
    "https://github.com/zarr-developers/zarr-python/issues/3061":
        "zarr.load of a directory holding no Zarr node: zarr-python writes a group "
        "(zarr.json) into it, then raises NotImplementedError (the data-loss report of that "
        "issue); zarrhpc writes nothing and raises GroupNotFoundError" + _MAIN,
    "https://github.com/zarr-developers/zarr-python/pull/2870":
        "update_attributes({'z': (1, 2)}): zarr-python's handle keeps the tuple it was given "
        "(its stored JSON and every reopen give [1, 2]); zarrhpc's attributes are what is "
        "stored, a list, on the writing handle too (core/attributes.py converts once)",
    "https://github.com/zarr-developers/zarr-python/issues/266":
        "dask's Array.to_zarr(z) with z a zarrhpc Array: dask tests isinstance(z, "
        "zarr.Array) against zarr-python's class, so it takes z for a store and fails "
        "(TypeError); zarrhpc.dask.to_zarr(x, z) writes it. Kept: zarrhpc cannot pass that "
        "test without monkeypatching dask or impersonating zarr-python's class",
    "https://github.com/zarr-developers/zarr-python/issues/1931":
        f"{_WIDER}: zarr.open('temp.zip') opens the zip file (zarr-python 2's rule for a "
        "path ending in .zip, and OME-Zarr's .ozx, core/_nodes.py); zarr-python 3 takes the "
        "path for a directory and raises GroupNotFoundError",
    "https://zarr.readthedocs.io/en/v3.1.6/api/zarr/codecs/numcodecs/":
        "to fix (formats: core/metadata.codec_view): a v3 'numcodecs.crc32c' entry is stored "
        "as given but metadata.codecs shows it as the v3 crc32c codec ({'name': 'crc32c'})",
    "https://zarr.readthedocs.io/en/v3.1.6/api/zarr/registry/":
        "to fix (formats: registry.py): get_pipeline_class() is zarrhpc's CodecPipeline, "
        "zarr-python's name is BatchedCodecPipeline",
}
@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    runs = {}
    for lib in ("zarr", "zarrhpc"):
        tmp = tmp_path_factory.mktemp(lib)
        out = tmp / "out.json"
        subprocess.run([sys.executable, str(HELPER), "snippets", "-", lib, str(tmp / "w"),
                        str(out)], check=True, timeout=900)
        runs[lib] = json.loads(out.read_text())
    return runs


def test_corpus_size_and_sources():
    assert len(SNIPPETS) >= 472
    sources = [s["source"] for s in SNIPPETS]
    assert len(set(sources)) == len(sources)
    assert all(s.startswith("https://") for s in sources)
    assert set(KNOWN) <= set(sources)


@pytest.mark.parametrize("i", range(len(SNIPPETS)), ids=[
    s["source"].removeprefix("https://").removeprefix("github.com/") for s in SNIPPETS])
def test_snippet_same_output(outputs, i):
    theirs, ours = outputs["zarr"][i], outputs["zarrhpc"][i]
    source = SNIPPETS[i]["source"]
    same = _guide.agree(theirs, ours)
    if source in KNOWN:
        assert not same, f"now the same, remove from KNOWN: {source}"
        return
    assert same, (f"{source}\n--- zarr ({theirs[1]}):\n{theirs[0]}\n"
                  f"--- zarrhpc ({ours[1]}):\n{ours[0]}")
