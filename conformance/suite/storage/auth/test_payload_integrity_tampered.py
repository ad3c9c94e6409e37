"""A signed payload hash binds the body: a tampered body is refused under every signing mode.

An implementer may check the signature over the *declared* x-amz-content-sha256 and never hash
the body it receives. Each case signs one body and sends another of the same length (so only
the hash differs), then checks the refusal and that nothing was stored.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from botocore.auth import S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest

from conformance.clients import s3_chunked as chunked
from conformance.clients import s3_multipart as mp

SIGNED = b"the body that was signed, 48 bytes long........"
SENT = b"the body that was SENT,   48 bytes long........"
MISMATCH = (400, "XAmzContentSHA256Mismatch")


def _sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _send_tampered(s3, method, bucket, key=None, query=(), headers=None, signed=SIGNED, sent=SENT):
    """Header-signed request whose signed payload hash is of `signed`; the body sent is `sent`."""
    prepared = s3.wire.prepare(
        method, bucket, key, query=query, headers=headers, body=signed, payload_hash=_sha(signed)
    )
    prepared.body = sent
    return s3.wire.send(prepared)


@pytest.mark.rule("storage.auth.unchunked-signed-payload")
def test_put_object_tampered_body_is_refused(s3, bucket, names):
    """PutObject: the signed hash is not the body's: 400 XAmzContentSHA256Mismatch, no object."""
    key = names.key()
    _send_tampered(s3, "PUT", bucket, key).assert_error(*MISMATCH)
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)


@pytest.mark.rule("storage.auth.unchunked-signed-payload")
def test_put_object_tampered_body_keeps_existing_object(s3, bucket, names):
    """A refused tampered overwrite leaves the earlier object as it was."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"earlier").assert_ok()
    _send_tampered(s3, "PUT", bucket, key).assert_error(*MISMATCH)
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"earlier"


@pytest.mark.rule("storage.auth.unchunked-signed-payload-part")
def test_upload_part_tampered_body_is_refused(s3, bucket, names):
    """UploadPart: tampered body refused, and no part holds the sent bytes (completing with
    their ETag is 400); the right body then completes the upload."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    query = [("partNumber", "1"), ("uploadId", upload)]
    _send_tampered(s3, "PUT", bucket, key, query=query).assert_error(*MISMATCH)
    sent_etag = f'"{hashlib.md5(SENT).hexdigest()}"'
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, sent_etag)])
    assert reply.status == 400, f"completion with the tampered part: {reply.status}"
    etag = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, SIGNED))
    mp.complete(s3.wire, bucket, key, upload, [(1, etag)]).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == SIGNED


@pytest.mark.rule("storage.auth.unchunked-signed-payload")
def test_xml_body_tampered_is_refused(s3, bucket, names):
    """DeleteObjects whose XML body differs from the signed one (Content-MD5 of the sent body)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"kept").assert_ok()

    def body(k: str) -> bytes:
        return f"<Delete><Object><Key>{k}</Key></Object></Delete>".encode()

    signed, sent = body("x" * len(key)), body(key)
    md5 = base64.b64encode(hashlib.md5(sent).digest()).decode()
    reply = _send_tampered(
        s3, "POST", bucket, query=[("delete", None)],
        headers={"Content-MD5": md5, "Content-Type": "application/xml"}, signed=signed, sent=sent,
    )  # fmt: skip
    reply.assert_error(*MISMATCH)
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"kept"


class _PresignedPayload(S3SigV4QueryAuth):
    """Query auth whose canonical request names the X-Amz-Content-Sha256 of the URL."""

    def __init__(self, credentials, region, digest):
        super().__init__(credentials, "s3", region, expires=300)
        self._digest = digest

    def payload(self, request):
        return self._digest


def _presigned(s3, bucket, key, digest, body):
    """A presigned PUT whose URL carries (and signs) the payload hash `digest`; sent with body."""
    request = AWSRequest(
        method="PUT", url=s3.wire.url(bucket, key, [("X-Amz-Content-Sha256", digest)])
    )
    _PresignedPayload(s3.wire.credentials, s3.wire.region, digest).add_auth(request)
    prepared = s3.wire.prepare("PUT", sign="none")
    prepared.url, prepared.body = request.prepare().url, body
    return s3.wire.send(prepared)


@pytest.mark.rule("storage.auth.presigned-put")
def test_presigned_put_with_content_sha256_binds_the_body(s3, bucket, names):
    """A presigned URL that signs X-Amz-Content-Sha256 accepts that body and refuses another."""
    key, other = names.key(), names.key()
    _presigned(s3, bucket, key, _sha(SIGNED), SIGNED).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == SIGNED
    _presigned(s3, bucket, other, _sha(SIGNED), SENT).assert_error(*MISMATCH)
    s3.wire.request("HEAD", bucket, other).assert_error(404, None)


@pytest.mark.rule("storage.auth.signature-mismatch")
@pytest.mark.parametrize("mode", [chunked.SIGNED, chunked.SIGNED_TRAILER])
def test_aws_chunked_tampered_chunk_is_refused(s3, bucket, names, mode):
    """Signed aws-chunked body with one chunk's bytes changed after signing: 403, no object."""
    chunks = [b"a" * 8192, b"second chunk"]
    key, reply = _put_tampered(s3, bucket, names, chunks, mode, _change_second_chunk)
    reply.assert_error(403, "SignatureDoesNotMatch")
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)


