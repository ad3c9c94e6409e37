"""CompleteMultipartUpload checks part sizes: the 5 MiB minimum and equal non-last parts."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp


@pytest.mark.rule("storage.complete-multipart-upload.entity-too-small")
def test_small_non_last_part_is_entity_too_small(s3, bucket, names):
    """A non-last part under the minimum size fails completion with 400 EntityTooSmall."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    etags = [mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, b"s" * 1024)) for n in (1, 2)]
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])])
    reply.assert_error(400, "EntityTooSmall")


@pytest.mark.rule(
    "storage.complete-multipart-upload.sizes-checked-at-completion",
    "storage.complete-multipart-upload.unequal-parts-invalid-part",
)
def test_unequal_parts_accepted_then_refused_at_completion(s3, bucket, names, expected):
    """Unequal non-last parts upload fine; completion refuses them with 400 InvalidPart."""
    key = names.key()
    size = expected.min_part_bytes
    upload = mp.start(s3.wire, bucket, key)
    bodies = [b"a" * size, b"b" * (size + 1), b"c"]
    etags = []
    for number, body in enumerate(bodies, start=1):
        reply = mp.upload_part(s3.wire, bucket, key, upload, number, body)
        etags.append(mp.etag(reply))  # accepted at UploadPart, whatever its size
    reply = mp.complete(s3.wire, bucket, key, upload, list(enumerate(etags, start=1)))
    reply.assert_error(400, "InvalidPart")
