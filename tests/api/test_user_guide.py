"""zarr-python 3's user-guide examples (arrays, groups, attributes, storage, consolidated
metadata, Zarr v2), run once with ``zarr`` and once with ``zarrhpc`` in its place; every
result the example shows is collected and compared.

Each example is a function of the library module and a scratch directory, written as the
user guide writes it (docs/user-guide/*.md of zarr-python 3), minus the parts that are not
in scope here (remote stores, the selection forms tested elsewhere) and with ``print``
replaced by collecting the value. Reprs of arrays and groups differ between the libraries
by design; what they show (shape, dtype, chunks, path, values) is compared instead.
"""

import warnings

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

pytestmark = pytest.mark.interop


def _desc(node):
    """What a repr of an array or group shows, in a library-neutral form."""
    if hasattr(node, "shape"):
        return ("array", node.path, node.shape, str(node.dtype), node.chunks)
    return ("group", node.path)


def arrays_basics(zarr, d):
    out = []
    z = zarr.create_array(store="memory://arrays-demo", shape=(10000, 10000),
                          chunks=(1000, 1000), dtype="int32")
    out.append(_desc(z))
    z[:] = 42
    z[0, :] = np.arange(10000)
    z[:, 0] = np.arange(10000)
    out += [z[0, 0], z[-1, -1], z[0, :], z[:, 0], z[:]]
    z1 = zarr.create_array(store=f"{d}/example-1.zarr", shape=(10000, 10000),
                           chunks=(1000, 1000), dtype="int32")
    z1[:] = 42
    z1[0, :] = np.arange(10000)
    z1[:, 0] = np.arange(10000)
    z2 = zarr.open_array(f"{d}/example-1.zarr", mode="r")
    out.append(np.all(z1[:] == z2[:]))
    a = np.arange(10)
    zarr.save(f"{d}/example-2.zarr", a)
    out.append(zarr.load(f"{d}/example-2.zarr"))
    return out


def arrays_compressors(zarr, d):
    out = []
    compressors = zarr.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle")
    data = np.arange(1000000, dtype="int32").reshape(1000, 1000)
    z = zarr.create_array(store=f"{d}/example-5.zarr", shape=data.shape, dtype=data.dtype,
                          chunks=(100, 100), compressors=compressors)
    z[:] = data
    out.append([c.to_dict() if hasattr(c, "to_dict") else c.to_json() for c in z.compressors])
    out.append(z.nbytes_stored())
    z_no = zarr.create_array(store=f"{d}/example-uncompressed.zarr", shape=(1000, 1000),
                             chunks=(100, 100), dtype="int32", compressors=None)
    out.append(len(z_no.compressors))
    z = zarr.create_array(store=f"{d}/example-6.zarr", shape=data.shape, dtype=data.dtype,
                          chunks=(100, 100), compressors=zarr.codecs.GzipCodec(level=1))
    z[:] = data
    out.append(z.nbytes_stored())
    out.append(z[:5, :5])
    # the array is byte for byte what zarr-python reads
    out.append(zarr.open_array(f"{d}/example-6.zarr", mode="r")[990:, 990:])
    return out


def arrays_sharding(zarr, d):
    a = zarr.create_array(f"{d}/example-20.zarr", shape=(1000, 1000), shards=(500, 500),
                          chunks=(100, 100), dtype="uint8")
    a[:] = (np.arange(1000 * 1000) % 256).astype("uint8").reshape(1000, 1000)
    return [a.shards, a.chunks, a.nchunks, a.nchunks_initialized, a.nbytes_stored(), a[::97, ::89]]


def groups(zarr, d):
    out = []
    root = zarr.create_group(store="memory://groups-demo")
    out.append(_desc(root))
    foo = root.create_group("foo")
    bar = foo.create_group("bar")
    z1 = bar.create_array(name="baz", shape=(10000, 10000), chunks=(1000, 1000), dtype="int32")
    out += [_desc(z1), _desc(root["foo"]), _desc(root["foo/bar"]), _desc(root["foo/bar/baz"])]
    root = zarr.open_group(f"{d}/group.zarr", mode="w")
    z = root.create_array(name="foo/bar/baz", shape=(10000, 10000), chunks=(1000, 1000),
                          dtype="int32")
    out += [_desc(root), _desc(z), list(root.keys()), "foo" in root]
    out += [(n, _desc(m)) for n, m in root.members()]
    out += [(n, _desc(m)) for n, m in sorted(root.members(max_depth=None))]
    del root["foo/bar/baz"]
    out += [(n, _desc(m)) for n, m in sorted(root.members(max_depth=None))]
    root = zarr.group(store="memory://diagnostics-demo")
    foo = root.create_group("foo")
    bar = foo.create_array(name="bar", shape=1000000, chunks=100000, dtype="int64")
    bar[:] = 42
    baz = foo.create_array(name="baz", shape=(1000, 1000), chunks=(100, 100), dtype="float32")
    baz[:] = 4.2
    out += [bar.nbytes_stored(), bar.nchunks_initialized, baz[0, :3], str(root.tree())]
    return out


