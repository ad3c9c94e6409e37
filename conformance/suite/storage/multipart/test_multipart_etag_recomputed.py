"""Multipart ETags recomputed by the suite from the bytes it sent, with gaps in part numbers.

An implementer may hash the parts' hex ETag strings instead of their binary MD5s, take the last
part *number* for `-N` instead of the *count* of parts, or stop checking that a listed part's
ETag is the one stored: uploads numbered 1..N with the ETags the target returned cannot tell.
These complete parts 1, 3 and 7 and name ETags the target never returned.
"""

from __future__ import annotations

import hashlib

import pytest

from conformance.clients import s3_multipart as mp

MIB = 1024 * 1024
PARTS = {1: b"\x01" * (5 * MIB), 3: b"\x03" * (5 * MIB), 7: b"tail part, smaller"}


def _expected_etag(bodies: list[bytes]) -> str:
    """S3's multipart ETag: MD5 of the concatenated binary part MD5s, then -<number of parts>."""
    digest = hashlib.md5(b"".join(hashlib.md5(b).digest() for b in bodies)).hexdigest()
    return f'"{digest}-{len(bodies)}"'


def _upload(s3, bucket, key, parts):
    upload = mp.start(s3.wire, bucket, key)
    etags = {
        n: mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, body))
        for n, body in parts.items()
    }
    for n, body in parts.items():
        want = f'"{hashlib.md5(body).hexdigest()}"'
        assert etags[n] == want, f"UploadPart {n}: ETag {etags[n]!r}, the part's MD5 is {want}"
    return upload, etags


@pytest.mark.rule(
    "storage.complete-multipart-upload.etag-suffix",
    "storage.complete-multipart-upload.etag-suffix-dated",
    "storage.complete-multipart-upload.etag-md5-of-parts",
    "storage.complete-multipart-upload.publishes",
)
def test_etag_of_parts_1_3_7_is_md5_of_binary_md5s_dash_3(s3, bucket, names):
    """Parts 1, 3, 7: body joined in order; ETag md5(md5(p1)+md5(p3)+md5(p7))-3 everywhere."""
    key = names.key()
    upload, etags = _upload(s3, bucket, key, PARTS)
    reply = mp.complete(s3.wire, bucket, key, upload, sorted(etags.items())).assert_ok()
    want = _expected_etag(list(PARTS.values()))
    root = reply.xml
    assert root is not None
    got = root.findtext("ETag") or ""
    assert f'"{got.strip(chr(34))}"' == want, f"completion ETag {got!r}, recomputed {want}"
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert head.header("etag") == want, f"HeadObject ETag {head.header('etag')!r} != {want}"
    assert head.header("content-length") == str(sum(len(b) for b in PARTS.values()))
    got_body = s3.wire.get_object(bucket, key).assert_ok().body
    assert got_body == b"".join(PARTS.values()), "the object is not parts 1, 3, 7 joined"


@pytest.mark.rule("storage.complete-multipart-upload.etag-suffix")
def test_single_part_numbered_5_has_suffix_1(s3, bucket, names):
    """One part numbered 5: the suffix is the count (1), not the number (5)."""
    key = names.key()
    body = b"only part, numbered five"
    upload, etags = _upload(s3, bucket, key, {5: body})
    mp.complete(s3.wire, bucket, key, upload, [(5, etags[5])]).assert_ok()
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert head.header("etag") == _expected_etag([body])


@pytest.mark.rule("storage.complete-multipart-upload.publishes")
@pytest.mark.parametrize("wrong", ["other-part", "altered", "missing-number"])
def test_listed_part_with_wrong_etag_is_invalid_part(s3, bucket, names, wrong):
    """A listed part whose ETag or number matches no uploaded part: 400 InvalidPart, no object."""
    key = names.key()
    parts = {1: b"\x01" * (5 * MIB), 2: b"second part"}
    upload, etags = _upload(s3, bucket, key, parts)
    listed = dict(etags)
    if wrong == "other-part":
        listed[2] = etags[1]
    elif wrong == "altered":
        value = etags[2].strip('"')
        listed[2] = f'"{value[:-1]}{"0" if value[-1] != "0" else "1"}"'
    else:
        listed = {1: etags[1], 4: etags[2]}
    mp.complete(s3.wire, bucket, key, upload, sorted(listed.items())).assert_error(
        400, "InvalidPart"
    )
    s3.wire.request("HEAD", bucket, key).assert_error(404, None)
    # the upload is still there and completes with the right ETags
    mp.complete(s3.wire, bucket, key, upload, sorted(etags.items())).assert_ok()


@pytest.mark.rule("storage.complete-multipart-upload.publishes")
def test_reuploaded_part_replaces_the_earlier_one(s3, bucket, names):
    """Uploading part 1 again replaces it: the new ETag completes with the new bytes; the old
    ETag no longer names a part (InvalidPart)."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    old = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"first version"))
    new = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"second version"))
    assert new == f'"{hashlib.md5(b"second version").hexdigest()}"'
    mp.complete(s3.wire, bucket, key, upload, [(1, old)]).assert_error(400, "InvalidPart")
    mp.complete(s3.wire, bucket, key, upload, [(1, new)]).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"second version"


# three equal parts: before 2022-10-28 unequal ones are refused at UploadPart already
UNLISTED = {n: bytes([n]) * (5 * MIB) for n in (1, 2, 3)}


def _complete_without_part_3(s3, bucket, key):
    upload, etags = _upload(s3, bucket, key, UNLISTED)
    done = mp.complete(s3.wire, bucket, key, upload, [(1, etags[1]), (2, etags[2])])
    return done.assert_ok()


@pytest.mark.rule(
    "storage.complete-multipart-upload.etag-suffix",
    "storage.complete-multipart-upload.etag-suffix-dated",
    "storage.complete-multipart-upload.etag-md5-of-parts",
    "storage.complete-multipart-upload.publishes",
)
def test_part_left_out_of_the_completion_is_not_counted(s3, bucket, names):
    """Parts 1, 2 and 3 uploaded, 1 and 2 completed: the object is parts 1 and 2 and its ETag
    md5(md5(p1)+md5(p2))-2 (S3's CompleteMultipartUpload: the listed parts make the object).
    An implementer who hashes, or counts, every part the upload holds answers -3."""
    key = names.key()
    _complete_without_part_3(s3, bucket, key)
    want = _expected_etag([UNLISTED[1], UNLISTED[2]])
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert head.header("etag") == want, f"HeadObject ETag {head.header('etag')!r} != {want}"
    got = s3.wire.get_object(bucket, key).assert_ok().body
    assert got == UNLISTED[1] + UNLISTED[2], "the object is not parts 1 and 2 joined"


@pytest.mark.rule("storage.get-object.part-number")
def test_part_left_out_of_the_completion_has_no_part_number(s3, bucket, names):
    """The same object read by partNumber: it has 2 parts (x-amz-mp-parts-count 2 on part 1),
    and partNumber=3, the part left out, is a 4xx, not its bytes."""
    key = names.key()
    _complete_without_part_3(s3, bucket, key)
    one = s3.wire.request("GET", bucket, key, query=[("partNumber", "1")])
    assert one.status == 206 and one.body == UNLISTED[1], f"partNumber=1: {one.status}"
    count = one.header(s3.wire.vendor("mp-parts-count"))
    assert count == "2", f"parts count {count!r}, the completion listed 2"
    three = s3.wire.request("GET", bucket, key, query=[("partNumber", "3")])
    assert 400 <= three.status < 500, f"partNumber=3 (not completed): {three.status}"
