"""A user's codec written for zarr-python (a ``zarr.abc.codec.BytesBytesCodec``
subclass), registered through zarr-python's API or zarrhpc's same-named one, reads and
writes through zarrhpc (its Python codec path), byte for byte as zarr-python does."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
from zarr.abc.codec import ArrayArrayCodec, BytesBytesCodec  # noqa: E402

import zarrhpc  # noqa: E402
import zarrhpc.registry  # noqa: E402
from zarrhpc.errors import CorruptChunkError, UnsupportedError  # noqa: E402


def _xor(data: np.ndarray, key: int) -> np.ndarray:
    return data ^ np.uint8(key)


@dataclass(frozen=True)
class SyncXor(BytesBytesCodec):
    """XOR every byte with ``key``, then append the key (a fixed-size change, so the
    stored bytes show the codec ran); the sync forms zarr-python calls when present."""

    is_fixed_size = True
    key: int = 0x5A

    @classmethod
    def from_dict(cls, data):
        return cls(**(data.get("configuration") or {}))

    def to_dict(self):
        return {"name": "test.sync-xor", "configuration": {"key": self.key}}

    def _decode_sync(self, chunk_bytes, chunk_spec):
        data = chunk_bytes.as_numpy_array()
        if data.size == 0 or data[-1] != self.key:
            raise ValueError("the key byte is missing")
        return chunk_spec.prototype.buffer.from_array_like(_xor(data[:-1], self.key))

    def _encode_sync(self, chunk_bytes, chunk_spec):
        data = chunk_bytes.as_numpy_array()
        return chunk_spec.prototype.buffer.from_array_like(
            np.append(_xor(data, self.key), np.uint8(self.key)))

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return self._decode_sync(chunk_bytes, chunk_spec)

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return self._encode_sync(chunk_bytes, chunk_spec)

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        return input_byte_length + 1


@dataclass(frozen=True)
class AsyncReverse(BytesBytesCodec):
    """Reverse the bytes; coroutines only (zarrhpc drives them with zarr-python's sync)."""

    is_fixed_size = True

    @classmethod
    def from_dict(cls, data):
        return cls()

    def to_dict(self):
        return {"name": "test.async-reverse"}

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return chunk_spec.prototype.buffer.from_array_like(chunk_bytes.as_numpy_array()[::-1].copy())

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return chunk_spec.prototype.buffer.from_array_like(chunk_bytes.as_numpy_array()[::-1].copy())

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        return input_byte_length


zarr.registry.register_codec("test.sync-xor", SyncXor)  # zarr-python's own API
zarrhpc.registry.register_codec("test.async-reverse", AsyncReverse)  # the switch's API
zarr.registry.register_codec("test.async-reverse", AsyncReverse)  # so zarr-python reads it


def _chunks(path) -> dict:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and p.name != "zarr.json"}


@pytest.mark.parametrize("make", [lambda: [SyncXor(key=7)], lambda: [AsyncReverse()],
                                  lambda: [AsyncReverse(), SyncXor()]],
                         ids=["sync", "async", "both"])
@pytest.mark.parametrize("shards", [None, (4, 6)])
def test_user_codec_both_ways(tmp_path, make, shards):
    data = np.arange(8 * 6, dtype="<i4").reshape(8, 6) * 1000
    paths = {}
    for lib in (zarr, zarrhpc):
        paths[lib] = tmp_path / lib.__name__
        a = lib.create_array(str(paths[lib]), shape=data.shape, chunks=(2, 3), shards=shards,
                             dtype=data.dtype, compressors=make(), fill_value=0)
        a[:] = data
    meta = [json.loads((p / "zarr.json").read_text())["codecs"] for p in paths.values()]
    assert meta[0] == meta[1]
    if shards is None:  # the same stored bytes (shards may order inner chunks their own way)
        assert _chunks(paths[zarr]) == _chunks(paths[zarrhpc])
    for lib in (zarr, zarrhpc):  # each reads what the other wrote
        for path in paths.values():
            np.testing.assert_array_equal(lib.open_array(str(path))[:], data)
    # a partial write goes through decode, merge and encode
    b = zarrhpc.open_array(str(paths[zarrhpc]), mode="r+")
    b[1:3, 2:5] = -1
    data[1:3, 2:5] = -1
    np.testing.assert_array_equal(zarr.open_array(str(paths[zarrhpc]))[:], data)


