"""`conformance report` on files that are not results files: a clear error and exit 2, never a
traceback (a results.json missing keys, or with counts of the wrong type, crashed rendering)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

ODD = {
    "empty": b"",
    "list": b"[]",
    "not-utf8": b"\xff\xfe{",
    "missing-keys": b'{"run": {}}',
    "wrong-types": b'{"run": {"target": "x"}, "rules": [{"id": "a"}], "cases": [{}],'
    b' "summary": {"areas": {"s": {"MUST": {"pass": "x"}}}}}',
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_an_odd_file_is_a_clear_error(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(ODD[name])
    code = main(["report", str(path), "-o", str(tmp_path / "out.html")])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert f"error: {path}" in err