def _change_second_chunk(body: bytes) -> bytes:
    return body.replace(b"second chunk", b"SECOND chunk")


def _put_tampered(s3, bucket, names, chunks, mode, tamper):
    """(key, reply) of an aws-chunked PUT of `chunks` whose wire body `tamper` changed after
    signing, once the same PUT untampered (to another key) is shown to be accepted."""
    key = names.key()
    trailers = {"x-amz-checksum-crc32": chunked.checksum("crc32", b"".join(chunks))}
    extra = trailers if mode == chunked.SIGNED_TRAILER else None
    control = chunked.put_chunked(s3.wire, bucket, names.key(), chunks, mode, trailers=extra)
    control.assert_ok()
    reply = chunked.put_chunked(s3.wire, bucket, key, chunks, mode, trailers=extra, tamper=tamper)
    return key, reply


def _flip_signature_after(body: bytes, marker: bytes) -> bytes:
    """The 64-hex signature after the last `marker` in `body` with its last digit changed."""
    end = body.rindex(marker) + len(marker) + 64
    last = body[end - 1 : end]
    return body[: end - 1] + (b"1" if last != b"1" else b"2") + body[end:]


def _flip_trailer_signature(body: bytes) -> bytes:
    """The x-amz-trailer-signature value with its last hex digit changed (still 64 hex)."""
    return _flip_signature_after(body, b"x-amz-trailer-signature:")


@pytest.mark.rule("storage.auth.signature-mismatch")
def test_aws_chunked_wrong_trailer_signature_is_refused(s3, bucket, names):
    """STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: the trailing headers are signed, chained from
    the final chunk's signature, and sent as `x-amz-trailer-signature` (AWS's "Signature
    calculations for trailing headers" page). Every chunk signed right, the trailer signature
    wrong: 403 SignatureDoesNotMatch and no object. An implementer may verify the chunk chain
    and never the trailer's signature, so a trailer checksum anyone could rewrite is trusted."""
    key, reply = _signed_trailer_put(s3, bucket, names, b"trailer signed", _flip_trailer_signature)
    reply.assert_error(403, "SignatureDoesNotMatch")
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)


def _signed_trailer_put(s3, bucket, names, tail, tamper):
    """A signed-trailer PUT whose trailer checksum is right, `tamper`ed after signing (a
    control sent untampered first must be taken): its key and the answer."""
    chunks = [b"a" * 8192, tail]
    trailers = {"x-amz-checksum-crc32": chunked.checksum("crc32", b"".join(chunks))}
    mode = chunked.SIGNED_TRAILER
    control = chunked.put_chunked(s3.wire, bucket, names.key(), chunks, mode, trailers=trailers)
    control.assert_ok()
    key = names.key()
    reply = chunked.put_chunked(
        s3.wire, bucket, key, chunks, mode, trailers=trailers, tamper=tamper
    )
    return key, reply


def _drop_trailer_signature(body: bytes) -> bytes:
    """The body without its `x-amz-trailer-signature` line (the trailers left as signed)."""
    start = body.rindex(b"x-amz-trailer-signature:")
    return body[:start] + body[body.index(b"\r\n", start) + 2 :]


@pytest.mark.rule("storage.auth.signature-mismatch")
def test_aws_chunked_trailer_without_its_signature_is_refused(s3, bucket, names):
    """STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER signs the trailing headers too: AWS's
    "Signature calculations for trailing headers" page sends them as their own chunk, after the
    0-byte chunk, with their signature as `x-amz-trailer-signature`. Every chunk signed right,
    the trailer's right checksum sent without that signature line: refused (a 4xx; the page
    names no error code for a missing one) and no object. An implementer may verify the
    trailer signature only when one is sent, so dropping it makes the trailer unsigned."""
    tail = b"trailer signature left out"
    key, reply = _signed_trailer_put(s3, bucket, names, tail, _drop_trailer_signature)
    assert 400 <= reply.status < 500, f"trailer without its signature: {reply.status}"
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)


def _flip_final_chunk_signature(body: bytes) -> bytes:
    """The signature of the final, zero-length chunk with its last hex digit changed."""
    return _flip_signature_after(body, b"\r\n0;chunk-signature=")


@pytest.mark.rule("storage.auth.signature-mismatch")
@pytest.mark.parametrize("mode", [chunked.SIGNED, chunked.SIGNED_TRAILER])
def test_aws_chunked_wrong_final_chunk_signature_is_refused(s3, bucket, names, mode):
    """The final zero-length chunk is signed like every other (AWS's "Signature calculations
    for the Authorization header: Transferring payload in multiple chunks" page: its signature
    chains from the last data chunk's over the empty payload). Every data chunk signed right,
    the final chunk's signature wrong: 403 SignatureDoesNotMatch and no object. An implementer
    may verify only the chunks that carry data, so the end of the stream goes unsigned."""
    chunks = [b"a" * 8192, b"final chunk signed"]
    key, reply = _put_tampered(s3, bucket, names, chunks, mode, _flip_final_chunk_signature)
    reply.assert_error(403, "SignatureDoesNotMatch")
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)
