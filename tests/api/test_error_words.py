"""What a zarr-python 3 user reads when a call fails, checked side by side: the same call on
``zarr`` and on ``zarrhpc`` raises the same message, of zarr-python's class or one derived
from it (zarrhpc's classes also derive from the builtin a user catches). Found by running
zarr-python's docs and docstring examples and the users' snippets (tests/api/data/) with
both libraries; a user's script that prints ``str(e)`` shows the same text.

Also here: the warnings a zarr-python user sees from a ZipStore ("Duplicate name: 'key'"
when an entry is written again), and Python protocols zarr-python's Array lacks (``len``).
"""

import pathlib
import warnings

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

pytestmark = pytest.mark.interop


def _raised(fn, lib, where):
    """``(class, message)`` of what ``fn(lib, where)`` raises (None if nothing)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(lib, where)
        except Exception as e:  # compared with zarr-python's
            return type(e), str(e)
    return None


def _same_error(fn, tmp_path, normalize=lambda text: text):
    theirs = _raised(fn, zarr, tmp_path / "zarr")
    ours = _raised(fn, zarrhpc, tmp_path / "zarrhpc")
    assert theirs is not None and ours is not None, (theirs, ours)
    # zarr-python's class by name among ours and its bases (zarrhpc.errors mirrors it)
    assert theirs[0].__name__ in {c.__name__ for c in ours[0].__mro__}, (theirs, ours)
    assert normalize(ours[1]) == normalize(theirs[1])


def _hierarchy(lib, where):
    where.mkdir(parents=True, exist_ok=True)
    store = lib.storage.MemoryStore()
    root = lib.create_group(store)
    root.create_array("a", shape=(2,), dtype="i4")
    root.create_group("g")
    lib.create_group(str(where / "loc.zarr")).create_array("a", shape=(2,), dtype="i4")
    return store


def _ids(text):
    import re

    return re.sub(r"memory://\d+", "memory://<id>", text)


OPEN_CASES = {
    "open r+ of a missing node": lambda lib, s, d: lib.open(s, path="nope", mode="r+"),
    "open_group r of a missing group": lambda lib, s, d: lib.open_group(s, path="nope", mode="r"),
    "open_group r of a missing path string":
        lambda lib, s, d: lib.open_group(str(d / "loc.zarr"), path="nope", mode="r"),
    "open_array of a missing array": lambda lib, s, d: lib.open_array(s, path="nope", mode="r+"),
    "open_array of a group": lambda lib, s, d: lib.open_array(s, path="g"),
    "open_group of an array": lambda lib, s, d: lib.open_group(s, path="a", mode="r"),
    "open_consolidated without metadata": lambda lib, s, d: lib.open_consolidated(s),
    "group[missing]": lambda lib, s, d: lib.open_group(s)["nope"],
    "group[missing/nested]": lambda lib, s, d: lib.open_group(s)["g/nope"],
    "Array.open of nothing": lambda lib, s, d: lib.Array.open(lib.storage.MemoryStore()),
    "Group.open of nothing": lambda lib, s, d: lib.Group.open(lib.storage.MemoryStore()),
    "open_array r of a missing directory":
        lambda lib, s, d: lib.open_array(str(d / "nowhere.zarr"), mode="r"),
    "open_group r of a missing directory":
        lambda lib, s, d: lib.open_group(str(d / "nowhere.zarr"), mode="r"),
    "open r of a missing directory": lambda lib, s, d: lib.open(str(d / "nowhere.zarr"), mode="r"),
    "open_consolidated r of a missing directory":
        lambda lib, s, d: lib.open_consolidated(str(d / "nowhere.zarr"), mode="r"),
}


@pytest.mark.parametrize("case", list(OPEN_CASES))
def test_missing_and_wrong_nodes(tmp_path, case):
    """zarr-python's words for a node that is not there or of the other kind: "No array
    found in store memory://... at path nope", "Invalid value for 'node_type'...", a
    group's missing member as KeyError('nope'), "data/x.zarr does not exist"."""
    def call(lib, where):
        store = _hierarchy(lib, where)
        return OPEN_CASES[case](lib, store, where)

    _same_error(call, tmp_path, lambda t: _ids(t.replace(str(tmp_path / "zarrhpc"), "<d>")
                                              .replace(str(tmp_path / "zarr"), "<d>")))


READ_ONLY_CASES = {
    "array write": lambda a, g: a.__setitem__(0, 1),
    "array resize": lambda a, g: a.resize((3,)),
    "array append": lambda a, g: a.append(np.ones(2, "i4")),
    "array attrs": lambda a, g: a.attrs.__setitem__("x", 1),
    "array update_attributes": lambda a, g: a.update_attributes({"x": 1}),
    "group attrs": lambda a, g: g.attrs.__setitem__("x", 1),
    "group create_array": lambda a, g: g.create_array("q", shape=(1,), dtype="i1"),
    "group create_group": lambda a, g: g.create_group("q"),
    "group delitem": lambda a, g: g.__delitem__("a"),
}


