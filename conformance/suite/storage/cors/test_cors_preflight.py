"""CORS preflight (OPTIONS) on the S3 endpoint, answered from the bucket's CORS rules."""

from __future__ import annotations

import pytest

from conformance.clients.s3_raw import account_host

from .support import (
    ORIGIN,
    assert_max_age,
    config_xml,
    header_set,
    preflight,
    put_cors,
    rule_xml,
)


@pytest.fixture
def cors_bucket(s3, bucket):
    """A bucket whose one rule allows ORIGIN to GET/HEAD/PUT with a few named headers."""
    headers = ["X-Conformance-Header", "content-type", "x-amz-meta-colour"]
    put_cors(s3, bucket, config_xml(rule_xml(headers=headers))).assert_ok()
    return bucket


@pytest.fixture(params=["written", "missing"])
def key(request, s3, bucket, names):
    """The key a preflight names: an object that exists, and one never written. A preflight is
    answered from the bucket's rules either way; a target that answers one and not the other
    (e.g. 200 for a missing key, 403 for a real object) must not pass on the easy one alone."""
    name = names.key()
    if request.param == "written":
        s3.boto.put_object(Bucket=bucket, Key=name, Body=b"preflight target")
    return name


@pytest.mark.rule("storage.cors.s3-preflight")
def test_preflight_names_origin_and_methods(s3, cors_bucket, key):
    """A matching preflight answers 200 with the origin and the allowed method."""
    reply = preflight(s3, cors_bucket, key, "GET")
    assert reply.status == 200, f"preflight status {reply.status}: {reply.body[:200]!r}"
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*")
    methods = reply.header("access-control-allow-methods") or ""
    assert "GET" in [m.strip() for m in methods.split(",")], f"Allow-Methods: {methods!r}"


@pytest.mark.rule("storage.cors.s3-preflight")
def test_preflight_from_other_origin_is_not_allowed(s3, cors_bucket, key):
    """A preflight from an origin no rule allows gets no Access-Control-Allow-Origin."""
    reply = preflight(s3, cors_bucket, key, "GET", origin="https://evil.example.net")
    assert reply.status == 403, f"expected 403; {reply.describe()}"
    assert reply.header("access-control-allow-origin") is None, dict(reply.headers)


@pytest.mark.rule("storage.cors.allow-headers-on-preflight")
def test_preflight_sets_allow_headers(s3, cors_bucket, key):
    """A preflight naming allowed request headers gets Access-Control-Allow-Headers."""
    reply = preflight(s3, cors_bucket, key, "PUT", headers=["content-type"])
    assert reply.status == 200, f"preflight status {reply.status}"
    allowed = (reply.header("access-control-allow-headers") or "").lower()
    assert "content-type" in allowed, f"Allow-Headers: {allowed!r}"


@pytest.mark.rule("storage.cors.allowed-headers-case-insensitive")
@pytest.mark.parametrize("sent", ["x-conformance-header", "X-CONFORMANCE-HEADER"])
def test_allowed_headers_match_any_case(s3, cors_bucket, key, sent):
    """An AllowedHeader matches the requested header name whatever its case."""
    reply = preflight(s3, cors_bucket, key, "GET", headers=[sent])
    assert reply.status == 200, f"{sent}: preflight status {reply.status}"
    allowed = (reply.header("access-control-allow-headers") or "").lower()
    assert "x-conformance-header" in allowed, f"Allow-Headers: {allowed!r}"


SDK_HEADERS = [
    "authorization",
    "x-amz-date",
    "x-amz-content-sha256",
    "x-amz-user-agent",
    "amz-sdk-invocation-id",
    "amz-sdk-request",
    "content-type",
]


@pytest.mark.rule("storage.cors.browser-sdk-preflight")
@pytest.mark.parametrize("allowed", [["*"], SDK_HEADERS], ids=["star", "listed"])
def test_browser_sdk_preflight(s3, bucket, key, allowed):
    """A preflight naming the SDK's signing headers is allowed by a rule that allows them."""
    rule = rule_xml(methods=["GET", "PUT"], headers=allowed)
    put_cors(s3, bucket, config_xml(rule)).assert_ok()
    reply = preflight(s3, bucket, key, "PUT", headers=SDK_HEADERS)
    assert reply.status == 200, f"preflight status {reply.status}: {reply.body[:200]!r}"
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*")
    given = header_set(reply, "access-control-allow-headers")
    assert "*" in given or set(SDK_HEADERS) <= given, f"Allow-Headers: {given}"


@pytest.mark.rule("storage.cors.preflight-signed-extra-headers")
def test_presigned_url_with_signed_headers_keeps_preflight(s3, cors_bucket, names):
    """A preflight to a presigned URL that signs extra headers succeeds, and so does the PUT."""
    key = names.key()
    signed = {"content-type": "text/plain", "x-amz-meta-colour": "blue"}
    url = s3.wire.presign("PUT", cors_bucket, key, headers=signed, expires=600)
    reply = preflight(s3, cors_bucket, key, "PUT", headers=sorted(signed), url=url)
    assert reply.status == 200, f"preflight status {reply.status}: {reply.body[:200]!r}"
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*")
    from conformance.clients.s3 import PreparedWire

    put = s3.wire.send(PreparedWire("PUT", url, {**signed, "Origin": ORIGIN}, b"hello"))
    put.assert_ok()
    assert put.header("access-control-allow-origin") in (ORIGIN, "*")


