"""The history page in headless Chromium: it renders its chart, grid and tables, logs no errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.browser import chromium, needs_chromium
from history_helpers import night_doc

from conformance.history.page import write_history
from conformance.history.store import Store

pytestmark = needs_chromium


@pytest.mark.slow
def test_history_page_in_a_browser(tmp_path: Path) -> None:
    with Store(tmp_path / "h.sqlite") as store:
        for i in range(1, 7):
            bad = {"storage.put-object.round-trip": "FAIL"} if i >= 4 else {}
            if i in (3, 5):
                bad["gateway.jsonrpc.id-echo"] = "FAIL"
            store.record(night_doc("edge", f"2026-11-0{i}", bad))
        page = write_history(store, "edge", tmp_path / "history.html")
    dom = chromium("--dump-dom", page.as_uri())
    assert [line for line in dom.stderr.splitlines() if ":CONSOLE" in line] == []
    assert 'id="failing-count">1 rule<' in dom.stdout
    assert 'id="flaky-count">1 rule<' in dom.stdout
    assert dom.stdout.count("<polyline") == 3 and "<svg" in dom.stdout
    shot = tmp_path / "history.png"
    chromium("--hide-scrollbars", "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri())
    assert shot.exists() and shot.stat().st_size > 10_000
