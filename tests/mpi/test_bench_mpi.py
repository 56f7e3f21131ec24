"""The MPI benchmark runs end to end on real ranks and reports every method and layout."""

import json
import os

import pytest

from zarrhpc.bench.mpi import round_order, slabs
from zarrhpc.bench.mpi_checkpoint import POLICIES, SimulatedPFS


def test_slab_boundaries_fall_inside_chunks():
    cuts = slabs(2048, 4, 64)
    assert [s.start for s in cuts] == [0, 533, 1045, 1557]
    assert all(s.start % 64 for s in cuts[1:]) and cuts[-1].stop == 2048


def test_round_order_keeps_the_close_comparisons_together_and_takes_turns():
    names = ["zh", "a", "a2", "b", "c"]
    slow = {"b", "c"}
    orders = [round_order(names, slow, i) for i in range(-1, 6)]
    for order in orders:
        assert sorted(order) == sorted(names)
        assert set(order[:3]) == {"zh", "a", "a2"}  # the fast ones never follow a slow one
    heads = [o[0] for o in orders[1:]]
    assert heads == ["zh", "a", "a2", "zh", "a", "a2"]  # each leads equally often
    assert [o[3] for o in orders[1:3]] == ["b", "c"]
    assert round_order(["zh"], set(), 3) == ["zh"] and round_order([], set(), 0) == []


def test_simulated_pfs_is_bandwidth_bound_on_few_nodes_and_metadata_bound_at_scale():
    pfs = SimulatedPFS(ops_per_s=10_000, burst=100, node_bandwidth=1e9)
    # one node, 4 files of 0.5 GB: the bytes set the pace
    assert pfs.checkpoint_seconds(1, 4, 2, 2e9) == pytest.approx(2.0, rel=1e-3)
    # 4096 nodes x 512 files x 2 operations through one server at 10 000/s
    t = pfs.checkpoint_seconds(4096, 512, 2, 512e6)
    assert t == pytest.approx((4096 * 1024 - 100) / 10_000, rel=0.01)
    # the same bytes in 2 files per node: the server is no longer the limit
    assert pfs.checkpoint_seconds(4096, 2, 2, 512e6) < 2.5
    # 16 nodes: 16 x 1024 operations already take longer than the 0.5 s of bytes
    assert pfs.checkpoint_seconds(16, 512, 2, 512e6) == pytest.approx((16 * 1024 - 100) / 10_000, rel=0.01)


@pytest.mark.mpi
def test_bench_reports_both_layouts(run_mpi, tmp_path):
    out = tmp_path / "bench.json"
    run_mpi(2, "-m", "zarrhpc.bench.mpi", "--size-mib", "8", "--repeat", "1",
            "--chunk", "16", "--dir", str(tmp_path / "data"), "--json", str(out))
    got = json.loads(out.read_text())
    assert got["ranks"] == 2 and set(got["rows"]) == {"cubes", "slabs"}
    assert got["chunks"] == {"cubes": [16, 16, 16], "slabs": [16, 256, 256]}
    try:
        import hdf5plugin  # noqa: F401 - h5py's blosc filter (the bench extra)
        h5_blosc = True
    except ImportError:
        h5_blosc = False
    for layout in ("cubes", "slabs"):
        for mode in ("none", "blosc"):
            rows = got["rows"][layout][mode]
            methods = ["zarrhpc collective", "zarrhpc read direct", "zarrhpc read owners",
                       "zarr-python gathered (c)"]
            if mode == "none" or h5_blosc:
                methods += ["h5py per rank (a)", "h5py gathered (b)"]
            if mode == "none":
                methods += ["h5py per rank, same chunks (a')"]
            for method in methods:
                assert rows[method] > 0, (layout, mode, method)
            peers = set(got["speedup"][layout][mode])
            assert peers == {m for m in methods if not m.startswith("zarrhpc")}
            # CPU per rank, for every write method: spent, and no more than the cores
            # could give in the method's wall time
            cpu = got["cpu_seconds_per_rank"][layout][mode]
            writes = {m for m in methods if "read" not in m}
            assert set(cpu) == writes
            for method in writes:
                wall = got["GiB"] * 2**30 / 1e9 / rows[method]
                assert 0 < cpu[method] <= wall * os.cpu_count() * 1.05, (layout, mode, method)
    assert not (tmp_path / "data").exists()  # rank 0 cleans up
    ck = got["checkpoint"]
    assert ck["nodes"] == 2 and set(ck["modes"]) == {"none", "blosc"}
    for mode in ("none", "blosc"):
        rows = ck["modes"][mode]["policies"]
        assert set(rows) == set(POLICIES)
        assert all(r["GB/s"] > 0 and r["files_created"] > 0 for r in rows.values())
        # 2 nodes: the node-aggregated save creates fewer files than one per chunk
        assert rows["node-aggregated shards"]["files_created"] < rows["per-chunk files"]["files_created"]
        ov = ck["modes"][mode]["overlap"]
        assert ov["steps"] == 8 and ov["sync_s"] > 0 and ov["async_s"] > 0
        assert set(ck["projection"][mode]) == set(POLICIES)
        assert set(ck["projection"][mode]["per-chunk files"]) == {"1", "16", "256", "4096"}
