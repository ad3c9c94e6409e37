"""A percent-encoded `?` or `#` in the path never shortens the route (hostile round 11).

Starlette's `request.url` is `http://<Host><decoded path>?<query>` split again, so a path whose
decoded form holds `?` or `#` is cut there: the management API routed
`/client/v4/accounts/<id>/r2/buckets/<name>%3Fjunk/extra` to the bucket `<name>` (GET read it,
DELETE deleted it), and the edge took `/cdn-cgi/edge-conformance/flush%3Fx` for its flush hook.
Both now route on the ASGI scope's path, which is the request-target's path, decoded once.
"""

from __future__ import annotations

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


@pytest.mark.parametrize("cut", ["%3Fjunk/extra", "%23junk", "%3F"])
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_management_route_is_not_cut(reference: Any, s3: Any, method: str, cut: str) -> None:
    mgmt = reference.ready["surfaces"]["mgmt"]
    auth = f"X-Auth-Email: {mgmt['email']}\r\nX-Auth-Key: {mgmt['api_key']}\r\n"
    name = f"cut-{time.monotonic_ns() % 10**9}"
    s3.create_bucket(Bucket=name)
    base = mgmt["base_url"].split("://", 1)[1].split("/", 1)[1]
    target = f"/{base}/accounts/{mgmt['account_id']}/r2/buckets/{name}{cut}"
    raw = _send(mgmt["base_url"], method, target, auth)
    assert statuses(raw) and statuses(raw)[0] >= 400, raw[:400]
    assert f'"name":"{name}"'.encode() not in raw.replace(b" ", b"")
    assert name in [b["Name"] for b in s3.list_buckets()["Buckets"]]  # not deleted


def test_edge_flush_hook_is_not_reached_by_an_encoded_query(reference: Any) -> None:
    url = reference.ready["surfaces"]["edge"]["url"]
    raw = _send(url, "POST", "/cdn-cgi/edge-conformance/flush%3Fx")
    assert statuses(raw) == [200], raw[:300]
    assert b'"batches"' not in raw


@pytest.mark.parametrize("key", ["a?b", "a#b", "dir/x?y#z"])
def test_s3_error_names_the_whole_key(wire: Any, bucket: str, key: str) -> None:
    """The S3 error's Resource is the request's path: it ended at a decoded `?` or `#`."""
    reply = wire.get_object(bucket, key)
    reply.assert_error(404, "NoSuchKey")
    assert f"<Resource>/{bucket}/{key}</Resource>".encode() in reply.body, reply.body[:400]
