"""The S3 endpoint refuses an HTTP/1.1 request whose Host it cannot read with 400.

RFC 9112 section 3.2: "A server MUST respond with a 400 (Bad Request) status code to any
HTTP/1.1 request message that lacks a Host header field and to any request message that contains
more than one Host header field line or a Host header field with an invalid field value." The
spec names no answer for it, so the rule is SHOULD. The requests are unsigned GETs of a bucket
(http.client, written by hand): only the status is asserted, 400, never the listing or a 5xx.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from conformance.clients.evidence import Exchange, collector
from conformance.clients.s3_raw import connection

TIMEOUT_S = 60.0


def _get(s3, bucket: str, hosts: list[str]) -> tuple[int, bytes]:
    """GET /<bucket> over HTTP/1.1 with exactly these Host lines (none when empty)."""
    url = s3.wire.url(bucket)
    conn = connection(s3.wire, url, TIMEOUT_S)
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        conn.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        for host in hosts:
            conn.putheader("Host", host)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    sent = {"Host": ", ".join(hosts) + f" ({len(hosts)} lines)"}
    collector.add(Exchange.build("GET", url, resp.status, sent, resp.headers, body))
    return resp.status, body


@pytest.mark.rule("storage.protocol.malformed-host-400")
def test_http11_without_host_is_400(s3, bucket):
    """HTTP/1.1 with no Host line at all: 400 (RFC 9112 section 3.2 MUST)."""
    status, body = _get(s3, bucket, [])
    assert status == 400, (status, body[:300])


@pytest.mark.rule("storage.protocol.malformed-host-400")
def test_two_host_lines_are_400(s3, bucket):
    """The endpoint's own host on two Host lines: 400 (RFC 9112 section 3.2 MUST)."""
    netloc = urlsplit(s3.wire.url(bucket)).netloc
    status, body = _get(s3, bucket, [netloc, netloc])
    assert status == 400, (status, body[:300])
