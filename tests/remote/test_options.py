"""storage_options in zarr-python's (fsspec) spelling, translated for obstore; stores for
every scheme build without a request (nothing here reaches a server)."""

from __future__ import annotations

import datetime
import pickle

import pytest

from zarrhpc.storage._obstore import translate_options
from zarrhpc.storage.remote import FsspecStore, ObstoreStore, open_url

pytest.importorskip("obstore")


def test_s3_spelling():
    config, client = translate_options("s3", {
        "endpoint_url": "http://127.0.0.1:9000", "key": "AK", "secret": "SK", "token": "T",
        "region": "eu-west-1"})
    assert config == {"endpoint": "http://127.0.0.1:9000", "access_key_id": "AK",
                      "secret_access_key": "SK", "session_token": "T", "region": "eu-west-1",
                      "unsigned_payload": True}
    assert client == {"allow_http": True}
    config, client = translate_options("s3", {"anon": True, "client_kwargs": {
        "endpoint_url": "https://minio.example", "region_name": "x"}})
    assert config == {"skip_signature": True, "endpoint": "https://minio.example",
                      "region": "x"}
    assert client == {}
    # obstore's own keys pass through
    assert translate_options("s3", {"virtual_hosted_style_request": False})[0] == {
        "virtual_hosted_style_request": False, "region": "us-east-1",
        "unsigned_payload": True}


@pytest.mark.parametrize(("endpoint", "unsigned"), [
    (None, True),  # AWS: HTTPS
    ("https://minio.example", True),
    ("https://10.1.2.3:9000", True),
    ("http://127.0.0.1:9000", True),  # loopback: no network path to the server
    ("http://127.9.8.7", True),
    ("http://localhost:9000", True),
    ("http://LOCALHOST./x", True),
    ("http://[::1]:9000", True),
    ("http://10.1.2.3:9000", False),  # plain HTTP over a network: the hash is the check
    ("http://minio.example:9000", False),
    ("http://127.0.0.1.example.org", False),
    ("http://[::2]:9000", False),
])
def test_s3_payload_signed_only_where_the_body_can_be_changed(endpoint, unsigned):
    """A PUT signs UNSIGNED-PAYLOAD (no SHA-256 of the body) over HTTPS and over plain
    HTTP to this machine; a plain-HTTP endpoint elsewhere keeps the body's hash signed."""
    options = {} if endpoint is None else {"endpoint_url": endpoint}
    config = translate_options("s3", options)[0]
    assert config.get("unsigned_payload", False) is unsigned
    # the caller's choice wins both ways
    for forced in (True, False):
        assert translate_options("s3", dict(options, unsigned_payload=forced))[0][
            "unsigned_payload"] is forced
    assert "unsigned_payload" not in translate_options("s3", dict(options, anon=True))[0]
    assert "unsigned_payload" not in translate_options("gcs", {})[0]


def test_gcs_and_azure_spelling():
    assert translate_options("gcs", {"token": "anon", "project": "p"})[0] == {
        "skip_signature": True}
    assert translate_options("gcs", {"token": "/path/sa.json"})[0] == {
        "service_account_path": "/path/sa.json"}
    assert translate_options("azure", {"account_name": "acct", "anon": True})[0] == {
        "account_name": "acct", "skip_signature": True}
    with pytest.raises(ValueError, match="not understood for an HTTP"):
        translate_options("http", {"key": "x"})


@pytest.mark.parametrize(("url", "options"), [
    ("s3://bucket/a/b", {"anon": True}),
    ("gs://bucket/a", {"token": "anon"}),
    ("gcs://bucket/a", {"token": "anon"}),
    ("az://container/a", {"account_name": "acct", "anon": True}),
    ("abfs://container/a", {"account_name": "acct", "anon": True}),
    ("https://example.org/data/x.zarr", {}),
])
def test_every_scheme_builds_and_pickles(url, options):
    store = open_url(url, storage_options=options)
    assert isinstance(store, ObstoreStore)
    assert store.url == url
    clone = pickle.loads(pickle.dumps(store))
    assert clone == store and clone.storage_options == options
    assert store.read_only == url.startswith("https")


def test_backend_choice_and_settings_are_not_backend_options():
    store = open_url("s3://bucket/x", storage_options={
        "anon": True, "backend": "fsspec", "concurrency": 4, "retry_timeout": 2.5})
    assert isinstance(store, FsspecStore)
    assert store.settings["concurrency"] == 4 and store.settings["retry_timeout"] == 2.5
    assert "concurrency" not in store.storage_options


