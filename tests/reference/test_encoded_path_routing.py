"""A percent-encoded `?` or `#` in the path never shortens the route (hostile round 11).

Starlette's `request.url` is `http://<Host><decoded path>?<query>` split again, so a path whose
decoded form holds `?` or `#` is cut there: the management API routed
`/client/v4/accounts/<id>/r2/buckets/<name>%3Fjunk/extra` to the bucket `<name>` (GET read it,
DELETE deleted it), and the edge took `/cdn-cgi/edge-conformance/flush%3Fx` for its flush hook.
Both now route on the ASGI scope's path, which is the request-target's path, decoded once.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from reliability.rawhttp import connect, read_until_closed, statuses


def _send(url: str, method: str, target: str, extra: str = "") -> bytes:
    sock = connect(url)
    try:
        host = url.split("://", 1)[1].split("/", 1)[0]
        head = f"{method} {target} HTTP/1.1\r\nHost: {host}\r\n{extra}"
        sock.sendall(f"{head}Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    return raw


def _send_to_new_bucket(reference: Any, s3: Any, method: str, name: str, suffix: str) -> bytes:
    """Create bucket `name`, then send `method` raw to the management path of that bucket
    followed by `suffix` as written (no client re-encodes it)."""
    mgmt = reference.ready["surfaces"]["mgmt"]
    auth = f"X-Auth-Email: {mgmt['email']}\r\nX-Auth-Key: {mgmt['api_key']}\r\n"
    s3.create_bucket(Bucket=name)
    base = mgmt["base_url"].split("://", 1)[1].split("/", 1)[1]
    target = f"/{base}/accounts/{mgmt['account_id']}/r2/buckets/{name}{suffix}"
    return _send(mgmt["base_url"], method, target, auth)


@pytest.mark.parametrize("cut", ["%3Fjunk/extra", "%23junk", "%3F"])
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_management_route_is_not_cut(reference: Any, s3: Any, method: str, cut: str) -> None:
    name = f"cut-{time.monotonic_ns() % 10**9}"
    raw = _send_to_new_bucket(reference, s3, method, name, cut)
    assert statuses(raw) and statuses(raw)[0] >= 400, raw[:400]
    assert f'"name":"{name}"'.encode() not in raw.replace(b" ", b"")
    assert name in [b["Name"] for b in s3.list_buckets()["Buckets"]]  # not deleted


@pytest.mark.parametrize(
    "target",
    [
        "/cdn-cgi/edge-conformance/flush%3Fx",
        "/cdn-cgi%2Fedge-conformance%2Fflush",  # hostile round 12: the decoded path matched
        "/cdn-cgi/edge-conformance%2fflush",
    ],
)
def test_edge_flush_hook_is_not_reached_by_an_encoded_path(reference: Any, target: str) -> None:
    url = reference.ready["surfaces"]["edge"]["url"]
    raw = _send(url, "POST", target)
    assert statuses(raw) == [200], raw[:300]
    assert b'"batches"' not in raw
    assert statuses(_send(url, "POST", "/cdn-cgi/edge-conformance/flush")) == [200]


@pytest.mark.parametrize("key", ["a?b", "a#b", "dir/x?y#z"])
def test_s3_error_names_the_whole_key(wire: Any, bucket: str, key: str) -> None:
    """The S3 error's Resource is the request's path: it ended at a decoded `?` or `#`."""
    reply = wire.get_object(bucket, key)
    reply.assert_error(404, "NoSuchKey")
    assert f"<Resource>/{bucket}/{key}</Resource>".encode() in reply.body, reply.body[:400]


@pytest.mark.parametrize(
    "tail", ["%2F", "%2f", "%2Fdomains%2Fcustom", "%2Fcors", "%2F.", "%2F%2E%2E%2F{name}"]
)
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_an_encoded_slash_is_no_route_separator(
    reference: Any, s3: Any, method: str, tail: str
) -> None:
    """`%2F` is data (RFC 3986 section 2.2): `buckets/<name>%2F` named bucket `<name>` (DELETE
    deleted it) and `buckets/<name>%2Fdomains%2Fcustom` its domain list (hostile round 12)."""
    name = f"slash-{time.monotonic_ns() % 10**9}"
    raw = _send_to_new_bucket(reference, s3, method, name, tail.format(name=name))
    mgmt = reference.ready["surfaces"]["mgmt"]
    auth = f"X-Auth-Email: {mgmt['email']}\r\nX-Auth-Key: {mgmt['api_key']}\r\n"
    base = mgmt["base_url"].split("://", 1)[1].split("/", 1)[1]
    assert statuses(raw) and statuses(raw)[0] == 404, raw[:400]
    assert f'"name":"{name}"'.encode() not in raw.replace(b" ", b"")
    assert name in [b["Name"] for b in s3.list_buckets()["Buckets"]]  # not deleted
    plain = f"/{base}/accounts/{mgmt['account_id']}/r2/buckets/{name}"
    assert statuses(_send(mgmt["base_url"], "GET", plain, auth)) == [200]


def test_a_rules_api_id_with_an_encoded_slash_names_no_ruleset(reference: Any) -> None:
    """`rulesets%2F<x>` is not the rulesets list (nor `rulesets/<x>`)."""
    rules = reference.ready["surfaces"]["rules_api"]
    auth = f"X-Auth-Email: {rules['email']}\r\nX-Auth-Key: {rules['api_key']}\r\n"
    base = rules["base_url"].split("://", 1)[1].split("/", 1)[1]
    listed = f"/{base}/zones/{rules['zone_id']}/rulesets"
    assert statuses(_send(rules["base_url"], "GET", listed, auth)) == [200]
    raw = _send(rules["base_url"], "GET", f"/{base}/zones/{rules['zone_id']}%2Frulesets", auth)
    assert statuses(raw) == [404], raw[:400]


@pytest.mark.parametrize(
    ("target", "uri"),
    [
        ("/a%3Fb?c=1", "/a%3Fb?c=1"),
        ("/a%23b?c=1", "/a%23b?c=1"),  # was `/a`: the query went with the fragment
        ("/x%3F", "/x%3F"),
        ("/a%20b?c=%20", "/a%20b?c=%20"),
        ("/plain/path?q=1&r", "/plain/path?q=1&r"),
    ],
)
def test_edge_keeps_the_uri_the_client_sent(reference: Any, target: str, uri: str) -> None:
    """The origin echo and ClientRequestURI are the request-target as sent: `request.url`
    re-split the decoded path at `?` / `#` (hostile round 12)."""
    url = reference.ready["surfaces"]["edge"]["url"]
    raw = _send(url, "GET", target)
    assert statuses(raw) == [200], raw[:300]
    echoed = json.loads(raw.split(b"\r\n\r\n", 1)[1])
    assert echoed["uri"] == uri


def test_client_request_path_is_cut_at_the_real_query() -> None:
    """ClientRequestPath is ClientRequestURI before its first `?`: an encoded one stays."""
    from reference_impl.edge.app import requested_uri  # here: the module imports a live app
    from reference_impl.edge.records import base_record

    scope = {"raw_path": b"/a%3Fb", "path": "/a?b", "query_string": b"c=1"}
    path, uri = requested_uri(scope)
    assert (path, uri) == ("/a%3Fb", "/a%3Fb?c=1")
    record = base_record(
        ray_id="r", start_ns=0, end_ns=0, host="h", method="GET", uri=uri, status=200,
        client_ip="127.0.0.1",
    )  # fmt: skip
    assert record["ClientRequestPath"] == "/a%3Fb" and record["ClientRequestURI"] == uri
