"""CopyObject: source forms, missing source or target, version-id headers, multipart sources."""

from __future__ import annotations

import email.utils
import hashlib
from urllib.parse import quote

import pytest

from conformance.clients import s3_multipart as mp

BODY = b"bytes worth copying " * 50


@pytest.fixture
def source(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.copy-object.leading-slash")
def test_copy_source_with_leading_slash(s3, source, names):
    """A copy source of the form /bucket/key is accepted."""
    bucket, key = source
    mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{key}").assert_ok()


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_has_source_bytes(s3, source, names):
    """The copy reads back byte-identical to its source."""
    bucket, key = source
    target = names.key()
    reply = mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    root = reply.xml
    assert root is not None and root.tag == "CopyObjectResult", reply.body[:200]
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.missing-source-key")
def test_missing_source_key_is_no_such_key(s3, bucket, names):
    """Copying from a key that does not exist answers 404 NoSuchKey."""
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{names.key()}")
    reply.assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.copy-object.missing-source-bucket")
def test_missing_source_bucket_is_no_such_bucket(s3, bucket, names):
    """Copying from a bucket that does not exist answers 404 NoSuchBucket."""
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{names.bucket()}/{names.key()}")
    reply.assert_error(404, "NoSuchBucket")


@pytest.mark.rule("storage.copy-object.missing-source-key")
def test_source_key_not_utf8_is_refused(s3, source, names):
    """A copy source whose key decodes to bytes that are not UTF-8 (`%FF`) names no object
    (AWS: a key is a sequence of Unicode characters, stored as UTF-8): the copy fails with a
    4xx, as a missing source does, and writes nothing (status not fixed: 404 NoSuchKey or a
    400 both hold; a 5xx does not)."""
    bucket, key = source
    target = names.key()
    reply = mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}%FF")
    assert 400 <= reply.status < 500, reply.describe()
    assert s3.wire.get_object(bucket, target).status == 404, "the refused copy wrote"


@pytest.mark.rule("storage.copy-object.missing-destination-bucket")
def test_missing_destination_bucket_is_no_such_bucket(s3, source, names):
    """Copying into a bucket that does not exist answers 404 NoSuchBucket."""
    bucket, key = source
    reply = mp.copy_object(s3.wire, names.bucket(), names.key(), f"/{bucket}/{key}")
    reply.assert_error(404, "NoSuchBucket")


@pytest.mark.rule("storage.copy-object.version-id-headers")
@pytest.mark.parametrize("header", ["version-id", "copy-source-version-id"])
def test_copy_reports_version_ids(s3, source, names, header):
    """The copy answer carries x-vendor-version-id and x-vendor-copy-source-version-id."""
    bucket, key = source
    reply = mp.copy_object(s3.wire, bucket, names.key(), f"/{bucket}/{key}").assert_ok()
    name = s3.wire.vendor(header)
    assert reply.header(name), f"no {name} header in {dict(reply.headers)}"


@pytest.mark.rule("storage.copy-object.multipart-source")
def test_multipart_object_can_be_copied(s3, bucket, names):
    """An object created by a multipart upload can be copied, bytes intact."""
    key, target = names.key(), names.key()
    upload = mp.start(s3.wire, bucket, key)
    part = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, BODY))
    mp.complete(s3.wire, bucket, key, upload, [(1, part)]).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


# --- folded from test_copies_and_deletes_checked.py (its copy half) ---
# Copies checked against what the suite sent, not only "it answered 200": an implementer may
# copy the right bytes under a wrong ETag, lose the metadata the default `COPY` directive
# keeps, not decode a URL-encoded copy source, or copy from the destination onto itself. Each
# case recomputes the expected answer from the bytes and names it sent.


def _md5(body: bytes) -> str:
    return f'"{hashlib.md5(body).hexdigest()}"'


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_etag_is_md5_of_the_copied_bytes(s3, bucket, names):
    """The copy's result ETag and its HeadObject ETag are the MD5 of the source bytes; the
    source is unchanged."""
    source, target = names.key(), names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    reply = mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    root = reply.xml
    assert root is not None
    assert root.findtext("ETag") == _md5(BODY), reply.body[:300]
    assert root.findtext("LastModified"), "CopyObjectResult has no LastModified"
    head = s3.wire.request("HEAD", bucket, target).assert_ok()
    assert head.header("etag") == _md5(BODY)
    assert head.header("content-length") == str(len(BODY))
    assert s3.wire.get_object(bucket, source).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_keeps_content_type_and_user_metadata(s3, bucket, names):
    """Without a directive (COPY) the copy keeps the source's Content-Type and user metadata."""
    source, target = names.key(), names.key()
    meta = s3.wire.vendor("meta-colour")
    headers = {"Content-Type": "text/x-conformance", meta: "teal"}
    s3.wire.put_object(bucket, source, BODY, headers=headers).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    head = s3.wire.request("HEAD", bucket, target).assert_ok()
    assert head.header("content-type") == "text/x-conformance"
    assert head.header(meta) == "teal", dict(head.headers)


