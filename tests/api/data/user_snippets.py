"""zarr-python 3 user snippets: what users of zarr-python 3 ran, as reported in
zarr-python's issues and pull requests, in downstream projects' issues, and the changes
zarr-python's 3.0 migration guide asks of them, and the calls zarr-python 3.1.6's own
documentation pages show (quick start, user guide, API reference), each with its source
URL, restated as small self-contained scripts that stay within local, memory and zip
stores and print what the user looked at (values, dtypes, shapes, reprs, errors).

Each snippet is rewritten from the report (sizes made small, names shortened, the result
the user inspected printed), not copied. They run with ``zarr`` bound to zarr-python or to
zarrhpc (tests/api/test_user_snippets.py), each in a fresh working directory and
namespace; an exception ends the snippet and its class is compared. ``caught(e)``
(provided by the runner, tests/api/_guide.py) prints an exception a snippet catches with
the classes it derives from: zarrhpc's class agrees when it is or derives from the class
zarr-python raised (zarrhpc's errors also derive from the builtin a user catches).
Snippets of the asynchronous API (``zarr.api.asynchronous``, ``AsyncArray``,
``AsyncGroup``) run their coroutines with ``asyncio.run`` and print member listings sorted
(zarr-python lists concurrently, in no fixed order).
"""

