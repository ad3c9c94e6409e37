"""The flake hunt counts one cause once, whatever run prefix or number it carried."""

from __future__ import annotations

from pathlib import Path

from bench.flake_hunt import reason_key, tally, write_tally


def test_same_cause_in_two_runs_is_one_key() -> None:
    a = reason_key("setup: 404 NoSuchUpload for ec-1a2b3c4d-gw0-b3 upload 17\nmore")
    b = reason_key("setup: 404 NoSuchUpload for ec-99ff00aa-gw1-b1 upload 3")
    assert a == b
    assert "NoSuchUpload" in a


def test_tally_and_exit_status(tmp_path: Path) -> None:
    rows = [
        {"run": "r1", "exit": 1, "seconds": 1.0, "bad": [["storage.x", "ERROR: setup"]]},
        {"run": "r2", "exit": 1, "seconds": 1.0, "bad": [["storage.x", "ERROR: setup"]]},
        {"run": "r3", "exit": 0, "seconds": 1.0, "bad": []},
    ]
    assert tally(rows) == [("storage.x", "ERROR: setup", 2, ["r1", "r2"])]
    assert write_tally(tmp_path, rows, "hunt") == 1
    assert "3 runs, 2 FAIL/ERROR in all, 1 distinct causes" in (tmp_path / "tally.md").read_text()
    assert write_tally(tmp_path, rows[2:], "hunt") == 0
