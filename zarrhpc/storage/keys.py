"""Store keys and prefixes: validation and normalisation shared by every store.

A *key* names one value in a store. It is a ``str`` of "/"-separated segments:

- not empty, no leading or trailing "/", no empty segment (``"a//b"``);
- no segment equal to ``"."`` or ``".."`` (a key never climbs out of its store);
- no NUL character and no backslash (both mean something else to file systems).

Anything else is allowed, including non-ASCII text and segments starting with a period
(``.zarray`` is a Zarr v2 key). The Zarr v3 specification recommends a narrower alphabet
(``a-z A-Z 0-9 / . - _``) but does not require it, and neither do we.

A *prefix* selects the keys below a point of the hierarchy. ``""`` is the whole store;
otherwise it is a valid key followed by "/" (``"a/b/"``). A prefix given without its
trailing "/" (``"a/b"``) is accepted and means the same ``"a/b/"``: prefixes are directory
prefixes, never plain string prefixes, so ``"c/"`` does not select ``"cc/0"``.

These functions run once per store operation, so the common case (a key with no "." at
all) is checked without splitting it.
"""

from __future__ import annotations

from zarrhpc.errors import InvalidKeyError

__all__ = ["validate_key", "normalize_prefix", "key_in_prefix", "split_key"]


def _describe(key: str) -> str:
    """Return why ``key`` (a str) is not a valid key, or ``""`` when it is valid."""
    if not key:
        return "a key must not be empty"
    if key[0] == "/":
        return "a key must not start with '/'"
    if key[-1] == "/":
        return "a key must not end with '/'"
    if "//" in key:
        return "a key must not contain an empty segment ('//')"
    if "\\" in key:
        return "a key must not contain a backslash"
    if "\x00" in key:
        return "a key must not contain a NUL character"
    if "." in key:
        for segment in key.split("/"):
            if segment == "." or segment == "..":
                return f"a key must not contain a {segment!r} segment"
    return ""


def validate_key(key: object) -> str:
    """Check that ``key`` is a valid store key and return it unchanged.

    Parameters
    ----------
    key : object
        The candidate key.

    Returns
    -------
    str
        ``key`` itself.

    Raises
    ------
    InvalidKeyError
        If ``key`` is not a ``str`` or breaks one of the rules in the module docstring;
        the message quotes the key and names the rule.

    Examples
    --------
    >>> validate_key("a/b/zarr.json")
    'a/b/zarr.json'
    """
    if type(key) is not str:
        if not isinstance(key, str):
            raise InvalidKeyError(
                f"{key!r}: a store key must be a str, got {type(key).__name__}"
            )
        key = str(key)
    problem = _describe(key)
    if problem:
        raise InvalidKeyError(f"{key!r}: invalid store key: {problem}")
    return key


def normalize_prefix(prefix: object) -> str:
    """Check a prefix and return it in canonical form: ``""`` or ``"a/b/"``.

    Parameters
    ----------
    prefix : object
        ``""`` for the whole store, or a key with or without a trailing "/".

    Returns
    -------
    str
        ``""``, or the prefix ending with exactly one "/".

    Raises
    ------
    InvalidKeyError
        If ``prefix`` is not a ``str``, or without its trailing "/" is not a valid key.

    Examples
    --------
    >>> normalize_prefix("a/b")
    'a/b/'
    >>> normalize_prefix("a/b/")
    'a/b/'
    >>> normalize_prefix("")
    ''
    """
    if not isinstance(prefix, str):
        raise InvalidKeyError(
            f"{prefix!r}: a store prefix must be a str, got {type(prefix).__name__}"
        )
    if prefix == "":
        return ""
    body = prefix[:-1] if prefix[-1] == "/" else prefix
    problem = _describe(body)
    if problem:
        problem = problem.replace("a key", "a prefix")
        raise InvalidKeyError(f"{prefix!r}: invalid store prefix: {problem}")
    return body + "/"


def key_in_prefix(key: str, prefix: str) -> bool:
    """Return whether ``key`` lies below the canonical ``prefix`` (see `normalize_prefix`).

    Parameters
    ----------
    key : str
        A valid key.
    prefix : str
        A canonical prefix (``""`` or ending with "/").

    Returns
    -------
    bool
    """
    return key.startswith(prefix)


def split_key(key: str) -> tuple[str, str]:
    """Split a valid key into its parent prefix and its last segment.

    Parameters
    ----------
    key : str
        A valid key.

    Returns
    -------
    tuple of str
        ``(prefix, name)`` with ``prefix`` canonical: ``split_key("a/b/c") == ("a/b/", "c")``
        and ``split_key("c") == ("", "c")``.
    """
    head, sep, name = key.rpartition("/")
    return (head + sep, name)
