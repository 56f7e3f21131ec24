"""Random write programs on S3 with failing requests: what a failed write may leave.

Life cycle: :func:`run_program` takes a store URL reached through a
:class:`~zarrhpc.testing.servers.CountingProxy` and a seed, creates a random array (2-D,
edge chunks, sometimes sharded, sometimes compressed), and runs ten random operations
(writes of slices, of the fill value -- the erase path --, orthogonal writes, resizes,
appends). Before each operation the proxy is told to fail some requests (HTTP 500/503,
a dropped connection, 403) of one kind (PUT, DELETE, GET or any), a few times (retried:
the operation must succeed) or always (it must raise). After each operation:

- success: a freshly opened handle reads exactly the numpy model, and the writing
  handle's shape equals the stored shape;
- failure: a :class:`~zarrhpc.errors.ZarrhpcError` was raised (never another class, never
  a silent return); every chunk reads as a whole old or a whole new version (per chunk:
  the model before or after the write), the stored shape is the old or the new one, and
  the writing handle's shape is the stored one (metadata neither ahead nor behind). The
  model then takes what is stored.

Only helpers live here; the test is tests/reliability/test_upload_faults_stress.py.
"""

from __future__ import annotations

import os

import numpy as np

import zarrhpc
from zarrhpc.errors import ZarrhpcError

__all__ = ["run_program"]

_TRACE = os.environ.get("ZARRHPC_TRACE_FAULTS", "") not in ("", "0")

_KINDS = {"PUT": lambda k, p: k == "PUT", "DELETE": lambda k, p: k in ("DELETE", "POST"),
          "GET": lambda k, p: k in ("GET", "HEAD"), "any": None}