@pytest.mark.parametrize("case", list(READ_ONLY_CASES))
def test_read_only_writes(tmp_path, case):
    """"store was opened in read-only mode and does not support writing" (ValueError)."""
    def call(lib, where):
        _hierarchy(lib, where)
        path = str(where / "loc.zarr")
        a = lib.open_array(path, path="a", mode="r")
        g = lib.open_group(path, mode="r")
        READ_ONLY_CASES[case](a, g)

    _same_error(call, tmp_path)


SELECTIONS = [10, (0, 10), (0, 0, 0), (0, 0, Ellipsis, 0), 1.5, (slice(0, 2, 0),), "x",
              np.array([[True]]), (Ellipsis, Ellipsis), None, (slice(None), None)]


@pytest.mark.parametrize("sel", SELECTIONS, ids=repr)
def test_bad_selections(tmp_path, sel):
    """Bounds, too many indices, two ellipses, a zero step, unsupported items: zarr-python's
    BoundsCheckError/IndexError/ValueError and their words."""
    def read(lib, where):
        a = lib.create_array({}, shape=(4, 5), chunks=(2, 2), dtype="i4")
        return a[sel]

    _same_error(read, tmp_path)


@pytest.mark.parametrize(("form", "sel"), [
    ("vindex", ([0, 9], [0, 1])), ("vindex", ([0, 1], [0, 1, 2])),
    ("vindex", (np.array([[True]]),)), ("oindex", ([0, 9], [0, 1])), ("oindex", ([1.5],)),
    ("blocks", (0, 9)), ("blocks", (5,)),
], ids=repr)
def test_bad_fancy_selections(tmp_path, form, sel):
    """Coordinates that do not broadcast show numpy's words (a ValueError), as in
    zarr-python; out-of-range points and blocks its BoundsCheckError words."""
    def read(lib, where):
        a = lib.create_array({}, shape=(4, 5), chunks=(2, 2), dtype="i4")
        return getattr(a, form)[sel]

    _same_error(read, tmp_path)


