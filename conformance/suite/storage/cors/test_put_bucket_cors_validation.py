"""PutBucketCors: which configurations are accepted, which refused, and what is kept."""

from __future__ import annotations

from typing import Any

import pytest

from .support import ORIGIN, config_xml, get_cors, put_cors, rule_xml


def _origins_of(reply: Any) -> list[str | None]:
    root = reply.xml
    assert root is not None and root.tag == "CORSConfiguration", reply.body[:300]
    return [node.text for node in root.iter("AllowedOrigin")]


@pytest.mark.rule("storage.put-bucket-cors.valid-origins")
@pytest.mark.parametrize(
    "origin",
    [
        "not an origin",
        "example.com/path",
        "https://example.com/path",
        "ftp//broken",
        "https://*.app.*.example.com",
        "https://example.com?x=1",
        "https://example.com#top",
        "https://example.com:65536",
    ],
    ids=[
        "words",
        "no-scheme-path",
        "with-path",
        "garbled",
        "two-wildcards",
        "with-query",
        "with-fragment",
        "port-past-65535",
    ],
)
def test_invalid_origin_is_refused(s3, bucket, origin):
    """An AllowedOrigin that is not a valid origin is refused with 400 and nothing is stored.
    S3's CORS configuration allows at most one `*` in an AllowedOrigin: two are refused. An
    origin is scheme, host and port only (RFC 6454 section 6.1): no query, no fragment, and
    a port is at most 65535 (RFC 6335)."""
    reply = put_cors(s3, bucket, config_xml(rule_xml(origins=[origin])))
    assert reply.status == 400, f"{origin!r}: status {reply.status}, expected 400"
    assert reply.error_code, f"{origin!r}: 400 without an S3 error code: {reply.body[:200]!r}"
    get_cors(s3, bucket).assert_error(404, "NoSuchCORSConfiguration")


@pytest.mark.rule("storage.put-bucket-cors.valid-origins")
@pytest.mark.parametrize("where", ["after-a-valid-origin", "in-a-second-rule"])
def test_invalid_origin_after_valid_ones_is_refused(s3, bucket, where):
    """Every AllowedOrigin is checked, not only the first: an invalid one after a valid origin
    of the same rule, or in a second rule, is refused with 400 and nothing is stored."""
    good, bad = "https://app.example.com", "https://example.com/path"
    if where == "after-a-valid-origin":
        body = config_xml(rule_xml(origins=[good, bad]))
    else:
        body = config_xml(rule_xml(origins=[good]), rule_xml(origins=[bad]))
    reply = put_cors(s3, bucket, body)
    assert reply.status == 400, f"{bad!r} {where}: status {reply.status}, expected 400"
    get_cors(s3, bucket).assert_error(404, "NoSuchCORSConfiguration")


@pytest.mark.rule("storage.put-bucket-cors.valid-origins-accepted")
@pytest.mark.parametrize(
    "origin",
    [
        "https://app.example.com",
        "*",
        "http://localhost:8080",
        "https://*.example.com",
        "http://localhost:1",
        "https://example.com:65535",
    ],
    ids=["https", "star", "port", "wildcard-subdomain", "port-1", "port-65535"],
)
def test_valid_origin_is_accepted(s3, bucket, origin):
    """A valid origin (or `*`) is accepted, 200 as S3's PutBucketCors answers success, and read
    back by GetBucketCors; ports 1 and 65535 are the ends of the port range (RFC 6335)."""
    reply = put_cors(s3, bucket, config_xml(rule_xml(origins=[origin])))
    assert reply.status == 200, f"{origin!r}: {reply.describe()}"
    assert _origins_of(get_cors(s3, bucket).assert_ok()) == [origin]


@pytest.mark.rule("storage.put-bucket-cors.unknown-keys-rejected")
@pytest.mark.parametrize(
    ("rule_extra", "config_extra"),
    [("<AllowedPlanet>mars</AllowedPlanet>", ""), ("", "<Colour>blue</Colour>")],
    ids=["in-rule", "in-configuration"],
)
def test_unknown_element_is_refused(s3, bucket, rule_extra, config_extra):
    """An element PutBucketCors does not know is refused (400; the rule names no code)."""
    body = config_xml(rule_xml(extra=rule_extra), extra=config_extra)
    put_cors(s3, bucket, body).assert_error(400, None)


