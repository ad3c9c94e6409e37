"""The reference reads HTTP dates as RFC 9110 section 5.6.7 does (wire/s3/http_date.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from reference_impl.wire.s3.http_date import parse, rfc850_year

THIS_YEAR = dt.datetime.now(dt.UTC).year


def _rfc850_year(year: int) -> int:
    return parse(f"Sunday, 06-Nov-{year % 100:02d} 08:49:37 GMT").year


@pytest.mark.parametrize(
    "text",
    ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"],
    ids=["imf-fixdate", "rfc850", "asctime"],
)
def test_the_three_forms_name_the_same_instant(text: str) -> None:
    moment = parse(text)
    want = dt.datetime(1994, 11, 6, 8, 49, 37, tzinfo=dt.UTC)
    assert moment.replace(tzinfo=moment.tzinfo or dt.UTC) == want


@pytest.mark.parametrize("ahead", [0, 1, 45, 50])
def test_a_two_digit_year_up_to_50_years_ahead_is_this_centurys(ahead: int) -> None:
    assert _rfc850_year(THIS_YEAR + ahead) == THIS_YEAR + ahead


@pytest.mark.parametrize("ahead", [51, 60, 99])
def test_a_two_digit_year_more_than_50_years_ahead_is_the_past_centurys(ahead: int) -> None:
    assert _rfc850_year(THIS_YEAR + ahead) == THIS_YEAR + ahead - 100


@pytest.mark.parametrize(
    ("this_year", "two_digits", "want"),
    [(2026, 76, 2076), (2026, 77, 1977), (2060, 5, 2105), (2060, 10, 2110), (2060, 11, 2011)],
)
def test_the_year_is_the_one_within_50_years_ahead_or_49_back(
    this_year: int, two_digits: int, want: int
) -> None:
    """From 2050 on, a two-digit year below this year's last two can be 50 years ahead or less
    in the next century (2060 reads '05' as 2105, not 2005, which lies 55 years back)."""
    assert rfc850_year(two_digits, this_year) == want