@pytest.mark.rule("storage.cors.preflight-max-age")
@pytest.mark.parametrize("max_age", [3000, 0, None], ids=["set", "zero", "unset"])
def test_preflight_max_age_follows_the_rule(s3, bucket, max_age):
    """MaxAgeSeconds is how long a browser may keep the preflight: Access-Control-Max-Age. Zero
    is a value too (keep it not at all), not an absent one: left out, a browser keeps the
    preflight for its default 5 seconds (Fetch standard)."""
    extra = "" if max_age is None else f"<MaxAgeSeconds>{max_age}</MaxAgeSeconds>"
    put_cors(s3, bucket, config_xml(rule_xml(extra=extra))).assert_ok()
    reply = preflight(s3, bucket, "max-age-probe", "GET")
    assert reply.status == 200, f"preflight status {reply.status}: {reply.body[:200]!r}"
    assert_max_age(reply, max_age)


@pytest.mark.rule("storage.cors.s3-preflight")
def test_preflight_after_delete_bucket_cors_is_not_allowed(s3, cors_bucket):
    """Once DeleteBucketCors removed the rules, the preflight they allowed a moment before gets
    no Access-Control-Allow-Origin: the bucket has no rule left to match. An implementer who
    keeps compiled rules between requests must drop them when the configuration goes."""
    before = preflight(s3, cors_bucket, "cors-deleted-probe", "GET")
    assert before.status == 200, f"preflight with the rules in place: {before.describe()}"
    s3.wire.request("DELETE", cors_bucket, query=[("cors", None)]).assert_ok()
    after = preflight(s3, cors_bucket, "cors-deleted-probe", "GET")
    assert 400 <= after.status < 500, f"preflight after DeleteBucketCors: {after.describe()}"
    assert after.header("access-control-allow-origin") is None, dict(after.headers)


@pytest.mark.rule("storage.cors.s3-preflight")
def test_preflight_to_a_bucket_created_again_is_not_allowed(s3, names):
    """A bucket deleted with CORS rules and created again under its name has no rules: the
    preflight the old rules allowed gets no Access-Control-Allow-Origin. An implementer who
    keeps compiled rules by bucket name must drop them when the bucket goes."""
    bucket = names.bucket()
    s3.wire.create_bucket(bucket).assert_ok()
    try:
        put_cors(s3, bucket, config_xml(rule_xml())).assert_ok()
        before = preflight(s3, bucket, "cors-recreated-probe", "GET")
        assert before.status == 200, f"preflight with the rules in place: {before.describe()}"
        s3.wire.request("DELETE", bucket).assert_ok()
        s3.wire.create_bucket(bucket).assert_ok()
        after = preflight(s3, bucket, "cors-recreated-probe", "GET")
        assert 400 <= after.status < 500, f"preflight to the new bucket: {after.describe()}"
        assert after.header("access-control-allow-origin") is None, dict(after.headers)
    finally:
        s3.wire.request("DELETE", bucket)


@pytest.mark.rule("storage.cors.s3-preflight")
@pytest.mark.parametrize("missing", ["Origin", "Access-Control-Request-Method"])
def test_preflight_missing_a_header_is_a_4xx(s3, cors_bucket, missing):
    """An OPTIONS lacking Origin or Access-Control-Request-Method is no CORS preflight (Fetch
    standard; S3's OPTIONS object requires both): a 4xx without Access-Control-Allow-Origin,
    never a grant or a 5xx, to a bucket that has rules. Each header is left out on its own: an
    implementer who refuses only when both are missing matches the rules with the other."""
    sent = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET"}
    del sent[missing]
    reply = s3.wire.request("OPTIONS", cors_bucket, "probe", headers=sent, sign="none")
    assert 400 <= reply.status < 500, f"OPTIONS without {missing}: {reply.describe()}"
    assert reply.header("access-control-allow-origin") is None, dict(reply.headers)


@pytest.mark.rule("storage.cors.s3-preflight")
def test_preflight_on_the_account_host_is_path_style(s3, cors_bucket):
    """A preflight to `{account_id}.{storage_host}/<bucket>/<key>` (the account endpoint R2's
    documentation gives for the S3 API, path-style below it) is answered from that bucket's
    rules, as at the bare endpoint. An implementer who reads the bucket from the path only
    when the Host names no account answers it NoSuchBucket."""
    base = account_host(s3.surface)
    if base is None:
        pytest.skip("N/A: the target declares neither virtual_host nor account_id")
    sent = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET", "Host": base}
    reply = s3.wire.request("OPTIONS", cors_bucket, "probe", headers=sent, sign="none")
    assert reply.status == 200, f"preflight on the account host: {reply.describe()}"
    assert reply.header("access-control-allow-origin") in (ORIGIN, "*"), dict(reply.headers)
