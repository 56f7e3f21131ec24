"""AnnData stores written by anndata (through zarr-python), Zarr v2 and v3.

Run in a throw-away venv (never the test venv)::

    python -m venv /tmp/anndata && /tmp/anndata/bin/pip install anndata
    /tmp/anndata/bin/python gen_anndata.py

One AnnData object with what anndata users store: dense ``X`` and layers, CSR/CSC sparse
matrices (``data``/``indices``/``indptr``), obs/var frames with string, categorical,
nullable integer/boolean, boolean, float and integer columns, string indices, ``obsm`` /
``varm`` arrays and frames, ``uns`` scalars, strings, string arrays and nested dicts, in
both Zarr formats (and v3 sharded where anndata writes it). anndata reads every store back
into an equal object (checked here); every array in it is recorded as read by the
zarr-python anndata reads through.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder  # noqa: E402


def make():
    import anndata as ad
    import pandas as pd
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    n_obs, n_var = 23, 11
    X = rng.standard_normal((n_obs, n_var)).astype("f4")
    obs = pd.DataFrame({
        "cell_type": pd.Categorical(rng.choice(["T", "B", "NK", "mono"], n_obs)),
        "ordered": pd.Categorical(rng.choice(["lo", "mid", "hi"], n_obs),
                                  categories=["lo", "mid", "hi"], ordered=True),
        "batch": rng.choice(["b1", "b2", "日本", ""], n_obs).astype(object),
        "n_genes": rng.integers(0, 1000, n_obs),
        "pct": rng.random(n_obs),
        "flag": rng.random(n_obs) > 0.5,
        "nullable_int": pd.array([None if i % 5 == 0 else i for i in range(n_obs)],
                                 dtype="Int32"),
        "nullable_bool": pd.array([None if i % 4 == 0 else bool(i % 2) for i in range(n_obs)],
                                  dtype="boolean"),
    }, index=[f"cell-{i}-ü" for i in range(n_obs)])
    var = pd.DataFrame({"gene_ids": [f"ENSG{i:05d}" for i in range(n_var)],
                        "highly_variable": rng.random(n_var) > 0.3},
                       index=[f"gene{i}" for i in range(n_var)])
    a = ad.AnnData(X=X, obs=obs, var=var)
    a.layers["counts"] = rng.integers(0, 50, (n_obs, n_var)).astype("i8")
    a.layers["csr"] = sp.random(n_obs, n_var, density=0.3, format="csr", random_state=1,
                                dtype="f8")
    a.obsm["X_pca"] = rng.standard_normal((n_obs, 5))
    a.obsm["csc"] = sp.random(n_obs, 7, density=0.2, format="csc", random_state=2,
                              dtype="f4")
    a.varm["loadings"] = rng.standard_normal((n_var, 3)).astype("f4")
    a.obsp["distances"] = sp.random(n_obs, n_obs, density=0.1, format="csr", random_state=3)
    a.uns["title"] = "an experiment – ü"
    a.uns["n"] = 42
    a.uns["f"] = 2.5
    a.uns["flag"] = True
    a.uns["names"] = np.array(["a", "bb", "", "日本"], dtype=object)
    a.uns["ints"] = np.arange(6, dtype="u2").reshape(2, 3)
    a.uns["nested"] = {"colors": ["#ff0000", "#00ff00"], "k": {"deep": np.arange(3.0)}}
    return a


def _arrays(zarr, path: Path):
    g = zarr.open_group(str(path), mode="r")
    out = []

    def walk(grp, prefix):
        for name, node in grp.members():
            p = f"{prefix}{name}"
            if isinstance(node, zarr.Array):
                out.append((p, node))
            else:
                walk(node, p + "/")

    walk(g, "")
    return out


def main():
    import anndata as ad
    import zarr

    versions = {"anndata": md.version("anndata"), "zarr": zarr.__version__,
                "numcodecs": md.version("numcodecs"), "numpy": np.__version__,
                "pandas": md.version("pandas")}
    rec = Recorder(f"anndata-{md.version('anndata')}", versions)
    a = make()
    for zf in (2, 3):
        for sharded in ((False, True) if zf == 3 else (False,)):
            name = f"anndata-v{zf}" + ("-sharded" if sharded else "")
            path = rec.stores / f"{name}.zarr"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ad.settings.zarr_write_format = zf
                    if sharded:
                        ad.settings.auto_shard_zarr_v3 = True
                    a.write_zarr(str(path))
                    if sharded:
                        ad.settings.auto_shard_zarr_v3 = False
                    back = ad.read_zarr(str(path))
                    assert back.obs.equals(a.obs), "obs differs"
                    assert np.array_equal(back.X, a.X)
                    assert (back.layers["csr"] != a.layers["csr"]).nnz == 0
                    for p, arr in _arrays(zarr, path):
                        values = arr[...]
                        rec.add(f"{name}-{p.replace('/', '-')}", f"{name}.zarr", p,
                                np.asarray(values), fill=None,
                                attrs_keys=sorted(arr.attrs.keys()))
            except Exception as exc:
                rec.skip(name, exc)
    rec.pack()


if __name__ == "__main__":
    main()
