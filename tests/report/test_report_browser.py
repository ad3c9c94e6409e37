"""The report in a real browser: headless Chromium shows verdict and scores, logs no errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.browser import chromium, needs_chromium

from conformance.report.render import render_report, write_html

pytestmark = needs_chromium


@pytest.mark.slow
def test_report_opens_without_console_errors(mixed: dict[str, Any], tmp_path: Path) -> None:
    """The page runs its filter script cleanly and shows verdict and scores; a screenshot stays."""
    page = write_html(render_report(mixed), tmp_path / "index.html")
    dom = chromium("--dump-dom", page.as_uri())
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    assert "Not certified at MUST level" in dom.stdout
    assert 'id="area-storage"' in dom.stdout and "78%" in dom.stdout
    assert "23 of 23 rules" in dom.stdout  # the script ran and counted
    shot = tmp_path / "report.png"
    chromium("--hide-scrollbars", "--window-size=390,1400", f"--screenshot={shot}", page.as_uri())
    assert shot.exists() and shot.stat().st_size > 10_000
