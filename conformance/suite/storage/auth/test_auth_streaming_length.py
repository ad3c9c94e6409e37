"""aws-chunked uploads: the decoded size must be x-amz-decoded-content-length, both ways.

AWS's streaming-upload page makes `x-amz-decoded-content-length` the object's length. An
implementer who trusts the framing and never compares the total with the header stores a
truncated or lengthened object the client never meant; one who checks only "not more than"
(or only "not less than") lets the other side through. Each signing mode sends chunks that
total one byte fewer and one byte more than declared: a 4xx, and nothing stored.
"""

from __future__ import annotations

import pytest

from conformance.clients import s3_chunked as chunked

RULE = "storage.auth.streaming-decoded-length"
CHUNKS = [b"d" * 8192, b"the declared length is off by one"]
MODES = {
    "signed": chunked.SIGNED,
    "signed-trailer": chunked.SIGNED_TRAILER,
    "unsigned-trailer": chunked.UNSIGNED_TRAILER,
}


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("off_by", [1, -1], ids=["declared-longer", "declared-shorter"])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_decoded_length_other_than_declared_is_refused(s3, bucket, names, mode, off_by):
    """Chunks totalling the declared length -1 / +1: a 4xx and no object under the key."""
    key = names.key()
    size = sum(len(c) for c in CHUNKS)
    name = s3.wire.vendor("checksum-crc32")
    trailers = None if mode == "signed" else {name: chunked.checksum("crc32", b"".join(CHUNKS))}
    control = chunked.put_chunked(s3.wire, bucket, names.key(), CHUNKS, MODES[mode], trailers)
    control.assert_ok()
    reply = chunked.put_chunked(
        s3.wire, bucket, key, CHUNKS, MODES[mode], trailers, decoded_length=size + off_by
    )
    assert 400 <= reply.status < 500, f"declared {size + off_by}, sent {size}: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "an object was stored"


def _cut_inside_first_chunk(body: bytes) -> bytes:
    """The body up to half of the first chunk's data: its header promised more, no final chunk."""
    data_start = body.index(b"\r\n") + 2
    return body[: data_start + len(CHUNKS[0]) // 2]


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_body_ending_inside_a_chunk_is_refused(s3, bucket, names, mode):
    """The request body (its Content-Length honest) ends halfway through the first chunk's data:
    the chunks decoded total less than declared, so a 4xx and no object under the key.

    An implementer whose body loop stops at the first empty read, or trusts whatever arrived
    before the end of the request, stores the 4096 bytes that came instead."""
    key = names.key()
    name = s3.wire.vendor("checksum-crc32")
    trailers = None if mode == "signed" else {name: chunked.checksum("crc32", b"".join(CHUNKS))}
    reply = chunked.put_chunked(
        s3.wire, bucket, key, CHUNKS, MODES[mode], trailers, tamper=_cut_inside_first_chunk
    )
    assert 400 <= reply.status < 500, f"body cut inside its first chunk: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "an object was stored"


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_chunks_of_64_kib_are_stored_whole(s3, bucket, names, mode):
    """Chunks of 64 KiB, the size of AWS's own streaming example, several of them: the request
    body is far larger than one network read, so a chunk's data arrives in pieces. The object
    stored is exactly the decoded bytes, x-amz-decoded-content-length of them. An implementer
    whose decoder expects a chunk whole in the bytes already read refuses or truncates it."""
    key = names.key()
    chunks = [bytes([65 + n]) * 65536 for n in range(4)] + [b"and a short last chunk"]
    body = b"".join(chunks)
    name = s3.wire.vendor("checksum-crc32")
    trailers = None if mode == "signed" else {name: chunked.checksum("crc32", body)}
    chunked.put_chunked(s3.wire, bucket, key, chunks, MODES[mode], trailers).assert_ok()
    got = s3.wire.get_object(bucket, key).assert_ok()
    assert got.body == body, f"{mode}: stored {len(got.body)} bytes, sent {len(body)}"
