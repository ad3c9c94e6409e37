"""A PUT followed on its connection by bytes that are no request keeps its answer, and those
bytes are answered 400.

RFC 9112 section 9.3.2: a server sends the answers to pipelined requests in the order it
received them. A target that reads a complete PUT and stores it, then meets bytes it cannot
parse and answers only the 400, leaves its client believing the write failed while the object
is there. Taken: the PUT's answer first (a 400 or a close may follow), or no 2xx for the PUT
and no object stored (docs/decisions.md, `storage.http.pipelined-answer-kept`).
"""

from __future__ import annotations

import email.utils

import pytest

from conformance.clients.raw_wire import send_pipelined, send_raw

BODY = b"written before bytes that are no request"
# each a second "request" no HTTP/1.1 parser takes: a request line with no version, a NUL in
# the method, a header line without a colon
NOT_A_REQUEST = {
    "no-version": b"GARBAGE\r\n\r\n",
    "nul-method": b"G\x00T / HTTP/1.1\r\nHost: x\r\n\r\n",
    "header-without-colon": b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
}


@pytest.mark.rule("storage.http.pipelined-answer-kept")
@pytest.mark.parametrize("after", list(NOT_A_REQUEST.values()), ids=list(NOT_A_REQUEST))
def test_a_put_keeps_its_answer_before_a_parse_error(s3, bucket, names, after: bytes) -> None:
    key = names.key()
    prepared = s3.wire.prepare("PUT", bucket, key, body=BODY)
    answers = send_pipelined(s3.wire, prepared, after)
    stored = s3.wire.get_object(bucket, key)
    seen = [reply.status for reply in answers]
    if answers and 200 <= answers[0].status < 300:  # the PUT's: nothing else can be a 2xx
        assert stored.status == 200 and stored.body == BODY, (
            f"the PUT was answered {seen} but reads back as: {stored.describe()}"
        )
        return
    assert stored.status == 404, (
        f"the PUT was stored, but its client was answered {seen or 'nothing'} first: "
        f"{stored.describe()}"
    )


@pytest.mark.rule("storage.http.unparseable-request-400")
@pytest.mark.parametrize("after", list(NOT_A_REQUEST.values()), ids=list(NOT_A_REQUEST))
def test_bytes_that_are_no_request_are_answered_400(s3, bucket, names, after: bytes) -> None:
    """RFC 9112 section 3: an invalid request line is answered 400; alone on a connection, and
    after the answer to a pipelined PUT (docs/decisions.md)."""
    alone = send_raw(s3.wire, s3.wire.url(bucket, None), after)
    assert [reply.status for reply in alone][:1] == [400], (
        f"{after!r} alone on a connection: answered {[r.status for r in alone] or 'nothing'}"
    )
    prepared = s3.wire.prepare("PUT", bucket, names.key(), body=BODY)
    answers = send_pipelined(s3.wire, prepared, after)
    seen = [reply.status for reply in answers]
    if answers and 200 <= answers[0].status < 300:  # else only the bytes alone are judged here
        assert seen[1:2] == [400], f"{after!r} after the PUT's answer: answered {seen[1:]}"


@pytest.mark.rule("storage.http.malformed-request-answer-dated")
@pytest.mark.parametrize("after", list(NOT_A_REQUEST.values()), ids=list(NOT_A_REQUEST))
def test_the_answer_to_bytes_that_are_no_request_is_dated(s3, bucket, after: bytes) -> None:
    """RFC 9110 section 6.6.1: every 4xx of an origin server with a clock carries a Date."""
    answers = send_raw(s3.wire, s3.wire.url(bucket, None), after)
    if not answers or not 400 <= answers[0].status < 500:
        pytest.skip(f"N/A: no 4xx to date ({[r.status for r in answers] or 'no answer'})")
    dates = [value for name, value in answers[0].headers.items() if name.lower() == "date"]
    assert dates, f"{after!r} answered {answers[0].status} without a Date"
    try:  # an HTTP-date (RFC 9110 5.6.7), not any text
        email.utils.parsedate_to_datetime(dates[0])
    except (TypeError, ValueError):
        pytest.fail(f"{after!r} answered {answers[0].status} with Date {dates[0]!r}")
