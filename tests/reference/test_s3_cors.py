"""Reference S3 CORS configuration and preflight details beyond the suite's rules."""

from __future__ import annotations

from typing import Any

from conformance.clients.s3 import WireClient

RULE = (
    b"<CORSConfiguration><CORSRule><ID>r1</ID><AllowedOrigin>https://a.example</AllowedOrigin>"
    b"<AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader>"
    b"<ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>60</MaxAgeSeconds></CORSRule>"
    b"</CORSConfiguration>"
)


def _preflight(wire: WireClient, bucket: str, **headers: str) -> Any:
    return wire.request("OPTIONS", bucket, "k", headers=headers, sign="none")


def test_cors_round_trip_and_delete(wire: WireClient, bucket: str) -> None:
    wire.request("GET", bucket, query=[("cors", None)]).assert_error(404, "NoSuchCORSConfiguration")
    wire.request("PUT", bucket, query=[("cors", None)], body=RULE).assert_ok()
    got = wire.request("GET", bucket, query=[("cors", None)]).assert_ok()
    assert b"<ID>r1</ID>" in got.body and b"<MaxAgeSeconds>60</MaxAgeSeconds>" in got.body
    wire.request("DELETE", bucket, query=[("cors", None)]).assert_ok()
    wire.request("GET", bucket, query=[("cors", None)]).assert_error(404, "NoSuchCORSConfiguration")


def test_cors_rule_needs_origin_and_known_method(wire: WireClient, bucket: str) -> None:
    no_origin = b"<CORSConfiguration><CORSRule><AllowedMethod>GET</AllowedMethod></CORSRule>"
    no_origin += b"</CORSConfiguration>"
    wire.request("PUT", bucket, query=[("cors", None)], body=no_origin).assert_error(
        400, "MalformedXML"
    )
    bad_method = RULE.replace(b"<AllowedMethod>GET", b"<AllowedMethod>PATCH")
    wire.request("PUT", bucket, query=[("cors", None)], body=bad_method).assert_error(
        400, "InvalidRequest"
    )


def test_preflight_answers(wire: WireClient, bucket: str) -> None:
    _preflight(wire, bucket, Origin="https://a.example").assert_error(400, "InvalidRequest")
    method = {"Access-Control-Request-Method": "GET"}
    _preflight(wire, bucket, Origin="https://a.example", **method).assert_error(
        403, "AccessForbidden"
    )
    wire.request("PUT", bucket, query=[("cors", None)], body=RULE).assert_ok()
    ok = _preflight(wire, bucket, Origin="https://a.example", **method).assert_ok()
    assert ok.header("access-control-max-age") == "60"
    assert ok.header("access-control-expose-headers") == "ETag"
    _preflight(wire, "no-such-bucket-cors", Origin="https://a.example", **method).assert_error(
        404, "NoSuchBucket"
    )


def test_deleted_bucket_forgets_its_configuration(wire: WireClient, s3: Any) -> None:
    name = "cors-forgotten"
    wire.create_bucket(name).assert_ok()
    wire.request("PUT", name, query=[("cors", None)], body=RULE).assert_ok()
    wire.request("DELETE", name).assert_ok()
    wire.create_bucket(name).assert_ok()
    wire.request("GET", name, query=[("cors", None)]).assert_error(404, "NoSuchCORSConfiguration")


def test_list_buckets_paging_by_query(wire: WireClient) -> None:
    for suffix in "abc":
        wire.create_bucket(f"page-test-{suffix}").assert_ok()
    first = wire.request("GET", query=[("prefix", "page-test-"), ("max-keys", "2")]).assert_ok()
    assert first.header("cf-is-truncated") == "true"
    token = first.header("cf-next-continuation-token") or ""
    rest = wire.request("GET", query=[("prefix", "page-test-"), ("continuation-token", token)])
    assert b"page-test-c" in rest.assert_ok().body and b"page-test-a" not in rest.body
    wire.request("GET", query=[("continuation-token", "garbage")]).assert_error(
        400, "InvalidArgument"
    )
