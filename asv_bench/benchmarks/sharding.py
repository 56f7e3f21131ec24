"""Sharded arrays: zarrhpc beside zarr-python (default and zarrs pipelines) and tensorstore.

asv runs small sizes (``SMALL``). The issue's full-size comparison (float32 (512,)*3,
shards (256,)*3, inner chunks (32,)*3, blosc lz4, on /dev/shm, medians of 3) is the
one-off ``cd asv_bench && ../.venv/bin/python -m benchmarks.sharding [--dir /dev/shm]
[--size 512]`` (as a module: benchmarks/array.py would shadow the standard library's
``array`` if the file were run as a script). Peers that are not installed are skipped.
"""

import argparse
import shutil
import statistics
import tempfile
import time

import numpy as np

import zarrhpc

from ._data import remove, scratch_dir

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                            "shuffle": "shuffle", "typesize": 4,
                                            "blocksize": 0}}
SMALL = dict(shape=(128, 128, 128), shards=(64, 64, 64), chunks=(16, 16, 16))


def field(shape, seed=0):
    """A smooth float32 field with a little noise (compresses like simulation output)."""
    rng = np.random.default_rng(seed)
    base = np.linspace(0, 1, shape[-1], dtype="f4")
    return (base + rng.standard_normal(shape, dtype="f4") * 0.01).astype("f4")


def sub_volume(shape):
    """The unaligned sub-volume [100:400, 37:300, 5:500] scaled to ``shape``."""
    n = shape[0]
    return tuple(slice(a * n // 512, b * n // 512) for a, b in ((100, 400), (37, 300), (5, 500)))


def random_points(shape, count, seed=1):
    rng = np.random.default_rng(seed)
    return [tuple(int(rng.integers(0, n)) for n in shape) for _ in range(count)]


# ------------------------------------------------------------------ implementations


class Zarrhpc:
    name = "zarrhpc"

    def create(self, path, data, shards, chunks):
        self.a = zarrhpc.create_array(path, shape=data.shape, dtype="f4", chunks=chunks,
                                      shards=shards, compressors=[BLOSC], overwrite=True)

    def open(self, path):
        self.a = zarrhpc.open_array(path, mode="r+")

    def write(self, data):
        self.a[...] = data

    def read(self, sel=Ellipsis):
        return self.a[sel]


class ZarrPython:
    name = "zarr-python"
    pipeline = None

    def _config(self):
        import zarr

        if self.pipeline is None:
            return zarr.config.set({"codec_pipeline.path":
                                    "zarr.core.codec_pipeline.BatchedCodecPipeline"})
        return zarr.config.set({"codec_pipeline.path": self.pipeline})

    def create(self, path, data, shards, chunks):
        import zarr

        with self._config():
            self.a = zarr.create_array(store=path, shape=data.shape, dtype="f4", chunks=chunks,
                                       shards=shards, compressors=[BLOSC], overwrite=True,
                                       fill_value=0)

    def open(self, path):
        import zarr

        with self._config():
            self.a = zarr.open_array(path, mode="r+")

    def write(self, data):
        with self._config():
            self.a[...] = data

    def read(self, sel=Ellipsis):
        with self._config():
            return self.a[sel]


class ZarrPythonZarrs(ZarrPython):
    name = "zarr-python+zarrs"
    pipeline = "zarrs.ZarrsCodecPipeline"


class TensorStore:
    name = "tensorstore"

    def _spec(self, path):
        return {"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}

    def create(self, path, data, shards, chunks):
        import tensorstore as ts

        spec = self._spec(path)
        spec["metadata"] = {
            "shape": list(data.shape), "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shards)}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0.0,
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": list(chunks),
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, BLOSC],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end"}}],
        }
        self.a = ts.open(spec, create=True, delete_existing=True).result()

    def open(self, path):
        import tensorstore as ts

        self.a = ts.open(self._spec(path), open=True).result()

    def write(self, data):
        self.a[...].write(data).result()

    def read(self, sel=Ellipsis):
        return self.a[sel].read().result()


IMPLEMENTATIONS = [Zarrhpc, ZarrPython, ZarrPythonZarrs, TensorStore]


def available():
    out = []
    for cls in IMPLEMENTATIONS:
        try:
            if cls is TensorStore:
                import tensorstore  # noqa: F401
            elif cls is ZarrPythonZarrs:
                import zarrs  # noqa: F401
            elif cls is ZarrPython:
                import zarr  # noqa: F401
        except ImportError:
            continue
        out.append(cls)
    return out


# ------------------------------------------------------------------ asv


class ShardedReadWrite:
    """Full write/read, unaligned sub-volume and single elements at small size."""

    params = [["zarrhpc", "zarr-python", "tensorstore"]]
    param_names = ["impl"]
    timeout = 120

    def setup(self, impl):
        classes = {cls.name: cls for cls in available()}
        if impl not in classes:
            raise NotImplementedError(f"{impl} is not installed")
        self.dir = scratch_dir()
        self.data = field(SMALL["shape"])
        self.impl = classes[impl]()
        self.impl.create(self.dir + "/a", self.data, SMALL["shards"], SMALL["chunks"])
        self.impl.write(self.data)
        self.sub = sub_volume(SMALL["shape"])
        self.points = random_points(SMALL["shape"], 50)

    def teardown(self, impl):
        remove(self.dir)

    def time_write_full(self, impl):
        self.impl.write(self.data)

    def time_read_full(self, impl):
        self.impl.read()

    def time_read_sub_volume(self, impl):
        self.impl.read(self.sub)

    def time_read_50_single_elements(self, impl):
        for p in self.points:
            self.impl.read(p)


# ------------------------------------------------------------------ full size, one-off


def _median(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/dev/shm")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    n = args.size
    shape, shards, chunks = (n,) * 3, (n // 2,) * 3, (32, 32, 32)
    data = field(shape)
    gb = data.nbytes / 1e9
    sub = sub_volume(shape)
    sub_gb = data[sub].nbytes / 1e9
    points = random_points(shape, args.points)
    root = tempfile.mkdtemp(prefix="zarrhpc-bench-shard-", dir=args.dir)
    rows = []
    try:
        for cls in available():
            if args.only and cls.name not in args.only:
                continue
            impl = cls()
            path = f"{root}/{cls.name}"
            impl.create(path, data, shards, chunks)
            w = _median(lambda: impl.write(data))
            impl.open(path)
            r = _median(lambda: impl.read())
            assert np.array_equal(impl.read(), data), cls.name
            s = _median(lambda: impl.read(sub))
            assert np.array_equal(impl.read(sub), data[sub]), cls.name

            def singles():
                for p in points:
                    impl.read(p)
            p_us = _median(singles) / len(points) * 1e6
            rows.append((cls.name, gb / w, gb / r, sub_gb / s, p_us))
            print(f"{cls.name:20s} write {gb / w:6.2f} GB/s  read {gb / r:6.2f} GB/s  "
                  f"sub-volume {sub_gb / s:6.2f} GB/s  single {p_us:8.1f} us/read", flush=True)
            shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rows


if __name__ == "__main__":
    main()
