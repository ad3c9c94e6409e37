"""Hostile XML bodies: entity expansion, external entities, junk, oversized and deep documents.

Every XML-taking operation parses untrusted input; one that expands entities can be made to
eat memory (billion laughs) or read local files (XXE), and one that crashes answers 500. The
reference must answer each with the spec's error (MalformedXML) or another clear 4xx, fast.
"""

from __future__ import annotations

import base64
import hashlib
import socket
import time
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient, WireReply

BUCKET = "hostile-xml"
BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol">
<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
<{root}><{leaf}>&lol9;</{leaf}></{root}>"""
XXE_FILE = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<{root}><{leaf}>&xxe;</{leaf}></{root}>"""
XXE_NET = b"""<?xml version="1.0"?>
<!DOCTYPE r SYSTEM "http://127.0.0.1:{port}/evil.dtd">
<{root}><{leaf}>x</{leaf}></{root}>"""
PARAM_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>
<{root}><{leaf}>x</{leaf}></{root}>"""
# operation -> (method, query, root element, a leaf element)
OPERATIONS: dict[str, tuple[str, list[tuple[str, str | None]], str, str]] = {
    "DeleteObjects": ("POST", [("delete", None)], "Delete", "Object"),
    "PutBucketCors": ("PUT", [("cors", None)], "CORSConfiguration", "CORSRule"),
    "CreateBucket": ("PUT", [], "CreateBucketConfiguration", "LocationConstraint"),
    "CompleteMultipartUpload": ("POST", [], "CompleteMultipartUpload", "Part"),
    "PutBucketLifecycleConfiguration": (
        "PUT",
        [("lifecycle", None)],
        "LifecycleConfiguration",
        "Rule",
    ),
    "PutBucketEncryption": (
        "PUT",
        [("encryption", None)],
        "ServerSideEncryptionConfiguration",
        "Rule",
    ),
}
VOCABULARY = [
    "Delete",
    "Object",
    "Key",
    "Quiet",
    "VersionId",
    "CORSConfiguration",
    "CORSRule",
    "AllowedOrigin",
    "AllowedMethod",
    "AllowedHeader",
    "ExposeHeader",
    "MaxAgeSeconds",
    "CompleteMultipartUpload",
    "Part",
    "PartNumber",
    "ETag",
    "LocationConstraint",
    "CreateBucketConfiguration",
    "LifecycleConfiguration",
    "Rule",
    "ID",
    "Status",
    "Filter",
    "Prefix",
    "Expiration",
    "Days",
    "ServerSideEncryptionConfiguration",
    "ApplyServerSideEncryptionByDefault",
    "SSEAlgorithm",
]
ANSWER_S = 10.0


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> Iterator[WireClient]:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    yield client


def _send(wire: WireClient, operation: str, body: bytes) -> WireReply:
    """Send `body` to the operation (a fresh bucket name for CreateBucket, an open upload for
    CompleteMultipartUpload), with a matching Content-MD5 so the parser is reached."""
    method, query, _, _ = OPERATIONS[operation]
    bucket, key = BUCKET, None
    if operation == "CreateBucket":
        bucket = f"hx-{time.monotonic_ns()}"
    if operation == "CompleteMultipartUpload":
        key = "mp"
        created = wire.request("POST", BUCKET, key, query=[("uploads", None)]).assert_ok()
        assert created.xml is not None
        query = [("uploadId", created.xml.findtext("UploadId") or "")]
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    started = time.monotonic()
    reply = wire.request(
        method,
        bucket,
        key,
        query=query,
        body=body,
        headers={"Content-MD5": md5, "Content-Type": "application/xml"},
    )
    assert time.monotonic() - started < ANSWER_S, f"{operation} took too long"
    return reply


def _assert_clean_refusal(reply: WireReply, operation: str) -> None:
    assert reply.status < 500, f"{operation}: {reply.status} {reply.body[:300]!r}"
    if reply.status >= 400 and reply.method != "HEAD":
        assert reply.error_code, f"{operation}: {reply.status} without an S3 error code"
    assert b"root:" not in reply.body, f"{operation}: a local file leaked into the answer"


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
@pytest.mark.parametrize(
    "template",
    [BILLION_LAUGHS, XXE_FILE, XXE_NET, PARAM_ENTITY],
    ids=["billion-laughs", "xxe-file", "xxe-network", "parameter-entity"],
)
def test_entity_expansion_is_malformed_xml(
    wire: WireClient, operation: str, template: bytes
) -> None:
    _, _, root, leaf = OPERATIONS[operation]
    body = template.replace(b"{root}", root.encode()).replace(b"{leaf}", leaf.encode())
    with socket.create_server(("127.0.0.1", 0)) as trap:  # an external DTD must not be fetched
        trap.setblocking(False)
        body = body.replace(b"{port}", str(trap.getsockname()[1]).encode())
        reply = _send(wire, operation, body)
        with pytest.raises(BlockingIOError):
            trap.accept()
    _assert_clean_refusal(reply, operation)
    if template is not XXE_NET:  # a DTD that declares nothing is ignored, not fetched
        assert (reply.status, reply.error_code) == (400, "MalformedXML")


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
@pytest.mark.parametrize(
    "shape", ["oversized", "deep", "wide", "truncated", "not-utf8", "empty-root"]
)
def test_odd_documents_are_refused_cleanly(wire: WireClient, operation: str, shape: str) -> None:
    _, _, root, leaf = OPERATIONS[operation]
    open_, close = f"<{root}>".encode(), f"</{root}>".encode()
    bodies = {
        "oversized": open_ + f"<{leaf}>".encode() + b"x" * (5 * 1024 * 1024) + close,
        "deep": open_ + b"<a>" * 50_000 + b"</a>" * 50_000 + close,
        "wide": open_ + f"<{leaf}/>".encode() * 200_000 + close,
        "truncated": open_ + f"<{leaf}><".encode(),
        "not-utf8": b'<?xml version="1.0" encoding="UTF-8"?>' + open_ + b"\xff\xfe\x80" + close,
        "empty-root": b"<" + root.encode() + b"/>",
    }
    reply = _send(wire, operation, bodies[shape])
    _assert_clean_refusal(reply, operation)


def _documents() -> st.SearchStrategy[bytes]:
    text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
    tags = st.sampled_from(VOCABULARY)
    leaf = st.builds(lambda t, v: f"<{t}>{_escape(v)}</{t}>", tags, text)
    tree = st.recursive(
        leaf,
        lambda kids: st.builds(
            lambda t, ks: f"<{t}>{''.join(ks)}</{t}>", tags, st.lists(kids, max_size=5)
        ),
        max_leaves=20,
    )
    return st.builds(
        lambda t, ks: f"<{t}>{''.join(ks)}</{t}>".encode(), tags, st.lists(tree, max_size=4)
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@given(operation=st.sampled_from(sorted(OPERATIONS)), body=_documents())
def test_random_documents_never_500(wire: WireClient, operation: str, body: bytes) -> None:
    _assert_clean_refusal(_send(wire, operation, body), operation)


@given(operation=st.sampled_from(sorted(OPERATIONS)), body=st.binary(max_size=2048))
def test_random_bytes_never_500(wire: WireClient, operation: str, body: bytes) -> None:
    _assert_clean_refusal(_send(wire, operation, body), operation)
