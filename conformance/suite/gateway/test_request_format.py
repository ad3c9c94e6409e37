"""The request the spec shows: POST {gateway_url}/v1/<network>, JSON-RPC 2.0, JSON header."""

from __future__ import annotations

import gzip
import json
from urllib.parse import urlsplit

import pytest

from conformance.clients.gateway import JSON_HEADERS, GatewayClient
from conformance.suite.gateway.helpers import (
    SPEC_METHOD,
    SPEC_PARAMS,
    check_response,
    check_result,
    is_success,
    need_behaviour,
    served_network,
)

SPEC_BODY = json.dumps({"jsonrpc": "2.0", "method": SPEC_METHOD, "params": SPEC_PARAMS, "id": 1})


@pytest.mark.rule("gateway.path.v1")
def test_post_to_v1_network_path(gateway: GatewayClient) -> None:
    """POST {gateway_url}/v1/<network> answers a JSON-RPC response."""
    network = served_network(gateway)
    assert urlsplit(gateway.url_for(network)).path.endswith(f"/v1/{network}")
    reply = gateway.post_raw(network, SPEC_BODY, JSON_HEADERS)
    assert reply.status == 200, reply.describe()
    check_response(reply.json)
    # served, not only answered: an error object (unknown path, refused request) is a response too
    reply.result()


@pytest.mark.rule("gateway.path.other-version-not-served")
@pytest.mark.parametrize("version", ["v2", "v0"])
def test_other_version_segment_is_not_served(gateway: GatewayClient, version: str) -> None:
    """The gateway path carries /v1/: the same request to another version segment gets no
    JSON-RPC result, but a 4xx (the reference's: 404 with an error object)."""
    need_behaviour(gateway, "network-routing")
    network = served_network(gateway)
    reply = gateway.post_path(f"/{version}/{network}", SPEC_BODY, JSON_HEADERS)
    assert 400 <= reply.status < 500, f"expected a 4xx, got {reply.describe()}"
    assert not is_success(reply), reply.describe()


@pytest.mark.rule("gateway.jsonrpc.get-block-by-number")
def test_spec_body_is_served(gateway: GatewayClient) -> None:
    """The spec's body (hex block number, then a boolean, integer id) gets a block result."""
    reply = gateway.post_raw(served_network(gateway), SPEC_BODY, JSON_HEADERS)
    result = reply.result()
    assert reply.json["id"] == 1
    check_result(SPEC_METHOD, result)
    assert result is not None and result["number"] == "0x0"


@pytest.mark.rule("gateway.http.content-type")
@pytest.mark.parametrize(
    "ctype",
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json;charset=UTF-8",
        "Application/JSON",
    ],
)
def test_json_content_type_is_accepted(gateway: GatewayClient, ctype: str) -> None:
    """A request sent with Content-Type: application/json is served, in each form the header
    takes (RFC 9110 8.3.1: type and subtype are case-insensitive, and the whitespace around a
    parameter's ';' is optional)."""
    reply = gateway.post_raw(served_network(gateway), SPEC_BODY, {"Content-Type": ctype})
    assert reply.status == 200, reply.describe()
    reply.result()


@pytest.mark.rule("gateway.http.content-type")
def test_response_is_json(gateway: GatewayClient) -> None:
    """A request sent as application/json is answered with an application/json body."""
    reply = gateway.post_raw(served_network(gateway), SPEC_BODY, JSON_HEADERS)
    ctype = reply.headers.get("content-type", "")
    assert ctype.split(";")[0].strip().lower() == "application/json", reply.headers


@pytest.mark.rule("gateway.http.chunked-body")
def test_chunked_body_is_served(gateway: GatewayClient) -> None:
    """The spec's body sent in the chunked transfer coding, without Content-Length, is served.
    RFC 9112 7.1: a recipient MUST be able to parse the chunked coding; 6.3: a server MAY refuse
    a request with a body but no Content-Length with 411 (Length Required), the one refusal
    taken here. 413 would say the content is too large (RFC 9110 15.5.14), which a 90-byte body
    is not."""
    reply = gateway.post_chunked(served_network(gateway), SPEC_BODY.encode(), JSON_HEADERS)
    if reply.status == 411:
        return
    assert reply.status == 200, reply.describe()
    check_response(reply.json)
    check_result(SPEC_METHOD, reply.result())


@pytest.mark.rule("gateway.http.transfer-coding-not-applied")
@pytest.mark.parametrize("codings", ["gzip, chunked", "GZIP, Chunked"])
def test_gzip_transfer_coding_is_decoded_or_refused(gateway: GatewayClient, codings: str) -> None:
    """The spec's body gzipped and sent `Transfer-Encoding: gzip, chunked`. The content is the
    body with both codings taken off (RFC 9112 6.1; codings are case-insensitive, section 7): a
    gateway that decodes gzip serves the spec's request; one that does not SHOULD answer 501
    (RFC 9112 6.1), and a 4xx is taken as a refusal too. Never a result or a parse error for the
    still-gzipped bytes (they are not the JSON the client sent), never another 5xx."""
    body = gzip.compress(SPEC_BODY.encode())
    reply = gateway.post_chunked(served_network(gateway), body, JSON_HEADERS, codings)
    if reply.status == 200:  # decoded: the spec's request, answered as such
        check_response(reply.json)
        check_result(SPEC_METHOD, reply.result())
        return
    assert reply.status == 501 or 400 <= reply.status < 500, (
        f"expected the request served, 501 or a 4xx: {reply.describe()}"
    )


@pytest.mark.rule("gateway.http.malformed-host-400")
@pytest.mark.parametrize("hosts", ["none", "two", "not-a-host", "open-bracket"])
def test_request_with_a_host_it_cannot_read_is_400(gateway: GatewayClient, hosts: str) -> None:
    """RFC 9112 section 3.2: "A server MUST respond with a 400 (Bad Request) status code to any
    HTTP/1.1 request message that lacks a Host header field and to any request message that
    contains more than one Host header field line or a Host header field with an invalid field
    value." The spec's own request, sent with no Host line, with the gateway's host on two lines,
    with `a b` (a space is in no uri-host), or with `[::1` (an IP literal never closed, RFC 3986
    3.2.2): 400, never a result, never a 5xx. The spec names no answer for it, so the rule is
    SHOULD."""
    netloc = urlsplit(gateway.url_for(served_network(gateway))).netloc
    lines = {"none": [], "two": [netloc, netloc], "not-a-host": ["a b"], "open-bracket": ["[::1"]}
    reply = gateway.post_with_hosts(served_network(gateway), SPEC_BODY.encode(), lines[hosts])
    assert reply.status == 400, f"expected 400: {reply.describe()}"
