"""The remote benchmark's table: medians, the ratio to the best peer and the floor bounds
(pure arithmetic on recorded seconds; the benchmark itself runs by hand)."""

from __future__ import annotations

from zarrhpc.bench.remote import UNSIGNED_FLOOR, ZarrhpcSigned, floor_bounds, format_table


def _times():
    return {
        "fetch floor (obstore, no decode)": {"floor": [0.10, 0.30, 0.11]},
        # the write's floor is the unsigned-payload one (zarrhpc's PUTs on loopback)
        "upload floor (obstore, encoded bytes)": {"floor": [0.25]},
        UNSIGNED_FLOOR: {"floor": [0.20]},
        "full read": {"zarrhpc": [0.12, 0.9, 0.13], "tensorstore": [0.15],
                      "zarr-python": [0.5]},
        "write": {"zarrhpc": [0.22], "zarr-python+obstore": [0.30]},
    }


def test_floor_bounds_are_medians_over_the_floor():
    lines = floor_bounds(_times())
    # full read: best peer 0.15 / floor median 0.11; zarrhpc median 0.13 / 0.11
    assert lines[0].startswith("# full read: best peer / floor 1.36x")
    assert lines[0].endswith("zarrhpc / floor 1.18x")
    assert lines[1].startswith("# write: best peer / floor 1.50x")
    assert lines[1].endswith("zarrhpc / floor 1.10x")
    assert floor_bounds({"full read": {"zarrhpc": [1.0]}}) == []  # no floor, no line


def test_signed_variant_is_a_column_and_no_peer():
    """``--payload-ab``'s zarrhpc variant gets its own column in the write row, and is
    never the "best peer" of a ratio or a bound."""
    times = _times()
    times["write"][ZarrhpcSigned.name] = [0.25]
    text = format_table(times, "t")
    header = text.splitlines()[1]
    assert ZarrhpcSigned.name in header
    row = next(line for line in text.splitlines() if line.startswith("write"))
    assert "250.00 ms" in row and row.rstrip().endswith("1.36x")  # 0.30 / 0.22
    assert floor_bounds(times)[1].startswith("# write: best peer / floor 1.50x")


def test_table_ratio_is_best_peer_over_zarrhpc():
    text = format_table(_times(), "t")
    row = next(line for line in text.splitlines() if line.startswith("full read"))
    assert row.rstrip().endswith("1.15x")  # 0.15 / 0.13
    assert "120.00 ms" not in row and "130.00 ms" in row  # the median, not the first round


def test_client_cpu_section_prints_medians_and_leaves_the_input():
    times = _times()
    times["client cpu"] = {"full read": {"zarrhpc": [0.010, 0.050, 0.020],
                                         "tensorstore": [0.030]},
                           "fetch floor (obstore, no decode)": {"floor": [0.004]}}
    text = format_table(times, "t")
    assert "client cpu" in times  # the caller's dict is not emptied
    section = text.split("client CPU per operation")[1].splitlines()
    row = next(line for line in section if line.startswith("full read"))
    assert "20.00 ms" in row and "30.00 ms" in row and "50.00 ms" not in row
    assert any(line.startswith("fetch floor") and line.endswith("4.0 ms") for line in section)


def test_exact_ranges_are_the_wanted_inner_chunks_joined():
    import numpy as np
    import obstore
    from obstore.store import MemoryStore as ObsMemory

    import zarrhpc
    from zarrhpc.bench.remote import exact_ranges
    from zarrhpc.storage.memory import MemoryStore

    store = MemoryStore()
    a = zarrhpc.create_array(store, shape=(16, 32), chunks=(4, 4), shards=(8, 16),
                             dtype="i4", compressors=None)
    a[...] = np.arange(16 * 32, dtype="i4").reshape(16, 32)
    obs = ObsMemory()
    for key in store.list():
        obstore.put(obs, key, bytes(store.get(key)))
    indexes = {}
    # shard (1, 1): rows 8..15, columns 16..31; inner chunks (2..3, 4..7) of the array
    key, ranges = exact_ranges(obs, a, np.s_[9:15, 21:27], indexes)
    assert key == "c/1/1"
    chunk = 4 * 4 * 4  # bytes of one uncompressed inner chunk
    # local inner chunks (0..1, 1..2): row 0 of the shard's 2 x 4 inner grid holds 1, 2
    # (adjacent: one range), row 1 holds 1, 2 (another)
    assert ranges == [(chunk, 3 * chunk), (5 * chunk, 7 * chunk)]
    raw = bytes(store.get(key))
    got = np.frombuffer(raw[chunk:2 * chunk], dtype="i4").reshape(4, 4)
    np.testing.assert_array_equal(got, a[8:12, 20:24])  # local inner chunk (0, 1)
    key, ranges = exact_ranges(obs, a, np.s_[3:4, 5:6], indexes)
    assert key == "c/0/0" and ranges == [(chunk, 2 * chunk)]
