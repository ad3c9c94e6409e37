"""CORS response headers on public buckets, checked where the rule's content shows.

The spec applies CORS response headers to public buckets as to the S3 endpoint (Area C item
5): a public read whose Origin a rule allows carries that rule's ExposeHeader values, and an
implementer who only writes the header when the list is empty (or never) is caught here.
"""

from __future__ import annotations

import pytest

from .cors_bodies import ORIGIN, config_xml, header_set, put_cors, rule_xml

BODY = b"public cors exposed body"
EXPOSED = ["x-ec-one", "etag"]


@pytest.fixture
def stored(s3, public, names):
    key = names.key()
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY)
    return key


@pytest.mark.rule("storage.public.cors-response-headers")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_read_lists_the_rule_expose_headers(s3, public, stored, method):
    """With ExposeHeader in the matching rule, a public read lists every exposed header."""
    rule = rule_xml(methods=["GET", "HEAD"], expose=EXPOSED)
    put_cors(s3, public.bucket, config_xml(rule)).assert_ok()
    reply = public.request(method, stored, {"Origin": ORIGIN})
    assert reply.status == 200, reply.describe()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), "rule did not match"
    assert header_set(reply, "access-control-expose-headers") == set(EXPOSED), reply.describe()
