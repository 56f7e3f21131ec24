"""The codec-bound limits behind `zarrhpc bench` W1/W2 (issue 3's second target).

For the W1 field (float32 512^3, chunks 64^3): the codec libraries alone, in a tight loop
over the same 1 MiB chunks on N threads (c-blosc1 compress through numcodecs, blosc2
decompress, zstandard, zlib), next to zarrhpc writing and reading the whole array with
the same codec on the same threads. Also: zarrhpc with 1 and 2 threads (thread scaling)
and the peak RSS of a full read in a fresh process.

    python examples/codec_limits.py [--threads 2] [--repeat 3] [--dir /dev/shm]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import zarrhpc
from zarrhpc import config
from zarrhpc.bench import _field, default_dir

CODECS = {
    "blosc-lz4": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle", "typesize": 4}},
    "zstd-1": {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
    "gzip-1": {"name": "gzip", "configuration": {"level": 1}},
}


def lib_funcs(codec):
    if codec == "blosc-lz4":
        import blosc2
        import numcodecs.blosc as nb

        def enc(b):
            return nb.compress(b, b"lz4", 5, 1, 0, typesize=4)

        def dec(c, out):
            blosc2.decompress2(c, dst=out, nthreads=1)
        blosc2.set_releasegil(True)
    elif codec == "zstd-1":
        import threading

        import zstandard

        local = threading.local()  # zstandard's contexts are not thread-safe

        def ctx():
            if not hasattr(local, "c"):
                local.c = zstandard.ZstdCompressor(level=1)
                local.d = zstandard.ZstdDecompressor()
            return local

        def enc(b):
            return ctx().c.compress(b)

        def dec(c, out):
            out[...] = np.frombuffer(ctx().d.decompress(c), np.uint8)
    else:
        def enc(b):
            co = zlib.compressobj(1, zlib.DEFLATED, 31)
            return co.compress(b) + co.flush()

        def dec(c, out):
            out[...] = np.frombuffer(zlib.decompress(c, 47), np.uint8)
    return enc, dec


def median_time(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=config.available_cpus())
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default=default_dir())
    p.add_argument("--size", type=int, default=512)
    args = p.parse_args()
    if len(sys.argv) > 1 and sys.argv[1] == "--rss-child":
        return
    data = _field((args.size,) * 3, np.float32)
    chunks = [np.ascontiguousarray(data[i:i + 64, j:j + 64, k:k + 64]).tobytes()
              for i in range(0, args.size, 64) for j in range(0, args.size, 64)
              for k in range(0, args.size, 64)]
    nbytes = data.nbytes
    root = tempfile.mkdtemp(prefix="zarrhpc-limits-", dir=args.dir)
    print(f"float32 {data.shape}, chunks 64^3, {args.threads} threads, median of {args.repeat}")
    print(f"{'codec':10} {'op':6} {'library GB/s':>13} {'zarrhpc GB/s':>13} {'ratio':>6}   "
          f"{'zarrhpc 1 thread':>16} {'2/1 threads':>11}")
    try:
        for codec, entry in CODECS.items():
            enc, dec = lib_funcs(codec)
            with ThreadPoolExecutor(args.threads) as pool:
                encoded = list(pool.map(enc, chunks))
                t_enc = median_time(lambda: list(pool.map(enc, chunks)), args.repeat)
                outs = [np.empty(len(c), np.uint8) for c in chunks[: args.threads * 2]]
                t_dec = median_time(lambda: list(pool.map(
                    lambda ic: dec(ic[1], outs[ic[0] % len(outs)]), enumerate(encoded))),
                    args.repeat)
            path = os.path.join(root, codec)
            res = {}
            for threads in (1, args.threads):
                with config.set(threads=threads):
                    def write():
                        shutil.rmtree(path, ignore_errors=True)
                        a = zarrhpc.create_array(path, shape=data.shape, chunks=(64,) * 3,
                                                 dtype="f4", compressors=[entry])
                        a[...] = data
                    tw = median_time(write, args.repeat)
                    a = zarrhpc.open_array(path)
                    r = None

                    def read():
                        nonlocal r
                        r = None
                        r = a[...]
                    tr = median_time(read, args.repeat)
                    assert np.array_equal(r, data)
                    res[threads] = (tw, tr)
            for op, t_lib, k in (("write", t_enc, 0), ("read", t_dec, 1)):
                lib = nbytes / t_lib / 1e9
                ours = nbytes / res[args.threads][k] / 1e9
                one = nbytes / res[1][k] / 1e9
                print(f"{codec:10} {op:6} {lib:13.2f} {ours:13.2f} {ours / lib:6.2f}   "
                      f"{one:16.2f} {ours / one:10.2f}x", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    # peak RSS of a full uncompressed read, in a fresh process
    path = os.path.join(args.dir, f"zarrhpc-rss-{os.getpid()}")
    try:
        a = zarrhpc.create_array(path, shape=data.shape, chunks=(64,) * 3, dtype="f4",
                                 compressors=[CODECS["blosc-lz4"]])
        a[...] = data
        code = ("import zarrhpc, sys\n"
                "def kib(f):\n"
                "    return next(int(l.split()[1]) for l in open('/proc/self/status')"
                " if l.startswith(f))\n"
                "a = zarrhpc.open_array(sys.argv[1])\n"
                "open('/proc/self/clear_refs', 'w').write('5')  # reset the peak\n"
                "base = kib('VmRSS')\n"
                "x = a[...]\n"
                "print(base, kib('VmHWM'), x.nbytes)\n")
        out = subprocess.run([sys.executable, "-c", code, path], capture_output=True,
                             text=True, check=True).stdout.split()
        base, peak, n = (int(v) for v in out)
        extra = peak * 1024 - base * 1024 - n
        print(f"peak RSS of a full read (blosc lz4, {args.threads} threads): output "
              f"{n / 2**20:.0f} MiB, peak growth {(peak - base) / 1024:.1f} MiB, beyond the "
              f"output {extra / 2**20:.1f} MiB")
    finally:
        shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    main()
