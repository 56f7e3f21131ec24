"""Recording and packing fixture stores written by another library (run under that library).

Life cycle: a generator (``gen_<writer>.py`` beside this file) runs once in a throw-away
virtual environment holding the writer (never the test venv: zarrhpc is not imported). It
makes a :class:`Recorder`, writes each store under ``rec.stores``, reads every array back
with the writer's own reader and calls :meth:`Recorder.add` with what it read;
:meth:`Recorder.pack` then writes ``<archive>.tar.xz`` beside this file: the stores,
``expected/<name>.npz`` (values, fill value) and ``manifest.json`` (writer versions, and per
array the store, the path inside it, shape, dtype, and notes). A store the writer refused is
listed under ``skipped`` with the writer's error. tests/conformance/test_writer_stores.py
opens every recorded array with zarrhpc (and zarr-python) and compares.
"""

from __future__ import annotations

import io
import json
import tarfile
import tempfile
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _load_corpus():
    """zarrhpc/testing/corpus.py by path, for its sample data: the generators run where
    zarrhpc (compiled for the test environment) is not importable."""
    import importlib.util
    import sys

    path = HERE.parents[2] / "zarrhpc" / "testing" / "corpus.py"
    spec = importlib.util.spec_from_file_location("_zarrhpc_corpus", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def sample(dtype, shape=(9, 7), seed: int = 0) -> np.ndarray:
    """Deterministic values of ``dtype`` (``zarrhpc.testing.corpus.sample_data``: NaN and
    -0.0, NaT, empty and non-ASCII text, records), and of ml_dtypes' types by value."""
    dt = np.dtype(dtype)
    ml = _ml_name(dt) if dt.names is None else None
    if not ml:
        return _load_corpus().sample_data(dt, shape, seed)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if "int" in ml:
        lo, hi = {"int2": (-2, 1), "int4": (-8, 7), "uint2": (0, 3), "uint4": (0, 15)}[ml]
        return rng.integers(lo, hi, n, endpoint=True).astype(dt).reshape(shape)
    f = (rng.standard_normal(n) * 4).astype(np.float32)
    return (np.abs(f) + 0.25 if "e8m0" in ml else f).astype(dt).reshape(shape)


def _ml_name(dtype: np.dtype) -> str | None:
    """The ml_dtypes type name of ``dtype`` (or of its fields' type), else None."""
    if dtype.names:
        return _ml_name(dtype[dtype.names[0]])
    mod = getattr(dtype.type, "__module__", "") or ""
    return dtype.name if mod.startswith("ml_dtypes") else None


def write_archive(src: Path, out: Path) -> Path:
    """Pack the directory ``src`` into the xz tar ``out`` with fixed times and owners (the
    same files give the same archive)."""
    with tarfile.open(out, "w:xz", preset=9) as tf:
        for p in sorted(src.rglob("*")):
            info = tf.gettarinfo(str(p), str(p.relative_to(src)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if p.is_file():
                with open(p, "rb") as f:
                    tf.addfile(info, f)
            else:
                tf.addfile(info)
    return out


class Recorder:
    def __init__(self, archive: str, versions: dict):
        self.archive = archive
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name)
        self.stores = self.root / "stores"
        self.stores.mkdir()
        (self.root / "expected").mkdir()
        self.manifest = {"versions": versions, "arrays": {}, "skipped": {}}

    def add(self, name: str, store: str, path: str, values, *, fill=None, dtype=None,
            mask=None, **notes) -> None:
        """Record what the writer read back for the array at ``path`` of ``stores/<store>``
        (``mask``: where a masked read had no value, True = missing)."""
        values = np.asarray(values)
        if values.dtype.kind == "T":  # StringDType: saved as objects
            values = values.astype(object)
        ml = _ml_name(values.dtype)
        if ml:  # npz keeps no ml_dtypes type: the bytes, and the type's name
            notes["ml_dtype"] = ml
            values = values.view(f"V{values.dtype.itemsize}")
        buf = io.BytesIO()
        extra = {} if mask is None else {"mask": np.asarray(mask, dtype=bool)}
        np.savez(buf, values=values, fill=np.asarray(fill if fill is not None else [],
                                                     dtype=object if fill is None else None),
                 **extra)
        (self.root / "expected" / f"{name}.npz").write_bytes(buf.getvalue())
        self.manifest["arrays"][name] = {
            "store": f"stores/{store}", "path": path, "shape": list(values.shape),
            "dtype": str(dtype if dtype is not None else values.dtype), "has_fill": fill is not None,
            "masked": mask is not None,
            **notes}

    def skip(self, name: str, exc: BaseException) -> None:
        self.manifest["skipped"][name] = f"{type(exc).__name__}: {exc}"[:300]
        traceback.print_exc()

    def pack(self) -> Path:
        (self.root / "manifest.json").write_text(json.dumps(self.manifest, indent=1,
                                                            sort_keys=True, default=str))
        out = write_archive(self.root, HERE / f"{self.archive}.tar.xz")
        print(f"{out.name}: {len(self.manifest['arrays'])} arrays, "
              f"{len(self.manifest['skipped'])} skipped")
        for k, v in self.manifest["skipped"].items():
            print("  skipped", k, v)
        return out
