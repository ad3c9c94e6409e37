"""gzip objects on the public entrypoint: the reference's choice for each Accept-Encoding.

With gzip accepted, or no Accept-Encoding at all (RFC 9110: any coding acceptable), the stored
bytes go out with `Content-Encoding: gzip`; a client that refuses gzip gets them decoded.
"""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from conformance.clients.public import CustomDomains, PublicClient, domain_for
from reference_impl.public.encoding import accepts_gzip

TEXT = b"line of text\n" * 200


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        (None, True),
        ("gzip", True),
        ("GZIP;q=0.5", True),
        ("deflate, x-gzip", True),
        ("*", True),
        ("br, *;q=0.1", True),
        ("", False),
        ("identity", False),
        ("gzip;q=0", False),
        ("*;q=0", False),
        ("gzip;q=0, *", False),
        ("gzip;q=bad", False),
    ],
)
def test_accepts_gzip(header: str | None, accepted: bool) -> None:
    assert accepts_gzip(header) is accepted


@pytest.fixture
def client(reference: Any, s3: Any, bucket: str) -> Any:
    s3.put_object(Bucket=bucket, Key="log.txt.gz", Body=gzip.compress(TEXT), ContentEncoding="gzip")
    s3.put_object(Bucket=bucket, Key="plain.txt", Body=TEXT)
    domain = domain_for(bucket)
    domains = CustomDomains(reference.ready["surfaces"]["mgmt"])
    domains.create(bucket, domain).assert_envelope_ok()
    yield PublicClient(reference.ready["surfaces"]["public"]["url"], domain, bucket)
    domains.delete(bucket, domain)


def test_no_accept_encoding_gets_stored_gzip(client: PublicClient) -> None:
    reply = client.get("log.txt.gz")
    assert reply.status == 200 and reply.header("content-encoding") == "gzip"
    assert gzip.decompress(reply.body) == TEXT


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0"])
def test_refused_gzip_is_decoded(client: PublicClient, accept: str) -> None:
    reply = client.get("log.txt.gz", {"Accept-Encoding": accept})
    assert reply.status == 200 and reply.header("content-encoding") is None
    assert reply.body == TEXT
    ranged = client.get("log.txt.gz", {"Accept-Encoding": accept, "Range": "bytes=0-3"})
    assert ranged.status == 200 and ranged.body == TEXT  # a range of the gzip bytes is dropped
    head = client.head("log.txt.gz", {"Accept-Encoding": accept})
    assert head.status == 200 and head.header("content-encoding") is None


def test_ranged_gzip_read_slices_stored_bytes(client: PublicClient) -> None:
    reply = client.get("log.txt.gz", {"Accept-Encoding": "gzip", "Range": "bytes=0-1"})
    assert reply.status == 206 and reply.body == b"\x1f\x8b"
    assert reply.header("content-encoding") == "gzip"


def test_plain_object_never_gets_content_encoding(client: PublicClient) -> None:
    for accept in ("gzip", "identity"):
        reply = client.get("plain.txt", {"Accept-Encoding": accept})
        assert reply.status == 200 and reply.body == TEXT
        assert reply.header("content-encoding") is None
