"""`zarrhpc verify --repair` reports and removes the temporary files of killed writes;
readers never see them."""

import numpy as np

import zarrhpc
from zarrhpc import cli


def test_verify_reports_and_repair_removes_leftovers(tmp_path, capsys):
    root = tmp_path / "s"
    a = zarrhpc.create_array(str(root), shape=(8,), chunks=(4,), dtype="i4")
    a[:] = np.arange(8)
    leftover = root / "c" / ".zhtmp-0123456789abcdef.partial"
    leftover.write_bytes(b"half a chunk")
    assert list(zarrhpc.storage.LocalStore(root).list_prefix("c/")) == ["c/0", "c/1"] or \
        sorted(zarrhpc.storage.LocalStore(root).list_prefix("c/")) == ["c/0", "c/1"]
    assert (zarrhpc.open_array(str(root))[:] == np.arange(8)).all()
    assert cli.main(["verify", str(root)]) == 0
    out = capsys.readouterr().out
    assert "1 temporary files of interrupted writes found" in out and str(leftover) in out
    assert leftover.exists()
    assert cli.main(["verify", str(root), "--repair"]) == 0
    assert "removed" in capsys.readouterr().out
    assert not leftover.exists()
    assert (zarrhpc.open_array(str(root))[:] == np.arange(8)).all()
