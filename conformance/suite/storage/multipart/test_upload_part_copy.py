"""UploadPartCopy: a part copied from an object, and a missing upload."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

SOURCE = bytes(range(256)) * 4
LIST_PARTS_RULE = "storage.list-parts.supported"  # ListParts, refused before it took effect


@pytest.fixture
def source(s3, bucket, names):
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=SOURCE)
    return bucket, key


@pytest.mark.rule("storage.upload-part-copy.supported")
@pytest.mark.parametrize(
    ("source_range", "expected"),
    [
        (None, SOURCE),
        ("bytes=10-99", SOURCE[10:100]),
        # inclusive at both ends: one byte (first == last), and the source's last byte
        ("bytes=0-0", SOURCE[:1]),
        ("bytes=1023-1023", SOURCE[1023:]),
    ],
    ids=["whole", "range", "first-byte", "last-byte"],
)
def test_part_copied_from_object(s3, source, names, source_range, expected):
    """UploadPartCopy copies the source (or a range of it) into a part of the upload."""
    bucket, src = source
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    reply = mp.upload_part_copy(s3.wire, bucket, key, upload, 1, f"/{bucket}/{src}", source_range)
    reply.assert_ok()
    root = reply.xml
    assert root is not None and root.findtext("ETag"), f"no ETag in {reply.body[:200]!r}"
    mp.complete(s3.wire, bucket, key, upload, [(1, root.findtext("ETag") or "")]).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == expected


@pytest.mark.rule("storage.upload-part-copy.no-such-upload")
def test_copy_to_missing_upload_is_no_such_upload(s3, source, names):
    """UploadPartCopy to an upload that does not exist answers 404 NoSuchUpload."""
    bucket, src = source
    reply = mp.upload_part_copy(
        s3.wire, bucket, names.key(), "ec-no-such-upload-0000", 1, f"/{bucket}/{src}"
    )
    reply.assert_error(404, "NoSuchUpload")


@pytest.mark.rule("storage.upload-part-copy.range-outside-source-refused")
@pytest.mark.parametrize(
    "source_range",
    [f"bytes=0-{len(SOURCE)}", "bytes=100-10", "bytes=100-"],
    ids=["ends-one-past-the-last-byte", "first-after-last", "open-ended"],
)
def test_range_outside_the_source_is_refused(s3, source, names, source_range, in_force):
    """A copy-source range is zero-based offsets of the source (AWS's UploadPartCopy page):
    one ending one byte past the source's last (the existing `last-byte` case,
    `bytes=1023-1023`, is the other side of that limit) or one whose first offset is after its
    last, or one without its last offset (the page: "The range value must use the form
    bytes=first-last"; an implementer may read `bytes=100-` as to the end, as a GET Range
    would) is refused, 400 or 416 as ceph/s3-tests' test_multipart_copy_invalid_range accepts, and
    the upload holds no part (read with ListParts, where it is in force: before 2023-03-16 the
    target refuses ListParts, and only the refusal is checked)."""
    bucket, src = source
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    reply = mp.upload_part_copy(s3.wire, bucket, key, upload, 1, f"/{bucket}/{src}", source_range)
    assert reply.status in (400, 416), f"{source_range} of {len(SOURCE)} bytes: {reply.describe()}"
    if in_force(LIST_PARTS_RULE):
        listed = mp.list_parts(s3.wire, bucket, key, upload).assert_ok().xml
        assert listed is not None and listed.find("Part") is None, "a refused copy stored a part"
    mp.abort(s3.wire, bucket, key, upload)
