"""zarrhpc bench: every peer measured on the same data, every read checked."""

import json

import numpy as np
import pytest

from zarrhpc import cli
from zarrhpc.bench import Sizes, format_table, run
from zarrhpc.bench.peers import Zarrhpc

TINY = Sizes((24, 24, 24), (8, 8, 8), (slice(3, 20), slice(1, 9), slice(0, 24, 5)), 10,
             (4, 4, 4), 5, (64, 64), (16, 16), (16, 16, 16), (4, 4, 4))


def test_run_measures_every_peer_and_workload(tmp_path):
    results = run(peers=["zarrhpc", "zarrhpc-v2", "tensorstore", "zarr-python", "raw"],
                  codecs=["none", "blosc-lz4"], repeat=1, directory=str(tmp_path),
                  sizes=TINY, log=lambda m: None)
    got = {(r.workload, r.codec, r.op, r.peer) for r in results if r.median is not None}
    for peer in ("zarrhpc", "zarrhpc-v2", "tensorstore", "zarr-python"):
        for w, op in [("W1", "write"), ("W2", "read"), ("W3", "subvolume"), ("W4", "element"),
                      ("W4", "block8")]:
            assert (w, "blosc-lz4", op, peer) in got
        assert ("W6", "none", "open", peer) in got
        assert ("W7", "none", "read", peer) in got
        if peer != "zarrhpc-v2":  # v2 has no sharding
            for op in ("write", "read", "subvolume", "element"):
                assert ("W5", "blosc-lz4", op, peer) in got
    assert ("W2", "none", "read", "raw") in got
    assert ("W1", "blosc-lz4", "write", "raw") not in got  # raw has no codecs: skipped
    assert all(r.median > 0 for r in results if r.median is not None)
    table = format_table(results)
    assert "vs best peer" in table and "blosc-lz4" in table and "v2 vs v3" in table
    assert not list(tmp_path.iterdir())  # the data is removed afterwards


class _Liar(Zarrhpc):
    name = "liar"

    def read(self, handle, selection):
        return np.asarray(handle[selection]) + 1


def test_a_wrong_read_is_caught(tmp_path):
    with pytest.raises(AssertionError, match="liar W2 none read: wrong data"):
        run(peers=[_Liar()], codecs=["none"], workloads=["W1", "W2"], repeat=1,
            directory=str(tmp_path), sizes=TINY, log=lambda m: None)


def test_selection_writes_are_measured_and_checked(tmp_path):
    results = run(peers=["zarrhpc", "tensorstore", "zarr-python"], codecs=["none", "blosc-lz4"],
                  workloads=["W8w", "W9w", "W10w"], repeat=1, directory=str(tmp_path),
                  sizes=TINY, log=lambda m: None)
    got = {(r.workload, r.codec, r.op, r.peer) for r in results if r.median is not None}
    for peer in ("zarrhpc", "tensorstore", "zarr-python"):
        for codec in ("none", "blosc-lz4"):
            for w, op in [("W8w", "vindex-write"), ("W9w", "oindex-write"),
                          ("W10w", "mask-write")]:
                assert (w, codec, op, peer) in got
    assert not list(tmp_path.iterdir())


def test_sharded_selection_write_is_measured_and_checked(tmp_path):
    results = run(peers=["zarrhpc", "tensorstore"], codecs=["blosc-lz4"], workloads=["W11w"],
                  repeat=1, directory=str(tmp_path), sizes=TINY, log=lambda m: None)
    got = {(r.workload, r.op, r.peer) for r in results if r.median is not None}
    for peer in ("zarrhpc", "tensorstore"):
        assert ("W11w", "sharded-vindex-write", peer) in got
    with pytest.raises(AssertionError, match="wrong-writer W11w blosc-lz4 sharded-vindex-write"):
        run(peers=[_WrongWriter()], codecs=["blosc-lz4"], workloads=["W11w"], repeat=1,
            directory=str(tmp_path), sizes=TINY, log=lambda m: None)


def test_floor_rows_beside_the_point_reads(tmp_path):
    """W8 and W11 carry the engine's floor rows (references, not peers); W9 does not."""
    results = run(peers=["zarrhpc", "zarr-python"], codecs=["none", "blosc-lz4"],
                  workloads=["W8", "W9", "W11"], repeat=2, directory=str(tmp_path), sizes=TINY,
                  log=lambda m: None)
    got = {(r.workload, r.codec, r.peer): r.median for r in results}
    for key in [("W8", "none"), ("W8", "blosc-lz4"), ("W11", "blosc-lz4")]:
        for floor in ("floor", "floor-blocks"):
            assert got[(*key, floor)] > 0
    assert not any(r.peer.startswith("floor") for r in results if r.workload == "W9")
    table = format_table(results)
    assert "floor-blocks" in table


class _WrongWriter(Zarrhpc):
    name = "wrong-writer"

    def select_write(self, handle, kind, selection, value):
        super().select_write(handle, kind, selection, value + 1)


def test_a_wrong_selection_write_is_caught(tmp_path):
    with pytest.raises(AssertionError, match="wrong-writer W8w none vindex-write: wrong data"):
        run(peers=[_WrongWriter()], codecs=["none"], workloads=["W8w"], repeat=1,
            directory=str(tmp_path), sizes=TINY, log=lambda m: None)


def test_cli_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("zarrhpc.bench.Sizes.quick", classmethod(lambda cls: TINY))
    assert cli.main(["bench", "--quick", "--json", "--peers", "zarrhpc,raw", "--codecs", "none",
                     "--workloads", "W1,W2", "--repeat", "1", "--dir", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {(r["workload"], r["peer"]) for r in doc["results"] if r["median"]}
    assert {("W1", "zarrhpc"), ("W2", "zarrhpc"), ("W1", "raw"), ("W2", "raw")} <= rows
    assert doc["threads"] >= 1


def test_cli_bench_mpi_runs_the_collective_benchmark(tmp_path, capfd):
    import shutil
    import sys
    from pathlib import Path

    if not (Path(sys.executable).parent / "mpiexec").exists() and not shutil.which("mpiexec"):
        pytest.skip("no mpiexec")
    rc = cli.main(["bench", "--mpi", "--ranks", "2", "--quick", "--repeat", "1",
                   "--dir", str(tmp_path)])
    assert rc == 0
    out = capfd.readouterr().out
    assert "2 ranks" in out and "zarrhpc collective" in out and "h5py per rank (a)" in out


@pytest.mark.parametrize("shards", [None, (16, 16)])
@pytest.mark.parametrize("compressors", [None, "auto"])
def test_floor_read_decodes_and_gathers_nothing(tmp_path, shards, compressors):
    import zarrhpc
    from zarrhpc.core._select import read_floor
    from zarrhpc.indexing import coordinate_projection

    a = zarrhpc.create_array(tmp_path / "a", shape=(40, 40), chunks=(8, 8), shards=shards,
                             dtype="f4", compressors=compressors)
    a[:20] = 1.0  # half the chunks stored: the others are missing (fill)
    rng = np.random.default_rng(0)
    coords = (rng.integers(0, 40, 200), rng.integers(0, 40, 200))
    prep = a._prep
    proj = coordinate_projection(coords, a.shape, prep.chunks)
    flat = np.full(proj.npoints, -7, dtype="f4")
    for whole in (True, False):
        read_floor(prep, proj, flat, whole=whole)
        assert (flat == -7).all()
