"""Text that is no header text never reaches a header: no 500, no dropped connection.

A binding's `httpMetadata` / `customMetadata`, a CORS rule's `ExposeHeader` and GetObject's
`response-*` parameters all end up as response headers of S3 reads. With a line break or a
character beyond Latin-1 in one of them, the read answered 500 (Starlette could not encode it)
or uvicorn dropped the connection with no answer (an invalid header value), for every later
read of the object or of the bucket with CORS: the data could no longer be read over S3.
"""

from __future__ import annotations

import base64
import email.header
import hashlib
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from reliability.refproc import REQUEST_TIMEOUT, RefProcess

from conformance.clients.s3_wire import WireClient

BUCKET = "header-text"
NOT_HEADER_TEXT = ["text/\u20ac", "a\r\nX-Injected: 1", "a\x00b"]


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> Iterator[WireClient]:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    client.put_object(BUCKET, "plain", b"hello").assert_ok()
    yield client


def _bridge(ref: RefProcess, op: str, **args: Any) -> dict[str, Any]:
    surface = ref.surface("bindings")
    reply = requests.post(
        surface["url"] + "/bridge",
        headers={"Authorization": f"Bearer {surface['token']}"},
        json={"op": op, "bucket": BUCKET, "args": args},
        timeout=REQUEST_TIMEOUT,
    )
    assert reply.status_code == 200, reply.text[:300]
    doc: dict[str, Any] = reply.json()
    return doc


def _decoded(value: str) -> str:
    """A header value with any RFC 2047 encoded-word decoded."""
    return str(email.header.make_header(email.header.decode_header(value)))


@pytest.mark.parametrize("value", NOT_HEADER_TEXT)
@pytest.mark.parametrize("param", ["response-content-type", "response-content-disposition"])
def test_response_override_that_is_no_header_text_is_refused(
    wire: WireClient, param: str, value: str
) -> None:
    reply = wire.request("GET", BUCKET, "plain", query=[(param, value)])
    reply.assert_error(400, "InvalidArgument")
    assert reply.header("X-Injected") is None
    wire.get_object(BUCKET, "plain").assert_ok()


@pytest.mark.parametrize("value", ["x-\u20ac", "a\nX-Injected: 1", "a b", "a:b", ""])
def test_cors_expose_header_must_be_a_header_name(wire: WireClient, value: str) -> None:
    escaped = value.replace("\n", "&#10;")
    body = (
        "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin>"
        f"<AllowedMethod>GET</AllowedMethod><ExposeHeader>ETag</ExposeHeader>"
        f"<ExposeHeader>{escaped}</ExposeHeader></CORSRule></CORSConfiguration>"
    ).encode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    put = wire.request(
        "PUT", BUCKET, query=[("cors", None)], body=body, headers={"Content-MD5": md5}
    )
    put.assert_error(400, "InvalidArgument")
    read = wire.get_object(BUCKET, "plain", headers={"Origin": "https://a.example"}).assert_ok()
    assert read.header("X-Injected") is None


def test_binding_metadata_that_is_no_header_text_still_reads_over_s3(
    ref: RefProcess, wire: WireClient
) -> None:
    """Kept as given (the binding reads it back unchanged); S3 sends each such value as an
    RFC 2047 encoded-word and counts a name that is no header name in x-amz-missing-meta."""
    http = {"contentType": "text/\u20ac", "contentDisposition": "attachment\r\nX-Injected: 1"}
    custom = {"k": "\u00e9\u20ac\n", "bad name": "v", "ok": "plain"}
    options = {"httpMetadata": http, "customMetadata": custom}
    put = _bridge(ref, "put", key="meta", value="aGVsbG8=", options=options)
    assert "result" in put, put
    for method in ("GET", "HEAD"):
        reply = wire.request(method, BUCKET, "meta").assert_ok()
        assert reply.header("X-Injected") is None
        assert _decoded(reply.header("Content-Type") or "") == http["contentType"]
        assert _decoded(reply.header("Content-Disposition") or "") == http["contentDisposition"]
        assert _decoded(reply.header("x-amz-meta-k") or "") == custom["k"]
        assert reply.header("x-amz-meta-ok") == "plain"
        assert reply.header("x-amz-missing-meta") == "1"
    assert wire.get_object(BUCKET, "meta").body == b"hello"
    head = _bridge(ref, "head", key="meta")["result"]
    assert head["customMetadata"] == custom
    assert head["httpMetadata"]["contentDisposition"] == http["contentDisposition"]


@pytest.mark.parametrize(
    ("op", "options"),
    [
        ("put", {"httpMetadata": 1}),
        ("put", {"httpMetadata": "x"}),
        ("put", {"httpMetadata": ["contentType"]}),
        ("createMultipartUpload", {"httpMetadata": "x"}),
        ("list", {"include": 1}),
        ("list", {"include": "httpMetadata"}),
    ],
)
def test_binding_option_of_the_wrong_type_is_a_type_error(
    ref: RefProcess, wire: WireClient, op: str, options: dict[str, Any]
) -> None:
    """Was 500 InternalError ('int' object is not iterable): the suite counts that against
    the binding, where the workers binding throws a TypeError. (`wire` makes the bucket: run
    first, the case met NoSuchBucket before its option was read.)"""
    doc = _bridge(ref, op, key="typed", value="aGVsbG8=", options=options)
    assert doc.get("error", {}).get("name") == "TypeError", doc
