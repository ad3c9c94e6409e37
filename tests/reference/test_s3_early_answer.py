"""An answer sent before the body was read must not desynchronise a kept-alive connection.

A client that sends `Expect: 100-continue` and gets a final answer (404, 412) instead of
`100 Continue` never sends its body. If the server keeps the connection open, it reads the
next request's bytes as that body and answers `400 Invalid HTTP request`. boto3 sends the
expectation on every PUT with a body, so one early error broke the client's next call.
"""

from __future__ import annotations

import http.client
import socket
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.exceptions import ClientError

from conformance.clients.s3_wire import WireClient

BODY = b"0123456789"


def _send_head_only(conn: http.client.HTTPConnection, wire: WireClient, method: str,
                    bucket: str, key: str, query: list[tuple[str, str | None]],
                    headers: dict[str, str]) -> http.client.HTTPResponse:  # fmt: skip
    """Send the head of a signed request with `Expect: 100-continue` and never its body."""
    prepared = wire.prepare(
        method, bucket, key, query=query, headers={**headers, "Expect": "100-continue"}, body=BODY
    )
    parts = urlsplit(prepared.url)
    conn.putrequest(method, parts.path + (f"?{parts.query}" if parts.query else ""),
                    skip_accept_encoding=True)  # fmt: skip
    for name, value in prepared.headers.items():
        conn.putheader(name, value)
    if "Content-Length" not in prepared.headers:
        conn.putheader("Content-Length", str(len(BODY)))
    conn.endheaders()
    return conn.getresponse()


Case = tuple[str, str, str, list[Any], dict[str, str]]


def _early_cases(s3: Any, bucket: str) -> dict[str, Case]:
    s3.put_object(Bucket=bucket, Key="there", Body=b"x")
    return {
        "missing-bucket": ("PUT", bucket + "-nope", "k", [], {}),
        "if-match-412": ("PUT", bucket, "there", [], {"If-Match": '"0000"'}),
        "no-such-upload": ("PUT", bucket, "k", [("partNumber", "1"), ("uploadId", "nope")], {}),
    }


@pytest.mark.parametrize("case", ["missing-bucket", "if-match-412", "no-such-upload"])
def test_next_request_on_the_connection_is_served(
    s3: Any, wire: WireClient, bucket: str, case: str
) -> None:
    method, target, key, query, headers = _early_cases(s3, bucket)[case]
    parts = urlsplit(wire.endpoint)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        early = _send_head_only(conn, wire, method, target, key, query, headers)
        early.read()
        assert early.status in (404, 412), early.status
        # http.client reconnects when the answer said `Connection: close`
        nxt = wire.prepare("GET", bucket, "there")
        conn.request("GET", urlsplit(nxt.url).path, headers=nxt.headers)
        reply = conn.getresponse()
        assert (reply.status, reply.read()) == (200, b"x")
    finally:
        conn.close()


def test_an_early_answer_without_reading_says_close(s3: Any, wire: WireClient, bucket: str) -> None:
    """Closing is how the server keeps the stream in step: say so, then close."""
    parts = urlsplit(wire.endpoint)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        early = _send_head_only(conn, wire, "PUT", bucket + "-nope", "k", [], {})
        early.read()
        assert early.status == 404
        assert (early.getheader("connection") or "").lower() == "close"
    finally:
        conn.close()


def test_boto3_keeps_working_after_early_errors(s3: Any, bucket: str) -> None:
    """boto3 sends `Expect: 100-continue` on PUT with a body; its pool reuses connections."""
    for _ in range(3):
        with pytest.raises(ClientError) as missing:
            s3.put_object(Bucket=bucket + "-nope", Key="k", Body=b"payload")
        assert missing.value.response["Error"]["Code"] == "NoSuchBucket"
        s3.put_object(Bucket=bucket, Key="k", Body=b"payload")
        with pytest.raises(ClientError) as unmet:
            s3.put_object(Bucket=bucket, Key="k", Body=b"again", IfMatch='"0000"')
        assert unmet.value.response["Error"]["Code"] == "PreconditionFailed"
        with pytest.raises(ClientError) as upload:
            s3.upload_part(Bucket=bucket, Key="k", UploadId="nope", PartNumber=1, Body=b"p")
        assert upload.value.response["Error"]["Code"] == "NoSuchUpload"
        assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"payload"


def test_other_surfaces_close_after_an_unread_body(reference: Any) -> None:
    """The same holds on every listener: the management API refuses before reading."""
    url = reference.ready["surfaces"]["rules_api"]["base_url"]
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        conn.putrequest("POST", parts.path.rstrip("/") + "/zones/" + "0" * 32 + "/rulesets")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", "2")
        conn.putheader("Expect", "100-continue")
        conn.endheaders()
        early = conn.getresponse()
        early.read()
        assert (early.getheader("connection") or "").lower() == "close", early.status
    finally:
        conn.close()


def test_raw_socket_sees_the_answer_then_the_close(wire: WireClient, bucket: str) -> None:
    """On the wire: one final answer, no `100 Continue`, then the server closes the socket."""
    prepared = wire.prepare(
        "PUT", bucket + "-nope", "k", headers={"Expect": "100-continue"}, body=BODY
    )
    parts = urlsplit(prepared.url)
    head = f"PUT {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in prepared.headers.items())
    if "Content-Length" not in prepared.headers:
        head += f"Content-Length: {len(BODY)}\r\n"
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10) as sock:
        sock.sendall((head + "\r\n").encode("latin-1"))
        received = b""
        while True:  # until the server closes; bounded by the socket timeout
            data = sock.recv(65536)
            if not data:
                break
            received += data
    assert received.startswith(b"HTTP/1.1 404"), received[:200]
    assert b"100 Continue" not in received
    assert b"connection: close" in received.lower()