@pytest.mark.rule("storage.copy-object.leading-slash", "storage.copy-object.round-trip")
def test_copy_source_is_url_decoded(s3, bucket, names):
    """A URL-encoded copy source (space, `+`, `é`) names the decoded key."""
    source = names.key() + "/a b+é"
    target = names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    encoded = f"/{bucket}/{quote(source, safe='/')}"
    mp.copy_object(s3.wire, bucket, target, encoded).assert_ok()
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_overwrites_an_existing_destination(s3, bucket, names):
    """Copying onto an existing key replaces its bytes and ETag."""
    source, target = names.key(), names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    s3.wire.put_object(bucket, target, b"older destination").assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    got = s3.wire.get_object(bucket, target).assert_ok()
    assert got.body == BODY and got.header("etag") == _md5(BODY)


@pytest.mark.rule("storage.copy-object.multipart-source")
def test_copy_of_two_part_object_has_all_bytes(s3, bucket, names):
    """A two-part multipart object copies whole (both parts, in order)."""
    key, target = names.key(), names.key()
    first, tail = b"\x05" * (5 * 1024 * 1024), b"the tail part"
    upload = mp.start(s3.wire, bucket, key)
    etags = [
        mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, body))
        for n, body in ((1, first), (2, tail))
    ]
    mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])]).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    got = s3.wire.get_object(bucket, target).assert_ok().body
    assert len(got) == len(first) + len(tail) and got == first + tail


BINDINGS_MULTIPART_SINCE = "2022-11-21"  # storage.bindings.multipart


@pytest.mark.rule("storage.copy-object.multipart-source")
def test_copy_of_object_completed_through_the_binding(s3, bucket, names, bucket_binding, as_of):
    """An object made by a multipart upload completed through the runtime binding (the same
    buckets, spec: multipart upload bindings exist) is a multipart-created object too: CopyObject
    over S3 copies it, bytes intact. Such an object carries a multipart ETag but, unlike an S3
    completion, no record of its part sizes; a copy that read them unguarded would answer 500."""
    if as_of.isoformat() < BINDINGS_MULTIPART_SINCE:
        pytest.skip(f"N/A: multipart bindings are not in force before {BINDINGS_MULTIPART_SINCE}")
    key, target = names.key(), names.key()
    upload_id = str(bucket_binding.create_multipart_upload(key).value()["uploadId"])
    part = bucket_binding.upload_part(key, upload_id, 1, BODY).value()
    bucket_binding.complete(key, upload_id, [part]).value()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


# the headers S3 stores with an object and answers on every read (its system-defined metadata
# whose values the writer sets): every one, not only Content-Type
STORED_HEADERS = {
    "Content-Type": "text/x-conformance",
    "Cache-Control": "max-age=60, private",
    "Content-Disposition": 'attachment; filename="c.bin"',
    "Content-Encoding": "compress",  # a registered coding HTTP clients do not undo themselves
    "Content-Language": "en-GB",
}
REPLACED_HEADERS = {
    "Content-Type": "text/x-replaced",
    "Cache-Control": "no-store",
    "Content-Disposition": "inline",
    "Content-Encoding": "aes128gcm",  # RFC 8188's, which no HTTP client undoes either
    "Content-Language": "fr-CH",
}
EXPIRES = ("Wed, 21 Oct 2026 07:28:00 GMT", "Thu, 01 Jan 2032 00:00:00 GMT")


def _stored(
    reply, headers: dict[str, str], expires: str, meta: str, colour: str
) -> dict[str, str | None]:
    """What of `headers`, Expires (an instant) and the custom header differs from what was sent."""
    wrong = {n: reply.header(n) for n, v in headers.items() if reply.header(n) != v}
    got = reply.header("expires")
    try:
        same = got is not None and email.utils.parsedate_to_datetime(
            got
        ) == email.utils.parsedate_to_datetime(expires)
    except (TypeError, ValueError):
        same = False
    if not same:
        wrong["Expires"] = got
    if reply.header(meta) != colour:
        wrong[meta] = reply.header(meta)
    return wrong


@pytest.mark.rule("storage.copy-object.keeps-metadata")
@pytest.mark.parametrize("directive", ["COPY", "REPLACE"])
def test_copy_carries_every_stored_header(s3, bucket, names, directive):
    """Without a directive (COPY) the copy answers GET and HEAD with every header stored with
    the source: Content-Type, Cache-Control, Content-Disposition, Content-Encoding,
    Content-Language, Expires and its custom metadata. With REPLACE it answers with the ones
    the copy request sent instead. An implementer may copy only the Content-Type and custom
    metadata, or under REPLACE take the request's custom metadata but keep the source's
    other headers."""
    source, target = names.key(), names.key()
    meta = s3.wire.vendor("meta-colour")
    sent = STORED_HEADERS | {"Expires": EXPIRES[0], meta: "teal"}
    s3.wire.put_object(bucket, source, BODY, headers=sent).assert_ok()
    wanted, expires, colour = STORED_HEADERS, EXPIRES[0], "teal"
    extra: dict[str, str] = {}
    if directive == "REPLACE":
        wanted, expires, colour = REPLACED_HEADERS, EXPIRES[1], "plum"
        extra = REPLACED_HEADERS | {"Expires": expires, meta: colour}
        extra[s3.wire.vendor("metadata-directive")] = "REPLACE"
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}", headers=extra).assert_ok()
    for method in ("HEAD", "GET"):
        reply = s3.wire.request(method, bucket, target).assert_ok()
        wrong = _stored(reply, wanted, expires, meta, colour)
        assert not wrong, f"{directive} copy, {method}: {wrong}; wanted {wanted}, {expires}"
