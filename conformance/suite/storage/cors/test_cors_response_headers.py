"""CORS headers on actual (non-preflight) responses of the S3 endpoint."""

from __future__ import annotations

from typing import Any

import pytest

from .support import (
    ORIGIN,
    OTHER_ORIGIN,
    assert_max_age,
    config_xml,
    header_set,
    put_cors,
    rule_xml,
)


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=b"cors body")
    return bucket, key


def _configure(s3: Any, bucket: str, expose: list[str] | None = None) -> None:
    put_cors(s3, bucket, config_xml(rule_xml(methods=["GET", "HEAD"], expose=expose))).assert_ok()


@pytest.mark.rule("storage.cors.s3-response-headers")
def test_get_object_carries_allow_origin(s3, stored):
    """GetObject with a matching Origin answers with Access-Control-Allow-Origin."""
    _configure(s3, stored[0])
    reply = s3.wire.get_object(*stored, headers={"Origin": ORIGIN}).assert_ok()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), dict(reply.headers)
    assert reply.body == b"cors body"


@pytest.mark.rule("storage.cors.head-object")
def test_head_object_carries_cors_headers(s3, stored):
    """HeadObject with a matching Origin answers with Access-Control-Allow-Origin."""
    _configure(s3, stored[0])
    reply = s3.wire.request("HEAD", *stored, headers={"Origin": ORIGIN}).assert_ok()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), dict(reply.headers)


@pytest.mark.rule("storage.cors.no-expose-when-undefined")
def test_no_expose_headers_without_expose_header(s3, stored):
    """Without ExposeHeader in the rule, no Access-Control-Expose-Headers is sent."""
    _configure(s3, stored[0])
    reply = s3.wire.get_object(*stored, headers={"Origin": ORIGIN}).assert_ok()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), "rule did not match"
    assert reply.header("access-control-expose-headers") is None, dict(reply.headers)


@pytest.mark.rule("storage.cors.expose-headers")
def test_expose_headers_listed(s3, stored):
    """The rule's ExposeHeader values are listed in Access-Control-Expose-Headers."""
    _configure(s3, stored[0], expose=["ETag", "x-amz-meta-colour"])
    reply = s3.wire.get_object(*stored, headers={"Origin": ORIGIN}).assert_ok()
    listed = header_set(reply, "access-control-expose-headers")
    assert {"etag", "x-amz-meta-colour"} <= listed, f"Expose-Headers: {listed}"


@pytest.mark.rule("storage.cors.no-403-without-match")
@pytest.mark.parametrize("configured", [True, False], ids=["other-origin-rule", "no-cors-config"])
def test_unmatched_origin_is_not_403(s3, stored, configured):
    """A GetObject whose Origin no rule allows is served, not answered 403. (Whether CORS
    headers come with it is not this rule's: the spec does not say.)"""
    if configured:
        _configure(s3, stored[0])
    reply = s3.wire.get_object(*stored, headers={"Origin": OTHER_ORIGIN})
    assert reply.status != 403, f"unmatched Origin refused: {reply.describe()}"
    assert reply.assert_ok().body == b"cors body", reply.describe()


@pytest.mark.rule("storage.cors.s3-response-headers")
def test_actual_response_max_age_is_delta_seconds(s3, stored):
    """The CORS headers of an actual response are well-formed: for a rule without MaxAgeSeconds,
    an Access-Control-Max-Age the target sends anyway is delta-seconds, a non-negative integer
    (Fetch standard, the header's grammar); whether one is sent at all no source says. An
    implementer who copies an unset MaxAgeSeconds into the header sends `None` or an empty
    value."""
    _configure(s3, stored[0])
    reply = s3.wire.get_object(*stored, headers={"Origin": ORIGIN}).assert_ok()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), "rule did not match"
    assert_max_age(reply, None)
