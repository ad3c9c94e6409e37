"""`conformance run --store URL` whose store write fails: the verdict printed above stands, and
the output says so plainly; the exit status is 2 (the tool failed, not the target), and a run
that failed on its own keeps its own status (docs/nightly.md, "The results store")."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import cli_run
from conformance.history import cli as history_cli
from conformance.history.store import StoreError

DOC: dict[str, Any] = {"run": {"run_id": "r1", "problems": []}, "summary": {"certified": True}}


def _failing_store(url: str, doc: dict[str, Any]) -> str:
    raise StoreError(f"{url}: unable to open database file")


@pytest.mark.parametrize(("code", "expected"), [(0, 2), (1, 1)])
def test_a_failed_store_write_says_the_verdict_stands(
    code: int, expected: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(history_cli, "record_doc", _failing_store)
    assert cli_run._record_history("/no/such/dir/h.sqlite", DOC, code) == expected
    err = capsys.readouterr().err
    assert "unable to open database file" in err
    assert "the verdict above stands (CERTIFIED)" in err, err
    assert "NOT recorded in the results store" in err, err
