"""An onlyIf Headers object's dates are HTTP dates: GMT whatever the host's zone."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest

from reference_impl.bindings.conditions import _time

INSTANT = dt.datetime(1994, 11, 6, 8, 49, 37, tzinfo=dt.UTC).timestamp()


@pytest.fixture
def far_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process on Pacific/Chatham (UTC+12:45/+13:45), as the mutation harness runs it."""
    monkeypatch.setenv("TZ", "Pacific/Chatham")
    time.tzset()
    if time.localtime().tm_gmtoff == 0:
        pytest.skip("no tzdata for Pacific/Chatham")
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    "text",
    ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"],
    ids=["imf-fixdate", "rfc850", "asctime"],
)
def test_a_header_date_is_gmt_on_a_host_far_from_utc(far_zone: None, text: str) -> None:
    assert _time("get", text, True) == INSTANT