@pytest.mark.parametrize(("what", "fn"), [
    ("negative new shape", lambda a: a.resize((-1, 2))),
    ("append of another shape", lambda a: a.append(np.ones((2, 7), "i4"))),
    ("append along axis 1", lambda a: a.append(np.ones((3, 2), "i4"), axis=1)),
    ("a string into ints", lambda a: a.__setitem__(slice(None), "abc")),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_writes_and_shapes(tmp_path, what, fn):
    """resize/append and value conversion: zarr-python's (and numpy's) class and words."""
    def call(lib, where):
        a = lib.create_array({}, shape=(4, 5), chunks=(2, 2), dtype="i4")
        fn(a)

    _same_error(call, tmp_path)


@pytest.mark.parametrize("kwargs", [
    dict(dtype="nope"),
    dict(dtype="i4", compressors="zstd"),
    dict(dtype="i4", compressors=["zstd"]),
    dict(dtype="i4", filters="delta"),
    dict(dtype="i4", serializer="bytes"),
    dict(dtype="i4", shards=(3,), chunks=(2,)),
], ids=repr)
def test_bad_creation_arguments(tmp_path, kwargs):
    """An unknown dtype is numpy's TypeError ("data type 'nope' not understood"), a codec
    named by a string zarr-python's TypeError, shards not a multiple of the chunks its
    ValueError, all with zarr-python's words."""
    _same_error(lambda lib, where: lib.create_array({}, shape=(4,), **kwargs), tmp_path)


def test_len_and_iteration_as_zarr_python():
    """Iteration as zarr-python 3.1.6's ``a[i]``: rows of a 2-d array, 0-d arrays of a 1-d
    one, nothing for a 0-d array. ``len`` is kept (issue 16; zarr-python 3 has none, 2 had
    it): the first axis' length, numpy's TypeError for a 0-d array."""
    with pytest.raises(TypeError, match="object of type 'Array' has no len()"):
        len(zarr.array(np.arange(6).reshape(2, 3)))
    assert len(zarrhpc.array(np.arange(6).reshape(2, 3))) == 2
    with pytest.raises(TypeError, match="unsized"):
        len(zarrhpc.array(np.float64(3.0)))
    outs = []
    for lib in (zarr, zarrhpc):
        outs.append([repr(list(lib.array(np.arange(6).reshape(2, 3)))),
                     repr(list(lib.array(np.arange(3)))),
                     repr(list(lib.array(np.float64(3.0)))),
                     bool(lib.zeros((0,)))])
    assert outs[0] == outs[1]


def _zip_session(lib, where: pathlib.Path):
    """What warns "Duplicate name" along a zarr-python user's session on a ZipStore."""
    seen = []

    def step(label, fn):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            fn()
        seen.append((label, sorted(str(w.message) for w in got
                                   if str(w.message).startswith("Duplicate name"))))
        for w in got:
            if str(w.message).startswith("Duplicate name"):
                assert w.category is UserWarning

    store = lib.storage.ZipStore(str(where / "a.zip"), mode="w")
    g = lib.open_group(store, mode="w")
    a = g.create_array("x", shape=(4,), chunks=(2,), dtype="i4")
    step("first write", lambda: a.__setitem__(slice(None), 1))
    step("second write", lambda: a.__setitem__(slice(None), 2))
    step("one element", lambda: a.__setitem__(0, 5))
    step("group attribute", lambda: g.attrs.__setitem__("k", 1))
    step("attributes update", lambda: g.attrs.update({"k": 2}))
    step("resize", lambda: a.resize((6,)))
    step("new array", lambda: g.create_array("y", shape=(2,), dtype="i4"))
    store.close()
    store = lib.storage.ZipStore(str(where / "a.zip"), mode="a")
    step("write after reopening", lambda: lib.open_array(store, path="x").__setitem__(
        slice(0, 4), 3))
    store.close()
    return seen


def test_zip_duplicate_name_warnings(tmp_path):
    """An entry written again warns ``UserWarning("Duplicate name: 'x/c/0'")`` on the same
    steps as zarr-python's ZipStore (its zipfile appends a second entry); zarrhpc's
    directory keeps one entry per key, and the file reads back the newest values."""
    (tmp_path / "zarr").mkdir()
    (tmp_path / "zarrhpc").mkdir()
    theirs = _zip_session(zarr, tmp_path / "zarr")
    ours = _zip_session(zarrhpc, tmp_path / "zarrhpc")
    assert ours == theirs
    assert dict(ours)["second write"] == ["Duplicate name: 'x/c/0'", "Duplicate name: 'x/c/1'"]
    import zipfile

    with zipfile.ZipFile(tmp_path / "zarrhpc" / "a.zip") as zf:
        names = zf.namelist()
    assert len(names) == len(set(names))
    np.testing.assert_array_equal(
        zarrhpc.open_array(zarrhpc.storage.ZipStore(str(tmp_path / "zarrhpc" / "a.zip")),
                           path="x", mode="r")[:], [3, 3, 3, 3, 0, 0])


def _numcodecs_warnings(lib):
    """The ZarrUserWarnings of creating then opening a v3 array with a numcodecs codec."""
    seen = []
    for step in ("create", "open"):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            if step == "create":
                a = lib.create_array({}, shape=(4,), dtype="f8", compressors=[
                    {"name": "numcodecs.zlib", "configuration": {"level": 4}}])
            else:
                lib.open_array(a.store)
        seen.append((step, sorted({(w.category.__name__, str(w.message)) for w in got
                                   if "Numcodecs" in str(w.message)})))
    return seen


def test_numcodecs_in_v3_warns_as_zarr_python():
    """zarr-python warns ``ZarrUserWarning("Numcodecs codecs are not in the Zarr version 3
    specification...")`` when a v3 array with a ``numcodecs.*`` codec is created and again
    when it is opened; v2 arrays (numcodecs is their codec set) do not warn."""
    theirs, ours = _numcodecs_warnings(zarr), _numcodecs_warnings(zarrhpc)
    assert ours == theirs
    assert all(len(found) == 1 for _, found in ours)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        import numcodecs

        zarrhpc.create_array({}, shape=(4,), dtype="f8", zarr_format=2,
                             compressors=numcodecs.Zlib(level=1))
    assert not [w for w in got if "Numcodecs" in str(w.message)]


def test_setting_default_compressor_warns_as_zarr_python():
    """A zarr-python 2 script's ``zarr.storage.default_compressor = ...`` gets zarr-python
    3's ZarrDeprecationWarning with its words, and sets nothing."""
    messages = []
    for lib in (zarr, zarrhpc):
        with pytest.warns(lib.errors.ZarrDeprecationWarning) as got:
            lib.storage.default_compressor = "zstd"
        messages.append([str(w.message) for w in got])
        assert getattr(lib.storage, "default_compressor", None) != "zstd"
    assert messages[0] == messages[1]


@pytest.mark.parametrize("overwrite", [False, True])
def test_create_on_a_read_only_store(tmp_path, overwrite):
    """``create_array`` on a read-only store: zarr-python's ValueError "Store is read-only
    but mode is 'a'. Create a writable store or use 'r' mode." (with overwrite too)."""
    _same_error(lambda lib, where: lib.create_array(
        lib.storage.MemoryStore(read_only=True), shape=(2,), dtype="i4",
        overwrite=overwrite), tmp_path)
