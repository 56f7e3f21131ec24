"""Build the Cython kernels. One declarative list: each .pyx with the csrc/*.c it needs.

Set ZARRHPC_DEBUG=1 for a debug build (bounds checks, line tracing, -O0 -g), and
ZARRHPC_ASAN=1 for AddressSanitizer and UndefinedBehaviorSanitizer (`make asan`).
"""
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("ZARRHPC_DEBUG", "") not in ("", "0")
ASAN = os.environ.get("ZARRHPC_ASAN", "") not in ("", "0")
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"] if ASAN else []

# (module, extra C sources from csrc/)
KERNELS = [
    ("zarrhpc._kernels.vlen", []),
    ("zarrhpc._kernels.strided", ["csrc/zh_strided.c"]),
    ("zarrhpc._kernels.alloc", []),
    ("zarrhpc._kernels.points", []),
    ("zarrhpc._kernels.engine",
     ["csrc/zh_job.c", "csrc/zh_read.c", "csrc/zh_write.c", "csrc/zh_shard_write.c",
      "csrc/zh_select.c", "csrc/zh_mask.c", "csrc/zh_sel_write.c", "csrc/zh_shard_sel.c",
      "csrc/zh_pool.c",
      "csrc/zh_codecs.c", "csrc/zh_zlib.c", "csrc/zh_crc32c.c", "csrc/zh_strided.c",
      "csrc/zh_blosc1.c"]),
]


def _blosc2_paths():
    """Headers and the static library of the blosc2 wheel (it bundles zstd and lz4)."""
    import blosc2

    root = os.path.dirname(blosc2.__file__)
    return os.path.join(root, "include"), os.path.join(root, "lib", "libblosc2.a")


BLOSC2_INCLUDE, BLOSC2_STATIC = _blosc2_paths()
# the engine links libblosc2 statically; its symbols stay private to the extension
LINK = {
    # numpy's StringDType C API (numpy >= 2); on numpy 1.x the module does not import and
    # zarrhpc.codecs.vlen uses its object-array path
    "zarrhpc._kernels.vlen": dict(define_macros=[("NPY_TARGET_VERSION", "NPY_2_0_API_VERSION")]),
    "zarrhpc._kernels.engine": dict(
        include_dirs=[BLOSC2_INCLUDE],
        extra_objects=[BLOSC2_STATIC],
        libraries=["z", "pthread", "m"],
        extra_link_args=["-Wl,--exclude-libs,ALL"],
    ),
}

compile_args = (["-O0", "-g"] if DEBUG else ["-O1"] if ASAN else ["-O3"]) + SANITIZE
macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if DEBUG:
    macros.append(("CYTHON_TRACE_NOGIL", "1"))

extensions = [
    Extension(
        name,
        sources=[name.replace(".", "/") + ".pyx", *csrc],
        include_dirs=[np.get_include(), "csrc", *LINK.get(name, {}).get("include_dirs", [])],
        define_macros=macros + LINK.get(name, {}).get("define_macros", []),
        extra_compile_args=compile_args,
        extra_link_args=[*LINK.get(name, {}).get("extra_link_args", []), *SANITIZE],
        **{k: v for k, v in LINK.get(name, {}).items()
           if k not in ("include_dirs", "define_macros", "extra_link_args")},
    )
    for name, csrc in KERNELS
]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "linetrace": DEBUG,
}

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
