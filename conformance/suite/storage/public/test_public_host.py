"""The public entrypoint finds the custom domain in Host; a Host it cannot read is a 400.

RFC 9112 section 3.2: "A server MUST respond with a 400 (Bad Request) status code to any
HTTP/1.1 request message ... that contains more than one Host header field line or a Host header
field with an invalid field value" (Host = uri-host [ ":" port ], RFC 9110 7.2; port = *DIGIT,
RFC 3986 3.2.3). The spec's public-bucket items name no answer for it, so the rule is SHOULD.
Both requests name the bucket's own linked domain, so only the malformed form can be refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from conformance.clients.public import PublicClient
from conformance.clients.s3_raw import send_header_lines
from conformance.clients.s3_wire import PreparedWire

TIMEOUT_S = 60.0


def _twice(s3, public: PublicClient, key: str) -> tuple[int, bytes]:
    """GET with the linked domain sent on two Host lines (http.client, plain HTTP only)."""
    prepared = PreparedWire("GET", f"{public.url}/{key}")
    reply = send_header_lines(s3.wire, prepared, "Host", [public.domain] * 2, TIMEOUT_S)
    return reply.status, reply.body


@pytest.mark.rule("storage.public.malformed-host-400")
def test_two_host_lines_are_400(s3, public, names):
    """Two Host lines, both the linked domain: 400, not the object and not a 5xx."""
    if urlsplit(public.url).scheme != "http":
        pytest.skip("not checked here: the two-line request is sent over plain HTTP only")
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=b"host-twice")
    status, body = _twice(s3, public, key)
    assert status == 400 and body != b"host-twice", (status, body[:200])


@pytest.mark.rule("storage.public.malformed-host-400")
@pytest.mark.parametrize("suffix", [":8x", ":-1", " x"], ids=["port-letters", "port-sign", "space"])
def test_host_not_a_host_name_is_400(s3, public, names, suffix):
    """The linked domain followed by a port that is not digits, or by a space and more: 400."""
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=b"host-bad")
    other = PublicClient(public.url, public.domain + suffix, public.bucket, public.tls)
    reply = other.get(key)
    assert reply.status == 400 and reply.body != b"host-bad", reply.describe()
