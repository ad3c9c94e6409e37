"""If-Range: a resumed download gets the rest of the object it began, or the whole new one.

A client resuming a download sends `Range: bytes=N-` with `If-Range: <ETag or Last-Modified>`
of the copy it holds. Before, If-Range was ignored: after the object was replaced, the resume
got a 206 of the new object's bytes from N on, which the client appended to the old object's
first N bytes, a file that never existed (browsers and curl resume this way, the public
bucket serves them). RFC 9110 13.1.5: the Range applies only when the validator matches the
current representation (strong comparison; a date that names its Last-Modified), else the
whole object, 200. Both surfaces share the object read.
"""

from __future__ import annotations

import pytest
from reliability.refproc import RefProcess

from conformance.clients.public import CustomDomains, PublicClient
from conformance.clients.s3_wire import WireClient

BUCKET = "if-range"
DOMAIN = "if-range.public.example"
OLD, NEW = b"0123456789", b"abcdefghij"


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    CustomDomains(ref.surface("mgmt")).create(BUCKET, DOMAIN).assert_envelope_ok()
    return client


def _reads(ref: RefProcess, wire: WireClient, key: str, validator: str) -> list[tuple[int, bytes]]:
    """(status, body) of a resumed read from byte 5 on both surfaces."""
    headers = {"Range": "bytes=5-", "If-Range": validator}
    s3 = wire.get_object(BUCKET, key, headers=headers)
    public = PublicClient(ref.surface("public")["url"], DOMAIN, BUCKET).get(key, headers)
    return [(s3.status, s3.body), (public.status, public.body)]


def test_a_stale_validator_gets_the_whole_new_object(ref: RefProcess, wire: WireClient) -> None:
    old = wire.put_object(BUCKET, "replaced", OLD).assert_ok()
    dated = wire.request("HEAD", BUCKET, "replaced").header("Last-Modified")
    assert dated
    wire.put_object(BUCKET, "replaced", NEW).assert_ok()
    etag = old.header("ETag")
    assert etag
    assert _reads(ref, wire, "replaced", etag) == [(200, NEW)] * 2
    assert _reads(ref, wire, "replaced", "Wed, 21 Oct 2015 07:28:00 GMT") == [(200, NEW)] * 2


def test_a_current_validator_gets_the_range(ref: RefProcess, wire: WireClient) -> None:
    etag = wire.put_object(BUCKET, "kept", OLD).assert_ok().header("ETag")
    dated = wire.request("HEAD", BUCKET, "kept").header("Last-Modified")
    assert etag and dated
    assert _reads(ref, wire, "kept", etag) == [(206, OLD[5:])] * 2
    assert _reads(ref, wire, "kept", dated) == [(206, OLD[5:])] * 2
    weak = f"W/{etag}"  # If-Range compares strongly: a weak ETag never matches
    assert _reads(ref, wire, "kept", weak) == [(200, OLD)] * 2
