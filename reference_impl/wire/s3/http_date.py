"""HTTP dates as RFC 9110 section 5.6.7 reads them: all three forms, all in GMT, and a two-digit
RFC 850 year that would lie more than 50 years ahead read as the past century's.

email.utils reads a two-digit year by a fixed pivot (69-99: 19xx, 00-68: 20xx): in 2026 it
reads "70" as 1970, where RFC 9110 reads 2070 (44 years ahead, not more than 50).
"""

from __future__ import annotations

import datetime as dt
import re
from email.utils import parsedate_to_datetime

RFC850 = re.compile(r"[A-Za-z]+, \d{2}-[A-Za-z]{3}-(\d{2}) \d{2}:\d{2}:\d{2} GMT")
# RFC 9110 section 5.6.7's three forms, whole: email.utils reads a date followed by anything
# (`<date>,<date>`, two lines of If-Unmodified-Since) as its first date
FORMS = (
    re.compile(r"[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT"),  # IMF-fixdate
    RFC850,
    re.compile(r"[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}"),  # asctime
)
CENTURY = 100
AHEAD = 50  # years: a two-digit year further ahead than this is the past century's


def parse(value: str) -> dt.datetime:
    """The instant of an HTTP date (email.utils' errors propagate: TypeError, ValueError, ...)."""
    moment = parsedate_to_datetime(value)
    two_digit = RFC850.fullmatch(value.strip())
    if two_digit is None:
        return moment
    return moment.replace(year=rfc850_year(int(two_digit.group(1)), dt.datetime.now(dt.UTC).year))


def is_http_date(value: str) -> bool:
    """Is `value` (surrounding whitespace aside) one HTTP-date of one of the three forms?"""
    text = value.strip()
    return any(form.fullmatch(text) for form in FORMS)


def parse_field(value: str) -> dt.datetime:
    """`parse` for a conditional header: one HTTP-date of the three forms, whole, else
    ValueError (the header is then ignored, RFC 9110 sections 13.1.3-4: a list of dates, or a
    date with a tail, is no date; email.utils read `<date>,<date>`, two lines, as the first)."""
    if not is_http_date(value):
        raise ValueError(f"not one HTTP-date: {value[:64]!r}")
    return parse(value)


def rfc850_year(two_digits: int, this_year: int) -> int:
    """The year ending in two_digits that lies at most AHEAD years ahead of this_year and less
    than CENTURY - AHEAD back: from 2050 on that can be the next century's (2060 reads 05 as 2105).
    """
    year = this_year - this_year % CENTURY + two_digits
    if year > this_year + AHEAD:
        year -= CENTURY
    elif year <= this_year + AHEAD - CENTURY:
        year += CENTURY
    return year