SNIPPETS = [
    # ---- opening, modes, paths -------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1978", code="""
import zarr
a = zarr.create(store='example-v3.zarr', shape=(3, 3))
print(a.shape, a.dtype, a.fill_value)
z = zarr.open(store='example-v3.zarr', mode='r+')
z[:] = 3
print(z[:])
print(zarr.open(store='example-v3.zarr', mode='r')[1, 1])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2187", code="""
import zarr
foo = zarr.create(shape=(3, 1), path='foo', store='test-store', mode='w')
root = zarr.open_group(store='test-store', mode='r')
print(root['foo'].shape, root['foo'].path, root['foo'].name)
print(sorted(root.array_keys()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2187#zero-length", code="""
import zarr
x = zarr.create(shape=(3, 0), path='foo')
print(x.shape, x.chunks, x.nchunks, x[:].shape)
print(x.info)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2143", code="""
import os
import zarr
grp = zarr.open(store=os.path.join('tmp', 'root.zarr'), mode='a')
print(type(grp).__name__, grp.path, dict(grp.attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2490", code="""
import zarr
z = zarr.open(store='data.zarr', mode='w')
print(type(z).__name__)
a = z.zeros(name='1d', shape=(3,), chunks=(3,), dtype='float32')
print(a.shape, a.dtype, a[:])
print(sorted(z.array_keys()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1975", code="""
from pathlib import Path
import zarr
z = zarr.open(store=Path('example-v3.zarr'), mode='w', shape=(3, 3))
z[:] = 2
print(z[:], z.dtype)
print(zarr.open_array(Path('example-v3.zarr'), mode='r')[0])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1427", code="""
import zarr
z1 = zarr.open('data/example.zarr', mode='w', shape=(100, 100), chunks=(10, 10), dtype='i4')
z1[0, 0] = 41
print('z1:', z1[0, 0])
z2 = zarr.open('data/example.zarr', mode='w', shape=(100, 100), chunks=(10, 10), dtype='i4')
print('z2:', z2[0, 0])
print('z1:', z1[0, 0])
z3 = zarr.open('data/example.zarr', mode='a')
z3[0, 0] = 7
print('reopened a:', zarr.open('data/example.zarr', mode='r')[0, 0])
"""),
    dict(source="https://github.com/ScrollPrize/villa/pull/1700", code="""
import zarr
g = zarr.open_group('vol.zarr', mode='w', zarr_format=3)
g.create_array('existing', shape=(4,), dtype='u1')
g2 = zarr.open_group('vol.zarr', mode='a')
print(g2.metadata.zarr_format, sorted(g2.array_keys()))
g2.create_array('new', shape=(2,), dtype='u1')
print(sorted(zarr.open_group('vol.zarr', mode='r').array_keys()))
"""),
    dict(source="https://github.com/pydata/xarray/pull/10430", code="""
import zarr
zarr.create_array('arr.zarr', shape=(4,), dtype='i2', fill_value=5)
a = zarr.open_array('arr.zarr')
print(a.read_only, a[:])
b = zarr.open_array('arr.zarr', mode='r')
print(b.read_only)
try:
    b[0] = 1
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/kirchhausenlab/incasem/issues/7", code="""
import numpy as np
import zarr
raw = (np.arange(4 * 4 * 4) % 256).astype('u1').reshape(4, 4, 4)
x = zarr.open(store='test.zarr', path='volumes/raw', mode='w-', shape=raw.shape,
              chunks=(2, 2, 2), dtype=raw.dtype)
x.attrs.put({'offset': [0, 0, 0], 'resolution': [5, 5, 5]})
x[:] = raw
y = zarr.open(store='test.zarr', path='volumes/raw', mode='r')
print(y.attrs.asdict(), y[1, 1, :], y.dtype)
try:
    zarr.open(store='test.zarr', path='volumes/raw', mode='w-', shape=raw.shape, dtype='u1')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/100", code="""
import numpy as np
import zarr
data = np.arange(60, dtype='int16').reshape(3, 4, 5)
z = zarr.array(data, store='image.zarr', chunks=(2, 2, 2))
print(z.shape, z.chunks, z.dtype)
back = zarr.open_array('image.zarr', mode='r')
print(np.array_equal(back[:], data), back[2, 3, 4])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/840", code="""
import numpy as np
import zarr
a = np.ones((2, 2))
z = zarr.open('test.zarr', mode='w')
z['test'] = a
z = zarr.open('test.zarr', mode='r')
print(np.array(z['test']))
print(z['test'].dtype, z['test'].chunks)
"""),
    # ---- groups ----------------------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1228", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.group(store=store)
sub = root.create_group('foo')
sub.create_array('bar', shape=(10,), dtype='i4')
print(list(root.group_keys()))
print([k for k, _ in root.groups()])
print(list(sub.array_keys()), root.nmembers if hasattr(root, 'nmembers') else None)
print(sorted(k for k, _ in root.members(max_depth=None)))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3289", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.create_group(store, path='', overwrite=True)
refl = root.create_group('measurements').create_group('reflectance')
for res in ('r10', 'r20'):
    g = refl.create_group(res, overwrite=True)
    g.create_array('l0', shape=(10, 10), dtype='float32', overwrite=True)
    g.create_array('l1', shape=(10, 10), dtype='float32', overwrite=True)
zarr.consolidate_metadata(store)
c = zarr.open_consolidated(store)
print(sorted(c.metadata.consolidated_metadata.metadata))
print(c['measurements/reflectance/r10/l0'].shape)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3289#subgroup", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.create_group(store)
q = root.create_group('quality').create_group('l1c')
q.create_array('a', shape=(4,), dtype='i1')
zarr.consolidate_metadata(store, path='quality')
g = zarr.open_group(store, path='quality', mode='r')
print(sorted(g.metadata.consolidated_metadata.metadata))
print(zarr.open_group(store, mode='r').metadata.consolidated_metadata)
"""),
    dict(source="https://github.com/NVIDIA/physicsnemo-curator/pull/29", code="""
import numpy as np
import zarr
root = zarr.open_group(store='out.zarr', mode='w')
root.attrs.update({'name': 'case1', 'n_points': 4, 'zarr_format': 3})
for field in ['coordinates', 'centers', 'areas']:
    data = np.linspace(0, 1, 12, dtype='f4').reshape(4, 3)
    root.create_array(field, shape=data.shape, dtype=data.dtype, chunks=(2, 3))[...] = data
g = zarr.open_group('out.zarr', mode='r')
print(dict(g.attrs))
print(sorted(g.array_keys()), g['areas'][3])
"""),
    dict(source="https://github.com/abTEM/abTEM/pull/316", code="""
import numpy as np
import zarr
root = zarr.open_group('measure.zarr', mode='w')
computed = np.arange(24, dtype='f8').reshape(2, 3, 4)
arr = root.create_array('array0', data=computed, chunks=(1, 3, 4))
print(arr.shape, arr.chunks, arr.dtype, arr[1, 2])
print(root['array0'][:].sum())
"""),
    dict(source="https://github.com/fmi-faim/faim-ipa/issues/33", code="""
import zarr
root = zarr.open_group('plate.zarr', mode='w')
a = root.require_group('A')
a.require_group('1').attrs['well'] = 'A1'
again = root.require_group('A')
print(sorted(again.group_keys()), dict(again['1'].attrs))
try:
    root.create_group('A')
except Exception as e:
    caught(e)
print(sorted(k for k, _ in root.groups()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2490#create_dataset", code="""
import warnings
import zarr
g = zarr.group()
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    d = g.create_dataset('d', shape=(5,), dtype='i8', chunks=(2,))
d[:] = 3
print(d[:], d.chunks)
r = g.require_dataset('d', shape=(5,), dtype='i8')
print(r[:])
try:
    g.require_dataset('d', shape=(6,), dtype='i8')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/dask/dask/pull/3460", code="""
import numpy as np
import zarr
g = zarr.open_group('out.zarr', mode='w')
z = g.create_array('component', shape=(6,), chunks=(3,), dtype='f4', overwrite=True)
z[:] = np.arange(6)
z = zarr.create(shape=(6,), chunks=(3,), dtype='f4', store='out.zarr', path='component',
                overwrite=True)
print(z[:])
try:
    zarr.create(shape=(6,), chunks=(3,), dtype='f4', store='out.zarr', path='component')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/ome/ome-zarr-py/issues/376", code="""
import numpy as np
import zarr
root = zarr.group(store='zeros.ome.zarr')
root.create_array('0', shape=(8, 8), chunks=(4, 4), dtype='f8')
root2 = zarr.group(store='zeros.ome.zarr')
print(sorted(root2.array_keys()))
try:
    root2.create_array('0', shape=(8, 8), chunks=(4, 4), dtype='f8')
except Exception as e:
    caught(e)
a = root2.create_array('0', shape=(8, 8), chunks=(4, 4), dtype='f8', overwrite=True)
print(a[0, :2])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2490#tree", code="""
import zarr
root = zarr.group()
root.create_group('a').create_array('x', shape=(2, 3), dtype='i2')
root.create_group('b')
root.create_array('c', shape=(4,), dtype='f4')
print(sorted(root.keys()))
print(len(root), 'a' in root, 'a/x' in root, 'zz' in root)
print(sorted(k for k, _ in root.arrays()))
"""),
    dict(source="https://github.com/pydata/xarray/pull/10020", code="""
import zarr
root = zarr.open_group('tree.zarr', mode='w')
root.create_group('b').create_array('B', shape=(3,), dtype='f8')
root.create_group('a').create_array('A', shape=(2,), dtype='f8')
groups = sorted(path for path, node in root.members(max_depth=None)
                if isinstance(node, zarr.Group))
print(groups)
print(sorted(path for path, node in root.members(max_depth=None)
             if isinstance(node, zarr.Array)))
"""),
    # ---- attributes ------------------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2328", code="""
import zarr
store = zarr.storage.MemoryStore()
array = zarr.create(shape=1, store=store)
array.attrs['foo'] = 'bar'
print(dict(array.attrs))
print(dict(zarr.open_array(store, mode='r').attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2153", code="""
import numpy as np
import zarr
store = zarr.storage.MemoryStore()
arr = zarr.open_array(store=store, path='a', shape=(), dtype=np.dtype('S6'), zarr_format=2)
arr.update_attributes({'key': 'value'})
print(dict(arr.attrs), arr.fill_value, arr.dtype)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2111", code="""
import zarr
a = zarr.create_array('img.zarr', shape=(8, 8), chunks=(4, 4), dtype='i1',
                      dimension_names=['y', 'x'],
                      chunk_key_encoding={'name': 'default', 'separator': '.'},
                      attributes={'set-by': 'me'})
a.attrs['stats'] = {'updated-by': 'zarr'}
b = zarr.open_array('img.zarr', mode='r')
print(dict(b.attrs))
print(b.metadata.dimension_names, b.metadata.chunk_key_encoding.separator)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3279", code="""
import numpy as np
import zarr
z = zarr.zeros(1, attributes={'foo': 1.5, 'bar': [1, 2], 'baz': None})
print(dict(z.attrs))
z.attrs.update({'n': np.int64(3).item()})
print(sorted(z.attrs))
"""),
    dict(source="https://github.com/NCAS-CMS/cfdm/issues/408", code="""
import numpy as np
import zarr
g = zarr.group()
try:
    g.attrs['np_scalar'] = np.int32(9)
    print(dict(g.attrs))
except Exception as e:
    caught(e)
g.attrs['py_scalar'] = int(np.int32(9))
print(g.attrs['py_scalar'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2328#delete", code="""
import zarr
g = zarr.group(attributes={'a': 1, 'b': 2})
del g.attrs['a']
print(dict(g.attrs))
g.attrs.put({'c': 3})
print(dict(g.attrs), 'c' in g.attrs, len(g.attrs))
g.update_attributes({'d': [1.0, 2.0]})
print(g.attrs.asdict())
"""),
    # ---- creation, dtypes, fill values -----------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2205", code="""
import numpy as np
import zarr
store = zarr.storage.MemoryStore()
group = zarr.group(store=store, overwrite=True)
try:
    zarray = group.create_array(name='foo', shape=(2,), fill_value=-1, chunks=(1,),
                                dtype=np.uint32, overwrite=True)
    print(zarray.fill_value)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2315", code="""
import zarr
a = zarr.create(shape=10, dtype=str)
print(a.dtype, a.fill_value, a[:3])
b = zarr.create(shape=10, dtype=str, zarr_format=2)
print(b.dtype, repr(b.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2268", code="""
import zarr
store = {}
data = ['this', 'is', 'a', '1d', 'string']
arr = zarr.array(data, store=store, zarr_format=2)
print(arr.dtype, arr[:], arr.shape)
arr3 = zarr.array(data, zarr_format=3)
print(arr3.dtype, arr3[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2792", code="""
import numpy as np
import zarr
array = zarr.open(dtype=str, shape=(5,), chunks=(2,))
array[:3] = np.array(['a', 'bb', ''], dtype=object)
print(array[:], repr(array.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2608", code="""
import numpy as np
import zarr
data = np.ones([1, 1])
zarr_array = zarr.array(data=data)
print(zarr_array[:], zarr_array.dtype, zarr_array.chunks)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3038", code="""
import zarr
arr = zarr.create(store={}, shape=(1,), dtype='uint8', zarr_format=2, compressor=None)
print(arr.compressors, arr.filters)
arr2 = zarr.create_array(store={}, shape=(1,), dtype='uint8', zarr_format=2, compressors=None)
print(arr2.compressors)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2711", code="""
import zarr
g = zarr.open_group(mode='w', zarr_format=2)
arr = g.create_array('name', dtype=[('a', 'i8'), ('b', 'f8')], shape=(1,), chunks=(1,),
                     compressors=None, overwrite=True)
arr2 = g['name']
print(arr2.dtype, arr2[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/632", code="""
import numpy as np
import zarr
arr = np.array([('1900-01-01', 123), ('1902-12-01', 321)],
               dtype=[('date', 'datetime64[D]'), ('num', 'i8')])
try:
    z = zarr.array(arr)
    print(z.dtype, z[:])
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2874", code="""
import numpy as np
import zarr
rec = np.rec.fromarrays([np.array(['abc', 'de']), np.array(['fgh', 'ij'])], names='x,y')
f = zarr.open('foo.zarr')
try:
    a = f.create_array('rec', shape=rec.shape, dtype=rec.dtype)
    a[:] = rec
    print(a.dtype, a[:])
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2119", code="""
import numpy as np
import zarr
for values in (['2001-01-12', '1969-12-31'], ['1677-09-22', '2262-04-10']):
    nparray = np.array(values, dtype='datetime64[D]')
    z = zarr.array(nparray)
    print(z.dtype, z[:], repr(z.fill_value))
t = zarr.array(np.array([1, -2], dtype='timedelta64[s]'))
print(t.dtype, t[:])
"""),
    dict(source="https://github.com/fsspec/filesystem_spec/pull/721", code="""
import numpy as np
import zarr
dates = np.arange(np.datetime64('2000-01-01', 'us'), np.datetime64('2000-01-02', 'us'),
                  np.timedelta64(6, 'h'))
z = zarr.create(shape=dates.shape, compressor=None, dtype=dates.dtype, store='d.zarr',
                overwrite=True, zarr_format=2)
z[:] = dates
print(zarr.open_array('d.zarr', mode='r')[:], z.dtype)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2711#complex", code="""
import numpy as np
import zarr
for fmt in (2, 3):
    z = zarr.array(np.array([1 + 2j, -3j], dtype='c8'), zarr_format=fmt)
    print(fmt, z.dtype, z[:], z.fill_value)
b = zarr.array(np.array([True, False, True]))
print(b.dtype, b[:], b.fill_value)
"""),
    dict(source="https://github.com/tskit-dev/tsinfer/pull/644", code="""
import numpy as np
import zarr
z = zarr.create_array({}, shape=(4,), chunks=(2,), dtype='f4', fill_value=np.nan)
print(z[:], z.fill_value)
z[1] = 2
print(z[:])
i = zarr.create_array({}, shape=(3,), dtype='i2', fill_value=-1)
print(i[:], i.fill_value, type(i.fill_value).__name__)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2268#bytes", code="""
import numpy as np
import zarr
z = zarr.array(np.array([b'ab', b'cdef', b'X']), zarr_format=2)
print(z.dtype, z[:], repr(z.fill_value))
"""),
    # ---- codecs and compressors -------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3276", code="""
import numpy as np
import zarr
from zarr.codecs import GzipCodec
from numcodecs import GZip
for fmt, codec in ((3, GzipCodec()), (2, GZip())):
    store = {}
    z_w = zarr.create_array(store=store, dtype='int', shape=(1,), chunks=(10,),
                            zarr_format=fmt, compressors=codec)
    z_w[:] = 5
    z_r = zarr.open_array(store=store, zarr_format=fmt)
    print(fmt, bool(np.all(z_r[:] == 5)), z_r.compressors)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3276#mixed", code="""
import zarr
from zarr.codecs import GzipCodec
try:
    zarr.create_array(store={}, dtype='int', shape=(1,), zarr_format=2, compressors=GzipCodec())
    print('v2 + GzipCodec accepted')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/Project-MONAI/MONAI/issues/8459", code="""
import numcodecs
import zarr
try:
    out = zarr.empty(shape=(4, 4), chunks=(2, 2), dtype='f4',
                     compressor=numcodecs.Blosc(cname='zstd'))
    print(out.shape)
except Exception as e:
    caught(e)
out = zarr.empty(shape=(4, 4), chunks=(2, 2), dtype='f4',
                 compressors=[zarr.codecs.BloscCodec(cname='zstd')])
print(out.compressors[0].cname, out.shape)
"""),
    dict(source="https://github.com/ScrollPrize/villa/issues/1670", code="""
import numcodecs
import numpy as np
import zarr
data = np.arange(64, dtype='uint8').reshape(4, 4, 4) + 1
src = zarr.array(data, chunks=(2, 2, 2))
try:
    zarr.open('tmp.zarr', mode='w', shape=src.shape, chunks=src.chunks, dtype=src.dtype,
              compressor=numcodecs.Blosc())
except Exception as e:
    caught(e)
dst = zarr.open('tmp2.zarr', mode='w', shape=src.shape, chunks=src.chunks, dtype=src.dtype,
                compressor=numcodecs.Blosc(), zarr_format=2)
dst[:] = src[:]
print(dst.compressors, np.array_equal(dst[:], data))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2401", code="""
import numpy as np
import zarr
from numcodecs import Blosc
compressor = Blosc(cname='zstd', clevel=3, shuffle=Blosc.BITSHUFFLE)
data = np.arange(10000, dtype='i4').reshape(100, 100)
z = zarr.array(data, chunks=(10, 10), compressor=compressor, zarr_format=2)
print(z.compressors, z[99, 99], z.metadata.zarr_format)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2590", code="""
import numpy as np
import zarr
z = zarr.create_array(store='example-2.zarr', shape=(100, 100), chunks=(10, 10), dtype='f4',
                      compressors=zarr.codecs.BloscCodec(cname='zstd', clevel=3,
                                                         shuffle=zarr.codecs.BloscShuffle.shuffle))
z[:, :] = np.arange(10000, dtype='f4').reshape(100, 100)
print(z.compressors)
print(z.serializer, z.filters)
print(z[5, :3])
"""),
    dict(source="https://github.com/fideus-labs/ngff-zarr/pull/393", code="""
import zarr
from zarr.codecs import ZstdCodec, BytesCodec, TransposeCodec
a = zarr.create_array({}, shape=(4, 6), chunks=(2, 3), dtype='<u2',
                      filters=[TransposeCodec(order=(1, 0))], serializer=BytesCodec(),
                      compressors=[ZstdCodec(level=3)])
a[:] = 7
print(a.filters, a.serializer, a.compressors)
print(a[:].sum())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/4373", code="""
import zarr
a = zarr.create_array({}, shape=(10,), dtype='f8')
print(a.compressors)
b = zarr.create_array({}, shape=(10,), dtype='f8', zarr_format=2)
print(b.compressors)
c = zarr.create_array({}, shape=(10,), dtype='f8',
                      compressors={'name': 'zstd', 'configuration': {'level': 3}})
print(c.compressors)
d = zarr.create_array({}, shape=(10,), dtype='f8', compressors=None)
print(d.compressors)
"""),
    # ---- sharding ---------------------------------------------------------------------
    dict(source="https://github.com/fideus-labs/ngff-zarr/pull/701", code="""
import zarr
zarr.create_array('root', name='scale0/image', shape=(8, 8), chunks=(2, 2), shards=(4, 4),
                  dtype='uint8', overwrite=True)
replacement = zarr.create_array('root', name='scale0/image', shape=(8, 8), chunks=(8, 8),
                                dtype='uint8', overwrite=True)
print(replacement.chunks, replacement.shards)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3014", code="""
import numpy as np
import zarr
data = np.arange(32 * 32, dtype='f4').reshape(32, 32)
z = zarr.create_array('sharded.zarr', shape=data.shape, chunks=(4, 4), shards=(16, 16),
                      dtype=data.dtype, compressors=None)
z[:] = data
print(z.chunks, z.shards, z.nchunks, z.compressors)
print(np.array_equal(zarr.open_array('sharded.zarr')[:], data))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2971", code="""
import zarr
z = zarr.create_array('test.zarr', shape=(100, 100), shards=(20, 20), chunks=(10, 10),
                      dtype='uint8')
print(z.get_block_selection((0, 4)).shape)
try:
    z.get_block_selection((0, 5))
except Exception as e:
    caught(e)
print(z.cdata_shape)
"""),
    dict(source="https://github.com/zarr-developers/pydantic-zarr/issues/116", code="""
import zarr
arr = zarr.create_array({}, shape=(100,), chunks=(10,), shards=(50,), dtype='int16',
                        fill_value=0, compressors=None)
print(arr.info)
"""),
    # ---- indexing ---------------------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1490", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(6).reshape((3, 2)))
print(z[[True, False, True], :])
print(z[np.array([True, False, True]), :])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/1968", code="""
import numpy as np
import zarr
data = np.arange(9, dtype='uint16').reshape(3, 3)
z = zarr.create_array({}, shape=data.shape, chunks=data.shape, dtype=data.dtype)
z[:] = data
mask = np.tile([True, False, True], (3, 1))
print(z[mask])
z[mask] = 42
print(z[[True, False, True], [True, False, True]])
z[[True, False, True], [True, False, True]] = 10
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1963", code="""
import numpy as np
import zarr
data = np.arange(10)
z = zarr.create_array({}, shape=data.shape, chunks=(2,), dtype=data.dtype)
z[:] = data
ix = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1], dtype=bool)
print(z.get_orthogonal_selection(ix))
print(z[ix])
print(z.oindex[ix], z.vindex[ix])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1926", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(100).reshape(10, 10), chunks=(3, 3))
print(z.get_block_selection(1))
print(z.blocks[1, 2])
print(z.blocks[-1, -1], z.blocks[:2, 3].shape)
z.blocks[0, 0] = 0
print(z[:3, :3])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/172", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(20).reshape(4, 5), chunks=(3, 2))
print(z.oindex[[0, 2], [1, 3, 4]])
print(z.vindex[[0, 2, 3], [1, 3, 4]])
print(z.get_coordinate_selection(([0, 3], [4, 0])))
z.set_coordinate_selection(([0, 3], [4, 0]), [-1, -2])
z.set_orthogonal_selection((slice(None), [0]), 99)
print(z[:])
print(z[-1], z[-2, -3], z[::2, 1::2])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1963#errors", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(10))
for sel in (1.5, (0, 0), slice(None, None, -1), 'x', [1.0]):
    try:
        print(z[sel])
    except Exception as e:
        caught(e)
try:
    z.vindex[[0, 1]] = [1, 2, 3]
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2404", code="""
import numpy as np
import zarr
a = np.arange(100, dtype='i4').reshape(10, 10)
z = zarr.array(a, chunks=(4, 3))
print(z.shape)
z.append(a)
print(z.shape)
z.append(np.vstack([a, a]), axis=1)
print(z.shape, z[19, 19], z[-1, :3])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2849", code="""
import numpy as np
import zarr
z = zarr.create_array({}, shape=(5,), chunks=(3,), dtype='i4', fill_value=0)
orig = np.arange(5, dtype='i4')
z[:] = orig
append_data = np.array([10, 11, 12, 13], dtype='i4')
z.resize((9,))
z[5:] = append_data
print(z[:], bool((z[5:] == append_data).all()))
z.resize((4,))
z.resize((7,))
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/1014", code="""
import numpy as np
import zarr
z = zarr.create_array({}, shape=(105, 105), chunks=(10, 10), dtype='i4', fill_value=0)
a = np.arange(105 * 105, dtype='i4').reshape((105, 105))
z[:] = a
z.resize((205, 205))
print(z.shape, z[104, 104], z[204, 204], z[:].shape)
z.resize((55, 155))
print(z.shape, z[54, 154], np.array_equal(z[:55, :105], a[:55]))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2413", code="""
import numpy as np
import zarr
z = zarr.zeros((3, 2), chunks=(2, 2), dtype='f4')
r = z.resize(5, 2)
print(r, z.shape)
z.append(np.ones((1, 2), dtype='f4'))
print(z.shape, z[:])
"""),
    # ---- empty chunks, info, nbytes ---------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3378", code="""
import os
import numpy as np
import zarr
store = zarr.open_group('test.zarr', mode='w')
arr = store.create_array('data', shape=(20,), chunks=(10,), dtype='f8', fill_value=0.0,
                         config={'write_empty_chunks': True})
arr[0:10] = np.zeros(10)
print(sorted(os.listdir('test.zarr/data/c')) if os.path.exists('test.zarr/data/c') else [])
arr2 = zarr.create_array('other.zarr', shape=(20,), chunks=(10,), dtype='f8', fill_value=0.0)
arr2[0:10] = np.zeros(10)
arr2[10:] = 1.0
print(sorted(os.listdir('other.zarr/c')))
print(arr2.nchunks_initialized, arr.nchunks_initialized)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2060", code="""
import os
import zarr
arr = zarr.zeros((100, 100), chunks=(10, 10), dtype='i4')
zarr.save('./testlocation', arr)
print(len([f for _, _, fs in os.walk('testlocation') for f in fs]))
print(zarr.load('./testlocation').shape)
"""),
    dict(source="https://github.com/carbonplan/cmip6-downscaling/pull/230", code="""
import numpy as np
import zarr
a = zarr.create_array({}, shape=(10, 10), chunks=(5, 5), dtype='f4', fill_value=0)
a[:5, :5] = 1
a[5:, 5:] = 0
print(a.nchunks, a.nchunks_initialized, a.nbytes, a.nbytes_stored() > 0)
"""),
    dict(source="https://github.com/HEFTIEProject/zarr-benchmarks/issues/27", code="""
import numpy as np
import zarr
with zarr.config.set({'array.write_empty_chunks': True}):
    a = zarr.create_array({}, shape=(10,), chunks=(5,), dtype='i1')
    a[:] = 0
    print(a.nchunks_initialized)
b = zarr.create_array({}, shape=(10,), chunks=(5,), dtype='i1')
b[:] = 0
print(b.nchunks_initialized)
print(zarr.config.get('array.write_empty_chunks'))
"""),
    # ---- save / load / copy ------------------------------------------------------------
    dict(source="https://github.com/qim-center/qim3d/pull/148", code="""
import numpy as np
import zarr
data = np.arange(27, dtype='u2').reshape(3, 3, 3)
zarr.api.synchronous.save('vol.zarr', data, zarr_format=3)
back = zarr.load('vol.zarr')
print(type(back).__name__, back.dtype, back[2, 2])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3042", code="""
import numpy as np
import zarr
from zarr.storage import ZipStore
with ZipStore('test_data.zip', mode='w') as zs:
    zarr.save_array(zs, np.arange(6).reshape(2, 3), path='some/data')
with ZipStore('test_data.zip', mode='r') as zs:
    data = zarr.load(store=zs, path='some/data')
    print(data.shape, data.sum())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3061", code="""
import os
import zarr
os.makedirs('video/rgb', exist_ok=True)
try:
    zarr.load('video')
except Exception as e:
    caught(e)
print(sorted(os.listdir('video')))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/104", code="""
import numpy as np
import zarr
a1, a2 = np.arange(10), np.arange(5.0)
zarr.save('many.zarr', a1, a2, named=np.array([True, False]))
loaded = zarr.load('many.zarr')
print(sorted(loaded))
print(loaded['arr_0'], loaded['arr_1'], loaded['named'])
zarr.save_group('grp.zarr', x=np.ones(2))
print(sorted(zarr.open_group('grp.zarr').array_keys()))
"""),
    dict(source="https://github.com/openghg/openghg/issues/1660", code="""
import numpy as np
import zarr
src = zarr.group()
src.create_array('a', shape=(3,), dtype='i4')[:] = [1, 2, 3]
src.create_group('sub').create_array('b', shape=(2,), dtype='f4')
dst = zarr.from_array('copy.zarr', data=src['a'])
print(dst[:], dst.dtype, dst.chunks)
b = zarr.from_array({}, data=np.arange(6).reshape(2, 3), chunks=(1, 3))
print(b[:], b.chunks)
"""),
    # ---- zip stores --------------------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2752", code="""
from zarr.storage import ZipStore
import zarr
for i in range(3):
    with ZipStore(f'test{i}.zip', mode='w') as store:
        a = zarr.create_array(store, shape=(2,), dtype='float64')
        a[:] = i
print('Written Stores')
arrays = [zarr.open_array(ZipStore(f'test{i}.zip', mode='r'), mode='r') for i in range(3)]
print([a[:].tolist() for a in arrays])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3194", code="""
import numpy as np
import zarr
from zarr.storage import ZipStore
store = ZipStore('rt.zip', mode='w')
g = zarr.group(store=store)
g.create_array('x', shape=(4,), dtype='i8')[:] = np.arange(4)
g.attrs['title'] = 'zip'
store.close()
ro = ZipStore('rt.zip', mode='r')
g2 = zarr.open_group(ro, mode='r')
print(dict(g2.attrs), g2['x'][:], ro.read_only)
"""),
    dict(source="https://github.com/scverse/anndata/issues/1971", code="""
import numpy as np
import zarr
from zarr.storage import ZipStore
with ZipStore('test.zarr.zip', mode='w') as store:
    root = zarr.open_group(store, mode='w')
    root.create_array('X', data=np.eye(3))
    root.create_group('obs').attrs['encoding-type'] = 'dataframe'
with ZipStore('test.zarr.zip', mode='r') as store:
    root = zarr.open_group(store, mode='r')
    print(root['X'][:], dict(root['obs'].attrs))
"""),
    # ---- config, stores, misc ----------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2568", code="""
import zarr
store = zarr.storage.MemoryStore()
a = zarr.open(store=store, shape=(2,))
print(a.shape, a.dtype, a.fill_value)
print(type(zarr.open(store=store)).__name__)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2412", code="""
import zarr
store = zarr.storage.LocalStore('local_data')
g = zarr.create_group(store)
g.create_array('a', shape=(2, 2), dtype='i4')
print(store.read_only, sorted(g.array_keys()))
ro = zarr.storage.LocalStore('local_data', read_only=True)
print(zarr.open_array(ro, path='a', mode='r').shape)
try:
    zarr.create_array(ro, name='b', shape=(1,), dtype='i4')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/uw-ssec/rse-plugins/issues/70", code="""
import zarr
z = zarr.create_array(store='data.zarr', shape=(100, 100), chunks=(10, 10), dtype='float32',
                      zarr_format=3)
z = zarr.open_array('data.zarr', mode='r')
print(z.shape, z.chunks, z.dtype, z.metadata.zarr_format, z.order)
root = zarr.open_group('data2.zarr', mode='w')
print(root.info)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1777", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(10, dtype='i8'), chunks=(4,))
print(len(z), list(z)[:3], np.asarray(z)[-1], z.ndim, z.size, z.itemsize if hasattr(z, 'itemsize') else None)
print(z.nbytes, z.cdata_shape, z.nchunks)
"""),
    dict(source="https://github.com/pydata/xarray/issues/10117", code="""
import numpy as np
import zarr
g = zarr.open_group('test.zarr', mode='w')
v = g.create_array('value', shape=(2, 10, 10), chunks=(1, 5, 5), dtype='f4',
                   dimension_names=['t', 'y', 'x'])
v[:] = np.ones((2, 10, 10), dtype='f4')
print(v.metadata.dimension_names, v.nchunks_initialized)
print(zarr.open_array('test.zarr/value').metadata.dimension_names)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2401#tree", code="""
import zarr
root = zarr.group()
foo = root.create_group('foo')
foo.create_array('bar', shape=(10, 10), dtype='i4')
root.create_group('baz')
print(root.tree())
"""),
    # ---- the 3.0 migration guide's changes, as users apply them -------------------------
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#stores",
         code="""
import tempfile
import zarr
from zarr.storage import LocalStore, MemoryStore
with tempfile.TemporaryDirectory() as tmp:  # TempStore's replacement
    store = LocalStore(tmp)
    z = zarr.create_array(store, shape=(4,), dtype='u2')
    z[:] = [1, 2, 3, 4]
    print(zarr.open_array(LocalStore(tmp, read_only=True))[:])
m = MemoryStore()
zarr.create_array(m, shape=(2,), dtype='f4')
print(zarr.open_array(m).dtype, m.read_only)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#format",
         code="""
import json, os
import zarr
z = zarr.create_array(store='data.zarr', shape=(10, 10), chunks=(5, 5), dtype='f4',
                      zarr_format=2)
print(sorted(os.listdir('data.zarr')))
meta = json.load(open('data.zarr/.zarray'))
print(meta['zarr_format'], meta['chunks'], meta['dtype'], meta['compressor'], meta['fill_value'])
print(zarr.open('data.zarr').metadata.zarr_format)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#defaults",
         code="""
import zarr
with zarr.config.set({'default_zarr_format': 2}):
    a = zarr.create_array({}, shape=(3,), dtype='i8')
    g = zarr.group()
print(a.metadata.zarr_format, g.metadata.zarr_format)
print(zarr.create_array({}, shape=(3,), dtype='i8').metadata.zarr_format)
"""),
    dict(source="https://raw.githubusercontent.com/K-Dense-AI/scientific-agent-skills/HEAD/skills/zarr-python/references/v3_migration.md",
         code="""
import numpy as np
import zarr
root = zarr.open_group('exp.zarr', mode='w')
raw = root.create_array('raw', shape=(6, 4), chunks=(3, 4), dtype='u1')
raw[:] = np.arange(24, dtype='u1').reshape(6, 4)
root.attrs['experiment'] = 'demo'
print(root['raw'].info_complete().__class__.__name__ in ('ArrayInfo', 'NodeInfo'))
print(root['raw'].nchunks_initialized, root['raw'].nbytes)
print(zarr.open_group('exp.zarr', mode='r').attrs['experiment'])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#groups",
         code="""
import numpy as np
import zarr
g = zarr.group()
g['x'] = np.arange(5)
print(g['x'][:], 'x' in g)
del g['x']
print('x' in g, list(g))
a = g.zeros(name='z', shape=(2, 2))
o = g.ones(name='o', shape=(2,), dtype='i2')
f = g.full(name='f', shape=(2,), fill_value=7)
e = g.empty_like(name='e', data=o)
print(a[:], o[:], f[:], e.shape, e.dtype)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#like",
         code="""
import numpy as np
import zarr
src = zarr.create_array({}, shape=(4, 3), chunks=(2, 3), dtype='f4', fill_value=1.5)
for f in (zarr.zeros_like, zarr.ones_like, zarr.empty_like):
    x = f(src)
    print(f.__name__, x.shape, x.dtype, x.chunks)
y = zarr.full_like(src, fill_value=2)
print(y[:].tolist(), y.fill_value)
z = zarr.zeros_like(np.ones((2, 2), dtype='i4'))
print(z.dtype, z[:].tolist())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.2/user-guide/v3_migration.html#copy",
         code="""
import zarr
import numpy as np
g = zarr.open_group('tree.zarr', mode='w')
g.create_group('a').create_array('b', shape=(3,), dtype='i4')[:] = [1, 2, 3]
g['a'].attrs['note'] = 'x'
h = zarr.open_group('tree.zarr', mode='r')
print(h.tree())
print(h['a/b'][:], dict(h['a'].attrs))
print(h.info)
"""),
    # ---- zarr-python 3.1.6's docs: quick start, user guide, API reference (rewritten) ---
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/quick-start.html#creating-an-array", code="""
import numpy as np
import zarr
z = zarr.create_array(store='data/q1.zarr', shape=(20, 20), chunks=(5, 5), dtype='f4')
z[:, :] = np.arange(400, dtype='f4').reshape(20, 20)
print(z)
print(z.info)
print(z[3, :4])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/quick-start.html#persistent-storage", code="""
import numpy as np
import zarr
root = zarr.create_group(store='data/q2.zarr')
temp = root.create_array('temperature', shape=(6, 6), chunks=(3, 3), dtype='i2')
temp[:] = np.arange(36).reshape(6, 6)
loaded = zarr.open_group('data/q2.zarr', mode='r')
print(loaded)
print(loaded['temperature'])
print(loaded['temperature'][5])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/quick-start.html#hierarchical-groups", code="""
import zarr
root = zarr.create_group(store='data/q3.zarr')
foo = root.create_group('foo')
bar = foo.create_array(name='bar', shape=(10, 10), chunks=(5, 5), dtype='f8')
print(root.tree())
print(root['foo/bar'])
print(foo)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/quick-start.html#compression-and-filters", code="""
import numpy as np
import zarr
from zarr.codecs import BloscCodec
z = zarr.create_array(store='data/q4.zarr', shape=(50, 50), chunks=(10, 10), dtype='i4',
                      compressors=BloscCodec(cname='zstd', clevel=3, shuffle='shuffle'))
z[:] = np.arange(2500).reshape(50, 50)
print(z.compressors)
print(z.info_complete())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#reading-and-writing-data", code="""
import numpy as np
import zarr
z = zarr.create_array(store='memory://arr1', shape=(8, 8), chunks=(4, 4), dtype='i4', fill_value=-1)
print(z[0])
z[0, :] = np.arange(8)
z[:, 0] = np.arange(8)
print(z[:3, :3])
print(z[...].sum())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#resizing-and-appending", code="""
import numpy as np
import zarr
z = zarr.create_array(store='data/r.zarr', shape=(4, 5), chunks=(2, 2), dtype='i4')
z[:] = 1
z.resize((6, 3))
print(z.shape, z[:])
a = np.arange(9, dtype='i4').reshape(3, 3)
print(z.append(a))
print(z.append(np.full((8, 1), 5, dtype='i4'), axis=1))
print(z.shape, z[-1])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#compressors", code="""
import zarr
from zarr.codecs import ZstdCodec, GzipCodec
a = zarr.create_array(store={}, shape=(10,), dtype='u2', compressors=ZstdCodec(level=5))
b = zarr.create_array(store={}, shape=(10,), dtype='u2', compressors=[GzipCodec(level=2)])
c = zarr.create_array(store={}, shape=(10,), dtype='u2', compressors=None)
for x in (a, b, c):
    print(x.compressors, x.serializer)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#filters", code="""
import zarr
import numpy as np
from zarr.codecs import TransposeCodec
z = zarr.create_array(store={}, shape=(4, 6), chunks=(2, 3), dtype='f8',
                      filters=[TransposeCodec(order=(1, 0))])
z[:] = np.arange(24).reshape(4, 6)
print(z.filters)
print(z[1:3, 2:5])
print(z.info)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#sharding", code="""
import numpy as np
import zarr
z = zarr.create_array(store='data/sh.zarr', shape=(100, 100), chunks=(10, 10),
                      shards=(50, 50), dtype='u1')
z[:] = (np.arange(10000) % 251).astype('u1').reshape(100, 100)
print(z.chunks, z.shards, z.nchunks)
print(z.info)
print(sorted(k for k in __import__('os').listdir('data/sh.zarr/c/0')))
print(z[55, 10:15])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#missing-features-in-3-0", code="""
import zarr
z = zarr.create_array(store={}, shape=(6,), chunks=(2,), dtype='i8')
z[:] = [1, 2, 3, 4, 5, 6]
print(z.oindex[[0, 2, 5]])
print(z.vindex[[5, 1]])
print(z.get_coordinate_selection([0, 3]))
print(z.blocks[1])
print(z.get_block_selection(2))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#orthogonal-indexing", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(4, 5), chunks=(2, 2), dtype='i4')
z[:] = np.arange(20).reshape(4, 5)
sel = np.array([True, False, True, False])
print(z.get_orthogonal_selection((sel, slice(None))))
print(z.oindex[[0, 3], [1, 4]])
z.oindex[[0, 3], [1, 4]] = -1
print(z[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#block-indexing", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(10, 10), chunks=(3, 3), dtype='i4')
z[:] = np.arange(100).reshape(10, 10)
print(z.blocks[1, 2])
print(z.blocks[3, 3])
z.blocks[0, 0] = 0
print(z[:4, :4])
print(z.cdata_shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#mask-indexing", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(3, 4), chunks=(2, 2), dtype='f4')
z[:] = np.arange(12).reshape(3, 4)
m = np.zeros((3, 4), dtype=bool)
m[0, 1] = m[2, 3] = True
print(z.get_mask_selection(m))
z.vindex[m] = [100, 200]
print(z[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#structured-arrays", code="""
import numpy as np
import zarr
dt = np.dtype([('a', 'i4'), ('b', 'f8')])
z = zarr.create_array(store={}, shape=(3,), dtype=dt, zarr_format=2)
z[:] = np.array([(1, 2.5), (3, 4.5), (5, 6.5)], dtype=dt)
print(z[:])
print(z.dtype, z.fill_value)
print(z['b'] if False else z[1])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#groups", code="""
import zarr
root = zarr.group()
foo = root.create_group('foo')
bar = foo.create_group('bar')
z1 = bar.create_array(name='baz', shape=(100, 100), chunks=(10, 10), dtype='i4')
print(z1)
print(root['foo'])
print(root['foo/bar/baz'])
print(sorted(root.group_keys()), list(bar.array_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#working-with-groups", code="""
import zarr
root = zarr.create_group(store='data/grp.zarr')
root.create_group('g1')
root.create_array('a1', shape=(3,), dtype='i1')
print(sorted(root.keys()))
print('g1' in root, 'nope' in root, 'g1/x' in root)
print(len(root), root.nmembers())
for name, member in sorted(root.members()):
    print(name, type(member).__name__)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#array-and-group-diagnostics", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.group(store=store)
root.attrs['title'] = 'demo'
sub = root.create_group('sub')
sub.create_array('x', shape=(4,), dtype='f4')
print(root.info)
print(root.info_complete())
print(sub.info)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#tree", code="""
import zarr
root = zarr.group()
g1 = root.create_group('foo')
g3 = root.create_group('bar')
g3.create_group('baz')
g5 = g3.create_group('quux')
g5.create_array(name='baz', shape=(100,), chunks=(10,), dtype='float64')
print(root.tree())
print(root.tree(level=1))
print(g3.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/attributes.html", code="""
import zarr
root = zarr.create_group(store='memory://attrs1')
root.attrs['foo'] = 'bar'
z = root.create_array(name='zzz', shape=(10, 10), dtype='i4')
z.attrs['baz'] = 42
z.attrs['qux'] = [1, 4, 7, 12]
print(sorted(root.attrs))
print('foo' in root.attrs, root.attrs['foo'])
print(sorted(z.attrs), z.attrs['qux'])
print(dict(z.attrs))
z.attrs.update({'a': 1})
print(z.attrs.asdict())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/attributes.html#deleting", code="""
import zarr
z = zarr.create_array(store={}, shape=(2,), dtype='i1', attributes={'a': 1, 'b': [1, 2]})
del z.attrs['a']
print(dict(z.attrs))
try:
    del z.attrs['missing']
except Exception as e:
    caught(e)
z.attrs.put({'only': True})
print(dict(z.attrs), len(z.attrs))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/storage.html#implicit-store-creation", code="""
import zarr
g = zarr.open_group(store='data/foo/bar', mode='w')
print(g)
print(g.store)
print(repr(g.store))
data = {}
arr = zarr.create_array(store=data, shape=(4,), dtype='i1')
print(sorted(data))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/storage.html#local-store", code="""
import zarr
store = zarr.storage.LocalStore('data/local.zarr', read_only=False)
z = zarr.create_array(store=store, shape=(3,), dtype='f8')
print(store, store.read_only)
print(z.store_path)
ro = zarr.storage.LocalStore('data/local.zarr', read_only=True)
print(ro.read_only, zarr.open_array(ro).read_only)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/storage.html#zip-store", code="""
import numpy as np
import zarr
store = zarr.storage.ZipStore('data.zip', mode='w')
z = zarr.create_array(store=store, shape=(2, 3), chunks=(1, 3), dtype='i4')
z[:] = np.arange(6).reshape(2, 3)
store.close()
store2 = zarr.storage.ZipStore('data.zip', mode='r')
z2 = zarr.open_array(store2, mode='r')
print(z2[:], z2.read_only)
print(store2)
store2.close()
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/storage.html#memory-store", code="""
import zarr
store = zarr.storage.MemoryStore()
g = zarr.create_group(store=store)
g.create_array('a', shape=(2,), dtype='i1')
print(sorted(store._store_dict) if hasattr(store, '_store_dict') else None)
print(store.read_only, type(store).__name__)
print(sorted(zarr.open_group(store, mode='r').keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/consolidated_metadata.html#usage", code="""
import zarr
store = zarr.storage.MemoryStore()
group = zarr.create_group(store=store)
group.create_array(shape=(1,), name='a', dtype='float64')
group.create_array(shape=(2, 2), name='b', dtype='float64')
group.create_array(shape=(3, 3, 3), name='c', dtype='float64')
zarr.consolidate_metadata(store)
consolidated = zarr.open_group(store=store)
print(sorted(consolidated.metadata.consolidated_metadata.metadata))
print(consolidated.metadata.consolidated_metadata.kind)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/consolidated_metadata.html#synchronization-and-concurrency", code="""
import zarr
store = zarr.storage.MemoryStore()
g = zarr.create_group(store=store)
g.create_array('x', shape=(2,), dtype='i1')
zarr.consolidate_metadata(store)
g.create_array('y', shape=(2,), dtype='i1')
print(sorted(zarr.open_group(store).keys()))
print(sorted(zarr.open_group(store, use_consolidated=False).keys()))
zarr.consolidate_metadata(store)
print(sorted(zarr.open_consolidated(store).keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/consolidated_metadata.html#stores-without-support", code="""
import zarr
g = zarr.open_group('data/c2.zarr', mode='w', zarr_format=2)
g.create_array('v', shape=(3,), dtype='i2')
zarr.consolidate_metadata('data/c2.zarr')
import os
print(sorted(os.listdir('data/c2.zarr')))
c = zarr.open_consolidated('data/c2.zarr')
print(c.metadata.consolidated_metadata is not None, list(c.array_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/data_types.html#zarr-format-3", code="""
import zarr
for dt in ('int8', 'uint16', 'float32', 'complex64', 'bool', '<M8[s]', '<m8[ms]'):
    z = zarr.create_array(store={}, shape=(2,), dtype=dt)
    print(dt, z.dtype, z.metadata.data_type, z.fill_value)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/data_types.html#data-type-representations", code="""
import zarr
from zarr.core.dtype import Int8, Float64
print(Int8(), Float64())
print(Int8().to_native_dtype(), Float64.from_native_dtype(__import__('numpy').dtype('>f8')))
print(Int8().to_json(zarr_format=3), Int8().to_json(zarr_format=2))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/data_types.html#zarr-format-2", code="""
import zarr
for dt in ('i2', '>u4', 'f8', 'U3', 'S4'):
    z = zarr.create_array(store={}, shape=(2,), dtype=dt, zarr_format=2)
    print(dt, z.dtype, z.metadata.dtype, repr(z.fill_value))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/data_types.html#variable-length-strings", code="""
import zarr
z = zarr.create_array(store={}, shape=(3,), dtype=str)
z[:] = ['a', 'bb', 'ccc']
print(z.dtype, z[:], z.metadata.data_type)
z2 = zarr.create_array(store={}, shape=(3,), dtype=str, zarr_format=2)
z2[:] = ['x', 'yy', '']
print(z2.dtype, z2[:], z2.filters)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/config.html", code="""
import zarr
print(zarr.config.get('array.order'))
print(zarr.config.get('array.write_empty_chunks'))
with zarr.config.set({'array.order': 'F'}):
    z = zarr.create_array(store={}, shape=(2, 3), dtype='i1', zarr_format=2)
    print(zarr.config.get('array.order'), z.order)
print(zarr.config.get('array.order'))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/config.html#write-empty-chunks", code="""
import zarr
z = zarr.create_array(store='data/e.zarr', shape=(4,), chunks=(1,), dtype='i1', fill_value=0,
                      config={'write_empty_chunks': False})
z[:] = [0, 1, 0, 2]
print(z.nchunks_initialized)
z2 = zarr.create_array(store='data/e2.zarr', shape=(4,), chunks=(1,), dtype='i1', fill_value=0,
                       config={'write_empty_chunks': True})
z2[:] = [0, 1, 0, 2]
print(z2.nchunks_initialized)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/performance.html#chunk-optimizations", code="""
import zarr
a = zarr.create_array(store={}, shape=(10000, 10000), chunks=(1000, 1000), dtype='i4')
print(a.chunks, a.nchunks, a.cdata_shape)
b = zarr.create_array(store={}, shape=(1000, 1000), chunks='auto', dtype='f8')
print(b.chunks)
c = zarr.create_array(store={}, shape=(10000, 10000), chunks=(100, 100), shards='auto', dtype='u1')
print(c.shards, c.chunks)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/performance.html#chunk-memory-layout", code="""
import numpy as np
import zarr
a = np.arange(100000000, dtype='i4').reshape(10000, 10000).T[:100, :100].copy()
c = zarr.create_array(store={}, shape=a.shape, chunks=(10, 10), dtype=a.dtype, config={'order': 'C'})
c[:] = a
f = zarr.create_array(store={}, shape=a.shape, chunks=(10, 10), dtype=a.dtype, config={'order': 'F'})
f[:] = a
print(c.order, f.order, np.array_equal(c[:], f[:]))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/performance.html#empty-chunks", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(100,), chunks=(10,), dtype='f8', fill_value=np.nan)
z[:] = np.nan
print(z.nchunks_initialized, z.nbytes_stored())
z[5] = 1.0
print(z.nchunks_initialized, z[0], z[5])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/v3_migration.html#the-array-class", code="""
import zarr
z = zarr.zeros(shape=(5,), chunks=(2,), dtype='i4', store={})
print(type(z).__name__, isinstance(z, zarr.Array))
print(z.metadata.zarr_format, z.metadata.node_type)
print(z.nbytes, z.size, z.ndim, z.itemsize)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.full", code="""
import zarr
a = zarr.full(shape=(3, 2), fill_value=7, dtype='i2')
print(a[:], a.fill_value)
b = zarr.ones(shape=(2,), dtype='f4')
print(b[:], b.fill_value)
c = zarr.empty(shape=(2,), dtype='u1')
print(c.shape, c.dtype)
d = zarr.full_like(a, fill_value=3)
print(d[:], d.chunks, d.dtype)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.zeros_like", code="""
import numpy as np
import zarr
src = np.arange(12, dtype='f4').reshape(3, 4)
a = zarr.zeros_like(src)
print(a.shape, a.dtype, a[:].sum())
b = zarr.ones_like(src, chunks=(1, 4))
print(b.chunks, b[0])
c = zarr.empty_like(src)
print(c.shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/open.html#zarr.open_like", code="""
import zarr
a = zarr.create_array(store='data/src.zarr', shape=(6, 6), chunks=(3, 3), dtype='u2', fill_value=9)
b = zarr.open_like(a, 'data/dst.zarr')
print(b.shape, b.chunks, b.dtype, b.fill_value)
print(b[0, 0])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.from_array", code="""
import numpy as np
import zarr
src = zarr.create_array(store='data/from.zarr', shape=(10,), chunks=(3,), dtype='i8')
src[:] = np.arange(10)
copy = zarr.from_array('data/to.zarr', data=src)
print(copy.chunks, copy[:], copy.compressors)
copy2 = zarr.from_array({}, data=np.ones((2, 2)), chunks=(1, 1))
print(copy2.chunks, copy2[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.create_hierarchy", code="""
import zarr
from zarr.core.group import GroupMetadata
from zarr.core.array import ArrayV3Metadata
store = zarr.storage.MemoryStore()
nodes = {'': GroupMetadata(attributes={'name': 'root'}), 'a/b': GroupMetadata()}
created = dict(zarr.create_hierarchy(store=store, nodes=nodes))
print(sorted(created))
print(sorted(zarr.open_group(store).group_keys()))
print(zarr.open_group(store).attrs['name'])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/load.html", code="""
import numpy as np
import zarr
zarr.save('data/s.zarr', np.arange(5))
print(zarr.load('data/s.zarr'))
zarr.save_group('data/g.zarr', a=np.arange(3), b=np.ones(2))
g = zarr.open_group('data/g.zarr')
print(sorted(g.array_keys()), g['b'][:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/open.html#zarr.open", code="""
import zarr
a = zarr.open('data/o.zarr', mode='w', shape=(3,), dtype='i4')
print(type(a).__name__, a.shape)
g = zarr.open('data/og.zarr', mode='w')
print(type(g).__name__)
print(type(zarr.open('data/o.zarr')).__name__)
try:
    zarr.open('data/missing.zarr', mode='r')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage.html#zarr.storage.StorePath", code="""
import zarr
from zarr.storage import StorePath, MemoryStore
sp = StorePath(MemoryStore(), 'group/arr')
a = zarr.create_array(store=sp, shape=(2,), dtype='i1')
print(a.path, a.name, a.basename)
print(sp.path)
print(repr(sp) if False else str(sp).split('/')[-2:])
"""),
    # ---- zarr-python issues/PRs and downstream projects, seventh session -------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3571", code="""
import zarr
try:
    zarr.zeros(shape=(10,), chunks=(2,), shards=(4,))
except Exception as e:
    caught(e)
a = zarr.create_array(store={}, shape=(10,), chunks=(2,), shards=(4,), dtype='f8', fill_value=0)
print(a.shards, a.chunks, a[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/4226", code="""
import numpy as np
import zarr
z = zarr.open('foo.zarr', mode='w')
z['bar'] = np.array([0, 1])
z['Bar'] = np.array([1, 2])
zarr.consolidate_metadata(z.store)
z = zarr.open_consolidated('foo.zarr')
print(sorted(z.array_keys()))
print(z['bar'][:], z['Bar'][:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2448", code="""
import zarr
store = zarr.storage.ZipStore('x.zip', mode='w')
g = zarr.group(store=store)
g.create_array('a', shape=(3,), dtype='i1')[:] = [1, 2, 3]
store.close()
ro = zarr.storage.ZipStore('x.zip', mode='r')
print(ro.read_only)
print(zarr.open_group(ro, mode='r')['a'][:])
try:
    zarr.open(store=ro, path='doesnotexist', mode='r')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3170", code="""
import zarr
for dt in (str, 'str', 'string'):
    z = zarr.create_array(store={}, shape=(2,), dtype=dt)
    print(dt, z.dtype, z.metadata.data_type, repr(z.fill_value))
z[:] = ['hello', 'world']
print(z[:], z[0])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2406", code="""
import zarr
root = zarr.group()
root.create_group('x').create_group('y')
root.create_array('z', shape=(4, 2), dtype='u1')
t = root.tree()
print(type(t).__name__)
print(t)
print(root['x'].tree())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2821", code="""
import zarr
g = zarr.open_group('t.zarr', mode='w')
g.create_group('a')
try:
    zarr.open_group('t.zarr', mode='r', path='/w')
except Exception as e:
    caught(e)
print(zarr.open_group('t.zarr', mode='r', path='a').path)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2170", code="""
import numpy as np
import zarr
from zarr.codecs import ShardingCodec, BytesCodec, ZstdCodec
a = zarr.create_array(store={}, shape=(20, 20), chunks=(5, 5), shards=(10, 10), dtype='i4')
print(a.serializer)
print(a.metadata.codecs)
a[:] = np.arange(400).reshape(20, 20)
print(a[9:11, 9:11])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/776", code="""
import numpy as np
import zarr
zarr.save('dataset.zarr', np.arange(10))
print(zarr.open('dataset.zarr'))
try:
    zarr.open_consolidated('dataset.zarr')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/scverse/anndata/pull/2051", code="""
import numpy as np
import zarr
g = zarr.open('foo.zarr')
print(type(g).__name__, g.metadata.zarr_format)
g.attrs['encoding-type'] = 'anndata'
g.attrs['encoding-version'] = '0.1.0'
g.create_array('X', data=np.ones((3, 3)), chunks=(3, 3))
g2 = zarr.open('foo.zarr', mode='r')
print(dict(g2.attrs), g2['X'][:].sum())
"""),
    dict(source="https://github.com/scverse/spatialdata/issues/1183", code="""
import zarr
root = zarr.open_group('sd.zarr', mode='w')
handle = root.require_group('tables/t')
other = zarr.open_group('sd.zarr/tables/t', mode='a')
other.attrs['encoding-type'] = 'anndata'
handle.attrs['region'] = 'r'
print(sorted(zarr.open_group('sd.zarr/tables/t').attrs))
fresh = root['tables/t']
fresh.attrs['version'] = '0.1'
print(sorted(zarr.open_group('sd.zarr/tables/t').attrs))
"""),
    dict(source="https://github.com/fideus-labs/ngff-zarr/issues/221", code="""
import numpy as np
import zarr
store = zarr.storage.ZipStore('img.ome.zarr.zip', mode='w')
root = zarr.create_group(store=store, attributes={'ome': {'version': '0.5'}})
s0 = root.create_array('0', shape=(1, 4, 8, 8), chunks=(1, 2, 4, 4), dtype='u2',
                       dimension_names=['c', 'z', 'y', 'x'])
s0[:] = np.arange(256, dtype='u2').reshape(1, 4, 8, 8)
store.close()
rs = zarr.storage.ZipStore('img.ome.zarr.zip', mode='r')
g = zarr.open_group(rs, mode='r')
print(g.attrs['ome'], g['0'].metadata.dimension_names, g['0'][0, 3, 7])
rs.close()
"""),
    dict(source="https://github.com/NCAR/miles-credit/issues/216", code="""
import zarr
g = zarr.open_group('era.zarr', mode='w', zarr_format=3)
g.create_array('t2m', shape=(2, 3), dtype='f4')
zarr.consolidate_metadata('era.zarr')
c = zarr.open_consolidated('era.zarr')
print(type(c.metadata.consolidated_metadata).__name__, sorted(c.keys()))
print(c['t2m'])
"""),
    dict(source="https://github.com/ome/ome-zarr-py/issues/201", code="""
import numpy as np
import zarr
root = zarr.group('astro.zarr', overwrite=True)
root.attrs['old'] = 1
root.attrs.clear()
print(dict(root.attrs))
root.create_array('0', data=np.arange(16, dtype='u1').reshape(4, 4), chunks=(2, 2))
root2 = zarr.group('astro.zarr', overwrite=True)
print(list(root2.keys()), dict(root2.attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1965", code="""
import numpy as np
import zarr
x = np.arange(20).reshape(4, 5)
z = zarr.create(shape=x.shape, chunks=(2, 5), dtype=x.dtype, store='test', overwrite=True)
z[:] = x
print(z)
print(zarr.open_array('test')[3])
"""),
    dict(source="https://github.com/zarr-developers/pizzarr/issues/109", code="""
import zarr
g1 = zarr.group()
g1.create_group('foo')
g3 = g1.create_group('bar')
g3.create_group('baz')
g5 = g3.create_group('quux')
g5.create_array('baz', shape=(100,), chunks=(10,), dtype='f8')
print(g1.tree())
print(g1.tree(level=2))
print(g3.tree())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1017", code="""
import zarr
z = zarr.open('data', mode='w', shape=(4, 6), chunks=(2, 3), dtype='i4')
z[:] = 1
z.resize((1, 1))
print(z[:])
z.resize((4, 6))
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/624", code="""
import numpy as np
import zarr
z = zarr.create((100, 2), chunks=(100, 2), dtype='float32', store={})
z[0:2] = np.arange(4).reshape(2, 2)
z.resize((2, 2))
print(z.shape, z.nbytes, z.nchunks_initialized, z.nchunks)
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3650", code="""
import zarr
store = zarr.storage.MemoryStore()
arr = zarr.create(shape=(3, 4), chunks=(1, 2), dtype='i2', store=store, fill_value=-1)
arr[:] = 7
arr.resize((5, 4))
print(arr[:])
arr.resize((2, 3))
print(arr.shape, sorted(k for k in store._store_dict if k.startswith('c')))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2616", code="""
import numpy as np
import zarr
z = zarr.array(np.array(['2007-07-13', '2006-01-13', '2010-08-13'], dtype='M8[D]'))
print(z.dtype, z[:])
print(repr(z[0]))
z[0] = np.datetime64('1999-12-31')
print(z[:], repr(z.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/85", code="""
import numpy as np
import zarr
for unit in ('ns', 'us', 's', 'D'):
    z = zarr.create_array(store={}, shape=(2,), dtype=f'm8[{unit}]')
    z[:] = np.array([1, 2], dtype=f'm8[{unit}]')
    print(z.dtype, z.metadata.data_type, z[:], repr(z.fill_value))
"""),
    dict(source="https://github.com/cgohlke/imagecodecs/issues/143", code="""
import zarr
from numcodecs import Zstd
z = zarr.zeros((2, 3, 16, 16), chunks=(1, 1, 8, 8), dtype='u2', compressor=Zstd(level=1), zarr_format=2)
print(z.compressors, z.metadata.compressor)
try:
    zarr.zeros((4,), compressor=Zstd(level=1), zarr_format=3)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/hdmf-dev/hdmf-zarr/pull/369", code="""
import numpy as np
import zarr
from zarr.codecs import TransposeCodec, BytesCodec, BloscCodec
z = zarr.create_array(store={}, shape=(4, 3), chunks=(2, 3), dtype='i8',
                      filters=[TransposeCodec(order=(1, 0))], serializer=BytesCodec(endian='big'),
                      compressors=[BloscCodec(cname='lz4', clevel=1, shuffle='bitshuffle')])
z[:] = np.arange(12).reshape(4, 3)
print(z.filters)
print(z.serializer)
print(z.compressors)
print(z[:])
"""),
    dict(source="https://github.com/observingClouds/xbitinfo/issues/75", code="""
import numpy as np
import numcodecs
import zarr
z = zarr.create_array(store={}, shape=(6,), dtype='f4', zarr_format=2,
                      filters=[numcodecs.BitRound(keepbits=4)],
                      compressors=numcodecs.Blosc('zstd', shuffle=numcodecs.Blosc.BITSHUFFLE))
z[:] = np.linspace(0, 1, 6, dtype='f4')
print(z.filters, z.compressors)
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2102", code="""
import zarr
z = zarr.create(shape=(4,), chunks=(2,), dtype='i4', store={}, zarr_format=3)
r = z.resize((6,))
print(r, z.shape)
try:
    zarr.create(shape=(4,), store={}, zarr_version=2)
    print('zarr_version accepted')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/fideus-labs/ngff-zarr/pull/335", code="""
import json
import os
import zarr
meta = {'zarr_format': 3, 'node_type': 'array', 'shape': [4], 'data_type': 'uint8',
        'chunk_grid': {'name': 'regular', 'configuration': {'chunk_shape': [2]}},
        'chunk_key_encoding': {'name': 'default'}, 'fill_value': 0, 'codecs': [],
        'attributes': {}}
os.makedirs('img.zarr/a')
with open('img.zarr/a/zarr.json', 'w') as f:
    json.dump(meta, f)
try:
    print(zarr.open_array('img.zarr/a')[:])
except Exception as e:
    caught(e)
meta['codecs'] = [{'name': 'bytes'}]
with open('img.zarr/a/zarr.json', 'w') as f:
    json.dump(meta, f)
print(zarr.open_array('img.zarr/a')[:])
"""),
    dict(source="https://github.com/uw-ssec/rse-plugins/issues/71", code="""
import numpy as np
import zarr
from zarr.codecs import BloscCodec, ZstdCodec, GzipCodec
data = np.tile(np.arange(100, dtype='f8'), 50)
for c in (BloscCodec(cname='lz4', clevel=5, shuffle='shuffle'), BloscCodec(cname='zstd', clevel=5),
          ZstdCodec(level=3), GzipCodec(level=6)):
    z = zarr.create_array(store={}, shape=data.shape, chunks=(1000,), dtype='f8', compressors=c)
    z[:] = data
    print(z.compressors, np.array_equal(z[:], data))
"""),
    dict(source="https://github.com/dask/dask/issues/8577", code="""
import dask.array as da
import numpy as np
import zarr
arr = da.arange(4).reshape((4, 1)).rechunk(1)
z = zarr.create(shape=arr.shape, chunks=(1, 1), dtype=arr.dtype, store='blah_0', overwrite=True)
for c in range(arr.shape[0]):
    da.store(arr[c:c + 1], z, regions=[(slice(c, c + 1),)], lock=False)
print(z[:].ravel())
"""),
    dict(source="https://github.com/hdmf-dev/hdmf-zarr/issues/228", code="""
import zarr
g = zarr.open_group('nwb.zarr', mode='w', zarr_format=2)
g.create_group('acquisition')
try:
    zarr.open_consolidated('nwb.zarr', zarr_format=2)
except Exception as e:
    caught(e)
zarr.consolidate_metadata('nwb.zarr')
print(list(zarr.open_consolidated('nwb.zarr').group_keys()))
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/issues/1053", code="""
import json
import zarr
a = zarr.create_array('s.zarr', shape=(3,), dtype=str, zarr_format=2, fill_value=None)
a[:] = ['x', '', 'zz']
meta = json.load(open('s.zarr/.zarray'))
print(meta['dtype'], meta['fill_value'], meta['filters'])
b = zarr.open_array('s.zarr')
print(b.dtype, b[:], repr(b.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/issues/273", code="""
import zarr
g = zarr.open_group('dims.zarr', mode='w')
a = g.create_array('temp', shape=(2, 3), dtype='f4', dimension_names=('time', 'x'))
b = zarr.create_array('dims.zarr/v2', shape=(2,), dtype='f4', zarr_format=2,
                      attributes={'_ARRAY_DIMENSIONS': ['time']})
print(a.metadata.dimension_names, dict(a.attrs))
print(dict(zarr.open_array('dims.zarr/v2').attrs))
try:
    zarr.create_array('dims.zarr/v2b', shape=(2,), dtype='f4', zarr_format=2, dimension_names=['t'])
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/Huber-group-EMBL/Rarr/issues/94", code="""
import zarr
z = zarr.open('temp.zarr', mode='w')
idx = z.create_array('obs/_index', shape=(0,), chunks=(1,), dtype=str)
print(idx)
print(idx[:], idx[:].dtype, idx.nchunks)
print(idx.info)
try:
    z.create_array('obs/other', shape=(0,), dtype=str, zarr_format=2)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/Huber-group-EMBL/Rarr/issues/16", code="""
import numpy as np
import zarr
z = zarr.create_array(store='m.zarr', shape=(2150,), chunks=(100,), dtype='f8')
z[:] = np.ones(2150)
r = zarr.open_array('m.zarr')
print(r[[0, 1, 2, 2148, 2149]], r.nchunks, r.nchunks_initialized)
"""),
    dict(source="https://github.com/zarrs/zarrs-python/pull/169", code="""
import numpy as np
import zarr
from zarr.codecs import ShardingCodec, BytesCodec
z = zarr.create_array(store={}, shape=(32, 32), chunks=(32, 32), dtype='u1',
                      serializer=ShardingCodec(chunk_shape=(16, 16), codecs=[BytesCodec()],
                                               index_location='start'))
z[:] = (np.arange(1024) % 256).astype('u1').reshape(32, 32)
print(z.serializer)
print(z.chunks, z.shards, z[31, 28:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2026", code="""
import zarr
root = zarr.group(store=zarr.storage.MemoryStore())
a = root.create_array('a', shape=(2, 3), dtype='f4')
print(repr(root).split(' ')[0], repr(a).split(' ')[0])
print(a.store_path.path, repr(a.dtype), a.shape)
s = zarr.storage.LocalStore('local')
print(repr(s), str(s))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2433", code="""
import zarr
root = zarr.group()
a = root.create_group('a')
a.create_array('x', shape=(3, 4), dtype='i2')
a.create_array('y', shape=(5,), dtype='bool')
root.create_group('b')
print(root.tree())
print(repr(root.tree()))
"""),
    dict(source="https://github.com/mathworks/MATLAB-support-for-Zarr-files/issues/36", code="""
import json
import zarr
g = zarr.open_group('grp_v3', mode='w', zarr_format=3)
a = g.create_array('arr_v3', shape=(2,), dtype='f4', fill_value=-9)
a.attrs['attr1'] = 'var'
g.attrs['attr1'] = 'var'
print(json.load(open('grp_v3/arr_v3/zarr.json'))['attributes'])
print(json.load(open('grp_v3/zarr.json')))
"""),
    dict(source="https://github.com/manzt/zarrita.js/pull/283", code="""
import json
import zarr
g = zarr.open_group('c.zarr', mode='w', zarr_format=2)
g.create_array('a', shape=(2,), dtype='i1')
zarr.consolidate_metadata('c.zarr')
m = json.load(open('c.zarr/.zmetadata'))
print(m['zarr_consolidated_format'], sorted(m['metadata']))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1269", code="""
import zarr
from zarr.codecs import BytesCodec, ZstdCodec
z = zarr.create_array(store={}, shape=(4,), dtype='i2', serializer=BytesCodec(),
                      compressors=[ZstdCodec()])
print([type(c).__name__ for c in z.metadata.codecs])
print(z.metadata.to_dict()['codecs'])
"""),
    # ---- zarr-python 3.1.6's API reference: Group and Array methods, stores, config -----
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.require_group", code="""
import zarr
root = zarr.group()
a = root.require_group('a')
b = root.require_group('a')
print(a.path, b.path, a == b)
x = root.require_array('x', shape=(3,), dtype='i4')
y = root.require_array('x', shape=(3,), dtype='i4')
print(x.shape, y.dtype)
try:
    root.require_array('x', shape=(4,), dtype='i4')
except Exception as e:
    caught(e)
try:
    root.require_group('x')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.create_dataset", code="""
import numpy as np
import zarr
root = zarr.group(store='h5like.zarr')
d = root.create_dataset('data', shape=(4, 4), chunks=(2, 2), dtype='f4')
d[:] = np.eye(4)
print(d)
r = root.require_dataset('data', shape=(4, 4), dtype='f4')
print(r[1, 1], r.chunks)
try:
    root.require_dataset('data', shape=(5, 4), dtype='f4')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.members", code="""
import zarr
root = zarr.group()
root.create_group('a').create_group('b').create_array('c', shape=(1,), dtype='u1')
root.create_array('d', shape=(2,), dtype='u1')
print(sorted(k for k, _ in root.members()))
print(sorted(k for k, _ in root.members(max_depth=None)))
print(sorted(k for k, _ in root.members(max_depth=1)))
print(sorted(root.array_keys()), sorted(root.group_keys()))
print(root.nmembers(max_depth=None))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.update_attributes", code="""
import zarr
g = zarr.open_group('u.zarr', mode='w', attributes={'a': 1})
g2 = g.update_attributes({'b': [1, 2]})
print(type(g2).__name__, dict(g2.attrs), dict(g.attrs))
print(dict(zarr.open_group('u.zarr').attrs))
a = g.create_array('arr', shape=(2,), dtype='i2', attributes={'units': 'm'})
a2 = a.update_attributes({'long_name': 'x'})
print(dict(a2.attrs), dict(zarr.open_array('u.zarr/arr').attrs))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.move", code="""
import zarr
g = zarr.open_group('mv.zarr', mode='w')
a = g.create_array('src', shape=(3,), dtype='i1')
a[:] = [1, 2, 3]
g.move('src', 'dst')
print(sorted(g.keys()))
print(g['dst'][:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.__delitem__", code="""
import zarr
g = zarr.open_group('del.zarr', mode='w')
g.create_array('a', shape=(2,), dtype='i1')[:] = 5
g.create_group('b').create_array('c', shape=(1,), dtype='i1')
del g['a']
del g['b']
print(sorted(g.keys()), 'a' in g, 'b/c' in g)
import os
print(sorted(os.listdir('del.zarr')))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/convenience.html#zarr.copy", code="""
import zarr
src = zarr.group()
src.create_array('a', shape=(2,), dtype='i1')
dst = zarr.group()
try:
    zarr.copy(src['a'], dst)
    print(sorted(dst.keys()))
except Exception as e:
    caught(e)
try:
    zarr.copy_all(src, dst)
    print(sorted(dst.keys()))
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.set_block_selection", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(6, 6), chunks=(2, 3), dtype='i4')
z.set_block_selection((1, 0), np.full((2, 3), 7))
z.blocks[2, 1] = np.arange(6).reshape(2, 3)
print(z[:])
print(z.get_block_selection((slice(0, 2), 1)))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.set_coordinate_selection", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(4, 4), chunks=(2, 2), dtype='f8')
z.set_coordinate_selection(([0, 1, 3], [3, 2, 0]), [1.5, 2.5, 3.5])
print(z[:])
print(z.get_coordinate_selection((np.array([[0, 1], [3, 3]]), np.array([[3, 2], [0, 1]]))))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.get_orthogonal_selection", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(5, 5), chunks=(2, 2), dtype='u2')
z[:] = np.arange(25).reshape(5, 5)
print(z.get_orthogonal_selection(([0, 4], slice(1, 3))))
print(z.oindex[np.array([True, False, True, False, True]), 2])
print(z[[0, 2], :2])
print(z[np.array([1, 3])])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.fields", code="""
import numpy as np
import zarr
dt = np.dtype([('x', 'i2'), ('y', 'f4')])
z = zarr.create_array(store={}, shape=(3,), dtype=dt, zarr_format=2)
z[:] = np.array([(1, 1.5), (2, 2.5), (3, 3.5)], dtype=dt)
print(z[:]['x'])
print(z[0:2]['y'])
print(z[1], z.fill_value)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.nchunks_initialized", code="""
import numpy as np
import zarr
z = zarr.create_array(store='ni.zarr', shape=(10, 10), chunks=(5, 5), shards=(10, 5), dtype='i1')
print(z.nchunks, z.nchunks_initialized, z.nbytes_stored())
z[0, 0] = 1
print(z.nchunks_initialized)
z[:] = 2
print(z.nchunks_initialized, z.nbytes)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.resize", code="""
import numpy as np
import zarr
z = zarr.create_array(store='rs.zarr', shape=(8, 8), chunks=(2, 2), shards=(4, 4), dtype='u1')
z[:] = 9
z.resize((5, 10))
print(z.shape, z[4], z[:, 9])
z.append(np.ones((3, 10), dtype='u1'))
print(z.shape, z[-1, :3], z.nchunks)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/config.html#configuration-options", code="""
import zarr
print(zarr.config.get('default_zarr_format'))
with zarr.config.set({'default_zarr_format': 2}):
    a = zarr.create_array(store={}, shape=(2,), dtype='i1')
    print(a.metadata.zarr_format)
b = zarr.create_array(store={}, shape=(2,), dtype='i1')
print(b.metadata.zarr_format)
zarr.config.set({'array.write_empty_chunks': True})
print(zarr.config.get('array.write_empty_chunks'))
zarr.config.reset()
print(zarr.config.get('array.write_empty_chunks'))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#object-arrays", code="""
import numpy as np
import numcodecs
import zarr
z = zarr.create(shape=(3,), dtype=str, zarr_format=2, store={})
z[:] = ['a', 'bb', 'ccc']
print(z[:], z.dtype, z.filters)
b = zarr.create_array(store={}, shape=(2,), dtype='S2', zarr_format=2)
b[:] = [b'x', b'yz']
print(b[:], b.dtype)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#chunks-true-false", code="""
import zarr
a = zarr.create(shape=(100, 100), chunks=True, store={})
b = zarr.create(shape=(100, 100), chunks=False, store={})
c = zarr.create(shape=(100, 100), chunks=10, store={})
d = zarr.create(shape=(100, 100), chunks=(10, -1), store={}, zarr_format=2)
print(a.chunks, b.chunks, c.chunks, d.chunks)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#fill-values", code="""
import numpy as np
import zarr
for dt, fv in (('f4', None), ('i2', None), ('c8', 1j), ('bool', True), ('u8', 2**63), ('f8', '-Infinity')):
    try:
        z = zarr.create_array(store={}, shape=(2,), dtype=dt, fill_value=fv)
        print(dt, repr(z.fill_value), z[:], z.metadata.to_dict()['fill_value'])
    except Exception as e:
        caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#fill-values-v2", code="""
import numpy as np
import json
import zarr
for dt, fv in (('f4', None), ('f8', np.nan), ('i2', None), ('U2', None), ('M8[s]', None)):
    z = zarr.create_array('v%s.zarr' % dt.replace('[', '').replace(']', ''), shape=(2,), dtype=dt, fill_value=fv, zarr_format=2)
    meta = json.load(open(z.store_path.store.root / '.zarray' if False else 'v%s.zarr/.zarray' % dt.replace('[', '').replace(']', '')))
    print(dt, repr(z.fill_value), meta['fill_value'], z[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#group-attrs-v2", code="""
import json
import zarr
g = zarr.open_group('g2.zarr', mode='w', zarr_format=2)
g.attrs['title'] = 'test'
g.attrs.update({'n': 3})
print(json.load(open('g2.zarr/.zattrs')))
print(sorted(__import__('os').listdir('g2.zarr')))
print(zarr.open_group('g2.zarr').metadata.zarr_format)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage.html#zarr.storage.LocalStore.with_read_only", code="""
import zarr
store = zarr.storage.LocalStore('ro.zarr')
zarr.create_array(store, shape=(2,), dtype='i1')
ro = store.with_read_only(True)
print(store.read_only, ro.read_only)
a = zarr.open_array(ro)
print(a.read_only)
try:
    a[0] = 1
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage.html#zarr.storage.MemoryStore", code="""
import zarr
d = {}
store = zarr.storage.MemoryStore(d)
zarr.create_group(store=store).create_array('a', shape=(2,), dtype='i1')
print(sorted(d))
g = zarr.open_group(d, mode='r')
print(sorted(g.keys()), g.read_only)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/open.html#zarr.open_array-mode-a", code="""
import zarr
a = zarr.open_array('oa.zarr', mode='a', shape=(3,), dtype='i2', fill_value=4)
a[0] = 1
b = zarr.open_array('oa.zarr', mode='a', shape=(5,), dtype='f8')
print(b.shape, b.dtype, b[:])
c = zarr.open_array('oa.zarr', mode='w', shape=(2,), dtype='u1')
print(c.shape, c[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/open.html#zarr.open_group-path", code="""
import zarr
root = zarr.open_group('np.zarr', mode='w')
root.create_group('a/b/c')
print(sorted(k for k, _ in root.members(max_depth=None)))
sub = zarr.open_group('np.zarr', path='a/b', mode='r')
print(sub.path, sub.name, sub.basename, list(sub.keys()))
print(zarr.open('np.zarr/a/b/c', mode='r').path)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.create_array-write_data", code="""
import numpy as np
import zarr
data = np.arange(12).reshape(3, 4)
a = zarr.create_array(store={}, data=data, write_data=False)
print(a.shape, a.dtype, a[:].sum())
b = zarr.create_array(store={}, data=data, chunks=(2, 2))
print(b[:].sum(), b.chunks)
try:
    zarr.create_array(store={}, data=data, dtype='f4')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.array", code="""
import numpy as np
import zarr
z = zarr.array([[1, 2], [3, 4]], chunks=(1, 2))
print(z.dtype, z.chunks, z[:])
z2 = zarr.array(np.array([1.5, 2.5], dtype='f2'), store='a.zarr')
print(z2.dtype, zarr.open_array('a.zarr')[:])
z3 = zarr.array(z[:], chunks=z.chunks)
print(z3[:], z3.chunks)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.info_complete", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(100,), chunks=(10,), dtype='i8', attributes={'a': 1})
z[:50] = np.arange(50)
print(z.info_complete())
z2 = zarr.create_array(store={}, shape=(4, 4), chunks=(2, 2), shards=(4, 4), dtype='f2',
                       zarr_format=3, compressors=None)
print(z2.info_complete())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.__setitem__", code="""
import numpy as np
import zarr
g = zarr.group()
g['a'] = np.arange(4)
g['b/c'] = np.ones((2, 2), dtype='i1')
print(sorted(g.keys()), g['a'][:], g['b/c'].dtype, g['b/c'].chunks)
print(g['b'])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.empty_like", code="""
import numpy as np
import zarr
g = zarr.group()
src = g.create_array('src', shape=(4, 6), chunks=(2, 3), dtype='i2', fill_value=3)
e = g.empty_like('e', data=src)
z = g.zeros_like('z', data=src)
o = g.ones_like('o', data=np.zeros((2, 2)))
f = g.full_like('f', data=src, fill_value=8)
for x in (e, z, o, f):
    print(x.name, x.shape, x.chunks, x.dtype, x.fill_value)
"""),
    # ---- zarr-python 3.1.6's docs: modes, URLs, save/load, pickling, threads, writes ----
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/open.html#zarr.open-r-plus", code="""
import zarr
try:
    zarr.open('absent.zarr', mode='r+')
except Exception as e:
    caught(e)
try:
    zarr.open_group('absent.zarr', mode='r+')
except Exception as e:
    caught(e)
g = zarr.open_group('present.zarr', mode='w')
print(zarr.open_group('present.zarr', mode='r+').read_only)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/storage.html#urls", code="""
import zarr
m = zarr.create_array('memory://m1', shape=(3,), dtype='f4')
m[:] = 1
print(zarr.open_array('memory://m1')[:])
g = zarr.open_group('memory://m2', mode='w')
g.create_array('x', shape=(1,), dtype='u1')
print(sorted(zarr.open_group('memory://m2').keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.create_array-chunk_key_encoding", code="""
import os
import zarr
a = zarr.create_array('cke.zarr', shape=(4, 4), chunks=(2, 2), dtype='i1',
                      chunk_key_encoding={'name': 'default', 'separator': '.'})
a[:] = 1
print(sorted(os.listdir('cke.zarr')))
print(a.metadata.chunk_key_encoding)
b = zarr.create_array('cke2.zarr', shape=(4, 4), chunks=(2, 2), dtype='i1', zarr_format=2,
                      chunk_key_encoding={'name': 'v2', 'separator': '/'})
b[:] = 1
print(sorted(os.listdir('cke2.zarr')), b.metadata.dimension_separator)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/create.html#zarr.create_array-overwrite", code="""
import zarr
a = zarr.create_array('ow.zarr', shape=(2,), dtype='i1', fill_value=1)
b = zarr.create_array('ow.zarr', shape=(3,), dtype='f8', overwrite=True)
print(b.shape, b.dtype, b[:])
g = zarr.create_group('ow.zarr', overwrite=True)
print(type(zarr.open('ow.zarr')).__name__, list(g.keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/convenience.html#zarr.tree", code="""
import zarr
g = zarr.group()
g.create_group('x').create_array('y', shape=(2, 2), dtype='u1')
print(zarr.tree(g))
print(zarr.tree(g, level=1))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.__array__", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(2, 3), dtype='i2')
z[:] = [[1, 2, 3], [4, 5, 6]]
n = np.asarray(z)
print(type(n).__name__, n.dtype, n.sum())
print(np.array(z, dtype='f4'))
print(np.mean(z[:]), np.max(z[:], axis=0))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#pickle", code="""
import pickle
import numpy as np
import zarr
a = zarr.create_array('p.zarr', shape=(4,), dtype='i4')
a[:] = np.arange(4)
b = pickle.loads(pickle.dumps(a))
print(b[:], b.shape, b.path)
b[0] = 10
print(a[0], zarr.open_array('p.zarr')[0])
g = pickle.loads(pickle.dumps(zarr.open_group('p.zarr', mode='r') if False else zarr.group()))
print(type(g).__name__)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/performance.html#parallel-computing", code="""
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import zarr
z = zarr.create_array('par.zarr', shape=(8, 8), chunks=(2, 8), dtype='i4')
def write(i):
    z[2 * i:2 * i + 2] = i
with ThreadPoolExecutor(4) as ex:
    list(ex.map(write, range(4)))
print(z[:, 0])
print(zarr.open_array('par.zarr').nchunks_initialized)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/save.html#zarr.save_array", code="""
import numpy as np
import zarr
zarr.save_array('sa.zarr', np.arange(6).reshape(2, 3))
a = zarr.open_array('sa.zarr')
print(a.chunks, a[:])
try:
    zarr.save_array('sa.zarr', np.arange(3))
except Exception as e:
    caught(e)
zarr.save_array('sa.zarr', np.arange(3), mode='w')
print(zarr.load('sa.zarr'))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/save.html#zarr.save", code="""
import numpy as np
import zarr
zarr.save('sv.zarr', np.ones(2), np.zeros(3), named=np.arange(2))
g = zarr.open_group('sv.zarr')
print(sorted(g.array_keys()), g['arr_1'][:], g['named'][:])
try:
    zarr.save('sv2.zarr')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.array_values", code="""
import zarr
g = zarr.group()
for n in ('b', 'a'):
    g.create_array(n, shape=(1,), dtype='i1')
g.create_group('c')
print(sorted(a.name for a in g.array_values()))
print(sorted(x.name for x in g.group_values()))
print(sorted(g.array_keys()), sorted(dict(g.arrays())))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group.html#zarr.Group.get", code="""
import zarr
g = zarr.group()
g.create_array('a', shape=(1,), dtype='i1')
print(g.get('a').shape, g.get('missing'), g.get('missing', 'default'))
print('a' in g, list(iter(g)))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.append-axis1", code="""
import numpy as np
import zarr
z = zarr.create_array('ap.zarr', shape=(2, 2), chunks=(2, 2), dtype='f4', fill_value=0)
z[:] = 1
print(z.append(np.full((2, 3), 2, dtype='f4'), axis=1))
print(z[:])
print(zarr.open_array('ap.zarr').shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/v3_migration.html#chunk-key-dot", code="""
import os
import zarr
z = zarr.open('v2dot.zarr', mode='w', shape=(4,), chunks=(2,), dtype='i2', zarr_format=2)
z[:] = [1, 2, 3, 4]
print(sorted(os.listdir('v2dot.zarr')))
z2 = zarr.open('v2slash.zarr', mode='w', shape=(2, 2), chunks=(1, 1), dtype='i2', zarr_format=2,
               dimension_separator='/')
z2[:] = 1
print(sorted(os.listdir('v2slash.zarr')), z2.metadata.dimension_separator)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.store_path", code="""
import zarr
g = zarr.open_group('sp.zarr', mode='w')
a = g.create_array('sub/a', shape=(1,), dtype='i1')
print(a.store_path, a.path, a.name, a.basename)
print(g['sub'].store_path, g.store_path)
print(a.store)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array.html#zarr.Array.with_config", code="""
import zarr
a = zarr.create_array(store={}, shape=(4,), chunks=(1,), dtype='i1', fill_value=0)
b = a.with_config({'write_empty_chunks': True}) if hasattr(a, 'with_config') else a
b[:] = 0
print(a.nchunks_initialized, b.nchunks_initialized)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#negative-index", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(5, 4), chunks=(2, 2), dtype='i4')
z[:] = np.arange(20).reshape(5, 4)
print(z[-1], z[-2:, -1], z[1:-1, 1:3])
z[-1, -1] = 100
print(z[4, 3], z[:, -1])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/arrays.html#broadcast-writes", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(3, 4), chunks=(2, 2), dtype='f8')
z[:] = 2.5
z[0] = np.arange(4)
z[:, 1] = 9
z[1:, 2:] = [[7, 8], [5, 6]]
print(z[:])
try:
    z[0] = np.arange(3)
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/data_types.html#bool-and-complex", code="""
import numpy as np
import zarr
b = zarr.create_array(store={}, shape=(4,), dtype=bool)
b[:] = [True, False, True, True]
print(b[:], b[:].sum(), b.fill_value)
c = zarr.create_array(store={}, shape=(2,), dtype='c16', fill_value=1 + 1j)
print(c[:], c.metadata.to_dict()['fill_value'])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#group-attributes-on-creation", code="""
import zarr
g = zarr.create_group('ga.zarr', attributes={'a': [1, 2], 'b': {'c': 'd'}})
print(dict(g.attrs))
s = g.create_group('s', attributes={'x': 1.5})
print(dict(zarr.open_group('ga.zarr/s').attrs), s.attrs['x'])
print(g.info)
"""),
    # ---- printed results for every node kind: reprs, info, info_complete(), tree(), store
    # reprs and error words, v2/v3, sharded, strings, structured, consolidated, zip (zarr-python
    # 3.1.6's API reference pages; eighth session) ------------------------------------
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:v3-local", code="""
import numpy as np, zarr
a = zarr.create_array(store='a.zarr', shape=(20, 30), chunks=(10, 10), dtype='f4')
a[:5] = 1
print(repr(a)); print(a); print(a.info); print(a.info_complete())
print(a.metadata)
print(a.compressors, a.filters, a.serializer)
print(repr(a.store), str(a.store), repr(a.store_path), str(a.store_path))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info:v3-memory", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(4,), dtype='i2', fill_value=3, attributes={'x': 1})
print(a.info); print(a.info_complete()); print(dict(a.attrs))
print(a.metadata.to_dict())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:v2-local", code="""
import numpy as np, zarr
a = zarr.create_array(store='b.zarr', shape=(20, 30), chunks=(10, 10), dtype='f8', zarr_format=2)
a[:] = 2
print(repr(a)); print(a.info); print(a.info_complete())
print(a.metadata)
print(a.compressors, a.filters, a.serializer)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:v2-numcodecs", code="""
import numpy as np, zarr, numcodecs
a = zarr.create_array(store={}, shape=(100,), chunks=(10,), dtype='i4', zarr_format=2,
                      compressors=numcodecs.Zlib(level=1), filters=[numcodecs.Delta(dtype='i4')])
a[:] = np.arange(100)
print(a.info); print(a.info_complete()); print(a.metadata)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:sharded", code="""
import numpy as np, zarr
a = zarr.create_array(store='s.zarr', shape=(64, 64), chunks=(8, 8), shards=(32, 32), dtype='u1')
a[:40, :40] = 7
print(repr(a)); print(a.info); print(a.info_complete())
print(a.metadata)
print(a.compressors, a.filters, a.serializer)
print(a.chunks, a.shards, a.nchunks, a.nchunks_initialized, a.nshards if hasattr(a, 'nshards') else '-')
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info:strings-v3", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(3,), dtype=str)
a[:] = ['a', 'bb', 'ccc']
print(repr(a)); print(a.info); print(a.info_complete()); print(a.metadata)
print(a.fill_value, repr(a.fill_value), a.dtype)
b = zarr.create_array(store={}, shape=(3,), dtype='U4')
print(repr(b)); print(b.info); print(b.metadata)
c = zarr.create_array(store={}, shape=(3,), dtype='S4')
print(repr(c)); print(c.info); print(c.metadata)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info:strings-v2", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(3,), dtype=str, zarr_format=2)
a[:] = ['a', 'bb', 'ccc']
print(repr(a)); print(a.info); print(a.info_complete()); print(a.metadata)
b = zarr.create_array(store={}, shape=(3,), dtype='U4', zarr_format=2)
print(b.info); print(b.metadata)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info:datetimes", code="""
import numpy as np, zarr
for fmt in (2, 3):
    a = zarr.create_array(store={}, shape=(3,), dtype='M8[s]', zarr_format=fmt)
    print(repr(a)); print(a.info); print(a.metadata); print(a[:], repr(a.fill_value))
    b = zarr.create_array(store={}, shape=(3,), dtype='m8[ms]', zarr_format=fmt)
    print(b.info); print(b.metadata)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info:dtypes", code="""
import numpy as np, zarr
for dt in ('bool', 'c8', 'c16', 'f2', 'i1', 'u8', '<i4'):
    for fmt in (2, 3):
        a = zarr.create_array(store={}, shape=(2,), dtype=dt, zarr_format=fmt)
        print(fmt, dt, repr(a), a.dtype, repr(a.fill_value), a.metadata.dtype if fmt == 2 else a.metadata.data_type)
        print(a.info)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.info_complete:v3", code="""
import numpy as np, zarr
g = zarr.open_group('g.zarr', mode='w', attributes={'a': 1})
g.create_group('sub').create_array('x', shape=(3,), dtype='i4')
g.create_array('y', shape=(2, 2), dtype='f4')
print(repr(g)); print(g); print(g.info); print(g.info_complete()); print(g.metadata)
print(g.tree()); print(g.tree(level=1)); print(repr(g['sub']))
print(repr(g.store), repr(g.store_path))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.info_complete:v2", code="""
import numpy as np, zarr
g = zarr.open_group('g2.zarr', mode='w', zarr_format=2)
g.create_group('sub').create_array('x', shape=(3,), dtype='i4')
g.create_array('y', shape=(2, 2), dtype='f4')
print(repr(g)); print(g.info); print(g.info_complete()); print(g.metadata)
print(g.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.tree:consolidated-v3", code="""
import numpy as np, zarr
g = zarr.open_group('c.zarr', mode='w')
g.create_group('sub').create_array('x', shape=(3,), dtype='i4')
g.create_array('y', shape=(2, 2), dtype='f4', attributes={'u': 'm'})
zarr.consolidate_metadata('c.zarr')
c = zarr.open_consolidated('c.zarr')
print(repr(c)); print(c.info); print(c.info_complete()); print(c.metadata)
print(c.tree())
print(c['sub/x'].info)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.tree:consolidated-v2", code="""
import numpy as np, zarr
g = zarr.open_group('c2.zarr', mode='w', zarr_format=2)
g.create_group('sub').create_array('x', shape=(3,), dtype='i4')
zarr.consolidate_metadata('c2.zarr')
c = zarr.open_consolidated('c2.zarr', zarr_format=2)
print(repr(c)); print(c.info); print(c.metadata)
print(c.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage/#zarr.storage.StorePath:reprs", code="""
import zarr
from zarr.storage import MemoryStore, LocalStore, ZipStore, StorePath
m = MemoryStore(); l = LocalStore('loc'); z = ZipStore('z.zip', mode='w')
for s in (m, l):
    print(type(s).__name__, s.read_only, s.supports_writes, s.supports_deletes, s.supports_listing)
print(repr(l), str(l)); print(repr(z), str(z))
print(repr(l.with_read_only(True)), l.with_read_only(True).read_only)
sp = StorePath(l, 'a/b'); print(repr(sp), str(sp), sp.path)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/errors/#zarr.errors.ArrayNotFoundError:missing", code="""
import zarr
for f in (lambda: zarr.open_array('missing.zarr', mode='r'),
          lambda: zarr.open_group('missing.zarr', mode='r'),
          lambda: zarr.open('missing.zarr', mode='r'),
          lambda: zarr.open_array(store={}, path='x', mode='r'),
          lambda: zarr.open_consolidated('missing.zarr', mode='r')):
    try:
        f()
    except Exception as e:
        caught(e); print(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/errors/#zarr.errors.ContainsArrayError:nodes", code="""
import zarr
g = zarr.group(store='n.zarr')
g.create_array('a', shape=(2,), dtype='i4')
g.create_group('s')
for f in (lambda: g['missing'], lambda: g.create_array('a', shape=(2,), dtype='i4'),
          lambda: g.create_group('a'), lambda: g.create_group('s'),
          lambda: zarr.open_array('n.zarr', path='s', mode='r'),
          lambda: zarr.open_group('n.zarr', path='a', mode='r'),
          lambda: zarr.create_array('n.zarr', name='a', shape=(2,), dtype='i4'),
          lambda: zarr.create_group('n.zarr'),
          lambda: g.require_array('a', shape=(3,), dtype='i4'),
          lambda: g.require_array('a', shape=(2,), dtype='f4'),
          lambda: g.require_group('a')):
    try:
        print(repr(f()))
    except Exception as e:
        caught(e); print(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage/#zarr.storage.LocalStore:read-only-writes", code="""
import numpy as np, zarr
a = zarr.create_array(store='r.zarr', shape=(4,), dtype='i4')
r = zarr.open_array('r.zarr', mode='r')
for f in (lambda: r.__setitem__(0, 1), lambda: r.resize((5,)), lambda: r.attrs.__setitem__('x', 1),
          lambda: r.append(np.ones(2)), lambda: r.update_attributes({'a': 1})):
    try:
        f()
    except Exception as e:
        caught(e); print(e)
g = zarr.open_group('r.zarr', mode='r') if False else None
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/errors/#zarr.errors.BoundsCheckError:selections", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(4, 5), chunks=(2, 2), dtype='i4')
for sel in (10, (0, 10), (0, 0, 0), 1.5, (slice(0, 2, 0),), 'x', [10], np.array([[True]]),
            (Ellipsis, Ellipsis), None):
    try:
        print(a[sel])
    except Exception as e:
        caught(e); print(e)
for sel in ([[0, 9], [0, 1]], ([0, 1], [0, 1, 2])):
    try:
        print(a.vindex[sel])
    except Exception as e:
        caught(e); print(e)
for sel in (([0, 9], [0, 1]), ([1.5],)):
    try:
        print(a.oindex[sel])
    except Exception as e:
        caught(e); print(e)
for sel in ((0, 9), (5,)):
    try:
        print(a.blocks[sel])
    except Exception as e:
        caught(e); print(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.append:errors", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(4, 5), chunks=(2, 2), dtype='i4')
for sel, v in ((slice(None), 'abc'),):
    try:
        a[sel] = v
        print(a[:])
    except Exception as e:
        caught(e); print(e)
for shape in ((-1, 2),):
    try:
        a.resize(shape)
    except Exception as e:
        caught(e); print(e)
try:
    a.append(np.ones((2, 7)))
except Exception as e:
    caught(e); print(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/synchronous/#zarr.api.synchronous.create_array:errors", code="""
import numpy as np, zarr
for kw in (dict(shape=(2,), dtype='nope'),
           dict(shape=(2,), dtype='i4', compressors='zstd'),
           dict(shape=(2,), dtype='i4', shards=(3,), chunks=(2,)),
           dict(shape=(2,), dtype='i4', order='Q')):
    try:
        print(repr(zarr.create_array(store={}, **kw)))
    except Exception as e:
        caught(e); print(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.nbytes_stored:properties", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(10, 10), chunks=(3, 4), dtype='i8', dimension_names=('y', 'x'))
a[:] = 1
print(a.shape, a.chunks, a.cdata_shape, a.nchunks, a.nchunks_initialized, a.nbytes, a.nbytes_stored())
print(a.ndim, a.size, a.order, a.read_only, a.path, a.name, a.basename, a.fill_value, a.dtype)
print(a.metadata.dimension_names, a.attrs.asdict(), a.metadata.zarr_format)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.members:listing", code="""
import numpy as np, zarr
g = zarr.group()
g.create_group('b'); g.create_array('a', shape=(1,), dtype='i1'); g['b'].create_array('c', shape=(1,), dtype='i1')
print(sorted(g.keys()), sorted(g.array_keys()), sorted(g.group_keys()), g.nmembers())
print(sorted(k for k, _ in g.members(max_depth=None)))
print([repr(v) for k, v in sorted(g.arrays())], [repr(v) for k, v in sorted(g.groups())])
print(len(g), 'a' in g, 'b/c' in g, 'zz' in g)
print(g.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array:len-iter", code="""
import numpy as np, zarr
a = zarr.array(np.arange(6).reshape(2, 3))
print(list(a))
b = zarr.array(np.arange(3))
print(list(b))
try:
    print(len(b))
except Exception as e:
    caught(e); print(e)
c = zarr.array(np.float64(3.0))
try:
    print(list(c))
except Exception as e:
    caught(e); print(e)
print(bool(zarr.zeros((0,))))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:structured", code="""
import numpy as np, zarr
dt = np.dtype([('a', 'i4'), ('b', 'f8'), ('c', 'u1')])
for fmt in (2, 3):
    a = zarr.create_array(store={}, shape=(3,), dtype=dt, zarr_format=fmt)
    a[0] = (1, 2.0, b'xy')
    print(repr(a)); print(a.info); print(a.info_complete()); print(a.metadata); print(a[:])
    print(repr(a.fill_value), a.dtype)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage/#zarr.storage.ZipStore:nodes", code="""
import numpy as np, zarr
s = zarr.storage.ZipStore('n.zip', mode='w')
g = zarr.open_group(s, mode='w')
a = g.create_array('x', shape=(4,), chunks=(2,), dtype='i4')
a[:] = 1
print(repr(g), repr(a), repr(s), str(s))
print(a.info); print(a.info_complete()); print(g.info); print(g.info_complete()); print(g.tree())
s.close()
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.metadata:fill-values", code="""
import numpy as np, zarr
a = zarr.create_array(store={}, shape=(4,), dtype='f4', zarr_format=2, compressors=None, fill_value=None)
print(a.info); print(a.metadata); print(repr(a.fill_value)); print(a.compressors, a.filters)
b = zarr.create_array(store={}, shape=(4,), dtype='f4', compressors=None, fill_value=float('nan'))
print(b.info); print(b.metadata); print(repr(b.fill_value)); print(b.metadata.to_dict())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.metadata:to-dict", code="""
import numpy as np, zarr
g = zarr.group(attributes={'a': 1})
g.create_group('x', attributes={'b': 2})
g.create_array('y', shape=(2,), dtype='u2')
print(g.attrs.asdict(), g['x'].attrs.asdict(), g.metadata.to_dict())
print(g['y'].metadata.to_dict())
print(sorted((k, repr(v)) for k, v in g.members()))
print(g.info_complete())
print(repr(g.store_path), str(g.store_path))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:sharded-codecs", code="""
import numpy as np, zarr
from zarr.codecs import ShardingCodec, BytesCodec, BloscCodec, Crc32cCodec, TransposeCodec
a = zarr.create_array(store={}, shape=(8, 8), chunks=(2, 2), shards=(4, 4), dtype='f8',
                      compressors=BloscCodec(cname='lz4', clevel=3), filters=[TransposeCodec(order=(1, 0))])
a[:] = 1
print(a.info); print(a.info_complete()); print(a.metadata)
print(a.compressors, a.filters, a.serializer)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.tree:nested", code="""
import numpy as np, zarr
g = zarr.group()
g.create_group('a').create_group('b').create_array('c', shape=(2, 3), dtype='f4')
g.create_array('z', shape=(), dtype='bool')
g['a'].create_array('s', shape=(2,), dtype=str)
print(g.tree()); print(g['a'].tree()); print(g.tree(level=0)); print(repr(g.tree()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage/#zarr.storage.ZipStore:read-only-info", code="""
import numpy as np, zarr
s = zarr.storage.ZipStore('a.zip', mode='w')
a = zarr.create_array(s, name='x', shape=(4, 4), chunks=(2, 2), dtype='f4', dimension_names=('y', 'x'))
a[:] = 1
s.close()
r = zarr.open_array(zarr.storage.ZipStore('a.zip', mode='r'), path='x')
print(repr(r)); print(r.info); print(r.info_complete()); print(r.read_only, r.metadata.dimension_names)
g = zarr.open_group(zarr.storage.ZipStore('a.zip', mode='r'), mode='r')
print(repr(g)); print(g.info); print(g.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.tree:implicit", code="""
import zarr
zarr.create_array('d.zarr', name='a/b/c', shape=(2,), dtype='i1')
g = zarr.open_group('d.zarr', mode='r')
print(repr(g), g.info, sorted(g.group_keys()), repr(g['a']), repr(g['a/b']))
print(g.tree())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/synchronous/#zarr.api.synchronous.consolidate_metadata:v2-info", code="""
import zarr
g = zarr.open_group('v.zarr', mode='w', zarr_format=2, attributes={'t': 1})
g.create_array('x', shape=(3,), dtype='f8', attributes={'units': 'm'})
g.create_group('s')
zarr.consolidate_metadata('v.zarr')
c = zarr.open_group('v.zarr', mode='r')
print(repr(c)); print(c.info); print(c.info_complete()); print(c.metadata)
print(c['x'].info); print(c.tree()); print(dict(c['x'].attrs))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/synchronous/#zarr.api.synchronous.zeros_like:reprs", code="""
import numpy as np, zarr
a = zarr.create_array({}, shape=(4, 3), chunks=(2, 3), dtype='i2', fill_value=7)
for f in (zarr.zeros_like, zarr.ones_like, zarr.empty_like):
    b = f(a)
    print(repr(b), b.chunks, b.fill_value, b.dtype, b.info)
c = zarr.full_like(a, fill_value=3)
print(c[:], c.fill_value)
d = zarr.open_like(a, path='q')
print(repr(d), d.shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/synchronous/#zarr.api.synchronous.save:printed", code="""
import numpy as np, zarr
zarr.save('s.zarr', np.arange(5))
print(repr(zarr.load('s.zarr')))
zarr.save_group('g.zarr', a=np.arange(3), b=np.ones(2))
g = zarr.open_group('g.zarr')
print(g.tree()); print(g.info)
zarr.save_array('sa.zarr', np.eye(2), zarr_format=2)
print(zarr.open_array('sa.zarr').info)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.append:printed", code="""
import numpy as np, zarr
a = zarr.create_array({}, shape=(5,), chunks=(2,), dtype='u2')
a[:] = np.arange(5)
a.append(np.arange(3))
print(a[:], a.shape, a.info_complete())
a.resize((3,))
print(a[:], a.nchunks_initialized, a.nbytes_stored())
a.update_attributes({'k': [1, 2]})
print(dict(a.attrs), a.metadata.attributes)
print(a.get_block_selection(1), a.blocks[0], a.cdata_shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.require_array:reprs", code="""
import numpy as np, zarr
g = zarr.group()
print(repr(g.zeros(name='z', shape=(2,))), repr(g.ones(name='o', shape=(2,), dtype='i1')))
print(repr(g.full(name='f', shape=(2,), fill_value=3.5)), repr(g.empty(name='e', shape=(2,))))
print(repr(g.require_group('r')), repr(g.require_groups('r', 's')))
print(repr(g.create_dataset('ds', shape=(2,), dtype='f4')), repr(g.require_dataset('ds', shape=(2,), dtype='f4')))
print(repr(g.require_array('ra', shape=(2,), dtype='f4')))
print(sorted(g.keys()))
"""),
    # ---- zarr-python issues/PRs and downstream ports to zarr 3, ninth session ----------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2631", code="""
import numpy as np
import zarr
group = zarr.open('test-group.zarr')
arr = np.arange(25, dtype='f8').reshape(5, 5)
ds = group.create_dataset('random', data=arr, shape=(5, 5))
print(type(ds).__name__, ds.shape, ds.dtype, ds.chunks)
np.testing.assert_equal(arr, np.asarray(ds))
print(np.asarray(ds)[4])
print(sorted(group.array_keys()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2491", code="""
import zarr
try:
    zarr.open_array(store='non-existent-store', mode='r+')
except Exception as e:
    caught(e)
import os
print(os.path.exists('non-existent-store'))
try:
    zarr.open_group(store='non-existent-group', mode='r+')
except Exception as e:
    caught(e)
print(os.path.exists('non-existent-group'))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2949", code="""
import zarr
import zarr.storage
store = zarr.storage.MemoryStore()
zarr.create((100,), store=store, zarr_format=2, path='a')
try:
    arr = zarr.open_array(store=store, path='a', zarr_format=2, mode='r')
    print(arr.read_only)
except Exception as e:
    caught(e)
ro = zarr.storage.MemoryStore(store._store_dict, read_only=True)
arr = zarr.open_array(store=ro, path='a', zarr_format=2, mode='r')
print(arr.read_only, arr.shape, arr.metadata.zarr_format)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1976", code="""
import zarr
z = zarr.open(store='example-v3.zarr', mode='w', shape=())
z[...] = 2
print(z[...], type(z[...]).__name__, z.shape, z.chunks, z.nchunks)
z2 = zarr.open(store='example-v2.zarr', mode='w', shape=(), zarr_format=2)
z2[...] = 3
print(z2[...], z2[()], zarr.open_array('example-v2.zarr', mode='r')[...])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2867", code="""
import zarr
z = zarr.create(10, store='data.zarr', overwrite=True)
z.attrs['a'] = []
z.attrs['b'] = 3
print(dict(z.attrs))
z.update_attributes({'a': [3, 4], 'c': 4})
print(dict(z.attrs))
print(dict(zarr.open_array('data.zarr', mode='r').attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3503", code="""
import numpy as np
import zarr
z = zarr.zeros(shape=(10000, 10000), chunks=(1000, 1000))
print(z.shape)
z.resize((20000, 10000))
print(z.shape)
z.resize((30000, 1000))
print(z.shape, z.nchunks)
try:
    z.resize(5, 5)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3536", code="""
import numpy as np
import zarr
z = zarr.create_array(store={}, shape=(4, 4), chunks=(2, 2), dtype='i4')
z[:] = np.arange(16).reshape(4, 4)
z.resize((6, 6))
print(z.shape)
print(z[:])
z.resize((3, 3))
print(z[:])
z.resize((5, 5))
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3447", code="""
import json, os
import zarr
os.makedirs('legacy.zarr/s0')
with open('legacy.zarr/s0/.zarray', 'w') as f:
    json.dump({'zarr_format': 2, 'shape': [4, 4], 'chunks': [2, 2], 'dtype': '|u1',
               'compressor': None, 'fill_value': 0.0, 'order': 'C', 'filters': None}, f)
with open('legacy.zarr/.zgroup', 'w') as f:
    json.dump({'zarr_format': 2}, f)
try:
    z = zarr.open_array(store='legacy.zarr', path='s0', mode='r')
    print(z.dtype, z.fill_value, z[:])
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2216", code="""
import zarr
for fv in (22.5, 22.0, -1, 256, 'x', None, True):
    try:
        a = zarr.create(shape=(2, 2), dtype='uint8', fill_value=fv)
        print(repr(fv), '->', repr(a.fill_value), a[0, 0])
    except Exception as e:
        print(repr(fv), end=' ')
        caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2020", code="""
import numpy as np
import zarr
for dt, fv in (('f4', 1), ('i8', 3.0), ('bool', 1), ('c8', 1 + 2j), ('f8', 'NaN'),
               ('f4', float('inf')), ('M8[s]', 0), ('m8[ms]', 5)):
    try:
        a = zarr.create_array({}, shape=(2,), dtype=dt, fill_value=fv)
        print(dt, repr(a.fill_value), a[:], a.metadata.to_dict()['fill_value'])
    except Exception as e:
        print(dt, end=' ')
        caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3068", code="""
import zarr
store = zarr.storage.LocalStore('data.zarr')
zarr.create_array(store, name='x', shape=(3,), dtype='i2', fill_value=1)
try:
    a = zarr.open_array(store, path='x', mode='r')
    print(a.read_only)
except Exception as e:
    caught(e)
b = zarr.open_array(zarr.storage.LocalStore('data.zarr', read_only=True), path='x', mode='r')
print(b.read_only, b[:])
c = zarr.open_array('data.zarr', path='x', mode='r')
print(c.read_only, c.store.read_only)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2921", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.group(store=store, zarr_format=3)
root.create_group('foo')
zarr.consolidate_metadata(store, path='foo')
root.create_group('foo/bar/spam')
zarr.consolidate_metadata(store)
root = zarr.open_consolidated(store, zarr_format=3)
print(sorted(k for k, _ in root.members(max_depth=100)))
print(root.metadata.consolidated_metadata is not None)
print(sorted(root.metadata.consolidated_metadata.metadata))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2206", code="""
import zarr
z = zarr.open('tmp.zarr', mode='w')
z.create_array('a', shape=(2,), dtype='i1')
try:
    g = zarr.consolidate_metadata(z)
    print(type(g).__name__)
except Exception as e:
    caught(e)
g = zarr.consolidate_metadata(z.store)
print(type(g).__name__, sorted(g.metadata.consolidated_metadata.metadata))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2018", code="""
import numpy as np
import zarr
store = zarr.storage.MemoryStore()
arr = zarr.create_array(store=store, shape=(100, 100), chunks=(1, 100), shards=(20, 100),
                        dtype='f8')
arr[:] = np.ones((100, 100))
arr = zarr.open_array(store=store)
print(arr[0].shape, arr[1].shape, arr[99].sum(), arr[:].sum())
print(arr.chunks, arr.shards, arr.nchunks, arr.nshards if hasattr(arr, 'nshards') else '')
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3479", code="""
import numpy as np
import zarr
na = np.arange(400.0).reshape(20, 20)
store = zarr.storage.MemoryStore()
root = zarr.group(store)
za_no_shard = root.create_array('noshard', data=na, chunks=(10, 10), fill_value=np.nan,
                                overwrite=True)
za_shard = root.create_array('shard', data=na, chunks=(10, 10), shards=(20, 10),
                             fill_value=np.nan, overwrite=True)
print(np.isnan(za_no_shard[:]).sum(), np.isnan(za_shard[:]).sum())
print(np.array_equal(za_shard[:], na), za_shard.shards, za_shard.chunks)
print(sorted(k for k in store._store_dict if k.startswith('shard/')))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2644", code="""
import zarr
a = zarr.create_array(store={}, shape=(100, 100), chunks=(10, 10), shards=(50, 50),
                      dtype='uint8')
a[:] = 3
a[5, 5] = 9
print(a.info)
print(a[5, 4:7], a.shards)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2323", code="""
import zarr
for dt in (str, 'str', 'string'):
    try:
        a = zarr.create(shape=(3,), dtype=dt, store={})
        a[:] = ['a', 'bb', 'ccc']
        print(repr(dt), a.dtype, a[:], repr(a.fill_value))
    except Exception as e:
        caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2268#fixed-length-utf32", code="""
import zarr
store = {}
data = ['this', 'is', 'a', '1d', 'string']
arr = zarr.array(shape=(5,), store=store, zarr_format=2, data=data)
print(arr.dtype, arr[:], arr.metadata.to_dict()['dtype'], repr(arr.fill_value))
arr3 = zarr.array(data=data, store={}, zarr_format=3)
print(arr3.dtype, arr3[:], arr3.metadata.to_dict()['data_type'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/135", code="""
import numpy as np
import zarr
a = zarr.create_array({}, shape=(3,), dtype='S4')
a[:] = [b'ab', b'cdef', b'g']
print(a.dtype, a[:], repr(a.fill_value))
u = zarr.create_array({}, shape=(2,), dtype='U3')
u[:] = ['xy', 'z']
print(u.dtype, u[:], repr(u.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2036", code="""
import numpy as np
import zarr
g = zarr.group(store={})
s = g.create_array('s', shape=(4,), dtype=str, chunks=(2,))
s[:2] = ['hello', 'world']
print(s[:], s.dtype, s.serializer if hasattr(s, 'serializer') else '')
b = g.create_array('b', shape=(3,), dtype=bytes, chunks=(2,))
b[:] = [b'x', b'yy', b'']
print(b[:], b.dtype)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2699", code="""
import zarr
try:
    from zarr.storage import DirectoryStore
except Exception as e:
    caught(e)
from zarr.storage import LocalStore
store = LocalStore('dir.zarr')
root = zarr.group(store=store)
a = root.create_array('a', shape=(4,), chunks=(2,), dtype='i8')
a[:] = [1, 2, 3, 4]
print(sorted(p.name for p in __import__('pathlib').Path('dir.zarr').rglob('*') if p.is_file()))
print(store.root.name, store.read_only, repr(store))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2359", code="""
import zarr
store = zarr.storage.LocalStore('test-92')
group = zarr.open_group(store=store, mode='w', zarr_format=3)
group.create_array('A', shape=(1,), dtype='f8')
group.create_array('B', shape=(1,), dtype='f8')
print(sorted(k for k, _ in group.members()))
store2 = zarr.storage.LocalStore('test-92')
group = zarr.open_group(store=store2, mode='a', zarr_format=3)
print(sorted(k for k, _ in group.members()))
group = zarr.open_group(store=store2, mode='w', zarr_format=3)
print(sorted(k for k, _ in group.members()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2720", code="""
import zarr
try:
    from zarr.storage import init_group
except Exception as e:
    caught(e)
store = zarr.storage.MemoryStore()
g = zarr.create_group(store=store, path='sub', attributes={'k': 1})
print(g.path, g.name, dict(g.attrs))
root = zarr.open_group(store, mode='r')
print(sorted(root.group_keys()), root['sub'].attrs['k'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1039", code="""
import zarr
root = zarr.open_group('store_or_path.zarr', mode='w')
arr = root.create_array('foo/bar', shape=(2, 2), dtype='i4')
arr[:] = 7
g = zarr.open_group('store_or_path.zarr', mode='r')
print(g['foo/bar'][:], g['foo']['bar'].path, g['foo'].path)
print(zarr.open('store_or_path.zarr', mode='r', path='foo/bar')[1])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2883", code="""
import tempfile
import zarr
with tempfile.TemporaryDirectory() as d:
    store = zarr.storage.LocalStore(d)
    z = zarr.create_array(store=store, shape=(3,), dtype='u2')
    z[:] = [5, 6, 7]
    print(z[:], zarr.open_array(d, mode='r')[2])
mem = zarr.storage.MemoryStore()
z = zarr.create_array(store=mem, shape=(2,), dtype='u2', fill_value=9)
print(z[:], sorted(mem._store_dict))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2596", code="""
import numpy as np
import zarr
z = zarr.create_array(store='data/example.zarr', shape=(10,), chunks=(5,), dtype='f4',
                      compressors=zarr.codecs.BloscCodec(cname='zstd', clevel=3,
                                                         shuffle='bitshuffle'))
z[:] = np.linspace(0, 1, 10)
print(z.compressors)
print(z.metadata.to_dict()['codecs'])
z2 = zarr.create_array(store='data/v2.zarr', shape=(10,), chunks=(5,), dtype='f4',
                       zarr_format=2)
print(z2.compressors, z2.metadata.to_dict()['compressor'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/1968#mask-assign", code="""
import numpy as np
import zarr
data = np.arange(9, dtype='uint16').reshape(3, 3)
z = zarr.create_array(store={}, shape=data.shape, chunks=data.shape, dtype=data.dtype)
z[:] = data
mask = np.tile([True, False, True], (3, 1))
print(z[mask])
z[mask] = 42
print(z[:])
print(z[[True, False, True], [True, False, True]])
z[[True, False, True], [True, False, True]] = 10
print(z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1490#numpy-mask-v3", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(6).reshape((3, 2)))
print(z[[True, False, True], :])
print(z[np.array([True, False, True]), :])
print(z.oindex[np.array([True, False, True]), [1]])
print(z.vindex[np.array([[True, False], [False, True], [True, True]])])
"""),
    dict(source="https://github.com/SpatialPathology/InSituPy/issues/384", code="""
import numpy as np
import zarr
root = zarr.open_group('data.zarr', mode='w')
root.create_array('images/he', data=np.arange(12, dtype='u1').reshape(3, 4), chunks=(2, 2))
root.attrs['version'] = '1.0'
store = zarr.storage.LocalStore('data.zarr', read_only=True)
t = zarr.open_group(store=store, mode='r')
print(t.attrs['version'], t['images/he'][:], t['images/he'].read_only)
with zarr.storage.ZipStore('data.zarr.zip', mode='w') as zs:
    zarr.group(store=zs).create_array('x', data=np.arange(3))
zs = zarr.storage.ZipStore('data.zarr.zip', mode='r')
print(zarr.open_group(store=zs, mode='r')['x'][:])
zs.close()
"""),
    dict(source="https://github.com/ome/ome-zarr-py/pull/404", code="""
import zarr
store = zarr.storage.LocalStore('img.zarr', read_only=False)
root = zarr.open_group(store=store, path='/', mode='w', zarr_format=2)
root.create_array('0', shape=(2, 2), dtype='u1')
root.attrs['multiscales'] = [{'version': '0.4', 'datasets': [{'path': '0'}]}]
again = zarr.open_group(store=store, path='/', mode='a')
print(again.metadata.zarr_format, sorted(again.array_keys()), again.attrs['multiscales'])
wiped = zarr.open_group(store=store, path='/', mode='w', zarr_format=2)
print(sorted(wiped.array_keys()), dict(wiped.attrs))
"""),
    dict(source="https://github.com/pipefunc/pipefunc/pull/523", code="""
import numpy as np
import zarr
store = zarr.storage.MemoryStore()
try:
    arr = zarr.create_array(store, name='/array', shape=(2, 3), dtype=object)
    print(arr.dtype)
except Exception as e:
    caught(e)
arr = zarr.create_array(store, name='array', shape=(2, 3), dtype='f8', fill_value=np.nan,
                        chunks=(1, 3))
arr[0, 1] = 2.5
print(arr[:], arr.path)
"""),
    dict(source="https://github.com/kreshuklab/panseg/pull/423", code="""
import numpy as np
import zarr
f = zarr.open_group('out.zarr', mode='a')
data = np.arange(24, dtype='float32').reshape(2, 3, 4)
if 'raw' in f:
    del f['raw']
ds = f.create_array('raw', shape=data.shape, dtype=data.dtype, chunks=(1, 3, 4),
                    overwrite=True)
ds[...] = data
print(ds.shape, ds.chunks, ds[1, 2])
ds2 = f.create_array('raw', shape=(2,), dtype='i1', overwrite=True)
print(ds2.shape, 'raw' in f, sorted(f.array_keys()))
"""),
    dict(source="https://github.com/ScrollPrize/villa/issues/1448", code="""
import zarr
root = zarr.open_group('st.zarr', mode='w')
print(hasattr(root, 'create_dataset'), hasattr(root, 'require_dataset'),
      hasattr(zarr, 'DirectoryStore'))
a = root.require_array('structure_tensor', shape=(4, 4), dtype='f4', chunks=(2, 2))
b = root.require_array('structure_tensor', shape=(4, 4), dtype='f4')
print(a.shape, b.chunks, a.path == b.path)
try:
    root.require_array('structure_tensor', shape=(5, 4), dtype='f4')
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/carbonplan/ocr/pull/51", code="""
import zarr
g = zarr.open_group('keep.zarr', mode='w')
g.create_array('a', shape=(2,), dtype='i1')[:] = [1, 2]
g.create_array('b', shape=(2,), dtype='i1')[:] = [3, 4]
g2 = zarr.open_group('keep.zarr', mode='a')
print(sorted(g2.array_keys()), g2['a'][:], g2['b'][:])
a = zarr.open('keep.zarr', mode='a', path='a')
print(type(a).__name__, a[:])
"""),
    dict(source="https://github.com/dask/dask/pull/11539", code="""
import zarr
z = zarr.create_array('src.zarr', shape=(4,), chunks=(2,), dtype='i2')
z[:] = [1, 2, 3, 4]
r = zarr.open_array('src.zarr', mode='r')
print(r.read_only, r[:])
ro = zarr.open_array(zarr.storage.LocalStore('src.zarr', read_only=True))
print(ro.read_only)
try:
    ro[0] = 5
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/live-image-tracking-tools/geff/issues/417", code="""
import numpy as np
import zarr
g = zarr.open_group('g.geff', mode='w')
props = g.require_group('nodes').require_group('props')
vals = props.create_array('t', data=np.array([0, 1, 1, 2], 'i8'), chunks=(2,))
props.create_array('missing', data=np.array([False, True, False, False]))
print(sorted(props.group_keys()), sorted(props.array_keys()))
print(g['nodes/props/t'][:], g['nodes/props/missing'].dtype)
print(sorted(k for k, _ in g.members(max_depth=None)))
"""),
    # ---- hierarchies, copies, empty chunks (ninth session) -----------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2026#group-info", code="""
import zarr
store = zarr.storage.MemoryStore()
g = zarr.open_group(store, mode='w', attributes={'title': 't'})
a = g.create_array('a', shape=(3, 4), chunks=(2, 2), dtype='f4')
print(repr(g).replace(str(id(store._store_dict)), 'ID'))
print(repr(a).replace(str(id(store._store_dict)), 'ID'))
print(repr(store).replace(str(id(store._store_dict)), 'ID'))
print(g.info)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/260", code="""
import zarr
root = zarr.group()
root.create_array('x', shape=(1,), dtype='i1')
sub = root.create_group('sub')
sub.create_array('y', shape=(2,), dtype='i1')
sub.create_group('deeper').create_array('z', shape=(3,), dtype='i1')
print(sorted(root.array_keys()))
print(sorted(k for k, v in root.members(max_depth=None) if isinstance(v, zarr.Array)))
print(sorted(k for k, v in root.members(max_depth=1)))
print(root.nmembers(), root.nmembers(max_depth=None))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/371", code="""
import zarr
print(zarr.tree(zarr.group(zarr.storage.MemoryStore())))
g = zarr.group(zarr.storage.MemoryStore())
g.create_group('a').create_array('b', shape=(2, 3), dtype='i2')
print(zarr.tree(g))
print(g.tree(expand=True))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1753", code="""
import zarr
g = zarr.open_group('kids.zarr', mode='w')
for name in ('c', 'a', 'b'):
    g.create_group(name)
g.create_array('arr', shape=(1,), dtype='u1')
print(sorted(g.keys()), len(g), 'a' in g, 'zz' in g)
print(sorted(name for name in g))
print(sorted(k for k, _ in g.items()))
print(type(g['a']).__name__, type(g['arr']).__name__)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/217", code="""
import numpy as np
import zarr
src = zarr.group(store=zarr.storage.MemoryStore())
src.create_array('foo/bar/baz', data=np.arange(10), chunks=(5,))
src['foo'].attrs['k'] = 'v'
dest = zarr.group(store=zarr.storage.MemoryStore())
try:
    r = zarr.copy_all(src, dest)
    print(r)
    print(dest.tree())
except Exception as e:
    caught(e)
try:
    r = zarr.copy(src['foo/bar/baz'], dest, name='b2')
    print(r)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/hdmf-dev/hdmf-zarr/pull/325", code="""
import itertools
import numpy as np
import zarr
src_g = zarr.open_group('src.zarr', mode='w')
source = src_g.create_array('data', data=np.arange(35, dtype='i2').reshape(5, 7),
                            chunks=(2, 3), fill_value=-1)
dest_group = zarr.open_group('dst.zarr', mode='w')
kwargs = dict(name='data', shape=source.shape, chunks=source.chunks, dtype=source.dtype)
if hasattr(source, 'compressors') and source.compressors:
    kwargs['compressors'] = list(source.compressors)
if hasattr(source, 'filters') and source.filters:
    kwargs['filters'] = list(source.filters)
kwargs['fill_value'] = source.fill_value
dest = dest_group.create_array(**kwargs)
for i, j in itertools.product(range(0, 5, 2), range(0, 7, 3)):
    dest[i:i + 2, j:j + 3] = source[i:i + 2, j:j + 3]
print(np.array_equal(dest[:], source[:]), dest.fill_value, dest.compressors)
"""),
    dict(source="https://github.com/copick/copick/issues/369", code="""
import numpy as np
import zarr
g = zarr.open_group('seg.zarr', mode='w', zarr_format=2)
g.create_array('0', data=np.ones((4, 4), 'u1'), chunks=(2, 2))
g.create_array('1', data=np.zeros((2, 2), 'u1'), chunks=(2, 2))
r = zarr.open_group('seg.zarr', mode='r')
print(r.metadata.zarr_format, sorted(r.array_keys()))
print([k for k in sorted(r.array_keys())], r['0'][:].sum(), r['1'].shape)
print(r['0'].metadata.to_dict()['compressor'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2696", code="""
import zarr
def run():
    store = zarr.storage.MemoryStore()
    a = zarr.empty(store=store, shape=(3,), chunks=(1000,), dtype=int, zarr_format=2)
    a[:] = 1
    return store._store_dict['0'].to_bytes()
b1, b2 = run(), run()
print(b1 == b2)
import numcodecs
raw = numcodecs.get_codec({'id': 'zstd'}).decode(b1)
print(len(raw), bytes(raw[:24]))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3136", code="""
import numpy as np
import zarr
zarr_store = zarr.storage.LocalStore('test_zarr_store')
arr = zarr.create_array(zarr_store, name='arr', shape=(5, 16, 16), dtype=np.uint16,
                        chunks=(1, 8, 8))
arr[0, :, :] = np.zeros((16, 16), dtype=np.uint16)
arr[1, :8, :8] = 3
arr[1, :8, :8] = 0
print(arr.nchunks_initialized, arr[1].sum(), arr.nbytes_stored() > 0)
"""),
    dict(source="https://github.com/pymmcore-plus/ome-writers/pull/56", code="""
import numpy as np
import zarr
print(zarr.config.get('array.write_empty_chunks'))
a = zarr.create_array({}, shape=(4, 4), chunks=(2, 2), dtype='u2',
                      config={'write_empty_chunks': True})
a[:] = 0
print(a.nchunks_initialized, a.config.write_empty_chunks if hasattr(a, 'config') else '')
with zarr.config.set({'array.write_empty_chunks': True}):
    b = zarr.create_array({}, shape=(4,), chunks=(2,), dtype='u2')
    b[:] = 0
print(b.nchunks_initialized)
"""),
    # ---- fill values, v2 layouts, stores as users inspect them (ninth session) ---------------
    dict(source="https://github.com/napari/napari/pull/7215", code="""
import os
import zarr
zarr_dir = 'data.zarr'
z = zarr.open(store=zarr_dir, mode='w')
z.zeros(name='1d', shape=(3,), chunks=(3,), dtype='float32')
z.create_array('2d', shape=(2, 2), dtype='u1')
image_path = os.path.join(zarr_dir, '1d')
a = zarr.open(image_path, mode='r')
print(type(a).__name__, a.ndim, a.shape, a.dtype)
print(sorted(os.listdir(zarr_dir)))
"""),
    dict(source="https://github.com/napari/napari/pull/8943", code="""
import numpy as np
import zarr
data = np.random.default_rng(0).integers(0, 255, (4, 8, 8), dtype='u1')
root = zarr.open_group('multi.zarr', mode='w')
for level in range(3):
    d = data[:, ::2 ** level, ::2 ** level]
    root.create_array(str(level), shape=d.shape, chunks=(1,) + d.shape[1:], dtype=d.dtype)[:] = d
print([root[str(i)].shape for i in range(3)])
print(np.array_equal(root['2'][:], data[:, ::4, ::4]), root['1'].chunks)
"""),
    dict(source="https://github.com/ome/ome-zarr-py/issues/470", code="""
import zarr
root = zarr.open_group('img.ome.zarr', mode='w', zarr_format=3)
root.attrs['ome'] = {'version': '0.5', 'multiscales': [{'datasets': [{'path': '0'}]}]}
root.create_array('0', shape=(2, 16, 16), chunks=(1, 16, 16), shards=(2, 16, 16),
                  dtype='u2', dimension_names=['c', 'y', 'x'])
r = zarr.open_group('img.ome.zarr', mode='r')
print(r.metadata.zarr_format, r.attrs['ome']['version'], r['0'].metadata.dimension_names)
print(r['0'].shards, r['0'].chunks, r['0'].info)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2271", code="""
import zarr
try:
    zarr.open_array(store=zarr.storage.MemoryStore(), shape=(4,), zarr_format=2,
                    fill_value=None)
except Exception as e:
    caught(e)
arr = zarr.open(store=zarr.storage.MemoryStore(), mode='w', shape=(4,), zarr_format=2,
                fill_value=None)
print(arr.metadata.fill_value, arr.fill_value, arr[:])
arr2 = zarr.create_array({}, shape=(2,), dtype='i4', zarr_format=2, fill_value=None)
print(arr2.metadata.fill_value, arr2[:], arr2.metadata.to_dict()['fill_value'])
arr3 = zarr.create_array({}, shape=(2,), dtype='i4', fill_value=None)
print(arr3.metadata.fill_value, arr3.metadata.to_dict()['fill_value'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/49", code="""
import zarr
for f in (zarr.zeros, zarr.empty, zarr.ones):
    z = f((5,), chunks=(4,), dtype='i4')
    z[4] = 7
    print(f.__name__, z[:], z.fill_value)
z = zarr.create((5,), chunks=(4,), dtype='f8')
print(z.fill_value, z[:])
z = zarr.full((2,), fill_value=None, dtype='f4')
print(z.fill_value, z[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2274", code="""
import json
import zarr
store = zarr.storage.MemoryStore()
arr = zarr.create(shape=(3,), dtype='i2', store=store, zarr_format=2, fill_value=None)
print(json.loads(store._store_dict['.zarray'].to_bytes())['fill_value'])
arr[1] = 5
print(arr[:])
arr = zarr.create(shape=(3,), dtype='f4', store=store, zarr_format=2, overwrite=True)
print(json.loads(store._store_dict['.zarray'].to_bytes())['fill_value'], arr[:])
"""),
    dict(source="https://github.com/pydata/xarray/issues/5475", code="""
import numpy as np
import zarr
store = zarr.storage.LocalStore('zarr-xarray-example.zarr')
root = zarr.group(store=store, overwrite=True)
arr = root.create_array(name='arr', data=np.array([0, 1, 2, 3, 4]))
arr.attrs['_ARRAY_DIMENSIONS'] = ['phony_dim_0']
zarr.consolidate_metadata(store)
root = zarr.open('zarr-xarray-example.zarr')
print(root['arr'].fill_value, root['arr'].dtype, root['arr'][:])
print(dict(root['arr'].attrs))
"""),
    dict(source="https://github.com/sgkit-dev/bio2zarr/issues/320", code="""
import numpy as np
import zarr
g = zarr.open_group('vcf.zarr', mode='w', zarr_format=2)
a = g.create_array('call_genotype', shape=(4, 3), chunks=(2, 3), dtype='i1', fill_value=-1)
b = g.create_array('variant_position', shape=(4,), chunks=(2,), dtype='i4', fill_value=None)
a[:2] = 0
print(a[:], a.fill_value, b.fill_value, b.metadata.fill_value)
print(zarr.open_group('vcf.zarr', mode='r')['call_genotype'].fill_value)
"""),
    dict(source="https://github.com/girder/large_image/pull/1840", code="""
import numpy as np
import zarr
root = zarr.open_group('tiles.zarr', mode='w')
arr = root.create_array('0', shape=(2, 5, 5), chunks=(1, 4, 4), dtype='u1', fill_value=0,
                        zarr_format=None) if False else root.create_array(
    '0', shape=(2, 5, 5), chunks=(1, 4, 4), dtype='u1', fill_value=0)
arr[0, :3, :3] = 9
print(arr[0], arr[1].max(), arr.nchunks_initialized)
"""),
    dict(source="https://github.com/TGSAI/mdio-python/pull/630", code="""
import numpy as np
import zarr
dt = np.dtype([('cdp_x', 'f4'), ('cdp_y', 'f4'), ('inline', 'i4')])
g = zarr.open_group('mdio.zarr', mode='w')
hdr = g.create_array('headers', shape=(3,), chunks=(2,), dtype=dt,
                     fill_value=np.zeros((), dt)[()])
hdr[1] = (1.5, 2.5, 7)
print(hdr[:], hdr.dtype, hdr.fill_value)
print(zarr.open_array('mdio.zarr', path='headers', mode='r')[1])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2507", code="""
import zarr
arr = zarr.create(store=zarr.storage.MemoryStore(), path='a', shape=(3, 4, 5),
                  chunks=(2, 2, 2))
print(arr.metadata.encode_chunk_key((0, 0, 0)), arr.metadata.encode_chunk_key((1, 2, 3)))
arr[0, 0, 0] = 1
print('a/' + arr.metadata.encode_chunk_key((0, 0, 0)) in arr.store._store_dict,
      'a/' + arr.metadata.encode_chunk_key((1, 1, 1)) in arr.store._store_dict)
print(arr.nchunks_initialized, arr.nchunks)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/37", code="""
import zarr
store = dict()
g1 = zarr.group(store=store, zarr_format=2)
print(sorted(store.keys()) if store else sorted(g1.store._store_dict))
g2 = g1.create_group('foo')
d1 = g1.create_array('bar', shape=(20, 20), chunks=(10, 10), dtype='f8')
print(sorted(g1.store._store_dict), g2.path, d1.path, d1.chunks)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/23", code="""
import zarr
data = {}
x = zarr.create_array(data, shape=(1000,), chunks=(100,), dtype='f8', zarr_format=2)
x[:] = 1
s = x.store._store_dict if hasattr(x.store, '_store_dict') else data
print(sorted(s)[:4], len(s))
print(x.nchunks_initialized, x[999])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/359", code="""
import numpy as np
import zarr
store = zarr.storage.MemoryStore()
z = zarr.create_array(store, shape=(4,), chunks=(2,), dtype='i4', compressors=None)
z[:] = [1, 2, 3, 4]
v = store._store_dict['c/0']
print(bytes(v.to_bytes()), np.frombuffer(v.to_bytes(), '<i4'))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/636", code="""
import zarr
ms = zarr.storage.MemoryStore()
print(isinstance(ms, zarr.abc.store.Store), ms.read_only, ms.supports_writes,
      ms.supports_deletes, ms.supports_listing)
z = zarr.create_array(ms, shape=(2,), dtype='u1')
print(len(ms._store_dict), 'zarr.json' in ms._store_dict)
print(isinstance(z.store, zarr.abc.store.Store), isinstance({}, zarr.abc.store.Store))
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/pull/836", code="""
import zarr
store = zarr.storage.MemoryStore()
a = zarr.create_array(store, name='scalar', shape=(), dtype='f8', fill_value=1.5)
a[()] = 3.25
print(sorted(k for k in store._store_dict if k.startswith('scalar/')))
print(a[()], a.nchunks, a.cdata_shape, a.chunks)
b = zarr.create_array(store, name='scalar2', shape=(), dtype='i4', zarr_format=2)
b[...] = 4
print(sorted(k for k in store._store_dict if k.startswith('scalar2/')), b[...])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1334", code="""
import os
import zarr
try:
    zarr.zeros((10, 10), chunks=(5, 5), store='tmp', zarr_format=2,
               chunk_key_encoding={'name': 'v2', 'separator': '/'})
except Exception as e:
    caught(e)
z = zarr.zeros((10, 10), chunks=(5, 5), store='tmp', zarr_format=2, dimension_separator='/')
z[:] = 1
print(sorted(os.path.relpath(os.path.join(r, f), 'tmp')
             for r, _, fs in os.walk('tmp') for f in fs))
print(zarr.open_array('tmp', mode='r')[9, 9], z.metadata.dimension_separator)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/769", code="""
import os
import zarr
g = zarr.open_group('test.zarr', mode='a', zarr_format=2)
try:
    ds = g.create_array('test', shape=(4, 4, 4), chunks=(2, 2, 2), dtype='f8',
                        chunk_key_encoding={'name': 'v2', 'separator': '/'})
    ds[:] = 1
    print(sorted(os.listdir('test.zarr/test'))[:3])
except Exception as e:
    caught(e)
z = zarr.create(shape=(4,), chunks=(2,), store='nested.zarr', zarr_format=2,
                dimension_separator='/')
z[:] = 2
print(z.metadata.dimension_separator, sorted(os.listdir('nested.zarr')))
"""),
    dict(source="https://github.com/Huber-group-EMBL/Rarr/issues/2", code="""
import json
import os
import numpy as np
import zarr
z = zarr.create_array('new.zarr', shape=(10, 5), chunks=(2, 5), dtype='i4', zarr_format=2)
z[:] = np.arange(50).reshape(10, 5)
print(sorted(os.listdir('new.zarr')))
print(json.load(open('new.zarr/.zarray')).get('dimension_separator'))
z = zarr.create_array('new3.zarr', shape=(10, 5), chunks=(2, 5), dtype='i4')
z[:] = 1
print(sorted(os.listdir('new3.zarr/c')), sorted(os.listdir('new3.zarr/c/0')))
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/issues/1069", code="""
import zarr
store = zarr.storage.MemoryStore()
a = zarr.create(shape=(4, 4), chunks=(2, 2), dtype='int8', store=store, zarr_format=3,
                path='air', dimension_names=('x', 'y'),
                chunk_key_encoding={'name': 'default', 'configuration': {'separator': '.'}})
a[:] = 1
print(sorted(k for k in store._store_dict if k.startswith('air/c')))
b = zarr.open_array(store, path='air', mode='r')
print(b[:].sum(), b.metadata.chunk_key_encoding.separator, b.metadata.dimension_names)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/101", code="""
import numpy as np
import zarr
arr = np.arange(24).reshape(4, 6)
zarr.save('data/example.zarr', arr)
back = zarr.load('data/example.zarr')
print(type(back).__name__, back.dtype, np.array_equal(back, arr))
z = zarr.open_array('data/example.zarr', mode='r')
print(z.chunks, z.shape, z[3, 5])
zarr.save_array('data/other.zarr', arr[:2])
print(zarr.open_array('data/other.zarr').shape)
"""),
    # ---- filters, memory order, structured fields, scalars, zip modes (ninth session) --------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3256", code="""
import numpy as np
import numcodecs
import zarr
data = np.arange(100, dtype='i8')
z = zarr.create_array({}, shape=data.shape, chunks=(50,), dtype='i8', zarr_format=2,
                      filters=[numcodecs.Delta(dtype='i8', astype='i2')])
z[:] = data
print(z[:10], z.filters, z.metadata.to_dict()['filters'])
z2 = zarr.create_array({}, shape=data.shape, chunks=(50,), dtype='i8', zarr_format=2,
                       filters=[numcodecs.Delta(dtype='i8')])
z2[:] = data
print(np.array_equal(z2[:], data))
"""),
    dict(source="https://github.com/zarr-developers/numcodecs/issues/663", code="""
import numpy as np
import zarr
from numcodecs.zarr3 import Delta
store = zarr.storage.MemoryStore()
array = zarr.create_array(store=store, shape=(100,), chunks=(100,), dtype='i8',
                          filters=[Delta(dtype='i8')], compressors=None)
array[:] = np.arange(100)
print(array[:5], array[-1])
print(array.filters)
print([c['name'] for c in array.metadata.to_dict()['codecs']])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2408", code="""
import numpy as np
import zarr
a = np.arange(10000, dtype='i4').reshape(100, 100).T
f = zarr.array(a, chunks=(10, 10), order='F')
print(f.order, f.metadata.zarr_format, np.array_equal(f[:], a))
f2 = zarr.array(a, chunks=(10, 10), order='F', zarr_format=2)
print(f2.order, f2.metadata.order, f2[:].flags['F_CONTIGUOUS'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3112", code="""
import numpy as np
import zarr
for fmt in (2, 3):
    z = zarr.create_array({}, shape=(4, 3), chunks=(2, 3), dtype='i2', zarr_format=fmt,
                          config={'order': 'F'})
    z[:] = np.arange(12).reshape(4, 3)
    out = z[:]
    print(fmt, z.order, out.flags['C_CONTIGUOUS'], out.flags['F_CONTIGUOUS'], out[3])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3072", code="""
import zarr
group = zarr.group('column-major-example.zarr')
array = group.create_array(name='example', shape=(8, 8), dtype='float32', order='F',
                           dimension_names=('row', 'col'))
array[:] = 1
group = zarr.open_group('column-major-example.zarr/', mode='r')
array = group['example']
print(array[:].flags['F_CONTIGUOUS'], array[:].flags['C_CONTIGUOUS'], array.order)
print(array.metadata.dimension_names)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2675", code="""
import json
import numpy as np
import zarr
array = zarr.create_array('test_F.zarr', overwrite=True, zarr_format=2, shape=[4, 4],
                          chunks=[2, 2], dtype=np.float32, fill_value=0.0, order='F',
                          compressors=None)
array[:] = np.arange(16, dtype='f4').reshape(4, 4)
meta = json.load(open('test_F.zarr/.zarray'))
print(meta['order'], meta['compressor'])
print(np.frombuffer(open('test_F.zarr/0.1', 'rb').read(), '<f4'))
print(zarr.open_array('test_F.zarr', mode='r')[:2, 2:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/42", code="""
import numpy as np
import numcodecs
import zarr
data = np.arange(10, dtype='f8') / 3
z = zarr.create_array({}, shape=data.shape, dtype='f8', zarr_format=2,
                      filters=[numcodecs.Quantize(digits=2, dtype='f8')])
z[:] = data
print(z[:3], z.filters)
b = zarr.create_array({}, shape=(10,), dtype=bool, zarr_format=2,
                      filters=[numcodecs.PackBits()])
b[:] = np.arange(10) % 3 == 0
print(b[:], b.metadata.to_dict()['filters'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/39", code="""
import numpy as np
import numcodecs
import zarr
data = np.linspace(1000, 1001, 10, dtype='f8')
z = zarr.create_array({}, shape=data.shape, dtype='f8', zarr_format=2,
                      filters=[numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype='f8',
                                                         astype='u1')])
z[:] = data
print(z[:], z.filters[0].get_config())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3983", code="""
import numpy as np
import zarr
arr = np.array([('abc', 1), ('de', 2), ('f', 3)], dtype=[('A', '<U8'), ('B', '<i4')])
for fmt in (2, 3):
    z = zarr.create_array({}, shape=arr.shape, dtype=arr.dtype, zarr_format=fmt)
    z[:] = arr
    try:
        print(fmt, z['B'])
    except Exception as e:
        caught(e)
    try:
        print(fmt, z.get_basic_selection(slice(None), fields='A'))
    except Exception as e:
        caught(e)
    print(fmt, z[1], z[:]['B'])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2134", code="""
import numpy as np
import zarr
dt = [('time', 'M8[s]'), ('value', 'f4')]
data = np.array([('2020-01-01', 1.5), ('2021-06-01', -2.0)], dtype=dt)
for fmt in (3,):
    try:
        z = zarr.create_array({}, shape=(2,), dtype=data.dtype, zarr_format=fmt)
        z[:] = data
        print(fmt, z[:], z.fill_value)
    except Exception as e:
        caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/112", code="""
import numpy as np
import zarr
dt = np.dtype([('foo', 'i4'), ('bar', 'f8')])
z = zarr.create_array({}, shape=(6,), chunks=(4,), dtype=dt, zarr_format=2)
z[:] = np.array([(i, i / 2) for i in range(6)], dtype=dt)
print(z[:5]['foo'], z[1]['bar'])
print(z.oindex[[0, 5]], z.vindex[[4]])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2436", code="""
import numpy as np
import zarr
arr = zarr.array(1.5)
print(arr[...], arr.shape, arr.ndim, arr.size, arr.nchunks)
print(arr[()], type(arr[()]).__name__)
arr[...] = 2.5
print(np.asarray(arr), arr.info)
b = zarr.array(np.float32(3), zarr_format=2)
print(b[...], b.dtype)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1057", code="""
import zarr
with zarr.storage.ZipStore('x.zip', mode='x') as s:
    zarr.create_array(s, shape=(2,), dtype='i1')[:] = [1, 2]
try:
    s = zarr.storage.ZipStore('x.zip', mode='x')
    zarr.create_array(s, name='again', shape=(2,), dtype='i1')
except Exception as e:
    caught(e)
try:
    s = zarr.storage.ZipStore('missing.zip', mode='r')
    zarr.open_group(s, mode='r')
except Exception as e:
    caught(e)
with zarr.storage.ZipStore('x.zip', mode='w') as s:
    zarr.create_array(s, name='b', shape=(1,), dtype='i1')
with zarr.storage.ZipStore('x.zip', mode='r') as s:
    g = zarr.open_group(s, mode='r')
    print(sorted(g.array_keys()))
with zarr.storage.ZipStore('x.zip', mode='a') as s:
    zarr.create_array(s, name='c', shape=(1,), dtype='i1')
with zarr.storage.ZipStore('x.zip', mode='r') as s:
    print(sorted(zarr.open_group(s, mode='r').array_keys()))
"""),
    # ---- consolidated metadata, attributes, fancy indexing (ninth session) -------------------
    dict(source="https://github.com/scverse/spatialdata/pull/1184", code="""
import zarr
root = zarr.open_group('bug.zarr', mode='w')
handle = root.require_group('t')
other = zarr.open_group('bug.zarr', mode='a')['t']
other.attrs['encoding-type'] = 'anndata'
other.attrs['encoding-version'] = '0.1.0'
handle.attrs['region'] = 'r'
print(sorted(zarr.open_group('bug.zarr', mode='r')['t'].attrs))
print(sorted(root['t'].attrs))
"""),
    dict(source="https://github.com/scverse/anndata/pull/1726", code="""
import numpy as np
import zarr
for fmt in (2, 3):
    f = zarr.open_group(f'ad{fmt}.zarr', mode='w', zarr_format=fmt)
    a = f.create_array('s', shape=(), dtype=str)
    a[...] = np.array('hello')
    a.attrs.update({'encoding-type': 'string', 'encoding-version': '0.2.0'})
    back = zarr.open_group(f'ad{fmt}.zarr', mode='r')['s']
    print(fmt, back[()], back.dtype, dict(back.attrs))
"""),
    dict(source="https://github.com/fmicompbio/ez_zarr/pull/26", code="""
import numpy as np
import zarr
img = zarr.open_group('plate.zarr', mode='w')
for well in ('B/03', 'C/04'):
    g = img.require_group(well)
    g.attrs['well'] = {'images': [{'path': '0'}]}
    g.require_group('0').create_array('0', data=np.zeros((2, 4, 4), 'u2'), chunks=(1, 4, 4))
print(sorted(k for k, _ in img.groups()))
print(sorted(img['B'].group_keys()), img['B/03/0/0'].shape, dict(img['C/04'].attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2113", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.group(store)
root.create_group('a').create_array('x', shape=(2,), dtype='i1')
root.create_array('y', shape=(3,), dtype='f4')
zarr.consolidate_metadata(store)
g = zarr.open_consolidated(store)
print(sorted(g.metadata.consolidated_metadata.metadata))
print(sorted(g.array_keys()), sorted(g.group_keys()), g['a/x'].shape)
print(g.metadata.consolidated_metadata.kind, g.metadata.consolidated_metadata.must_understand)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3967", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.group(store, zarr_format=2)
root.create_group('leaf')
root.create_group('mid').create_group('inner')
zarr.consolidate_metadata(store)
g = zarr.open_consolidated(store, zarr_format=2)
print(g['leaf'].metadata.consolidated_metadata is not None)
print(sorted(k for k, _ in g.members(max_depth=None)))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2820", code="""
import zarr
root = zarr.open('example.zarr', mode='w')
group_a = root.create_group('a')
group_a.create_array('A', shape=(8, 16), dtype='float64', chunks=(4, 16))
group_c = root.create_group('c')
group_c.create_array('w', shape=(8,), dtype='float64')
group_d = group_c.create_group('d')
group_d.create_array('G', shape=(8, 16), dtype='float64', chunks=(4, 16))
zarr.consolidate_metadata('example.zarr')
try:
    sub = zarr.open_consolidated('example.zarr', mode='r', path='c')
    print(type(sub).__name__, sub.path)
except Exception as e:
    caught(e)
full = zarr.open_consolidated('example.zarr', mode='r')
print(sorted(k for k, _ in full['c'].members(max_depth=None)))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2754", code="""
import json, os
import zarr
os.makedirs('v2.zarr/x')
json.dump({'zarr_format': 2}, open('v2.zarr/.zgroup', 'w'))
json.dump({'zarr_format': 2, 'shape': [2], 'chunks': [2], 'dtype': '<i2',
           'compressor': None, 'fill_value': 7, 'order': 'C', 'filters': None},
          open('v2.zarr/x/.zarray', 'w'))
json.dump({'zarr_consolidated_format': 1, 'metadata': {
    '.zgroup': {'zarr_format': 2},
    'x/.zarray': json.load(open('v2.zarr/x/.zarray'))}}, open('v2.zarr/.zmetadata', 'w'))
g = zarr.open_consolidated('v2.zarr', mode='r')
print(dict(g.attrs), sorted(g.array_keys()), g['x'][:], dict(g['x'].attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/268", code="""
import zarr
base_store = zarr.storage.MemoryStore()
g = zarr.group(base_store, zarr_format=2)
g.create_array('arr', shape=(4,), dtype='i4')[:] = [1, 2, 3, 4]
zarr.consolidate_metadata(base_store)
root = zarr.open_consolidated(base_store)
root['arr'][0] = 9
print(root['arr'][:], root.read_only if hasattr(root, 'read_only') else '')
root.create_array('new', shape=(1,), dtype='i1')
print(sorted(zarr.open_consolidated(base_store).array_keys()))
zarr.consolidate_metadata(base_store)
print(sorted(zarr.open_consolidated(base_store).array_keys()))
"""),
    dict(source="https://github.com/czbiohub-sf/iohub/issues/435", code="""
import zarr
root = zarr.open_group('store.zarr', mode='w')
root.create_group('0').create_group('0').create_array('img', shape=(2, 2), dtype='u1')
with __import__('warnings').catch_warnings():
    __import__('warnings').simplefilter('ignore')
    zarr.consolidate_metadata('store.zarr')
import json
doc = json.load(open('store.zarr/zarr.json'))
print(doc['consolidated_metadata']['kind'], sorted(doc['consolidated_metadata']['metadata']))
print(zarr.open_group('store.zarr', mode='r', use_consolidated=True)['0/0/img'].shape)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1029", code="""
import numpy as np
import zarr
rows = [3, 4]
a = np.arange(20).reshape((10, 2))
z = zarr.array(a, chunks=(3, 2))
print(z[rows])
print(z[[0, 1], [1, 0]])
print(z[np.array(rows)], z.oindex[rows, 1])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/725", code="""
import numpy as np
import zarr
z = zarr.zeros((6, 6), chunks=(4, 4), dtype='i4')
z[[1, 2, 3], [1, 2, 3]] = 1
print(z[:4, :4])
print(z[[1, 2], [1, 2]], z.vindex[[1, 2, 3], [1, 2, 3]])
z[np.array([[0, 5], [5, 0]]), np.array([[0, 5], [0, 5]])] = 7
print(z[np.array([[0, 5], [5, 0]]), np.array([[0, 5], [0, 5]])])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/657", code="""
import zarr
array = zarr.zeros((20, 20))
array.vindex[[1, 2, 3], [1, 2, 3]] = 1
print(array.vindex[[1, 2, 3], [1, 2, 3]])
array.oindex[[0, 19], :] = 2
print(array.oindex[[0, 19], [0, 1]], array[:, 0].sum())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/1333", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(60).reshape(3, 4, 5), chunks=(2, 2, 2))
print(z[1, [0, 3], 2:4])
print(z[:, 1, [4, 0]])
z[0, [1, 2], :] = -1
print(z[0])
try:
    print(z[[0, 1], [0, 1], [0, 1]])
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2486", code="""
import numpy as np
import zarr
shape = (4, 4, 4)
arr = zarr.create(shape, store=zarr.storage.MemoryStore(), chunks=(2, 2, 2), dtype=np.int16,
                  fill_value=32767)
arr[:] = np.arange(64).reshape(shape)
index_tuple = (np.array([1, 2]), np.array([1, 2]), slice(None))
print(np.arange(64).reshape(shape)[index_tuple])
try:
    print(arr[index_tuple])
except Exception as e:
    caught(e)
print(arr.oindex[np.array([1, 2]), np.array([1, 2]), 0])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/77", code="""
import numpy as np
import zarr
a = np.arange(2000).reshape(1000, 2)
z = zarr.array(a, chunks=(50, 2))
print(z[[5, 2, 3]])
print(z[:][[5, 2, 3]], z.get_coordinate_selection(([5, 2], [1, 0])))
print(z.get_orthogonal_selection(([999, 0], slice(None))))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2903", code="""
import zarr
store = zarr.storage.MemoryStore()
for z in (zarr.create_array(store, name='a', shape=(10,), dtype='f8'),
          zarr.create_group(store, path='g')):
    z.update_attributes({'a': [3, 4], 'c': 4})
    del z.attrs['a']
    print('c' in z.attrs, 'a' in z.attrs, dict(z.attrs))
    print(dict(zarr.open(store, path=z.path, mode='r').attrs))
    try:
        del z.attrs['missing']
    except Exception as e:
        caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/121", code="""
import zarr
g = zarr.group(store=zarr.storage.MemoryStore(), attributes={'title': 'x'})
s = g.create_group('sub', attributes={'level': 1})
a = g.create_array('arr', shape=(2,), dtype='i1', attributes={'units': 'm'})
print(dict(g.attrs), dict(s.attrs), dict(a.attrs))
b = zarr.create_array({}, shape=(2,), dtype='i1', attributes={'k': [1, {'n': None}]})
print(b.attrs['k'], b.metadata.attributes)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/200", code="""
import json, os
import zarr
z = zarr.create_array('arr2.zarr', shape=(2,), dtype='i1', zarr_format=2)
g = zarr.open_group('grp2.zarr', mode='w', zarr_format=2)
print(sorted(os.listdir('arr2.zarr')), sorted(os.listdir('grp2.zarr')))
z.attrs['k'] = 1
g.attrs['m'] = 'x'
print(sorted(os.listdir('arr2.zarr')), json.load(open('arr2.zarr/.zattrs')))
print(sorted(os.listdir('grp2.zarr')), json.load(open('grp2.zarr/.zattrs')))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2221", code="""
import zarr
z = zarr.create_array({}, shape=(1,), dtype='u1')
z.attrs.put({'a': 1, 'b': [1, 2]})
print(z.attrs.asdict(), type(z.attrs.asdict()).__name__)
z.attrs.put({'c': 3})
print(z.attrs.asdict(), len(z.attrs), list(z.attrs), z.attrs.get('zz', 'default'))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/4059", code="""
import zarr
init_dict = {'foo': 'bar'}
user_attrs = dict(init_dict)
g = zarr.group(attributes=user_attrs)
g.attrs['new_key'] = 'new_value'
print(user_attrs == init_dict, dict(g.attrs))
arr_attrs = {'x': 1}
a = zarr.create_array({}, shape=(1,), dtype='i1', attributes=arr_attrs)
a.attrs['y'] = 2
print(arr_attrs, dict(a.attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/710", code="""
import zarr
foo = zarr.open_group('foo.zarr')
if 'bla' in foo.attrs:
    print('after loading:', foo.attrs['bla']['foo'])
foo.attrs['bla'] = {'foo': 13}
print('after initialize:', foo.attrs['bla']['foo'])
foo.attrs['bla']['foo'] = 42
print('after update:', foo.attrs['bla']['foo'])
print('reopened:', zarr.open_group('foo.zarr').attrs['bla']['foo'])
"""),
    # ---- zarr-python 2's tutorial as users port it, and a v3 migration page (ninth session) ---
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#creating-an-array", code="""
import numpy as np
import zarr
z = zarr.zeros((100, 100), chunks=(10, 10), dtype='i4')
z[:] = 42
z[0, :] = np.arange(100)
z[:, 0] = np.arange(100)
print(z[0, 0], z[-1, -1], z[0, :5], z[:5, 0])
print(z[:3, :3])
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#persistent-arrays", code="""
import numpy as np
import zarr
z1 = zarr.open('data/example.zarr', mode='w', shape=(100, 100), chunks=(10, 10), dtype='i4')
z1[:] = 42
z1[0, :] = np.arange(100)
z1[:, 0] = np.arange(100)
z2 = zarr.open('data/example.zarr', mode='r')
print(np.all(z1[:] == z2[:]), z2.shape, z2.chunks, z2.dtype)
z3 = zarr.open('data/example.zarr', mode='r+')
z3[5, 5] = -1
print(zarr.open('data/example.zarr', mode='r')[4:6, 4:6])
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#resizing-and-appending", code="""
import numpy as np
import zarr
z = zarr.zeros(shape=(100, 100), chunks=(10, 10))
z[:] = 1
z.resize((200, 100))
print(z.shape, z[150, 0], z[50, 0])
a = np.arange(1000, dtype='i4').reshape(100, 10)
z = zarr.array(a, chunks=(10, 10))
print(z.shape)
print(z.append(a), z.shape)
print(z.append(np.vstack([a, a]), axis=1), z.shape)
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#user-attributes", code="""
import zarr
root = zarr.group()
root.attrs['foo'] = 'bar'
z = root.zeros(name='zzz', shape=(100, 100))
z.attrs['baz'] = 42
z.attrs['qux'] = [1, 4, 7, 12]
print(sorted(root.attrs), 'foo' in root.attrs, root.attrs['foo'])
print(sorted(z.attrs), z.attrs['baz'], z.attrs['qux'])
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#groups", code="""
import zarr
root = zarr.group()
foo = root.create_group('foo')
bar = foo.create_group('bar')
z1 = bar.zeros(name='baz', shape=(100, 100), chunks=(10, 10), dtype='i4')
print(type(z1).__name__, z1.shape, z1.name, z1.basename)
print(root['foo'].path, root['foo/bar'].name, root['foo/bar/baz'].shape)
print(root.tree())
root2 = zarr.open_group('data/group.zarr', mode='w')
z = root2.zeros(name='foo/bar/baz', shape=(10, 10), chunks=(5, 5), dtype='i4')
print(sorted(k for k, _ in zarr.open_group('data/group.zarr', mode='r').members(max_depth=None)))
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#orthogonal-indexing", code="""
import numpy as np
import zarr
a = np.arange(15).reshape(3, 5)
z = zarr.array(a, chunks=(2, 2))
print(z.get_orthogonal_selection(([0, 2], slice(None))))
print(z.get_orthogonal_selection((slice(None), [1, 3])))
print(z.get_orthogonal_selection(([0, 2], [1, 3])))
sel = np.array([True, False, True])
print(z.oindex[sel, [1, 3]])
z.oindex[[0, 2], :] = [[-1, -2, -3, -4, -5], [-6, -7, -8, -9, -10]]
z.oindex[:, [1, 3]] = 99
print(z[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#coordinate-and-mask-indexing", code="""
import numpy as np
import zarr
z = zarr.array(np.arange(15).reshape(3, 5), chunks=(2, 2))
print(z.get_coordinate_selection(([0, 2], [1, 3])))
z.set_coordinate_selection(([0, 2], [1, 3]), [-1, -2])
print(z[:])
sel = np.zeros_like(z, dtype=bool)
sel[0, 1] = True
sel[2, 3] = True
print(z.get_mask_selection(sel))
z.set_mask_selection(sel, [7, 8])
print(z.vindex[sel], z[:])
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#structured-arrays", code="""
import numpy as np
import zarr
a = np.array([(b'aaa', 1, 4.2), (b'bbb', 2, 8.4), (b'ccc', 3, 12.6)],
             dtype=[('foo', 'S3'), ('bar', 'i4'), ('baz', 'f8')])
z = zarr.array(a)
print(z[0], z[-1])
print(z[:], z.dtype)
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#datetimes-and-timedeltas", code="""
import numpy as np
import zarr
z = zarr.array(np.array(['2007-07-13', '2006-01-13', '2010-08-13'], dtype='M8[D]'))
print(z[:], z[0], z.dtype)
z[0] = np.datetime64('1999-12-31')
print(z[:])
t = zarr.array(np.array([1, 2, 3], dtype='m8[s]'))
print(t[:], t.fill_value)
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#copying-migrating-data", code="""
import numpy as np
import zarr
source = zarr.group()
source.create_array('foo/bar/baz', data=np.arange(100), chunks=(50,))
source['foo'].attrs['k'] = 'v'
dest = zarr.open_group('data/example2.zarr', mode='w')
try:
    zarr.copy_all(source, dest)
    print(dest.tree(), dict(dest['foo'].attrs))
except Exception as e:
    caught(e)
zarr.save_group('data/saved.zarr', foo=np.arange(3), bar=np.ones(2))
print(sorted(zarr.open_group('data/saved.zarr', mode='r').array_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v2.7.1/tutorial.html#chunk-memory-layout", code="""
import numpy as np
import zarr
a = np.arange(100000000 // 10000, dtype='i4').reshape(100, 100).T
c = zarr.array(a, chunks=(10, 10), zarr_format=2)
f = zarr.array(a, chunks=(10, 10), order='F', zarr_format=2)
print(c.order, f.order, np.array_equal(c[:], f[:]), c.metadata.order, f.metadata.order)
"""),
    dict(source="https://contextqmd.com/libraries/claude-scientific-skills/versions/2.46.0/pages/skills/zarr-python/references/v3_migration", code="""
import zarr
from zarr.storage import LocalStore, MemoryStore, ZipStore
z = zarr.create_array(store='data.zarr', shape=(100, 100), chunks=(10, 10), dtype='f4',
                      zarr_format=2)
print(z.metadata.zarr_format, z.compressors, z.serializer)
z3 = zarr.create_array(store=MemoryStore(), shape=(4,), dtype='f4',
                       compressors=zarr.codecs.GzipCodec(level=5))
print(z3.compressors, z3.serializer)
z4 = zarr.create_array(store=MemoryStore(), shape=(4,), dtype='f4', compressors=None)
print(z4.compressors, z4.metadata.to_dict()['codecs'])
"""),
    # ---- obstore, fsspec memory, memory:// URLs, wrapper stores (ninth session) --------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3136#object-store-memory", code="""
import numpy as np
import zarr
from obstore.store import MemoryStore as ObsMemory
from zarr.storage import ObjectStore
store = ObjectStore(ObsMemory())
arr = zarr.create_array(store, name='arr', shape=(4, 8), dtype=np.uint16, chunks=(2, 4))
arr[0, :] = np.arange(8)
arr[1, :] = 0
print(arr[:2], arr.nchunks_initialized, store.read_only)
g = zarr.open_group(store, mode='r')
print(sorted(g.array_keys()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3136#object-store-local", code="""
import numpy as np
import zarr
from obstore.store import LocalStore as ObsLocal
import os
os.makedirs('obs_root', exist_ok=True)
store = zarr.storage.ObjectStore(ObsLocal('obs_root'))
arr = zarr.create_array(store, name='arr', shape=(5, 16), dtype=np.uint16, chunks=(1, 8))
arr[0, :] = np.zeros(16, dtype=np.uint16)
arr[1, :] = 5
print(arr[1, :3], sorted(os.listdir('obs_root/arr')), arr.nchunks_initialized)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2359#fsspec-memory", code="""
import zarr
store = zarr.storage.FsspecStore.from_url('memory://bucket/test.zarr')
group = zarr.open_group(store=store, mode='w', zarr_format=3)
group.create_array('A', shape=(1,), dtype='f8')
group.create_array('B', shape=(2,), dtype='f8')[:] = [1, 2]
print(sorted(k for k, _ in group.members()))
again = zarr.open_group(zarr.storage.FsspecStore.from_url('memory://bucket/test.zarr'),
                        mode='r')
print(again['B'][:], store.read_only)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2883#memory-url", code="""
import zarr
z = zarr.open_array('memory://pm/a.zarr', mode='w', shape=(3,), dtype='i2')
z[:] = [4, 5, 6]
print(zarr.open_array('memory://pm/a.zarr', mode='r')[:])
z2 = zarr.open('memory://pm/a.zarr', mode='a')
print(type(z2).__name__, z2.shape)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2631#logging-store", code="""
import logging
import zarr
from zarr.storage import LoggingStore, MemoryStore, WrapperStore
store = LoggingStore(MemoryStore(), log_handler=logging.NullHandler())
z = zarr.create_array(store, shape=(4,), chunks=(2,), dtype='i1')
z[:] = 1
print(z[:], type(store).__name__, store.read_only, store.counter['set'])
print(sorted(k for k in store._store._store_dict), isinstance(store, WrapperStore))
print(zarr.open_array(store, mode='r')[1:3], repr(store.with_read_only(True).read_only))
"""),
    # ---- codec enums (ninth session) ---------------------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3417", code="""
import numpy as np
import zarr
from zarr.codecs import BytesCodec, Endian, ShardingCodec, ShardingCodecIndexLocation
a = zarr.create_array({}, shape=(4,), chunks=(4,), dtype='i2',
                      serializer=BytesCodec(endian=Endian.big))
a[:] = [1, 2, 3, 256]
print(a.serializer, a[:], a.dtype)
print(a.metadata.to_dict()['codecs'][0])
b = zarr.create_array({}, shape=(8,), dtype='u1',
                      serializer=ShardingCodec(chunk_shape=(2,),
                                               index_location=ShardingCodecIndexLocation.start))
b[:] = np.arange(8)
print(b[:], b.metadata.to_dict()['codecs'][0]['configuration']['index_location'])
"""),
    # ---- version checks in downstream code (ninth session) -----------------------------------
    dict(source="https://github.com/NCAS-CMS/cfdm/blob/main/cfdm/__init__.py#zarr-version", code="""
from packaging.version import Version
import zarr
_minimum_vn = '3.0.8'
if Version(zarr.__version__) < Version(_minimum_vn):
    raise ValueError(f'Bad zarr version: requires zarr>={_minimum_vn}')
print(Version(zarr.__version__).major >= 3, Version(zarr.__version__) > Version('3.0.0.a0'))
if Version(zarr.__version__) < Version('3.0.0.a0'):
    store = zarr.storage.DirectoryStore('d.zarr')
else:
    store = zarr.storage.LocalStore('d.zarr')
print(type(store).__name__, str(zarr.__version__).startswith('3'))
"""),
    # ---- hierarchies from metadata objects, StorePath, info_complete (ninth session) ---------
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/user-guide/groups.html#batch-group-creation:metadata-objects", code="""
import zarr
from zarr.core.group import GroupMetadata
root = zarr.group(store=zarr.storage.MemoryStore(), attributes={'title': 'src'})
root.create_array('a/x', shape=(4,), chunks=(2,), dtype='i2', fill_value=3)
root['a'].attrs['k'] = 1
nodes = {'': root.metadata} | {k: v.metadata for k, v in root.members(max_depth=None)}
new_nodes = dict(zarr.create_hierarchy(store=zarr.storage.MemoryStore(), nodes=nodes))
print(sorted(new_nodes), dict(new_nodes[''].attrs), dict(new_nodes['a'].attrs))
print(new_nodes['a/x'].shape, new_nodes['a/x'][:], new_nodes['a/x'].fill_value)
meta = {'g': GroupMetadata(zarr_format=3, attributes={'z': 2})}
made = dict(zarr.create_hierarchy(store=zarr.storage.MemoryStore(), nodes=meta))
print(sorted(made), dict(made['g'].attrs), type(made['g']).__name__)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/storage/#zarr.storage.StorePath:usage", code="""
import zarr
from zarr.storage import StorePath, MemoryStore
sp = StorePath(MemoryStore(), 'grp/arr')
a = zarr.create_array(sp, shape=(3,), dtype='f4', fill_value=1.5)
print(a.path, a.name, a[:])
print(str(sp).split('/')[-2:], sp.path)
b = zarr.open_array(StorePath(sp.store, 'grp/arr'), mode='r')
print(b[:], sorted(zarr.open_group(sp.store, mode='r').group_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.Array.info_complete:usage", code="""
import numpy as np
import zarr
a = zarr.create_array({}, shape=(20, 20), chunks=(10, 10), dtype='i4', compressors=None)
a[:10, :10] = np.arange(100).reshape(10, 10)
print(a.info_complete())
print(a.nbytes_stored(), a.nchunks_initialized)
"""),
    # ---- the errors of common mistakes (ninth session) ---------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/776#common-mistakes", code="""
import numpy as np
import zarr
z = zarr.create_array('a.zarr', shape=(4, 4), chunks=(2, 2), dtype='i4')
for label, call in [
    ('missing array r', lambda: zarr.open_array('nope.zarr', mode='r')),
    ('missing group r', lambda: zarr.open_group('nope.zarr', mode='r')),
    ('consolidated missing', lambda: zarr.open_consolidated('a.zarr')),
    ('group on array', lambda: zarr.open_group('a.zarr', mode='r')),
    ('bad dtype', lambda: zarr.create_array({}, shape=(1,), dtype='foo')),
    ('chunks rank', lambda: zarr.create_array({}, shape=(4, 4), chunks=(2,), dtype='i1')),
    ('negative shape', lambda: zarr.create_array({}, shape=(-1,), dtype='i1')),
    ('index oob', lambda: z[5, 0]),
    ('too many idx', lambda: z[0, 0, 0]),
    ('append rank', lambda: z.append(np.ones((2,)))),
    ('float index', lambda: z[1.5]),
    ('str index', lambda: z['x']),
]:
    try:
        call()
        print(label, 'no error')
    except Exception as e:
        print(label, end=' ')
        caught(e)
"""),
    # ---- the asynchronous API (tenth session) -----------------------------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2595#async-group-array", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as async_zarr

async def main():
    root = await async_zarr.create_group(store={}, attributes={'foo': 'bar'})
    print(type(root).__name__, root.attrs)
    z = await root.create_array(name='foo', shape=(100,), chunks=(5,), dtype=np.uint32)
    print(type(z).__name__, z.shape, z.chunks, z.dtype, z.path)
    await z.setitem((slice(None),), np.arange(0, 100, dtype=z.dtype))
    await z.setitem((7,), 99)
    print(await z.getitem((slice(None, 10),)))
    print(await z.getitem((7,)), await z.getitem(8))

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2595#async-open", code="""
import asyncio
import zarr.api.asynchronous as async_zarr

async def main():
    z = await async_zarr.open(store='data.zarr', mode='w', shape=(100, 100), chunks=(10, 10), dtype='i4')
    print(type(z).__name__, z.shape, z.chunks, z.read_only)
    await z.setitem((0, 0), 42)
    print(await z.getitem((slice(0, 4), slice(0, 1))))
    again = await async_zarr.open_array(store='data.zarr', mode='r')
    print(again.read_only, await again.getitem((0, 0)), await again.nchunks_initialized())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.open_group", code="""
import asyncio
import zarr
import zarr.api.asynchronous as za

async def main():
    g = await za.open_group('grp.zarr', mode='w', attributes={'title': 'demo'})
    await g.create_group('sub')
    await g.create_array('x', shape=(3,), dtype='f8', fill_value=1.5)
    h = await za.open_group('grp.zarr', mode='r')
    print(repr(h).split()[0], h.read_only, h.attrs)
    print(sorted([k async for k in h.keys()]))
    print([k async for k in h.array_keys()], [k async for k in h.group_keys()])
    print(await h.nmembers(), await h.contains('x'), await h.contains('nope'))

asyncio.run(main())
"""),
    dict(source="https://github.com/pydata/xarray/issues/11259", code="""
import asyncio
import numpy as np
import zarr

a = zarr.create_array({}, shape=(6, 4), chunks=(2, 2), dtype='i2')
a[:] = np.arange(24).reshape(6, 4)
aa = a.async_array
print(type(aa).__name__, aa.shape, aa.dtype, aa.chunks, aa.ndim, aa.size, aa.nchunks)

async def main():
    print(await aa.getitem((slice(1, 3), slice(None))))
    print(await aa.oindex.getitem(([0, 5], [1, 3])))
    print(await aa.vindex.getitem(([0, 5], [1, 3])))

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3083", code="""
import asyncio
import numpy as np
import zarr

z = zarr.create_array({}, shape=(5, 5), chunks=(2, 3), dtype='f4')
z[:] = np.arange(25, dtype='f4').reshape(5, 5)

async def main():
    az = z._async_array
    o = await az.oindex.getitem((np.array([0, 2, 4]), slice(1, 4)))
    v = await az.vindex.getitem((np.array([0, 1, 4]), np.array([4, 0, 2])))
    m = await az.vindex.getitem(np.eye(5, dtype=bool))
    print(o.shape, o.dtype, o.tolist())
    print(v.tolist(), m.tolist())

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/3556", code="""
import asyncio
import numpy as np
import zarr

x = zarr.create_array({}, shape=(8,), chunks=(2,), dtype='i8')
y = zarr.create_array({}, shape=(8,), chunks=(4,), dtype='f8')
x[:] = np.arange(8)
y[:] = np.linspace(0, 1, 8)

async def both():
    return await asyncio.gather(x.async_array.getitem(slice(2, 6)),
                                y.async_array.getitem(slice(None, None, 3)))

ax, ay = asyncio.run(both())
print(ax, ay)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1805#gather-open", code="""
import asyncio
import zarr
import zarr.api.asynchronous as za

root = zarr.open_group('h.zarr', mode='w')
for name in ['t', 'u', 'v', 'w']:
    root.create_array(name, shape=(4,), dtype='f4', fill_value=len(name) + ord(name))

async def main():
    arrays = await asyncio.gather(*(za.open_array(store='h.zarr', path=p, mode='r') for p in 'tuvw'))
    print([type(a).__name__ for a in arrays], [a.path for a in arrays])
    values = await asyncio.gather(*(a.getitem(slice(None)) for a in arrays))
    print([v.tolist() for v in values])

asyncio.run(main())
"""),
    dict(source="https://github.com/sgkit-dev/vcztools/issues/131", code="""
import asyncio
import numpy as np
import zarr

z = zarr.create_array('calls.zarr', shape=(12, 3), chunks=(4, 3), dtype='i1')
z[:] = np.arange(36).reshape(12, 3) % 7

async def fetch_all(a):
    parts = [a.getitem((slice(i, i + 4), slice(None))) for i in range(0, a.shape[0], 4)]
    return await asyncio.gather(*parts)

a = zarr.open_array('calls.zarr', mode='r').async_array
chunks = asyncio.run(fetch_all(a))
print(len(chunks), [c.shape for c in chunks], np.concatenate(chunks).sum())
"""),
    dict(source="https://github.com/NVIDIA/earth2studio/pull/377", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    root = await za.open_group('out.zarr', mode='w')
    arr = await root.create_array('t2m', shape=(4, 3, 3), chunks=(1, 3, 3), dtype='f4', fill_value=np.nan)
    writes = [arr.setitem((i,), np.full((3, 3), i, dtype='f4')) for i in range(3)]
    await asyncio.gather(*writes)
    data = await arr.getitem(slice(None))
    print(data[:, 0, 0], np.isnan(data[3]).all(), await arr.nchunks_initialized())

asyncio.run(main())
"""),
    dict(source="https://github.com/NVIDIA/earth2studio/pull/1047", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    g = await za.open_group('run.zarr', mode='w')
    a = await g.create_array('lead', shape=(0, 2), chunks=(2, 2), dtype='i4')
    for step in range(3):
        new_shape = await a.append(np.full((1, 2), step, dtype='i4'))
        print(step, new_shape, a.shape)
    print((await a.getitem(slice(None))).tolist())

asyncio.run(main())
"""),
    dict(source="https://github.com/earth-mover/icechunk/pull/2074", code="""
import asyncio
import zarr
from zarr import AsyncGroup
from zarr.storage import MemoryStore

async def main():
    store = MemoryStore()
    g = await AsyncGroup.from_store(store, attributes={'kind': 'root'}, zarr_format=3)
    print(type(g).__name__, g.attrs, g.metadata.zarr_format)
    a = await g.create_group('a')
    b = await a.create_group('b')
    print(a.name, b.name, b.basename)
    opened = await AsyncGroup.open(store)
    members = sorted([(k, type(v).__name__) async for k, v in opened.members(max_depth=None)])
    print(members)

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2247", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    for make in (za.zeros, za.ones, za.empty):
        a = await make(shape=(3,), chunks=(3,), dtype='i4', store={})
        print(make.__name__, type(a).__name__, a.shape)
    f = await za.full(shape=(2, 2), fill_value=7, dtype='u1', store={})
    print((await f.getitem(...)).tolist())
    a = await za.array(np.arange(6).reshape(2, 3), store={})
    like = await za.zeros_like(a, store={})
    print(like.shape, like.dtype, (await like.getitem(...)).sum())

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3782", code="""
import asyncio
import numpy as np
import zarr

async def main():
    aa = await zarr.api.asynchronous.create_array({}, shape=(4,), dtype='f8', fill_value=0.5)
    sync = zarr.Array(aa)
    sync[1] = 3.0
    print(type(sync).__name__, sync[:], await aa.getitem(slice(None)))
    print(sync.shape == aa.shape, sync.path == aa.path, aa.name)
    print(type(sync.async_array).__name__, sync.async_array == aa)

asyncio.run(main())
"""),
    dict(source="https://github.com/pydata/xarray/pull/11580", code="""
import asyncio
import numpy as np
import zarr
import zarr.api.asynchronous as za

g = zarr.open_group('ds.zarr', mode='w')
t = g.create_array('t', shape=(3,), dtype='i8', dimension_names=['time'])
t[:] = [10, 20, 30]
v = g.create_array('v', shape=(3, 2), dtype='f4', dimension_names=['time', 'x'], attributes={'units': 'K'})
v[:] = 1.25
zarr.consolidate_metadata('ds.zarr')

async def main():
    grp = await za.open_consolidated('ds.zarr', mode='r')
    print(type(grp).__name__)
    async for name, arr in grp.arrays():
        print(name, arr.shape, arr.metadata.dimension_names, arr.attrs, await arr.getitem(...))

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-specs/issues/150", code="""
import asyncio
import numpy as np
import zarr

g = zarr.open_group('specs.zarr', mode='w')
for i in range(3):
    g.create_array(f'v{i}', shape=(4,), dtype='i4')[:] = np.arange(4) * (i + 1)

async def main():
    ag = await zarr.api.asynchronous.open_group('specs.zarr', mode='r')
    arrays = [a async for a in ag.array_values()]
    firsts = await asyncio.gather(*(a.getitem(slice(0, 4, 2)) for a in arrays))
    print(sorted((a.basename, f.tolist()) for a, f in zip(arrays, firsts)))

asyncio.run(main())
"""),
    dict(source="https://martindurant.github.io/blog/async-zarr/", code="""
import asyncio
import numpy as np
import zarr

z = zarr.create_array('blog.zarr', shape=(10, 10), chunks=(5, 5), dtype='f8')
z[:] = np.arange(100).reshape(10, 10)

async def main():
    az = await zarr.api.asynchronous.open_array(store='blog.zarr')
    corners = await asyncio.gather(az.getitem((0, 0)), az.getitem((0, 9)),
                                   az.getitem((9, 0)), az.getitem((9, 9)))
    print([float(c) for c in corners], type(corners[0]).__name__)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.save", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    await za.save('saved.zarr', np.arange(5), np.ones(3), named=np.zeros(2))
    g = await za.open_group('saved.zarr', mode='r')
    print(sorted([k async for k in g.array_keys()]), await (await g.getitem('named')).getitem(...))
    await za.save_group('sg.zarr', np.arange(2), b=np.ones(2, dtype='i1'))
    print(sorted([k async for k in (await za.open_group('sg.zarr')).keys()]))
    await za.save_array('one.zarr', np.arange(4).reshape(2, 2))
    print((await za.load(store='one.zarr')).tolist())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.consolidate_metadata", code="""
import asyncio
import zarr
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store='cons.zarr', attributes={'a': 1})
    await g.create_array('x', shape=(2,), dtype='i1')
    await g.create_group('y')
    c = await za.consolidate_metadata('cons.zarr')
    print(type(c).__name__, sorted(c.metadata.consolidated_metadata.metadata))
    opened = await za.open_consolidated('cons.zarr')
    print(sorted([k async for k in opened.keys()]))

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.from_array", code="""
import asyncio
import numpy as np
import zarr
import zarr.api.asynchronous as za

src = zarr.create_array({}, shape=(6,), chunks=(3,), dtype='i4')
src[:] = np.arange(6)

async def main():
    copy1 = await za.from_array({}, data=src)
    print(type(copy1).__name__, copy1.chunks, await copy1.getitem(...))
    copy2 = await za.from_array({}, data=np.arange(4, dtype='u2').reshape(2, 2), chunks=(1, 2))
    print(copy2.chunks, copy2.dtype, (await copy2.getitem(...)).tolist())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.create_hierarchy", code="""
import asyncio
from zarr.api.asynchronous import create_hierarchy
from zarr.core.group import GroupMetadata
from zarr.storage import MemoryStore

async def main():
    store = MemoryStore()
    nodes = {'': GroupMetadata(attributes={'root': True}), 'a': GroupMetadata(attributes={'name': 'leaf'})}
    created = {path: node async for path, node in create_hierarchy(store=store, nodes=nodes)}
    print(sorted((p, type(n).__name__, n.attrs) for p, n in created.items()))

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.AsyncGroup.require_group", code="""
import asyncio
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store={})
    a = await g.require_group('a')
    again = await g.require_group('a')
    print(a == again, a.path)
    b, c = await g.require_groups('b', 'c/d')
    print(b.path, c.path, sorted([k async for k in g.group_keys()]))
    arr = await g.require_array('arr', shape=(3,), dtype='i2')
    same = await g.require_array('arr', shape=(3,), dtype='i2')
    print(arr.shape, same == arr)
    try:
        await g.require_array('arr', shape=(4,), dtype='i2')
    except Exception as e:
        caught(e)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.AsyncGroup.getitem", code="""
import asyncio
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store={})
    await g.create_array('x', shape=(2,), dtype='i4')
    x = await g.getitem('x')
    print(type(x).__name__, x.path)
    print(await g.get('missing'), await g.get('missing', 'default'))
    try:
        await g.getitem('missing')
    except Exception as e:
        caught(e)
    await g.delitem('x')
    print(await g.contains('x'), await g.nmembers())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.AsyncArray.resize", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    a = await za.create_array({}, shape=(4, 4), chunks=(2, 2), dtype='i4')
    await a.setitem(..., np.arange(16).reshape(4, 4))
    await a.resize((2, 6))
    print(a.shape, (await a.getitem(...)).tolist(), await a.nchunks_initialized())
    r = await a.update_attributes({'resized': True})
    print(r is a, a.attrs, a.metadata.attributes)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.AsyncArray.get_orthogonal_selection", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    a = await za.create_array({}, shape=(3, 4), chunks=(2, 2), dtype='u2')
    await a.setitem(slice(None), np.arange(12).reshape(3, 4))
    print((await a.get_orthogonal_selection(([0, 2], [1, 3]))).tolist())
    print((await a.get_coordinate_selection(([0, 2], [1, 3]))).tolist())
    mask = np.zeros((3, 4), dtype=bool)
    mask[1, 1:3] = True
    print((await a.get_mask_selection(mask)).tolist())
    try:
        await a.getitem(([0, 1], slice(None)))
    except Exception as e:
        caught(e)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.AsyncArray.info_complete", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    a = await za.create_array({}, shape=(6,), chunks=(2,), dtype='i4', compressors=None)
    await a.setitem(slice(0, 4), np.arange(4))
    print(a.info)
    print(await a.info_complete())
    print(await a.nbytes_stored(), a.nbytes, a.compressors, a.filters)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.AsyncGroup.tree", code="""
import asyncio
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store={})
    sub = await g.create_group('sub')
    await sub.create_array('leaf', shape=(2, 3), dtype='f4')
    await g.create_array('top', shape=(5,), dtype='i8')
    print(await g.tree(plain=True))
    print(repr(g).split(' ')[0], repr(sub).split('/')[-1])

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.update_attributes_async", code="""
import asyncio
import zarr

g = zarr.group(attributes={'a': 1})

async def main():
    new = await g.update_attributes_async({'b': 2})
    print(type(new).__name__, new.attrs.asdict())
    print(g.attrs.asdict())
    print(zarr.open_group(g.store, mode='r').attrs.asdict())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.AsyncGroup.zeros_like", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store={})
    z = await g.zeros(name='z', shape=(2, 2), dtype='f4')
    o = await g.ones(name='o', shape=(2,), dtype='i1')
    f = await g.full(name='f', shape=(3,), fill_value=9, dtype='u4')
    zl = await g.zeros_like(name='zl', data=np.arange(3))
    print((await z.getitem(...)).tolist(), (await o.getitem(...)).tolist())
    print((await f.getitem(...)).tolist(), zl.shape, zl.dtype)
    print(sorted([k async for k in g.array_keys()]))

asyncio.run(main())
"""),
    dict(source="https://github.com/CovertLab/vEcoli/pull/414", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def write_buffer(group, name, block, start):
    arr = await group.getitem(name)
    await arr.setitem(slice(start, start + len(block)), block)

async def main():
    g = await za.open_group('emit.zarr', mode='w')
    for name in ('mass', 'volume'):
        await g.create_array(name, shape=(6,), chunks=(2,), dtype='f8')
    await asyncio.gather(write_buffer(g, 'mass', np.ones(2), 0),
                         write_buffer(g, 'volume', np.arange(4.0), 2),
                         write_buffer(g, 'mass', np.full(4, 2.0), 2))
    for name in ('mass', 'volume'):
        print(name, (await (await g.getitem(name)).getitem(...)).tolist())

asyncio.run(main())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/1726", code="""
import asyncio
import zarr

root = zarr.group(store={})
root.create_group('g1').create_group('g2')
root.create_array('a1', shape=(1,), dtype='i1')
root['g1'].create_array('a2', shape=(2,), dtype='i1')

async def main():
    ag = root._async_group
    print(type(ag).__name__)
    print(sorted([k async for k, _ in ag.members()]))
    print(sorted([k async for k, _ in ag.members(max_depth=None)]))
    print(await ag.nmembers(max_depth=None))
    print(sorted([(k, v.shape) async for k, v in ag.arrays()]))
    print(sorted([k async for k, _ in ag.groups()]))

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/array/#zarr.AsyncArray.open", code="""
import asyncio
import numpy as np
import zarr
from zarr.core.array import AsyncArray
from zarr.storage import LocalStore, StorePath

zarr.create_array('open.zarr', shape=(3,), dtype='i4', fill_value=5)

async def main():
    a = await AsyncArray.open(LocalStore('open.zarr'))
    print(a.shape, a.dtype, await a.getitem(...))
    b = await AsyncArray.open(StorePath(LocalStore('open.zarr', read_only=True)))
    print(b.read_only)
    try:
        await b.setitem(0, 1)
    except Exception as e:
        caught(e)
    try:
        await AsyncArray.open(LocalStore('missing.zarr'))
    except Exception as e:
        caught(e)

asyncio.run(main())
"""),
    # ---- fill values, sharding, resize, time types (tenth session) ---------------------------
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3221", code="""
import pickle
import numpy as np
import zarr

data = np.arange(100)
arr = zarr.create_array(store=zarr.storage.MemoryStore(), data=data, shards=(20,), chunks=(10,))
copy = pickle.loads(pickle.dumps(arr))
print(copy.shape, copy.chunks, copy.shards, np.array_equal(copy[:], data))
print(copy[15:25], copy.nchunks_initialized)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/703", code="""
import numpy as np
import zarr

store = zarr.storage.ZipStore('zeros.zip', mode='w')
g = zarr.group(store=store)
a = g.create_array('foo__a', shape=(5,), dtype='i8', fill_value=0)
a[:] = 0
print(a.nchunks_initialized)
store.close()
z = zarr.open_group(zarr.storage.ZipStore('zeros.zip', mode='r'), mode='r')
print(z['foo__a'][:], z['foo__a'].fill_value)
"""),
    dict(source="https://github.com/earth-mover/icechunk/issues/1019", code="""
import numpy as np
import zarr

store = zarr.storage.MemoryStore()
foo = zarr.create_array(name='foo', store=store, chunks=(10,), shards=(100,),
                        data=np.linspace(35, 70, 1001))
r = foo[:]
print(r.shape, r[:3], r[-3:], np.allclose(r, np.linspace(35, 70, 1001)))
print(foo.cdata_shape, foo.nchunks)
"""),
    dict(source="https://github.com/zarr-developers/pydantic-zarr/issues/116#shards-info", code="""
import zarr

arr = zarr.create_array({}, shape=(100,), dtype='int16', chunks=(10,), shards=(50,), compressors=None)
print(arr.info)
print(arr.metadata.to_dict()['codecs'][0]['name'], arr.shards, arr.chunks)
"""),
    dict(source="https://github.com/pydata/xarray/pull/10757", code="""
import json
import numpy as np
import zarr

for fmt in (2, 3):
    a = zarr.create_array(f'nan{fmt}.zarr', shape=(4,), chunks=(2,), dtype='f4', fill_value=np.nan, zarr_format=fmt)
    a[:2] = 1.0
    doc = json.load(open(f'nan{fmt}.zarr/' + ('.zarray' if fmt == 2 else 'zarr.json')))
    print(fmt, doc['fill_value'], a.fill_value, a[:])
"""),
    dict(source="https://github.com/manzt/zarrita.js/issues/352", code="""
import json
import numpy as np
import zarr

a = zarr.create_array('t.zarr', shape=(2, 3), chunks=(1, 3), dtype='float32', fill_value=np.nan)
a[0] = [1, 2, 3]
print(json.load(open('t.zarr/zarr.json'))['fill_value'])
b = zarr.open_array('t.zarr')
print(b[:], np.isnan(b.fill_value), b.nchunks_initialized)
for fv in (np.inf, -np.inf):
    c = zarr.create_array({}, shape=(1,), dtype='f8', fill_value=fv)
    print(c.metadata.to_dict()['fill_value'], c[0])
"""),
    dict(source="https://github.com/constantinpape/z5/issues/148", code="""
import json
import numpy as np
import zarr

z = zarr.create((9, 9, 9), fill_value=np.nan, store='tmp.zarr', zarr_format=2, dtype='f8')
print(json.load(open('tmp.zarr/.zarray'))['fill_value'], z[0, 0, :3])
print(zarr.open_array('tmp.zarr').fill_value)
"""),
    dict(source="https://github.com/pydata/xarray/issues/5475#default-fill-values", code="""
import zarr

for fmt in (2, 3):
    root = zarr.group(store={}, zarr_format=fmt)
    for dt in ('i4', 'f8', 'bool', 'U4', 'c8'):
        arr = root.create_array(name=f'x{dt}', shape=(2,), dtype=dt)
        print(fmt, dt, repr(arr.fill_value), arr[:])
"""),
    dict(source="https://github.com/ai2cm/fv3gfs-wrapper/pull/85", code="""
import numpy as np
import zarr

g = zarr.open_group('mon.zarr', mode='w', zarr_format=2)
a = g.create_dataset('phis', shape=(3,), dtype='f4')
b = g.create_dataset('phis_none', shape=(3,), dtype='f4', fill_value=None)
print(repr(a.fill_value), repr(b.fill_value), a[:])
a[0] = 0.0
print(a[:], a.nchunks_initialized)
"""),
    dict(source="https://github.com/dynamical-org/reformatters/pull/272", code="""
import numpy as np
import zarr

a = zarr.create_array({}, shape=(6,), chunks=(2,), dtype='f4', fill_value=np.nan)
a[:] = [np.nan, np.nan, 0.0, 0.0, 1.0, np.nan]
print(a.nchunks_initialized, a[:])
b = zarr.create_array({}, shape=(6,), chunks=(2,), dtype='f4', fill_value=0.0)
b[:] = [0.0, 0.0, np.nan, np.nan, 1.0, 0.0]
print(b.nchunks_initialized, b[:])
c = zarr.create_array({}, shape=(4,), chunks=(2,), dtype='f4', fill_value=np.nan,
                      config={'write_empty_chunks': True})
c[:] = np.nan
print(c.nchunks_initialized)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3580", code="""
import warnings
import numpy as np
import zarr

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    store = zarr.storage.ZipStore('r.zip', mode='w')
    a = zarr.create_array(store, shape=(2,), chunks=(2,), dtype='i2')
    for n in range(3, 6):
        a.resize((n,))
    a[:] = np.arange(5)
    store.close()
print(sorted({str(x.message) for x in w}))
b = zarr.open_array(zarr.storage.ZipStore('r.zip', mode='r'))
print(b.shape, b[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-specs/issues/188", code="""
import numpy as np
import zarr

z = zarr.create_array({}, shape=(5,), chunks=(2,), dtype='i4', fill_value=-1)
z[:] = np.arange(5)
z.resize((3,))
print(z[:], z.nchunks_initialized)
z.resize((7,))
print(z[:], z.nchunks_initialized)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2849#resize-then-write", code="""
import numpy as np
import zarr

g = zarr.open_group('ad.zarr', mode='w')
data = g.create_array('data', shape=(4,), chunks=(3,), dtype='f4')
data[:] = np.arange(4)
append = np.arange(10, 15, dtype='f4')
orig = data.shape[0]
data.resize((orig + append.shape[0],))
data[orig:] = append
print((data[orig:] == append).all(), data[:])
again = zarr.open_array('ad.zarr/data')
print(again.shape, again[:])
"""),
    dict(source="https://github.com/pydata/xarray/pull/9673", code="""
import numpy as np
import zarr

a = zarr.create_array({}, shape=(2, 3), chunks=(1, 3), dtype='i8')
a[:] = 1
r = a.resize((4, 3))
print(r, a.shape, a[:].tolist())
a[2:] = 5
print(a[:].tolist(), a.append(np.zeros((1, 3), 'i8')), a.shape)
"""),
    dict(source="https://github.com/zarr-developers/zarr-extensions/issues/11", code="""
import numpy as np
import zarr

a = zarr.create_array({}, shape=(3,), dtype='datetime64[s]', fill_value=np.datetime64('NaT'))
a[1] = np.datetime64('2020-01-01T00:00:00')
print(a[:], a.dtype)
d = a.metadata.to_dict()
print(d['data_type'], d['fill_value'])
b = zarr.create_array({}, shape=(2,), dtype='datetime64[10s]')
print(b.metadata.to_dict()['data_type'], repr(b.fill_value))
"""),
    dict(source="https://github.com/zarr-developers/zarr-extensions/pull/14", code="""
import json
import numpy as np
import zarr

dates = np.array(['2007-07-13', '2006-01-13', '2010-08-13'], dtype='M8[D]')
z = zarr.create_array('dt.zarr', data=dates)
print(json.load(open('dt.zarr/zarr.json'))['data_type'])
back = zarr.open_array('dt.zarr')
print(back[:], back[0], back.dtype)
"""),
    dict(source="https://github.com/pydata/xarray/issues/2265", code="""
import numpy as np
import zarr

t = np.array(['2008-07-29T20:20:58.000000000', '2008-07-30T01:00:00'], dtype='datetime64[ns]')
za = zarr.open_group('argo.zarr', mode='w')
za['JULD_LOCATION1'] = t
info = za['JULD_LOCATION1'].info
print(repr(info).splitlines()[2], za['JULD_LOCATION1'][:])
"""),
    dict(source="https://github.com/fsspec/filesystem_spec/pull/721#v2-datetime-us", code="""
import numpy as np
import zarr

start_date = np.datetime64('2000-01-01', 'us')
dates = np.arange(start_date, start_date + np.timedelta64(5, 'h'), np.timedelta64(1, 'h'))
z = zarr.create(shape=dates.shape, compressor=None, dtype=dates.dtype, store={}, zarr_format=2, overwrite=True)
z[:] = dates
print(z.dtype, z[:][-1], (z[:] == dates).all())
"""),
    dict(source="https://github.com/JuliaIO/Zarr.jl/issues/56", code="""
import json
import numpy as np
import zarr

z = zarr.array(np.array(['2021-04-15', '2021-04-16'], dtype='M8[D]'), store='jl.zarr', zarr_format=2)
doc = json.load(open('jl.zarr/.zarray'))
print(doc['dtype'], doc['fill_value'], zarr.open_array('jl.zarr')[:])
"""),
    dict(source="https://github.com/zarrs/zarrs/pull/208", code="""
import numpy as np
import zarr

d = np.array([1, 2, 3], dtype='m8[ms]')
z = zarr.create_array({}, data=d, chunks=(2,))
print(z.dtype, z[:], z.metadata.to_dict()['data_type'])
z[0] = np.timedelta64(7, 's')
print(z[0], z[:].astype('i8'))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/632#v2-record-datetime", code="""
import numpy as np
import zarr

arr = np.array([('1900-01-01', 123), ('1902-12-01', 321)], dtype=[('date', 'datetime64[D]'), ('num', 'i8')])
try:
    z = zarr.array(arr, store={}, zarr_format=2)
    print(z.dtype, z[:])
except Exception as e:
    caught(e)
"""),
    # ---- strings and consolidated metadata (tenth session) -----------------------------------
    dict(source="https://github.com/zarr-developers/zarr-extensions/issues/35", code="""
import warnings
import numpy as np
import zarr

u = np.full((3, 2), '', dtype='U30')
s = np.full((3, 2), b'', dtype='S30')
u[0, 0] = 'Converged'
s[0, 0] = b'Converged'
g = zarr.open_group('msg.zarr', mode='w', zarr_format=3)
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    a = g.create_array('message_U30', data=u)
    b = g.create_array('message_S30', data=s)
print(a.dtype, a[0], b.dtype, b[0])
print(a.metadata.to_dict()['data_type'], b.metadata.to_dict()['data_type'])
v = g.create_array('message_str', shape=u.shape, dtype=str)
v[:] = u
print(v.dtype, v[0, 0], v[1, 1] == '', v.metadata.to_dict()['data_type'])
"""),
    dict(source="https://github.com/manzt/zarrita.js/issues/305", code="""
import numpy as np
import zarr

g = zarr.open_group('weather.zarr', mode='w')
inst = g.create_array('instrument', shape=(3,), dtype=str, dimension_names=['instrument'])
inst[:] = ['manufac1', 'manufac2', 'manufac3']
print(inst.dtype, inst[:], inst.fill_value == '')
codecs = [c['name'] for c in inst.metadata.to_dict()['codecs']]
print(codecs, inst.metadata.to_dict()['data_type'])
"""),
    dict(source="https://github.com/OSGeo/gdal/pull/13908", code="""
import json
import zarr

z = zarr.open('out.zarr', mode='w')
names = z.create_array('names', shape=(2,), dtype='str')
names[:] = ['hello', 'world']
doc = json.load(open('out.zarr/names/zarr.json'))
print(doc['data_type'], [c['name'] for c in doc['codecs']], doc['fill_value'])
print(zarr.open_array('out.zarr/names')[:])
"""),
    dict(source="https://github.com/OSGeo/gdal/pull/13910", code="""
import json
import warnings
import numpy as np
import zarr

with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    a = zarr.create_array('fixed.zarr', shape=(2,), dtype='S5', fill_value=b'')
    a[:] = [b'abc', b'hello']
    u = zarr.create_array('utf32.zarr', shape=(2,), dtype='<U2')
    u[:] = ['ab', 'c']
print(json.load(open('fixed.zarr/zarr.json'))['data_type'], a[:])
print(json.load(open('utf32.zarr/zarr.json'))['data_type'], u[:])
"""),
    dict(source="https://github.com/zarr-developers/zarr-specs/issues/315", code="""
import json
import numpy as np
import zarr

a = zarr.create_array('v2s.zarr', shape=(3,), dtype=str, zarr_format=2)
a[:] = ['a', 'bb', 'ccc']
doc = json.load(open('v2s.zarr/.zarray'))
print(doc['dtype'], doc['filters'], repr(doc['fill_value']))
print(zarr.open_array('v2s.zarr')[:], zarr.open_array('v2s.zarr').dtype)
"""),
    dict(source="https://github.com/pydata/xarray/issues/2724", code="""
import numpy as np
import zarr

for fmt in (2, 3):
    a = zarr.create_array({}, shape=(3,), dtype=str, zarr_format=fmt)
    a[:] = np.array(['ab', 'cdef', 'g'], dtype=object)
    print(fmt, a.dtype, a[:], a[1], type(a[1]).__name__)
    a[2] = 'longer string'
    print(a[:].tolist())
"""),
    dict(source="https://github.com/SpikeInterface/spikeinterface/pull/3378", code="""
import zarr

root = zarr.open_group('an.zarr', mode='w')
root.create_group('extensions')
root.attrs['run_info'] = {'done': False}
zarr.consolidate_metadata(root.store)
root.attrs['run_info'] = {'done': True}
c = zarr.open_consolidated('an.zarr', mode='r')
print(c.attrs['run_info'], sorted(c.group_keys()))
zarr.consolidate_metadata(root.store)
print(zarr.open_consolidated('an.zarr', mode='r').attrs['run_info'])
"""),
    dict(source="https://github.com/fideus-labs/ngff-zarr/pull/737", code="""
import numpy as np
import zarr

root = zarr.open_group('img.zarr', mode='w', zarr_format=2)
a = root.create_array('0', shape=(2, 2), dtype='u1')
zarr.consolidate_metadata('img.zarr')
a.append(np.ones((2, 2), dtype='u1'))
stale = zarr.open_consolidated('img.zarr', mode='r')
print(stale['0'].shape, zarr.open_group('img.zarr', mode='r', use_consolidated=False)['0'].shape)
zarr.consolidate_metadata('img.zarr')
print(zarr.open_consolidated('img.zarr', mode='r')['0'].shape)
"""),
    dict(source="https://github.com/NCAR/miles-credit/pull/217", code="""
import zarr

g = zarr.open_group('credit.zarr', mode='w')
g.create_array('t', shape=(2,), dtype='f4')
try:
    zarr.open_consolidated('credit.zarr')
except Exception as e:
    caught(e)
h = zarr.open_group('credit.zarr', mode='r')
print(sorted(h.array_keys()), h.metadata.consolidated_metadata)
zarr.consolidate_metadata('credit.zarr')
print(sorted(zarr.open_group('credit.zarr', mode='r').metadata.consolidated_metadata.metadata))
"""),
    dict(source="https://github.com/ratt-ru/dask-ms/pull/243", code="""
import numpy as np
import zarr

g = zarr.open_group('ms.zarr', mode='w', zarr_format=2)
arr = g.require_dataset('DATA', shape=(4, 2), dtype='c8', chunks=(2, 2), exact=True)
arr.attrs['__daskms_zarr_attr__'] = {'dims': ['row', 'chan']}
again = g.require_dataset('DATA', shape=(4, 2), dtype='c8', chunks=(2, 2), exact=True)
print(again.dtype, again.chunks, dict(again.attrs))
try:
    g.require_dataset('DATA', shape=(4, 2), dtype='c16', exact=True)
except Exception as e:
    caught(e)
zarr.consolidate_metadata(g.store)
print(sorted(zarr.open_consolidated('ms.zarr').array_keys()))
"""),
    dict(source="https://github.com/ai2cm/fv3net/issues/1179", code="""
import zarr

g = zarr.open_group('fine.zarr', mode='w')
for name in ('a', 'b'):
    g.create_array(name, shape=(3,), dtype='f4', attributes={'units': 'W/m**2'})
c = zarr.consolidate_metadata('fine.zarr')
print(type(c).__name__, sorted(c.metadata.consolidated_metadata.metadata))
fine = zarr.open_group('fine.zarr', mode='r', use_consolidated=True)
print(sorted(fine.array_keys()), fine['a'].attrs['units'])
"""),
    dict(source="https://github.com/Huber-group-EMBL/Rarr/pull/184", code="""
import json
import zarr

g = zarr.open_group('r.zarr', mode='w', zarr_format=2, attributes={'title': 'x'})
g.create_array('m', shape=(2, 2), dtype='i4', attributes={'a': 1})
zarr.consolidate_metadata('r.zarr')
cons = json.load(open('r.zarr/.zmetadata'))
print(sorted(cons['metadata']), cons['zarr_consolidated_format'])
print(cons['metadata']['.zattrs'], cons['metadata']['m/.zattrs'])
"""),
    dict(source="https://github.com/pydata/xarray/pull/2559", code="""
import zarr

root = zarr.open_group('example.zarr', mode='w', zarr_format=2)
foo = root.create_group('foo')
bar = foo.create_array('bar', shape=(10, 10), chunks=(5, 5), dtype='i4')
bar[:] = 42
zarr.consolidate_metadata('example.zarr')
root = zarr.open_consolidated('example.zarr')
print(root['foo/bar'][0, :3], root['foo/bar'].nchunks_initialized, root['foo/bar'].chunks)
"""),
    dict(source="https://github.com/sgkit-dev/bio2zarr/issues/254#strings", code="""
import numpy as np
import zarr

root = zarr.open_group('vcz.zarr', mode='w')
ids = root.create_array(name='variant_id', shape=(4,), chunks=(2,), dtype=str)
ids[:] = ['rs1', '.', 'rs33', 'rs4']
alleles = root.create_array(name='variant_allele', shape=(4, 2), chunks=(2, 2), dtype=str)
alleles[:] = np.array([['A', 'T'], ['G', ''], ['C', 'CA'], ['T', 'G']])
print(ids[:], alleles[1:3])
print(root['variant_id'].dtype, sorted(root.array_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.copy", code="""
import asyncio
import zarr.api.asynchronous as za

async def main():
    for fn in (za.copy, za.copy_all, za.copy_store):
        try:
            await fn()
        except Exception as e:
            print(fn.__name__, end=' ')
            caught(e)

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.tree", code="""
import asyncio
import warnings
import zarr.api.asynchronous as za

async def main():
    g = await za.group(store={})
    await g.create_group('a')
    await (await g.getitem('a')).create_array('x', shape=(2,), dtype='i1')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        t = await za.tree(g)
    print(sorted({type(x.message).__name__ for x in w}))
    print(repr(t))

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.open_like", code="""
import asyncio
import numpy as np
import zarr
import zarr.api.asynchronous as za

base = zarr.create_array({}, shape=(4, 2), chunks=(2, 2), dtype='f4', fill_value=3.5)

async def main():
    like = await za.open_like(base.async_array, 'like.zarr', mode='w')
    print(type(like).__name__, like.shape, like.chunks, like.dtype, await like.getitem((0, 0)))
    e = await za.empty_like(base.async_array, store={})
    f = await za.full_like(base.async_array, store={}, fill_value=1.0)
    print(e.shape, e.dtype, (await f.getitem(...)).sum())

asyncio.run(main())
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/api/asynchronous/#zarr.api.asynchronous.create", code="""
import asyncio
import numpy as np
import zarr.api.asynchronous as za

async def main():
    a = await za.create(shape=(6, 6), chunks=(3, 3), dtype='u2', store='c.zarr', fill_value=7)
    print(type(a).__name__, a.shape, a.chunks, a.dtype, a.metadata.zarr_format)
    b = await za.create(shape=(4,), dtype='i8', store={}, zarr_format=2, compressor=None, order='F')
    print(b.metadata.zarr_format, b.order, b.compressors, await b.getitem(...))
    again = await za.open(store='c.zarr', mode='r')
    print(type(again).__name__, await again.getitem((5, 5)))

asyncio.run(main())
"""),
    # ---- eleventh session: zarr-python, dask, VirtualiZarr, zarrs, xarray reports ----
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2298", code="""
import zarr
try:
    zarr.open_group(zarr.storage.MemoryStore(), mode='r')
except Exception as e:
    caught(e)
try:
    zarr.open_group('nothing-here.zarr', mode='r')
except Exception as e:
    caught(e)
import os
print(os.path.exists('nothing-here.zarr'))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2275", code="""
import zarr
store = zarr.storage.MemoryStore()
zarr.open_array(store=store, shape=(4,), path='foo', zarr_format=2)
g = zarr.open_group(store, zarr_format=2)
print(g['foo'].shape, g['foo'].path, g['foo'].dtype)
print(sorted(g.array_keys()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2275#implicit-v3", code="""
import zarr
store = zarr.storage.MemoryStore()
zarr.open_array(store=store, shape=(4,), path='foo')
try:
    g = zarr.open_group(store, mode='r')
    print(g['foo'].shape)
except Exception as e:
    caught(e)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3147", code="""
import zarr
store = zarr.storage.MemoryStore()
root = zarr.create_group(store=store)
root.create_group('foo')
root.create_group('bar')
print(sorted(k for k, _ in root.members()))
ro = zarr.open_group(store, path='/', mode='r')
try:
    del ro['foo']
except Exception as e:
    caught(e)
print(sorted(k for k, _ in zarr.open_group(store, mode='r').members()))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2410", code="""
import numpy as np
import zarr
a = zarr.zeros((40, 40), chunks=(10, 10), dtype='uint16', store='a.zarr')
a[:5, :5] = 7
b = zarr.array(a, chunks=(10, 20), store='b.zarr')
print(b.shape, b.chunks, b.dtype, int(b[:].sum()))
c = zarr.open_array('b.zarr', mode='r')
print(c[4, 4], c[5, 5])
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/2010", code="""
import zarr
store = zarr.storage.ZipStore('example.zip', mode='w')
root = zarr.group(store=store)
z = root.zeros(name='foo/bar', shape=(100, 100), chunks=(10, 10), dtype='i4')
z[:] = 42
store.close()
store = zarr.storage.ZipStore('example.zip', mode='r')
r = zarr.open_group(store, mode='r')
print(r['foo/bar'].shape, int(r['foo/bar'][:].sum()), sorted(r.group_keys()))
store.close()
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/issues/478", code="""
import zarr
for fmt in (2, 3):
    a = zarr.create_array({}, shape=(3,), dtype='i4', fill_value=None, zarr_format=fmt)
    print(fmt, repr(a.fill_value), a.metadata.fill_value, a[:])
"""),
    dict(source="https://github.com/zarr-developers/VirtualiZarr/issues/530", code="""
import zarr
store = zarr.storage.MemoryStore()
a = zarr.create_array(store, shape=(), dtype='f8', fill_value=1.5)
a[()] = 2.5
print(sorted(k for k in store._store_dict))
print(a[()], a.shape, a.chunks, a.nchunks)
s2 = zarr.storage.MemoryStore()
b = zarr.create_array(s2, shape=(), dtype='f8', zarr_format=2)
b[...] = 3.0
print(sorted(s2._store_dict), b[...])
"""),
    dict(source="https://github.com/pydata/xarray/issues/5475#create-dataset-data", code="""
import zarr
root = zarr.group(store='example.zarr', overwrite=True, zarr_format=2)
arr = root.create_dataset(name='arr', data=[0, 1, 2, 3, 4], dtype='i4')
arr.attrs['_ARRAY_DIMENSIONS'] = ['phony_dim_0']
zarr.consolidate_metadata('example.zarr')
root = zarr.open('example.zarr')
print(root['arr'].fill_value, root['arr'][:].tolist(), dict(root['arr'].attrs))
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/pull/2870", code="""
import zarr
a = zarr.create_array({}, shape=(2,), dtype='i1', attributes={'a': 1})
a.update_attributes({'b': [1, 2]})
print(dict(a.attrs))
a.update_attributes({'a': 3})
print(dict(a.attrs))
g = zarr.group(attributes={'x': 'y'})
g.update_attributes({'z': (1, 2)})
print(dict(g.attrs))
a.attrs.put({'only': True})
print(dict(a.attrs), a.metadata.attributes)
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/266", code="""
import dask.array as da
import zarr
z = zarr.zeros((6, 4), chunks=(3, 2), dtype='f8', store='target.zarr')
x = da.ones((6, 4), chunks=(3, 2))
try:
    x.to_zarr(z)
except Exception as e:
    caught(e)
print(z[:].sum())
"""),
    dict(source="https://github.com/zarrs/zarrs-python#usage", code="""
import numpy as np
import zarr
zarr.config.set({'codec_pipeline.path': 'zarrs.ZarrsCodecPipeline'})
print(zarr.config.get('codec_pipeline.path'))
a = zarr.create_array('z.zarr', shape=(8, 8), chunks=(4, 4), dtype='u2')
a[:] = np.arange(64).reshape(8, 8)
print(int(a[:].sum()), a[3, 5], a[5:7, 1].tolist())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/3541", code="""
import numpy as np
import zarr
a = zarr.create_array('data.zarr', shape=(1, 3, 40, 50), chunks=(1, 1, 16, 16), dtype='f4',
                      dimension_names=('time', 'band', 'y', 'x'),
                      attributes={'scale_factor': 1.0, '_FillValue': 'AAAAAAAA+H8='},
                      config={'write_empty_chunks': False})
a[0, 1, 16:32, 16:40] = 1.5
arr = zarr.open('data.zarr')
print(type(arr).__name__, arr.nchunks_initialized, arr.metadata.dimension_names)
d = arr[0:1, :, 16:32, 32:48]
print(d.shape, d.sum(), d[0, 1, 0, :8].tolist())
"""),
    dict(source="https://github.com/zarr-developers/zarr-python/issues/1931", code="""
import numpy as np
import zarr
store = zarr.storage.ZipStore('temp.zip', mode='w')
arr = zarr.zeros(shape=(10, 20, 5), chunks=(10, 20, 1), compressor=None, store=store, dtype='u1',
                 zarr_format=2)
arr[:, :, :] = (np.arange(1000) % 251).astype('u1').reshape(10, 20, 5)
store.close()
zf = zarr.open('temp.zip', mode='r')
print(type(zf).__name__, zf[:, :, 1].shape, int(zf[:, :, 1].sum()), zf[3, 4, :].tolist())
"""),
    dict(source="https://github.com/emfdavid/insitubatch/issues/56", code="""
import numpy as np
import zarr
a = zarr.create_array('s.zarr', shape=(30, 12), chunks=(5, 4), shards=(10, 12), dtype='f4')
a[:] = np.arange(360, dtype='f4').reshape(30, 12)
b = zarr.open_array('s.zarr', mode='r')
print(b.chunks, b.shards, b.metadata.chunk_grid.chunk_shape)
print(b[7, 5], b[12:14, 10:].tolist(), b.nchunks, b.nchunks_initialized)
print([type(c).__name__ for c in b.metadata.codecs])
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/codecs/numcodecs/", code="""
import numpy as np
import zarr
from zarr.codecs.numcodecs import Zlib, Delta, FixedScaleOffset, CRC32C
a = zarr.create_array({}, shape=(12,), chunks=(6,), dtype='f8',
                      filters=[FixedScaleOffset(offset=0, scale=10, dtype='f8', astype='i4')],
                      compressors=[Zlib(level=3), CRC32C()])
a[:] = np.linspace(0, 1.1, 12)
print(a[:].tolist())
print([c.to_dict() if hasattr(c, 'to_dict') else repr(c) for c in a.metadata.codecs])
b = zarr.create_array({}, shape=(5,), dtype='i4', filters=[Delta(dtype='i4')])
b[:] = [1, 2, 4, 7, 11]
print(b[:].tolist(), type(b.filters[0]).__name__)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/dtype/", code="""
import numpy as np
import zarr
from zarr.dtype import Int32, Float64, VariableLengthUTF8, Structured, parse_dtype
for spec in ('int32', np.dtype('f8'), str, Int32(), [('a', 'f8'), ('b', 'i1')]):
    dt = parse_dtype(spec, zarr_format=3)
    print(type(dt).__name__, dt.to_native_dtype())
a = zarr.create_array({}, shape=(2,), dtype=Float64())
print(repr(a.metadata.data_type), a.dtype)
s = zarr.create_array({}, shape=(2,), dtype=VariableLengthUTF8(), fill_value='')
s[:] = ['x', 'yz']
print(s[:].tolist(), repr(s.metadata.data_type))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/group/#zarr.Group.move", code="""
import zarr
g = zarr.group()
g.create_array('a', shape=(2,), dtype='i1')
try:
    g.move('a', 'b')
except Exception as e:
    caught(e)
print(sorted(g.array_keys()))
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/deprecated/convenience/#copy_store", code="""
import zarr
src = zarr.group(store={})
src.create_array('x', shape=(3,), dtype='i2')
for fn in ('copy', 'copy_all', 'copy_store'):
    try:
        getattr(zarr, fn)(src, zarr.group(store={}))
    except Exception as e:
        caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/registry/", code="""
import zarr
from zarr.registry import get_codec_class, get_pipeline_class
print(get_codec_class('blosc').__name__, get_codec_class('zstd').__name__, get_codec_class('bytes').__name__)
print(get_pipeline_class().__name__)
try:
    get_codec_class('no-such-codec')
except Exception as e:
    caught(e)
"""),
    dict(source="https://zarr.readthedocs.io/en/v3.1.6/api/zarr/errors/", code="""
import zarr
from zarr.errors import (ArrayNotFoundError, GroupNotFoundError, NodeTypeValidationError,
                         ContainsArrayError, ContainsGroupError)
store = zarr.storage.MemoryStore()
zarr.create_array(store, name='a', shape=(1,), dtype='i1')
for call in (lambda: zarr.open_array(store, path='b', mode='r'),
             lambda: zarr.open_group(store, path='a', mode='r'),
             lambda: zarr.create_array(store, name='a', shape=(1,), dtype='i1'),
             lambda: zarr.create_group(store, path='a')):
    try:
        call()
    except Exception as e:
        caught(e)
"""),
]