def test_concurrency_from_environment(monkeypatch):
    monkeypatch.setenv("ZARRHPC_REMOTE_CONCURRENCY", "5")
    assert open_url("s3://b/x", storage_options={"anon": True}).settings["concurrency"] == 5
    monkeypatch.setenv("ZARRHPC_REMOTE_CONCURRENCY", "many")
    with pytest.raises(ValueError, match="ZARRHPC_REMOTE_CONCURRENCY"):
        open_url("s3://b/x", storage_options={"anon": True})


def test_equality_includes_options():
    a = open_url("s3://b/x", storage_options={"endpoint_url": "http://127.0.0.1:1"})
    b = open_url("s3://b/x", storage_options={"endpoint_url": "http://127.0.0.1:2"})
    c = open_url("s3://b/x", storage_options={"endpoint_url": "http://127.0.0.1:1"})
    assert a == c and hash(a) == hash(c)
    assert a != b  # another server, another store
    assert a != a.with_read_only(True)


def test_clients_reused_per_root_and_options_and_process(monkeypatch):
    """A second open of a root in the same bucket with the same options reuses the
    obstore client (and its open connections); another bucket, other options, or another
    process get their own."""
    from zarrhpc.storage import _obstore

    opts = {"endpoint_url": "http://127.0.0.1:9", "key": "a", "secret": "b"}
    one = ObstoreStore("s3://bucket/root", storage_options=opts)
    assert ObstoreStore("s3://bucket/root", storage_options=dict(opts))._obs is one._obs
    assert ObstoreStore("s3://bucket/other", storage_options=opts)._obs is one._obs
    assert ObstoreStore("s3://bucket2/root", storage_options=opts)._obs is not one._obs
    assert ObstoreStore("s3://bucket/root", storage_options=dict(opts, key="c"))._obs \
        is not one._obs
    assert ObstoreStore("s3://bucket/root", storage_options=opts,
                        retry_timeout=1)._obs is not one._obs
    # an option json cannot spell is never matched by value
    odd = dict(opts, client_options={"timeout": datetime.timedelta(seconds=5)})
    assert ObstoreStore("s3://bucket/root", storage_options=odd)._obs is not \
        ObstoreStore("s3://bucket/root", storage_options=odd)._obs
    # a forked child builds its own
    monkeypatch.setattr(_obstore.os, "getpid", lambda: -1)
    assert ObstoreStore("s3://bucket/root", storage_options=opts)._obs is not one._obs


def test_s3fs_only_options():
    """fsspec's cache and buffer settings are dropped (they change nothing obstore does);
    botocore client arguments with an obstore spelling are translated; anything else
    obstore cannot express is refused by the translation, and open_url then opens the URL
    with fsspec (as zarr-python would), unless obstore was asked for."""
    from zarrhpc.storage._obstore import OptionsNotUnderstood

    config, client = translate_options("s3", {
        "endpoint_url": "http://127.0.0.1:9", "default_fill_cache": False,
        "default_block_size": 5, "use_listings_cache": False, "asynchronous": True,
        "version_aware": False, "use_ssl": False, "max_concurrency": 3,
        "client_kwargs": {"aws_access_key_id": "AK", "aws_secret_access_key": "SK",
                          "verify": False}})
    assert config == {"endpoint": "http://127.0.0.1:9", "access_key_id": "AK",
                      "secret_access_key": "SK", "region": "us-east-1",
                      "unsigned_payload": True}
    assert client == {"allow_http": True, "allow_invalid_certificates": True}
    with pytest.raises(OptionsNotUnderstood, match="client_kwargs"):
        translate_options("s3", {"client_kwargs": {"config": object()}})
    for extra in ({"profile": "p"}, {"config_kwargs": {"retries": {}}},
                  {"s3_additional_kwargs": {"ACL": "private"}}, {"version_aware": True}):
        opts = dict({"endpoint_url": "http://127.0.0.1:9", "key": "a", "secret": "b"}, **extra)
        store = open_url("s3://bucket/x", storage_options=opts)
        assert isinstance(store, FsspecStore), extra
        assert store.storage_options == opts  # fsspec gets them as given
        with pytest.raises(ValueError, match="obstore"):
            open_url("s3://bucket/x", storage_options=dict(opts, backend="obstore"))