@pytest.mark.rule("storage.put-bucket-cors.empty-allowed-header-rejected")
@pytest.mark.parametrize("element", ["<AllowedHeader></AllowedHeader>", "<AllowedHeader/>"])
def test_empty_allowed_header_is_refused(s3, bucket, element):
    """An empty AllowedHeader string is refused with 400."""
    reply = put_cors(s3, bucket, config_xml(rule_xml(extra=element)))
    assert reply.status == 400, f"status {reply.status}, expected 400"
    assert reply.error_code, f"400 without an S3 error code: {reply.body[:200]!r}"


@pytest.mark.rule("storage.put-bucket-cors.empty-allowed-header-rejected-row")
def test_empty_allowed_header_is_not_stored(s3, bucket):
    """After a refused configuration with an empty AllowedHeader, the earlier one stays."""
    put_cors(s3, bucket, config_xml(rule_xml(origins=["https://kept.example.com"]))).assert_ok()
    refused = put_cors(s3, bucket, config_xml(rule_xml(headers=["x-a", ""])))
    assert refused.status == 400, f"status {refused.status}, expected 400"
    reply = get_cors(s3, bucket).assert_ok()
    assert _origins_of(reply) == ["https://kept.example.com"]
    assert b"<AllowedHeader></AllowedHeader>" not in reply.body
    assert b"<AllowedHeader />" not in reply.body and b"<AllowedHeader/>" not in reply.body


@pytest.mark.rule("storage.xml.declaration-accepted")
def test_xml_declaration_is_accepted(s3, bucket):
    """A PutBucketCors body that starts with an XML declaration is accepted."""
    put_cors(s3, bucket, config_xml(rule_xml(), declaration=True)).assert_ok()
    get_cors(s3, bucket).assert_ok()


@pytest.mark.rule("storage.xml.malformed-400")
@pytest.mark.parametrize(
    "body",
    [b"<CORSConfiguration><CORSRule>", b"not xml at all", b"<CORSConfiguration></Wrong>"],
    ids=["unclosed", "text", "mismatched"],
)
def test_malformed_xml_is_400(s3, bucket, body):
    """A malformed XML body is refused with 400 MalformedXML."""
    put_cors(s3, bucket, body).assert_error(400, "MalformedXML")


@pytest.mark.rule("storage.put-bucket-cors.rule-needs-origin-and-method")
@pytest.mark.parametrize("missing", ["AllowedMethod", "AllowedOrigin"])
@pytest.mark.parametrize("where", ["only-rule", "second-rule"])
def test_a_rule_without_an_origin_or_a_method_is_refused(s3, bucket, missing, where):
    """Every CORSRule names at least one AllowedOrigin and one AllowedMethod (S3's CORS
    configuration; docs/decisions.md): a rule without either, alone or after a complete rule,
    is refused with a 4xx, and nothing is stored."""
    parts = {
        "AllowedOrigin": f"<AllowedOrigin>{ORIGIN}</AllowedOrigin>",
        "AllowedMethod": "<AllowedMethod>GET</AllowedMethod>",
    }
    del parts[missing]
    incomplete = "<CORSRule>" + "".join(parts.values()) + "</CORSRule>"
    rules = [rule_xml(), incomplete] if where == "second-rule" else [incomplete]
    reply = put_cors(s3, bucket, config_xml(*rules))
    assert 400 <= reply.status < 500, f"a CORSRule without {missing} ({where}): {reply.describe()}"
    get_cors(s3, bucket).assert_error(404, "NoSuchCORSConfiguration")


@pytest.mark.rule("storage.put-bucket-cors.allowed-methods-checked")
@pytest.mark.parametrize(
    "where", ["only-method", "after-a-valid-method", "in-a-second-rule"]
)  # fmt: skip
def test_an_unsupported_allowed_method_is_refused(s3, bucket, where):
    """AllowedMethod is one of GET, PUT, POST, DELETE and HEAD (the provider's CORS rule model;
    S3's CORSRule "Valid values"). PATCH, alone, after GET in the same rule or in a second
    rule, is refused with a 4xx and nothing is stored: every AllowedMethod is checked, not only
    the first."""
    rules = {
        "only-method": [rule_xml(methods=["PATCH"])],
        "after-a-valid-method": [rule_xml(methods=["GET", "PATCH"])],
        "in-a-second-rule": [rule_xml(methods=["GET"]), rule_xml(methods=["PATCH"])],
    }[where]
    reply = put_cors(s3, bucket, config_xml(*rules))
    assert 400 <= reply.status < 500, f"AllowedMethod PATCH ({where}): {reply.describe()}"
    get_cors(s3, bucket).assert_error(404, "NoSuchCORSConfiguration")
