"""Headless Chromium (the Debian package) for the page tests: one command line, one skip."""

from __future__ import annotations

import shutil
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian package chromium not installed"
)


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with console logging on stderr (so a page's errors show)."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
