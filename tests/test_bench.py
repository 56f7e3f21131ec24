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