def attributes(zarr, d):
    out = []
    root = zarr.create_group(store="memory://attributes-demo")
    root.attrs["foo"] = "bar"
    z = root.create_array(name="zzz", shape=(10000, 10000), dtype="int32")
    z.attrs["baz"] = 42
    z.attrs["qux"] = [1, 4, 7, 12]
    out += [sorted(root.attrs), "foo" in root.attrs, root.attrs["foo"], sorted(z.attrs),
            z.attrs["baz"], z.attrs["qux"]]
    del z.attrs["baz"]
    out.append(sorted(z.attrs))
    z = z.update_attributes({"baz": 43, "quux": True})
    out.append(sorted(z.attrs))
    out.append(z.chunks)
    return out


def storage(zarr, d):
    out = []
    group = zarr.create_group(store=f"{d}/foo/bar")
    out.append(_desc(group))
    data = {}
    group = zarr.create_group(store=data)
    out.append(sorted(data))
    store = zarr.storage.LocalStore(f"{d}/foo/bar", read_only=True)
    group = zarr.open_group(store=store, mode="r")
    out.append((_desc(group), group.read_only))
    store = zarr.storage.ZipStore(f"{d}/data.zip", mode="w")
    array = zarr.create_array(store=store, shape=(2,), dtype="float64")
    array[:] = [1.5, 2.5]
    out.append(_desc(array))
    store.close()
    array = zarr.open_array(store=zarr.storage.ZipStore(f"{d}/data.zip", mode="r"), mode="r")
    out.append(array[:])
    data = {}
    store = zarr.storage.MemoryStore(data)
    array = zarr.create_array(store=store, shape=(2,), dtype="float64")
    out.append((_desc(array), sorted(data)))
    return out


def consolidated(zarr, d):
    out = []
    group = zarr.create_group(store=f"{d}/cons.zarr")
    group.create_array(shape=(1,), name="a", dtype="float64")
    group.create_array(shape=(2, 2), name="b", dtype="float64")
    group.create_array(shape=(3, 3, 3), name="c", dtype="float64")
    result = zarr.consolidate_metadata(f"{d}/cons.zarr")
    out.append(_desc(result))
    consolidated = zarr.open_group(store=f"{d}/cons.zarr")
    out += [_desc(consolidated["a"]), sorted(consolidated.array_keys())]
    child = group.create_group("child", attributes={"kind": "child"})
    child.create_group("grandchild", attributes={"kind": "grandchild"})
    consolidated = zarr.consolidate_metadata(f"{d}/cons.zarr")
    out.append(sorted(n for n, _ in consolidated.members(max_depth=None)))
    out.append(dict(consolidated["child/grandchild"].attrs))
    # zarrhpc consolidates what zarr-python opens consolidated, and the other way round
    g = zarr.open_consolidated(f"{d}/cons.zarr")
    out.append(sorted(g.group_keys()))
    return out


def v2(zarr, d):
    out = []
    z = zarr.create_array(store=f"{d}/v2.zarr", shape=(1000, 1000), chunks=(100, 100),
                          dtype="int32", zarr_format=2)
    z[:] = np.arange(1000000, dtype="int32").reshape(1000, 1000)
    out += [z.metadata.zarr_format, z.chunks, z[998:, 997:], z.nbytes_stored()]
    g = zarr.open_group(f"{d}/v2g.zarr", mode="w", zarr_format=2)
    a = g.create_array("x", shape=(10,), dtype="f8", chunks=(5,))
    a[:] = np.linspace(0, 1, 10)
    g.attrs["title"] = "v2 group"
    zarr.consolidate_metadata(f"{d}/v2g.zarr")
    g = zarr.open_group(f"{d}/v2g.zarr", mode="r")
    out += [g.metadata.zarr_format, dict(g.attrs), g["x"][:], sorted(g.array_keys())]
    return out


EXAMPLES = [arrays_basics, arrays_compressors, arrays_sharding, groups, attributes, storage,
            consolidated, v2]


def _normalize(value):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]  # zarr-python returns a 0-d array for z[0, 0]: printed alike
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tolist())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.item())
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda f: f.__name__)
def test_user_guide_example_same_results(tmp_path, example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python's own notices (consolidated v3...)
        theirs = example(zarr, str(tmp_path / "zarr"))
    ours = example(zarrhpc, str(tmp_path / "zarrhpc"))
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert _normalize(a) == _normalize(b), f"{example.__name__}: result {i}: {a!r} != {b!r}"
