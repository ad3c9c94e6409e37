"""Unsigned `x-amz-*` headers are refused, as S3 refuses them (403 AccessDenied, "There were
headers present in the request which were not signed").

A signature covers only the headers it names. Before, any `x-amz-*` header added to a signed
request was obeyed: the holder of a presigned PUT URL for one key added
`x-amz-copy-source: /bucket/secret` and the PUT became a CopyObject of any object of the
signer's account onto the key it may write (readable again through a presigned GET or a public
bucket), and a request signed with its headers could be turned into another operation the same
way on its way to the server.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from reliability.refproc import REQUEST_TIMEOUT, RefProcess, holding

from conformance.clients.s3_wire import WireClient, WireReply

BUCKET = "unsigned-headers"
SECRET = b"the signer's private object"


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    with holding(tmp_path_factory.mktemp("unsigned") / "data", BUCKET, {"secret": SECRET}) as proc:
        yield proc


@pytest.fixture
def wire(ref: RefProcess) -> WireClient:
    return ref.wire()


def _put(url: str, headers: dict[str, str], body: bytes = b"") -> WireReply:
    response = requests.put(url, data=body, headers=headers, timeout=REQUEST_TIMEOUT)
    return WireReply("PUT", url, response.status_code, response.headers, response.content)


def _refused(reply: WireReply, header: str) -> None:
    assert (reply.status, reply.error_code) == (403, "AccessDenied"), reply.describe()
    root = reply.xml
    assert root is not None and root.findtext("HeadersNotSigned") == header, reply.body[:400]


@pytest.mark.parametrize("sign", ["presign", "header"])
def test_an_unsigned_copy_source_does_not_turn_a_put_into_a_copy(
    wire: WireClient, sign: str
) -> None:
    key = f"upload-{sign}"
    prepared = wire.prepare("PUT", BUCKET, key, sign=sign)
    headers = {**prepared.headers, "x-amz-copy-source": f"/{BUCKET}/secret"}
    _refused(_put(prepared.url, headers), "x-amz-copy-source")
    assert wire.get_object(BUCKET, key).status == 404, "the secret was copied"


def test_an_unsigned_metadata_header_on_a_presigned_put_is_refused(wire: WireClient) -> None:
    url = wire.presign("PUT", BUCKET, "with-meta", expires=300)
    _refused(_put(url, {"x-amz-meta-added": "later"}, b"body"), "x-amz-meta-added")
    assert wire.get_object(BUCKET, "with-meta").status == 404


def test_signed_headers_and_other_unsigned_headers_still_pass(wire: WireClient) -> None:
    """The check is on `x-amz-*` only: Content-Type or a Range need not be signed, and a
    presigned URL that signs its `x-amz-*` headers works with them."""
    url = wire.presign("PUT", BUCKET, "plain", expires=300)
    _put(url, {"Content-Type": "text/plain"}, b"fine").assert_ok()
    signed = wire.prepare(
        "PUT", BUCKET, "meta", sign="presign", headers={"x-amz-meta-colour": "blue"}
    )
    _put(signed.url, {"x-amz-meta-colour": "blue"}, b"ok").assert_ok()
    assert wire.get_object(BUCKET, "meta").header("x-amz-meta-colour") == "blue"
    got = requests.get(
        wire.presign("GET", BUCKET, "plain", expires=300),
        headers={"Range": "bytes=0-1"},
        timeout=REQUEST_TIMEOUT,
    )
    assert (got.status_code, got.content) == (206, b"fi")


def test_an_unsigned_content_sha256_header_is_no_unsigned_header(wire: WireClient) -> None:
    """`x-amz-content-sha256` is tolerated unsigned, as S3 does (a header-auth request puts its
    value in the canonical request whether SignedHeaders names it or not; a presigned request
    takes its payload hash from the query, UNSIGNED-PAYLOAD unless signed there). A client that
    sends `x-amz-content-sha256: UNSIGNED-PAYLOAD` with a presigned PUT (SDK HTTP stacks that
    add it to every S3 request) was refused 403 HeadersNotSigned."""
    url = wire.presign("PUT", BUCKET, "sha-header", expires=300)
    _put(url, {"x-amz-content-sha256": "UNSIGNED-PAYLOAD"}, b"fine").assert_ok()
    assert wire.get_object(BUCKET, "sha-header").body == b"fine"
