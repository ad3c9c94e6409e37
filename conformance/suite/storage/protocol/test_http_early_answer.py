"""An early answer to an `Expect: 100-continue` request keeps the connection usable.

boto3 sends `Expect: 100-continue` on every PUT with a body. When the target answers before
asking for the body (404 NoSuchBucket, 412), the client never sends it; a target that then
keeps the connection open and reads the next request's bytes as the missing body breaks the
client's next call. Closing (`Connection: close`) or reading the next request correctly are
both fine (RFC 9110 section 10.1.1). No early answer, or an early answer that is no error, is
N/A; an early 5xx is NOT-CHECKED: the target failed on the request, so the rule went unchecked.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from conformance.clients.evidence import Exchange, collector
from conformance.clients.hand_http import host_header
from conformance.clients.s3_raw import connection
from conformance.suite.setup_check import not_checked

DECLARED = b"0123456789"  # the body the head announces and never sends
WAIT = 5.0


Answer = tuple[int, dict[str, str], bytes]


def _send(
    conn: http.client.HTTPConnection, method: str, url: str, headers: dict[str, str]
) -> Answer:
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
    names = {name.lower() for name in headers}
    for name, value in headers.items():
        conn.putheader(name, value)
    if "host" not in names:
        conn.putheader("Host", host_header(url))
    conn.endheaders()
    response = conn.getresponse()
    body = response.read()
    answer = {k.lower(): v for k, v in response.getheaders()}
    collector.add(Exchange.build(method, url, response.status, headers, answer, body))
    return response.status, answer, body


@pytest.fixture
def stored(s3, bucket, names):
    """(bucket, key) of an object the follow-up request reads."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"stored").assert_ok()
    return bucket, key


def _early_request(s3, stored, case: str) -> tuple[str, dict[str, str]]:
    bucket, key = stored
    headers = {"Expect": "100-continue", "Content-Length": str(len(DECLARED))}
    if case == "missing-bucket":
        target, extra = (bucket + "x", key), {}
    else:  # an unmet condition on the stored object
        target, extra = (bucket, key), {"If-None-Match": "*"}
    prepared = s3.wire.prepare(
        "PUT", *target, headers={**headers, **extra}, body=DECLARED,
        payload_hash="UNSIGNED-PAYLOAD",
    )  # fmt: skip
    return prepared.url, prepared.headers


@contextmanager
def _early_answer(
    s3, stored, case: str
) -> Iterator[tuple[http.client.HTTPConnection, str, Answer]]:
    """The PUT that announces a body it never sends, on its own connection: (connection, URL,
    the 4xx answered before the body). No answer before the body, or one that is no error, is
    N/A; an early 5xx is NOT-CHECKED (the target failed on the request)."""
    url, headers = _early_request(s3, stored, case)
    conn = connection(s3.wire, url, WAIT)
    try:
        try:
            answer = _send(conn, "PUT", url, headers)
        except TimeoutError:
            pytest.skip(f"N/A: PUT {url} got no answer before its body (nothing answered early)")
        status = answer[0]
        if status >= 500:
            not_checked(f"PUT {url} answered {status} (a server error) before its body")
        if not 400 <= status < 500:
            pytest.skip(f"N/A: PUT {url} answered {status} before its body, not an error")
        yield conn, url, answer
    finally:
        conn.close()


@pytest.mark.rule("storage.http.early-answer-keeps-stream")
@pytest.mark.parametrize("case", ["missing-bucket", "unmet-condition"])
def test_next_request_after_an_early_answer(s3, stored, case):
    """After a 4xx sent before the body, the next request on the connection is served."""
    bucket, key = stored
    with _early_answer(s3, stored, case) as (conn, url, (status, answer, _)):
        if "close" in answer.get("connection", "").lower():
            return  # the target closes: the client reconnects, nothing is misread
        follow = s3.wire.prepare("GET", bucket, key)
        try:
            got, _, data = _send(conn, "GET", follow.url, follow.headers)
        except (TimeoutError, ConnectionError, http.client.HTTPException) as exc:
            pytest.fail(
                f"PUT {url} (Expect: 100-continue, no body) answered {status} without "
                f"`Connection: close`; the next request on that connection failed: {exc!r}"
            )
        assert (got, data) == (200, b"stored"), (
            f"PUT {url} (Expect: 100-continue, no body) answered {status} without "
            f"`Connection: close`; then GET {follow.url} on the same connection answered "
            f"{got} {data[:200]!r} (the request was read as the missing body)"
        )


@pytest.mark.rule("storage.protocol.error-content-type")
@pytest.mark.parametrize("case", ["missing-bucket", "unmet-condition"])
def test_early_error_answer_is_typed_as_xml(s3, stored, case):
    """An error answered before the body (the same PUT as above) is an error response like any
    other: with an XML body, `Content-Type: application/xml`. A target that strips an early
    answer's headers to add `Connection: close` sends the XML untyped. An early answer without
    an XML body is N/A."""
    with _early_answer(s3, stored, case) as (_, url, (status, answer, body)):
        if not body.lstrip().startswith(b"<"):
            pytest.skip(f"N/A: PUT {url} answered {status} before its body, no XML error")
        content_type = answer.get("content-type", "").split(";")[0].strip().lower()
        assert content_type == "application/xml", (
            f"PUT {url} (Expect: 100-continue) answered {status} with an XML error typed "
            f"{answer.get('content-type')!r}; headers {sorted(answer)}"
        )