def test_registry_answers_the_users_class():
    assert zarrhpc.registry.get_codec_class("test.async-reverse") is AsyncReverse
    assert zarrhpc.registry.get_codec_class("test.sync-xor") is SyncXor  # via zarr-python's


def test_array_array_user_codec_refused():
    @dataclass(frozen=True)
    class Neg(ArrayArrayCodec):
        is_fixed_size = True

    with pytest.raises(UnsupportedError, match="bytes->bytes"):
        zarrhpc.registry.register_codec("test.neg", Neg)


def test_a_chunk_the_users_decoder_refuses(tmp_path):
    a = zarrhpc.create_array(str(tmp_path), shape=(4,), chunks=(4,), dtype="u1",
                             compressors=[SyncXor(key=3)])
    a[:] = 1
    (tmp_path / "c" / "0").write_bytes(b"\x01\x02\x09")  # last byte is not the key
    with pytest.raises(CorruptChunkError, match="test.sync-xor.*key byte"):
        zarrhpc.open_array(str(tmp_path))[:]


def test_pipeline_and_buffer_registries_refused_clearly():
    with pytest.raises(UnsupportedError, match="pipeline"):
        zarrhpc.registry.register_pipeline(object)
    with pytest.raises(UnsupportedError, match="buffer"):
        zarrhpc.registry.register_buffer(object)


def test_zarr_abc_codec_names_under_the_switch(tmp_path):
    """``zarr.abc.codec`` after ``import zarrhpc as zarr``: zarrhpc's and zarr-python's
    codecs are instances of the kind's class (ome-zarr checks ``Array.compressors`` so),
    and a codec subclassing it runs through zarrhpc like one subclassing zarr-python's."""
    from zarrhpc.abc import codec as abc

    assert isinstance(zarrhpc.codecs.BloscCodec(), abc.BytesBytesCodec)
    assert isinstance(zarr.codecs.BloscCodec(), abc.BytesBytesCodec)
    assert not isinstance(zarrhpc.codecs.BytesCodec(), abc.BytesBytesCodec)
    assert isinstance(zarrhpc.codecs.BytesCodec(), abc.ArrayBytesCodec)
    assert isinstance(zarrhpc.codecs.TransposeCodec(order=(0,)), abc.ArrayArrayCodec)

    @dataclass(frozen=True)
    class Plus(abc.BytesBytesCodec):
        is_fixed_size = True

        @classmethod
        def from_dict(cls, data):
            return cls()

        def to_dict(self):
            return {"name": "test.plus-one"}

        def _decode_sync(self, chunk_bytes, chunk_spec):
            return chunk_spec.prototype.buffer.from_array_like(chunk_bytes.as_numpy_array() - 1)

        def _encode_sync(self, chunk_bytes, chunk_spec):
            return chunk_spec.prototype.buffer.from_array_like(chunk_bytes.as_numpy_array() + 1)

        def compute_encoded_size(self, input_byte_length, chunk_spec):
            return input_byte_length

    assert not isinstance(zarrhpc.codecs.BloscCodec(), Plus)
    zarrhpc.registry.register_codec("test.plus-one", Plus)
    a = zarrhpc.create_array(str(tmp_path), shape=(6,), chunks=(3,), dtype="u1",
                             compressors=[Plus()])
    a[:] = np.arange(6)
    assert (tmp_path / "c" / "1").read_bytes() == bytes([4, 5, 6])
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path))[:], np.arange(6))
