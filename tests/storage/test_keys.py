"""zarrhpc.storage.keys: key validation and prefix normalisation."""

from __future__ import annotations

import pytest

from zarrhpc.errors import InvalidKeyError
from zarrhpc.storage.keys import key_in_prefix, normalize_prefix, split_key, validate_key
from zarrhpc.testing.store import INVALID_KEYS, INVALID_PREFIXES


@pytest.mark.parametrize(
    "key",
    ["a", "zarr.json", "a/b/c", ".zarray", "a/.zattrs", "c/0/1", "...", "a/.../b", "é", "a b"],
)
def test_valid_keys(key):
    assert validate_key(key) == key


@pytest.mark.parametrize("key", INVALID_KEYS)
def test_invalid_keys(key):
    with pytest.raises(InvalidKeyError, match="invalid store key") as info:
        validate_key(key)
    assert repr(key) in str(info.value)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", "empty"),
        ("/a", "start with '/'"),
        ("a/", "end with '/'"),
        ("a//b", "empty segment"),
        ("a/../b", "'..' segment"),
        ("./b", "'.' segment"),
        ("a\\b", "backslash"),
        ("a\x00", "NUL"),
    ],
)
def test_messages_say_what_is_wrong(key, reason):
    with pytest.raises(InvalidKeyError, match=reason):
        validate_key(key)


@pytest.mark.parametrize("key", [1, None, b"a", ["a"]])
def test_non_str_keys(key):
    with pytest.raises(InvalidKeyError, match="must be a str"):
        validate_key(key)
    with pytest.raises(InvalidKeyError, match="must be a str"):
        normalize_prefix(key)


def test_invalid_key_error_is_a_value_error():
    with pytest.raises(ValueError):
        validate_key("..")


def test_str_subclass_becomes_str():
    class S(str):
        pass

    assert type(validate_key(S("a/b"))) is str


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [("", ""), ("a", "a/"), ("a/", "a/"), ("a/b", "a/b/"), ("a/b/", "a/b/"), (".z/", ".z/")],
)
def test_normalize_prefix(prefix, expected):
    assert normalize_prefix(prefix) == expected


@pytest.mark.parametrize("prefix", INVALID_PREFIXES + ["..", "a/..", "a//"])
def test_invalid_prefixes(prefix):
    with pytest.raises(InvalidKeyError, match="invalid store prefix") as info:
        normalize_prefix(prefix)
    assert repr(prefix) in str(info.value)


def test_key_in_prefix_is_a_directory_match():
    assert key_in_prefix("c/0", "c/")
    assert not key_in_prefix("cc/0", "c/")
    assert key_in_prefix("anything", "")


def test_split_key():
    assert split_key("a/b/c") == ("a/b/", "c")
    assert split_key("c") == ("", "c")
