"""CompleteMultipartUpload checks part sizes: the 5 MiB minimum and equal non-last parts."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.setup_check import require_ok


@pytest.mark.rule("storage.complete-multipart-upload.entity-too-small")
def test_small_non_last_part_is_entity_too_small(s3, bucket, names):
    """A non-last part under the minimum size fails completion with 400 EntityTooSmall."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    etags = [mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, b"s" * 1024)) for n in (1, 2)]
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])])
    reply.assert_error(400, "EntityTooSmall")


# which non-last part differs: the second (of three), or the third of four (the second equal
# to the first), which a check that compares only the first two parts lets through
UNEQUAL = {"second": (0, 1, 0), "third-of-four": (0, 0, 1, 0)}


def _unequal_upload(s3, bucket, key, size, shape=UNEQUAL["second"]):
    """An upload of parts size + extra (the last 1 byte) for each extra of `shape` but the last:
    (upload id, the UploadPart replies)."""
    upload = mp.start(s3.wire, bucket, key)
    bodies = [bytes([97 + n]) * (size + extra) for n, extra in enumerate(shape[:-1])] + [b"z"]
    replies = [
        mp.upload_part(s3.wire, bucket, key, upload, number, body)
        for number, body in enumerate(bodies, start=1)
    ]
    return upload, replies


def _complete(s3, bucket, key, upload, replies):
    parts = [(n, (r.header("etag") or "")) for n, r in enumerate(replies, start=1)]
    return mp.complete(s3.wire, bucket, key, upload, parts)


@pytest.mark.rule("storage.complete-multipart-upload.sizes-checked-at-completion")
def test_unequal_parts_accepted_then_refused_at_completion(s3, bucket, names, expected):
    """Unequal non-last parts upload fine; completion refuses them (a 4xx: which code is
    unequal-parts-invalid-part's rule)."""
    key = names.key()
    upload, replies = _unequal_upload(s3, bucket, key, expected.min_part_bytes)
    for reply in replies:
        reply.assert_ok()
    reply = _complete(s3, bucket, key, upload, replies)
    assert 400 <= reply.status < 500, f"unequal parts completed: {reply.describe()}"


@pytest.mark.rule("storage.complete-multipart-upload.unequal-parts-invalid-part")
@pytest.mark.parametrize("shape", list(UNEQUAL))
def test_unequal_parts_completion_is_invalid_part(s3, bucket, names, expected, shape):
    """Completion with non-trailing parts of unequal size answers 400 InvalidPart, whichever
    non-last part differs."""
    key = names.key()
    upload, replies = _unequal_upload(s3, bucket, key, expected.min_part_bytes, UNEQUAL[shape])
    for number, reply in enumerate(replies, start=1):
        # refusing a part at upload is sizes-checked-at-completion's rule
        require_ok(reply, f"UploadPart {number}")
    _complete(s3, bucket, key, upload, replies).assert_error(400, "InvalidPart")


def _sized_upload(s3, bucket, key, sizes):
    """An upload of parts of these sizes (numbered from 1): (upload id, the UploadPart replies)."""
    upload = mp.start(s3.wire, bucket, key)
    replies = [
        mp.upload_part(s3.wire, bucket, key, upload, number, bytes([96 + number]) * size)
        for number, size in enumerate(sizes, start=1)
    ]
    return upload, replies


@pytest.mark.rule("storage.complete-multipart-upload.sizes-checked-at-completion")
@pytest.mark.parametrize("count", [2, 3])
def test_parts_all_of_one_size_complete(s3, bucket, names, expected, count):
    """Parts all of the minimum size, the last as large as the others, complete: the check at
    completion refuses unequal parts, not a last part of the same size (all parts except
    possibly the last have the same size)."""
    key = names.key()
    upload, replies = _sized_upload(s3, bucket, key, [expected.min_part_bytes] * count)
    for number, reply in enumerate(replies, start=1):
        require_ok(reply, f"UploadPart {number}")
    _complete(s3, bucket, key, upload, replies).assert_ok()


# the last part one byte larger than the others: after one part, or after two
LARGER_LAST = {"two-parts": (0, 1), "three-parts": (0, 0, 1)}


@pytest.mark.rule("storage.complete-multipart-upload.sizes-checked-at-completion")
@pytest.mark.parametrize("shape", list(LARGER_LAST))
def test_last_part_larger_than_the_others_refused(s3, bucket, names, expected, shape):
    """A last part larger than the others is refused at completion with a 4xx: the provider's
    multipart page has the last part "the same or smaller than the other parts" (which code is
    not stated there, so none is asserted)."""
    key = names.key()
    sizes = [expected.min_part_bytes + extra for extra in LARGER_LAST[shape]]
    upload, replies = _sized_upload(s3, bucket, key, sizes)
    for number, reply in enumerate(replies, start=1):
        require_ok(reply, f"UploadPart {number}")
    reply = _complete(s3, bucket, key, upload, replies)
    assert 400 <= reply.status < 500, f"a last part larger than the others: {reply.describe()}"
