"""The zarrhpc command: info, tree, verify (exit codes and what it prints)."""

import numpy as np

import zarrhpc
from zarrhpc.cli import main


def make(tmp_path):
    root = zarrhpc.create_group(tmp_path / "s.zarr")
    a = root.create_array("g/a", shape=(6, 4), chunks=(3, 4), dtype="i4",
                          compressors={"name": "zstd", "configuration": {"level": 1}})
    a[...] = np.arange(24).reshape(6, 4)
    return tmp_path / "s.zarr"


def test_info_and_tree(tmp_path, capsys):
    store = make(tmp_path)
    assert main(["info", str(store), "--path", "g/a"]) == 0
    assert "(6, 4)" in capsys.readouterr().out
    assert main(["tree", str(store)]) == 0
    assert capsys.readouterr().out.strip() == "/\n└── g\n    └── a (6, 4) int32"


def test_verify_reports_corrupt_chunk(tmp_path, capsys):
    store = make(tmp_path)
    assert main(["verify", str(store)]) == 0
    assert "/g/a: 2 chunks ok" in capsys.readouterr().out
    chunk = store / "g" / "a" / "c" / "1" / "0"
    chunk.write_bytes(chunk.read_bytes()[:-3])
    assert main(["verify", str(store)]) == 1
    out = capsys.readouterr().out
    assert "1 bad" in out and "g/a/c/1/0" in out


def test_missing_node_exit_code(tmp_path, capsys):
    assert main(["info", str(tmp_path / "nothing")]) == 2
    # zarr-python's words for a directory that is not there, naming it
    assert f"{tmp_path / 'nothing'} does not exist" in capsys.readouterr().err
