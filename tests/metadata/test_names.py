"""Tests for zarrhpc.metadata.names: node names and hierarchy paths."""

from __future__ import annotations

import pytest

from zarrhpc.errors import MetadataError
from zarrhpc.metadata import (
    is_recommended_node_name,
    join_path,
    metadata_key,
    normalize_path,
    validate_node_name,
)

DOC = "a/zarr.json"


@pytest.mark.parametrize(
    "name",
    [
        "a",
        "foo",
        "FOO",
        "x.y",
        "a-b_c",
        "...a",
        "a..",
        "_x",
        "x__",
        "zarr.json.bak",
        "c",
        # not recommended, but valid per the spec
        "temp\u00e9rature",
        "a b",
        "a:b",
        "\u6e29\u5ea6",
        "a\\b",
        "a*b",
    ],
)
def test_valid_names(name):
    assert validate_node_name(name, DOC) == name


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("", "must not be empty"),
        ("a/b", "must not contain '/'"),
        ("/", "must not contain '/'"),
        (".", "only of periods"),
        ("..", "only of periods"),
        ("....", "only of periods"),
        ("zarr.json", "zarr.json"),
        (None, "expected a string"),
        (3, "expected a string"),
        (b"abc", "expected a string"),
    ],
)
def test_invalid_names(name, needle):
    with pytest.raises(MetadataError) as info:
        validate_node_name(name, DOC)
    assert str(info.value).startswith(f"{DOC}: node name: ")
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("name", "recommended"),
    [("abc", True), ("A-b_c.9", True), ("temp\u00e9rature", False), ("a b", False), ("", False)],
)
def test_recommended_names(name, recommended):
    assert is_recommended_node_name(name) is recommended


@pytest.mark.parametrize(
    ("path", "normal"),
    [
        (None, ""),
        ("", ""),
        ("/", ""),
        ("//", ""),
        ("a", "a"),
        ("/a", "a"),
        ("a/", "a"),
        ("/a/b/", "a/b"),
        ("a/b/c", "a/b/c"),
        ("a.b/c..d", "a.b/c..d"),
        # the v2 spec's normalisation, which zarr-python applies to both formats
        ("a//b", "a/b"),
        ("a\\b", "a/b"),
        ("\\a\\\\b//c/", "a/b/c"),
    ],
)
def test_normalize_path(path, normal):
    assert normalize_path(path) == normal


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("a/./b", "only of periods"),
        ("a/../b", "only of periods"),
        ("..", "only of periods"),
        ("a/zarr.json", "zarr.json"),
        (3, "expected a string"),
    ],
)
def test_normalize_path_rejects(path, needle):
    with pytest.raises(MetadataError) as info:
        normalize_path(path)
    assert str(info.value).startswith(f"path {path!r}: ")
    assert needle in str(info.value)


def test_metadata_key_and_join():
    assert metadata_key("") == "zarr.json"
    assert metadata_key("a/b") == "a/b/zarr.json"
    assert join_path("", "a") == "a"
    assert join_path("a", "b") == "a/b"
    with pytest.raises(MetadataError):
        join_path("a", "b/c")
    with pytest.raises(MetadataError):
        join_path("a", "..")


@pytest.mark.parametrize("name", ["__xarray_dataarray_variable__", "__", "__meta"])
def test_reserved_prefix_names_accepted_as_zarr_python(tmp_path, name):
    """zarr-python (and xarray through it) writes node names with the spec's reserved
    prefix ``__``: such stores open in zarrhpc (which creates them too, as zarr-python:
    tests/interop/test_write_conformance_clauses.py)."""
    import numpy as np
    import zarr

    import zarrhpc
    from zarrhpc.metadata.names import is_reserved_node_name, validate_node_name

    assert validate_node_name(name, "t") == name and is_reserved_node_name(name)
    g = zarr.open_group(str(tmp_path / "zp.zarr"), mode="w")
    g.create_array(name, shape=(3,), dtype="f4")[:] = 1
    ours = zarrhpc.open_group(str(tmp_path / "zp.zarr"))
    assert list(ours.array_keys()) == [name]
    assert np.array_equal(ours[name][:], np.ones(3, "f4"))
    ours[name][:] = 5  # an existing node so named is written to
    assert np.array_equal(zarr.open_group(str(tmp_path / "zp.zarr"))[name][:], [5, 5, 5])
    assert name in [k for k, _ in ours.members()]
