"""``zarrhpc.config.pprint`` / ``get``: every key shown is one ``get`` answers with the same
value; the keys spelt as zarr-python's are keys zarr-python has; the rest are zarrhpc's
own (threads, buffer_cache, shard_lock)."""

import io

import pytest

import zarrhpc


def _flat(nested, prefix=""):
    out = {}
    for key, value in nested.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _shown():
    stream = io.StringIO()
    zarrhpc.config.pprint(stream=stream, width=60)
    return eval(stream.getvalue())  # pprint of a dict of plain values


def test_pprint_shows_what_get_answers():
    with zarrhpc.config.set({"array.order": "F", "async.concurrency": 1}):
        shown = _shown()
        flat = _flat(shown)
        for key, value in flat.items():
            assert zarrhpc.config.get(key) == value, key
        assert flat["array.order"] == "F"
        assert flat["threads"] == flat["async.concurrency"] == flat["threading.max_workers"] == 1
        for group in ("array", "async", "threading"):
            assert zarrhpc.config.get(group) == shown[group]
    assert _flat(_shown())["array.order"] == "C"


def test_zarr_python_keys_are_zarr_pythons():
    zarr = pytest.importorskip("zarr")
    theirs = set(_flat(zarr.config.config))
    ours = set(_flat(_shown()))
    assert ours - theirs == {"threads", "buffer_cache", "shard_lock"}
    assert {"array.order", "array.write_empty_chunks", "default_zarr_format", "json_indent",
            "async.concurrency", "threading.max_workers"} <= ours & theirs