def _chunk_regions(shape, chunks):
    grid = [-(-n // c) for n, c in zip(shape, chunks)]
    for idx in np.ndindex(*grid):
        yield idx, tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(idx, chunks, shape))


def _grown(model, shape, fill):
    out = np.full(shape, fill, dtype=model.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(model.shape, shape))
    out[common] = model[common]
    return out


def _exposed(old_shape, new_shape, chunks) -> np.ndarray:
    """Cells of ``new_shape`` outside ``old_shape`` in chunks cut by ``old_shape``: they
    show what was stored there before a shrink (zarr-python keeps an edge chunk's bytes),
    not the fill value; chunks wholly outside ``old_shape`` must read as the fill value."""
    inside = np.zeros(new_shape, dtype=bool)
    inside[tuple(slice(0, min(a, b)) for a, b in zip(old_shape, new_shape))] = True
    cut = np.zeros(new_shape, dtype=bool)
    cut[tuple(slice(0, min(n, -(-o // c) * c)) for o, n, c in
              zip(old_shape, new_shape, chunks))] = True
    return cut & ~inside


def _same(got, want, loose) -> bool:
    return got.shape == want.shape and np.array_equal(got[~loose], want[~loose])


def _operation(rng, a, model, fill):
    """Apply one random operation to handle ``a``; returns the model after it and the op."""
    shape = model.shape
    r = rng.random()
    if r < 0.15:
        new = tuple(max(1, n + int(rng.integers(-4, 5))) for n in shape)
        return (lambda: a.resize(new)), _grown(model, new, fill), ("resize", new)
    if r < 0.25:
        extra = np.full((int(rng.integers(1, 5)), shape[1]), 7, dtype=model.dtype)
        after = np.concatenate([model, extra])
        return (lambda: a.append(extra, axis=0)), after, ("append", extra.shape)
    sel = []
    for n in shape:
        lo = int(rng.integers(0, n))
        sel.append(slice(lo, int(rng.integers(lo + 1, n + 1))))
    sel = tuple(sel)
    after = model.copy()
    if r < 0.4:  # the fill value: chunks erased
        after[sel] = fill
        return (lambda: a.__setitem__(sel, fill)), after, ("fill", sel)
    if r < 0.5:
        idx = tuple(np.unique(rng.integers(0, n, int(rng.integers(1, 4)))) for n in shape)
        vals = rng.integers(-100, 100, (len(idx[0]), len(idx[1]))).astype(model.dtype)
        after[np.ix_(*idx)] = vals
        return (lambda: a.oindex.__setitem__(idx, vals)), after, ("oindex", idx)
    vals = rng.integers(-1000, 1000, after[sel].shape).astype(model.dtype)
    after[sel] = vals
    return (lambda: a.__setitem__(sel, vals)), after, ("write", sel)


def run_program(url: str, options: dict, proxy, seed: int, persistent_drops: bool = True) -> dict:
    """One program; returns counts ``{"ops", "failed", "retried"}``. Raises AssertionError
    on a wrong value, a version mix inside a chunk or metadata out of step.

    ``persistent_drops=False``: connections are dropped a few times only (s3fs retries a
    dropped connection itself, with its own timeouts: minutes per request)."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(3, 14)), int(rng.integers(3, 14)))
    chunks = (int(rng.integers(2, 5)), int(rng.integers(2, 5)))
    shards = tuple(c * 2 for c in chunks) if rng.random() < 0.3 else None
    compressors = "auto" if rng.random() < 0.5 else None
    fill = 0
    where = f"seed {seed}: shape {shape} chunks {chunks} shards {shards}"
    a = zarrhpc.create_array(url, shape=shape, chunks=chunks, shards=shards, dtype="i4",
                             fill_value=fill, compressors=compressors,
                             storage_options=options)
    model = np.full(shape, fill, dtype="i4")
    loose = np.zeros(shape, dtype=bool)  # cells a grow exposed again: see _exposed
    stored_chunks = shards or chunks
    counts = {"ops": 0, "failed": 0, "retried": 0}
    for step in range(10):
        run, after, op = _operation(rng, a, model, fill)
        persistent = rng.random() < 0.5
        kind = str(rng.choice(list(_KINDS)))
        status = int(rng.choice([500, 503, 0, 403]))
        n = 10**6 if persistent else int(rng.integers(1, 3))
        if status == 403:
            n = 10**6  # not retried
        if status == 0 and not persistent_drops:
            n = min(n, 2)
        proxy.fail_next(n, status, when=_KINDS[kind])
        error = None
        try:
            run()
        except ZarrhpcError as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - any other class is a finding
            raise AssertionError(f"{where} step {step} {op}: {type(exc).__name__} ({exc}) "
                                 "is not a ZarrhpcError") from exc
        finally:
            proxy._faults.clear()
        counts["ops"] += 1
        b = zarrhpc.open_array(url, storage_options=options)
        got = b[...]
        tag = f"{where} step {step} {op} fault {kind}/{status}/{n}"
        if _TRACE:
            print(tag, "error:", error, "shapes", model.shape, after.shape, b.shape, flush=True)
        if b.shape != model.shape:  # a resize happened (or half happened)
            lo = tuple(min(x, y) for x, y in zip(model.shape, b.shape))
            loose = _grown(loose, b.shape, False) | _exposed(lo, b.shape, stored_chunks)
        if op[0] in ("write", "fill"):
            written = np.zeros(b.shape, dtype=bool)
            written[op[1]] = True
        else:
            written = np.zeros(b.shape, dtype=bool)
        if error is None:
            if n < 10**6:
                counts["retried"] += 1
            assert _same(got, after, loose & ~written), \
                f"{tag}: wrote without error, reads {got} for {after}"
            assert a.shape == b.shape, f"{tag}: handle shape {a.shape}, stored {b.shape}"
            model, loose = got, loose & ~written
            a = b if rng.random() < 0.5 else a
            continue
        counts["failed"] += 1
        assert b.shape in (model.shape, after.shape), f"{tag}: stored shape {b.shape}"
        assert a.shape == b.shape, (f"{tag}: failed ({error}); the handle's shape {a.shape}, "
                                    f"stored {b.shape}")
        old, new = _grown(model, b.shape, fill), _grown(after, b.shape, fill)
        for idx, region in _chunk_regions(b.shape, stored_chunks):
            lr = loose[region]
            ok = _same(got[region], old[region], lr) or _same(got[region], new[region], lr)
            assert ok, (f"{tag}: failed ({error}); stored chunk {idx} is neither version:\n"
                        f"{got[region]}\nold {old[region]}\nnew {new[region]}")
        model = got
        a = b if rng.random() < 0.5 else a
    return counts
