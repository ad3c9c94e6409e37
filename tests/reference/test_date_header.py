"""The reference's Date header is the second its request starts running (date_header.py)."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from reference_impl import date_header


def test_refreshed_sets_only_the_date_to_the_current_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stale = [(b"date", b"Thu, 01 Jan 1970 00:00:00 GMT"), (b"server", b"ref")]
    for now in (1_000_000.9, 1_000_001.0, 1_000_001.7):
        monkeypatch.setattr(date_header.time, "time", lambda now=now: now)
        expected = formatdate(int(now), usegmt=True).encode()
        assert date_header.refreshed(stale) == [(b"date", expected), (b"server", b"ref")]


def test_no_date_is_added_where_uvicorn_sends_none() -> None:
    assert date_header.refreshed([(b"server", b"ref")]) == [(b"server", b"ref")]
