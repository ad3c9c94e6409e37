"""Last-Modified is never later than the response's own Date (RFC 9110 section 8.8.2.1).

An implementation that stamps objects on a clock of its own (a data clock with an offset, a
rounding up to the next second, another node's time) can date an object in the future of the
answer that reports it; a client revalidating with If-Modified-Since then compares against a
moment that has not happened. Each object is read back at once, in the second it was written
when the machine is quick, which is where a stamp ahead of the wall clock shows.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

import pytest

RULE = "storage.protocol.last-modified-not-after-date"
ROUNDS = 3  # PUT + read rounds: a stamp a second ahead shows in any round within one second


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("method", ["HEAD", "GET"])
def test_last_modified_is_not_after_date(s3, bucket, names, method):
    """PUT an object, read it at once: Last-Modified <= Date, in every round."""
    for _ in range(ROUNDS):
        key = names.key()
        s3.wire.put_object(bucket, key, b"stamped").assert_ok()
        reply = s3.wire.request(method, bucket, key).assert_ok()
        modified, date = reply.header("last-modified"), reply.header("date")
        assert modified and date, f"{method} lacks Last-Modified or Date: {reply.describe()}"
        assert parsedate_to_datetime(modified) <= parsedate_to_datetime(date), (
            f"Last-Modified {modified} is later than Date {date}"
        )
