"""Build the Cython kernels. One declarative list: each .pyx with the csrc/*.c it needs.

Set ZARRHPC_DEBUG=1 for a debug build (bounds checks, line tracing, -O0 -g).
"""
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("ZARRHPC_DEBUG", "") not in ("", "0")

# (module, extra C sources from csrc/)
KERNELS = [
    ("zarrhpc._kernels.strided", ["csrc/zh_strided.c"]),
]

compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if DEBUG:
    macros.append(("CYTHON_TRACE_NOGIL", "1"))

extensions = [
    Extension(
        name,
        sources=[name.replace(".", "/") + ".pyx", *csrc],
        include_dirs=[np.get_include(), "csrc"],
        define_macros=macros,
        extra_compile_args=compile_args,
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
