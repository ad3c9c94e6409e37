"""UploadPart: 0-length parts, part-number limits, missing uploads and their error codes."""

from __future__ import annotations

import base64
import hashlib

import pytest

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_raw import send_head
from conformance.suite.setup_check import SetupFailed

Upload = tuple[str, str, str]  # bucket, key, upload id
EMPTY_MD5 = hashlib.md5(b"").hexdigest()


@pytest.fixture
def upload(s3, bucket, names):
    key = names.key()
    upload_id: str = mp.start(s3.wire, bucket, key)
    return bucket, key, upload_id


@pytest.mark.rule("storage.upload-part.zero-length")
def test_zero_length_part_is_accepted(s3, upload: Upload):
    """A part with an empty body is accepted and gets the MD5 of nothing as ETag."""
    reply = mp.upload_part(s3.wire, *upload, 1, b"")
    reply.assert_ok()
    assert (reply.header("etag") or "").strip('"') == EMPTY_MD5


@pytest.mark.rule("storage.upload-part.no-such-upload")
@pytest.mark.parametrize("which", ["made-up", "other-key"])
def test_missing_upload_is_no_such_upload(s3, upload: Upload, names, which):
    """UploadPart to an upload id the key does not have answers 404 NoSuchUpload."""
    bucket, key, upload_id = upload
    if which == "made-up":
        target_key, target_id = key, "ec-no-such-upload-0000"
    else:
        target_key, target_id = names.key(), upload_id
    reply = mp.upload_part(s3.wire, bucket, target_key, target_id, 1, b"x")
    reply.assert_error(404, "NoSuchUpload")


@pytest.mark.rule("storage.upload-part.not-no-such-bucket")
@pytest.mark.parametrize("part", ["1", "0"], ids=["missing-upload", "bad-part-number"])
def test_errors_on_existing_bucket_are_not_no_such_bucket(s3, bucket, names, part):
    """An UploadPart refused in an existing bucket never says NoSuchBucket."""
    reply = mp.upload_part(s3.wire, bucket, names.key(), "ec-no-such-upload-0000", part, b"x")
    assert 400 <= reply.status < 500, f"expected a 4xx; {reply.describe()}"
    assert reply.error_code != "NoSuchBucket", reply.describe()


@pytest.mark.rule("storage.upload-part.max-part-number")
@pytest.mark.parametrize(
    ("which", "refused"),
    [("max", False), ("max+1", True), ("one", False), ("zero", True)],
    ids=["at-limit", "over-by-one", "lowest", "under-by-one"],
)
def test_max_part_number(s3, upload: Upload, expected, which, refused):
    """Part numbers run 1 to 10000: both ends accepted, 0 and 10001 refused (no code named).

    Both sides of both ends: an implementer may start the range at 0.
    """
    number = {"max": expected.max_parts, "max+1": expected.max_parts + 1, "one": 1, "zero": 0}
    reply = mp.upload_part(s3.wire, *upload, number[which], b"x")
    if refused:
        assert 400 <= reply.status < 500, f"part {number[which]}: {reply.describe()}"
    else:
        reply.assert_ok()


@pytest.mark.rule("storage.upload-part.max-part-size")
def test_part_over_size_limit_refused_unread(s3, upload: Upload, expected):
    """A part declaring more than the size limit is refused before its body is sent."""
    bucket, key, upload_id = upload
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    length = str(expected.max_part_bytes + 1)
    # Expect: 100-continue asks whether the body may follow: 100 Continue is a FAIL; silence may
    # mean the bytes are counted as they come, untestable without sending them: ERROR, not FAIL
    headers = {"Content-Length": length, "Expect": "100-continue"}
    reply = send_head(s3.wire, "PUT", bucket, key, query=query, headers=headers)
    if reply is None:
        raise SetupFailed(f"not checked: declared {length} bytes, Expect: 100-continue: no answer")
    # the rule says refused; which code is not stated (EntityTooLarge and InvalidArgument occur)
    assert 400 <= reply.status < 500, f"expected a 4xx; {reply.describe()}"


@pytest.mark.rule("storage.upload-part.missing-content-length")
def test_part_without_content_length_is_411(s3, upload: Upload, as_of):
    """An UploadPart head with neither Content-Length nor chunked encoding: 411
    MissingContentLength (dates.md "Other facts": the code of a missing length), as PutObject;
    where ListParts is in force (2023-03-16), it shows no part recorded."""
    bucket, key, upload_id = upload
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    reply = send_head(s3.wire, "PUT", bucket, key, query=query, drop=["content-length"])
    assert reply is not None, "no answer in time: the target waited for a body"
    reply.assert_error(411, "MissingContentLength")
    if as_of.isoformat() < "2023-03-16":
        return
    listed = s3.wire.request("GET", bucket, key, query=[("uploadId", upload_id)]).assert_ok()
    assert b"<PartNumber>" not in listed.body, f"a part was recorded: {listed.body[:400]!r}"


@pytest.mark.rule("storage.upload-part.unequal-sizes-refused")
def test_unequal_part_refused_at_upload(s3, upload: Upload):
    """Before sizes were checked at completion, a part larger than the earlier ones is refused."""
    mp.upload_part(s3.wire, *upload, 1, b"a" * 10).assert_ok()
    mp.upload_part(s3.wire, *upload, 2, b"b" * 20).assert_error(400, "InvalidPart")


@pytest.mark.rule("storage.upload-part.unequal-sizes-refused")
def test_part_smaller_than_a_later_numbered_part_refused_at_upload(s3, upload: Upload):
    """The check looks at the parts after a part's number as well as before it: part 2 of 20
    bytes uploaded first, then part 1 of 10 bytes, which cannot be the last part while part 2
    exists: interface-spec.md has "all parts except possibly the last have the same size", and
    the provider's multipart page has the last part "the same or smaller than the other parts"
    (docs/decisions.md), so part 1 is refused. An implementer may compare a part with
    lower-numbered parts only, which holds while parts arrive in order."""
    mp.upload_part(s3.wire, *upload, 2, b"b" * 20).assert_ok()
    mp.upload_part(s3.wire, *upload, 1, b"a" * 10).assert_error(400, "InvalidPart")


@pytest.mark.rule("storage.upload-part.unequal-sizes-refused")
def test_equal_parts_and_smaller_last_part_accepted_in_any_order(s3, upload: Upload):
    """While sizes are checked per part, parts the spec allows are still accepted, whatever the
    upload order: equal parts, and a smaller last part (interface-spec.md, Object states:
    "all parts except possibly the last have the same size"; dates.md: checked per part until
    2022-10-28). Order 2, 4 (the short last part), 1, 3: each part meets an equal part or the
    short last one before or after it."""
    for number, size in ((2, 20), (4, 10), (1, 20), (3, 20)):
        mp.upload_part(s3.wire, *upload, number, b"p" * size).assert_ok()


@pytest.mark.rule("storage.upload-part.content-md5-mismatch")
def test_part_with_wrong_content_md5_is_bad_digest(s3, upload: Upload):
    """UploadPart whose Content-MD5 is another body's: 400 BadDigest; the same part with its
    own Content-MD5 is accepted."""
    body = b"part bytes checked by Content-MD5"
    wrong = base64.b64encode(hashlib.md5(b"other bytes").digest()).decode()
    reply = mp.upload_part(s3.wire, *upload, 1, body, headers={"Content-MD5": wrong})
    reply.assert_error(400, "BadDigest")
    right = base64.b64encode(hashlib.md5(body).digest()).decode()
    mp.upload_part(s3.wire, *upload, 1, body, headers={"Content-MD5": right}).assert_ok()
