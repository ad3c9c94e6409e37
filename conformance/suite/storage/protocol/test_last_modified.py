"""Last-Modified is never later than the response's own Date (RFC 9110 section 8.8.2.1).

An implementation that stamps objects on a clock of its own (a data clock with an offset, a
rounding up to the next second, another node's time) can date an object in the future of the
answer that reports it; a client revalidating with If-Modified-Since then compares against a
moment that has not happened. Each object is read back at once, in the second it was written
when the machine is quick, which is where a stamp ahead of the wall clock shows.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import pytest

RULE = "storage.protocol.last-modified-not-after-date"
# PUT + read rounds. A stamp a second ahead shows in any round; a Date that lags the clock (a
# server that refreshes its Date once a second on a timer, as uvicorn does) only in a round that
# falls between a second's start and the timer's tick. 3 rounds back to back let such a Date
# through (hand mutant of reference_impl/date_header.py, 2026-11-29): they all fell at one phase
# of the second. The rounds are spread over more than a second, so that some fall early in one.
ROUNDS = 25
SPREAD_S = 0.05  # seconds between rounds: 25 rounds span ~1.2 s plus their own time


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("method", ["HEAD", "GET"])
def test_last_modified_is_not_after_date(s3, bucket, names, method):
    """PUT an object, read it at once: Last-Modified <= Date, in every round."""
    for round_no in range(ROUNDS):
        if round_no:
            time.sleep(SPREAD_S)
        key = names.key()
        s3.wire.put_object(bucket, key, b"stamped").assert_ok()
        reply = s3.wire.request(method, bucket, key).assert_ok()
        modified, date = reply.header("last-modified"), reply.header("date")
        assert modified and date, f"{method} lacks Last-Modified or Date: {reply.describe()}"
        assert parsedate_to_datetime(modified) <= parsedate_to_datetime(date), (
            f"Last-Modified {modified} is later than Date {date}"
        )
