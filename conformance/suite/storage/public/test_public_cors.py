"""CORS on public buckets: preflights and response headers from the bucket's CORS rules."""

from __future__ import annotations

import pytest

from conformance.suite.storage.cors.support import (
    ORIGIN,
    OTHER_ORIGIN,
    assert_max_age,
    config_xml,
    header_set,
    put_cors,
    rule_xml,
)

BODY = b"public cors body"


@pytest.fixture
def stored(s3, public, names):
    key = names.key()
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY)
    return key


def _configure(s3, bucket, headers=None, expose=None):
    rule = rule_xml(methods=["GET", "HEAD"], headers=headers, expose=expose)
    put_cors(s3, bucket, config_xml(rule)).assert_ok()


def _preflight(public, key, headers=None, origin=ORIGIN, sep=", "):
    sent = {"Origin": origin, "Access-Control-Request-Method": "GET"}
    if headers:
        sent["Access-Control-Request-Headers"] = sep.join(headers)
    return public.options(key, sent)


@pytest.mark.rule("storage.cors.public-preflight")
def test_preflight_grants_allowed_origin(s3, public, stored):
    """A preflight matching a bucket rule answers 2xx with the origin and methods allowed."""
    _configure(s3, public.bucket)
    reply = _preflight(public, stored)
    assert 200 <= reply.status < 300, reply.describe()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), reply.describe()
    assert "get" in header_set(reply, "access-control-allow-methods"), reply.describe()


@pytest.mark.rule("storage.cors.public-preflight")
def test_first_of_two_matching_rules_answers_the_preflight(s3, public, stored):
    """Two rules both allow a HEAD from ORIGIN: the first answers (S3's CORS guide: the first
    matching rule is used), with methods from it alone (the requested HEAD among them; the
    Fetch standard lets a server list only the requested method, but not the second rule's
    PUT) and, if sent, its MaxAgeSeconds; not the second rule's `*` origin."""
    first = rule_xml(methods=["GET", "HEAD"], extra="<MaxAgeSeconds>120</MaxAgeSeconds>")
    second = rule_xml(
        origins=["*"], methods=["HEAD", "PUT"], extra="<MaxAgeSeconds>900</MaxAgeSeconds>"
    )
    put_cors(s3, public.bucket, config_xml(first, second)).assert_ok()
    reply = public.options(stored, {"Origin": ORIGIN, "Access-Control-Request-Method": "HEAD"})
    assert 200 <= reply.status < 300, reply.describe()
    assert reply.header("access-control-allow-origin") == ORIGIN, reply.describe()
    methods = header_set(reply, "access-control-allow-methods")
    assert "head" in methods and methods <= {"get", "head"}, reply.describe()
    # Max-Age itself is a SHOULD (preflight-max-age): absent passes here, the other rule's not
    assert reply.header("access-control-max-age") in (None, "120"), reply.describe()


# Access-Control-Request-Headers is a list (RFC 9110 5.6.1: a comma with optional whitespace
# around it); browsers join its names with a bare `,` (the Fetch standard's CORS-preflight
# request), so `a,b` must name the same two headers as `a, b`
SEPARATORS = {"comma-space": ", ", "comma": ","}


@pytest.mark.rule("storage.public.cors-allow-headers-on-preflight")
@pytest.mark.parametrize("sep", SEPARATORS.values(), ids=SEPARATORS.keys())
def test_preflight_sets_allow_headers(s3, public, stored, sep):
    """A preflight naming request headers the rule allows gets Access-Control-Allow-Headers,
    whichever list separator the names come with."""
    _configure(s3, public.bucket, headers=["x-custom-header", "content-type"])
    reply = _preflight(public, stored, headers=["x-custom-header", "content-type"], sep=sep)
    assert 200 <= reply.status < 300, reply.describe()
    allowed = header_set(reply, "access-control-allow-headers")
    assert allowed == {"*"} or {"x-custom-header", "content-type"} <= allowed, reply.describe()


@pytest.mark.rule("storage.public.cors-response-headers")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_read_carries_allow_origin(s3, public, stored, method):
    """A read whose Origin a rule allows carries Access-Control-Allow-Origin."""
    _configure(s3, public.bucket)
    reply = public.request(method, stored, {"Origin": ORIGIN})
    assert reply.status == 200, reply.describe()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), reply.describe()


@pytest.mark.rule("storage.public.cors-no-expose-when-undefined")
def test_no_expose_headers_without_expose_header(s3, public, stored):
    """Without ExposeHeader in the matching rule, no Access-Control-Expose-Headers is sent."""
    _configure(s3, public.bucket)
    reply = public.get(stored, {"Origin": ORIGIN})
    assert reply.status == 200, reply.describe()
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), "rule did not match"
    assert reply.header("access-control-expose-headers") is None, reply.describe()


@pytest.mark.rule("storage.public.cors-no-403-without-match")
@pytest.mark.parametrize("configured", [True, False], ids=["other-origin-rule", "no-cors-config"])
def test_unmatched_origin_is_served(s3, public, stored, configured):
    """A read whose Origin no rule allows answers 200 with the bytes (CORS headers on it are
    not this rule's: the rule says only that it is served)."""
    if configured:
        _configure(s3, public.bucket)
    reply = public.get(stored, {"Origin": OTHER_ORIGIN})
    assert reply.status == 200, reply.describe()
    assert reply.body == BODY, reply.describe()


@pytest.mark.rule("storage.public.options-without-origin-400")
def test_options_without_origin_is_400(public, stored):
    """OPTIONS without Origin on the public entrypoint answers 400."""
    reply = public.options(stored, {"Access-Control-Request-Method": "GET"})
    assert reply.status == 400, reply.describe()


@pytest.mark.rule("storage.public.options-without-origin-401")
def test_options_without_origin_is_401(public, stored):
    """Before 2024-02-20, OPTIONS without Origin on the public entrypoint answers 401."""
    reply = public.options(stored, {"Access-Control-Request-Method": "GET"})
    assert reply.status == 401, reply.describe()


# --- folded from test_public_cors_checked.py ---
# CORS response headers on public buckets, checked where the rule's content shows.
#
# The spec applies CORS response headers to public buckets as to the S3 endpoint (Area C item
# 5): a public read whose Origin a rule allows carries that rule's ExposeHeader values, and an
# implementer who only writes the header when the list is empty (or never) is caught here.

EXPOSED = ["x-ec-one", "etag"]


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


@pytest.mark.rule("storage.public.cors-preflight-max-age")
@pytest.mark.parametrize("max_age", [3000, 0, None], ids=["set", "zero", "unset"])
def test_preflight_max_age_follows_the_rule(s3, public, stored, max_age):
    """MaxAgeSeconds is how long a browser may keep the preflight: Access-Control-Max-Age. Zero
    is a value too (keep it not at all), not an absent one: left out, a browser keeps the
    preflight for its default 5 seconds (Fetch standard)."""
    extra = "" if max_age is None else f"<MaxAgeSeconds>{max_age}</MaxAgeSeconds>"
    rule = rule_xml(methods=["GET", "HEAD"], extra=extra)
    put_cors(s3, public.bucket, config_xml(rule)).assert_ok()
    reply = _preflight(public, stored)
    assert 200 <= reply.status < 300, reply.describe()
    assert_max_age(reply, max_age)
