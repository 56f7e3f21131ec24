"""`zarrhpc convert --in-place` that re-encodes chunks, killed at random moments, leaves a
store that opens and reads the same data (old v2 array or new v3 array, never new
chunks under the old metadata)."""

import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import zarrhpc

DATA = np.arange(256 * 256, dtype="f4").reshape(256, 256) * 0.5


def _make(path):
    a = zarrhpc.create_array(path, shape=DATA.shape, chunks=(8, 8), dtype="f4", zarr_format=2,
                             order="F", filters=[{"id": "delta", "dtype": "<f4"}],
                             compressors={"id": "zlib", "level": 1}, fill_value=0)
    a[...] = DATA


@pytest.mark.parametrize("seed", range(4))
def test_killed_in_place_reencode_opens_and_reads_the_same(tmp_path, seed):
    rng = random.Random(seed)
    path = str(tmp_path / "s")
    _make(path)
    formats = set()
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "zarrhpc.cli", "convert", path, "--to",
                                 "v3", "--in-place", "--no-verify"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.6, 1.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        a = zarrhpc.open_array(path)
        formats.add(a.metadata.zarr_format)
        np.testing.assert_array_equal(a[...], DATA)
        if a.metadata.zarr_format == 3:
            break
    # finishing the conversion works from whatever the kill left
    if zarrhpc.open_array(path).metadata.zarr_format == 2:
        subprocess.run([sys.executable, "-m", "zarrhpc.cli", "convert", path, "--to", "v3",
                        "--in-place"], check=True, capture_output=True)
    a = zarrhpc.open_array(path)
    assert a.metadata.zarr_format == 3
    np.testing.assert_array_equal(a[...], DATA)
