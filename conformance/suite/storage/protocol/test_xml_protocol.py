"""XML responses: Content-Type application/xml, and <Error> without xmlns."""

from __future__ import annotations

import base64
import hashlib

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.setup_check import not_checked, require, require_ok

# every operation that answers an XML body, not only the listings: an implementer may set the
# type in the listing code and forget a handler that builds its own answer
XML_OPERATIONS = [
    "ListObjectsV2", "ListObjects", "ListBuckets", "GetBucketLocation", "CreateMultipartUpload",
    "CompleteMultipartUpload", "ListMultipartUploads", "ListParts", "CopyObject",
    "DeleteObjects",
]  # fmt: skip


def _xml_reply(s3, bucket, key, operation):
    """The answer of `operation` (its setup done first)."""
    if operation in ("ListObjectsV2", "ListObjects"):
        query = [("list-type", "2")] if operation == "ListObjectsV2" else []
        return s3.wire.request("GET", bucket, query=query)
    if operation == "ListBuckets":
        return s3.wire.request("GET")
    if operation == "GetBucketLocation":
        return s3.wire.get_bucket_location(bucket)
    if operation == "CreateMultipartUpload":
        return mp.create_upload(s3.wire, bucket, key)
    if operation == "ListMultipartUploads":
        mp.start(s3.wire, bucket, key)
        return mp.list_uploads(s3.wire, bucket)
    if operation in ("ListParts", "CompleteMultipartUpload"):
        upload = mp.start(s3.wire, bucket, key)
        etag = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"part"))
        if operation == "ListParts":
            return s3.wire.request("GET", bucket, key, query=[("uploadId", upload)])
        return mp.complete(s3.wire, bucket, key, upload, [(1, etag)])
    s3.wire.put_object(bucket, key, b"source").assert_ok()
    if operation == "CopyObject":
        return mp.copy_object(s3.wire, bucket, key + "-copy", f"/{bucket}/{key}")
    return s3.wire.delete_objects(bucket, [key])


@pytest.mark.rule("storage.protocol.xml-content-type")
@pytest.mark.parametrize("operation", XML_OPERATIONS)
def test_xml_responses_are_application_xml(s3, bucket, names, operation):
    """Successful XML responses carry Content-Type: application/xml."""
    reply = _xml_reply(s3, bucket, names.key(), operation)
    if reply.status == 501:  # an operation the target does not offer (yet): nothing to judge
        pytest.skip(f"N/A: {operation} answered 501 {reply.error_code}")
    require_ok(reply, operation)
    content_type = (reply.header("content-type") or "").split(";")[0].strip()
    assert content_type == "application/xml", f"{operation}: Content-Type {content_type!r}"


@pytest.mark.rule("storage.protocol.error-content-type")
def test_error_is_application_xml(s3, names):
    """An error with an XML body (a GetObject on a missing bucket) carries Content-Type:
    application/xml. (Which error it is is storage.errors.no-such-bucket's rule.)"""
    reply = s3.wire.get_object(names.bucket(), "k")
    require(reply.status >= 400 and reply.error_code, f"no XML error: {reply.describe()}")
    content_type = (reply.header("content-type") or "").split(";")[0].strip()
    assert content_type == "application/xml", f"Content-Type {content_type!r}"


def _error_of(s3, bucket: str, names, case: str):
    """An error answer of kind `case`, its status and code checked."""
    if case in ("no-such-bucket", "no-such-key"):
        target_bucket = names.bucket() if case == "no-such-bucket" else bucket
        reply = s3.wire.get_object(target_bucket, names.key())
        return _kind(reply, case, "NoSuchBucket" if case == "no-such-bucket" else "NoSuchKey")
    if case == "signature-does-not-match":
        prepared = s3.wire.prepare("GET", bucket, query=[("list-type", "2"), ("prefix", "a")])
        prepared.url = prepared.url.replace("prefix=a", "prefix=b")
        return _kind(s3.wire.send(prepared), case, "SignatureDoesNotMatch")
    if case == "malformed-xml":
        body = b"<Delete><Object><Key>k</Key></Object"
        md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
        reply = s3.wire.request("POST", bucket, query=[("delete", None)], body=body,
                                headers={"Content-MD5": md5})  # fmt: skip
        return _kind(reply, case, "MalformedXML")
    key = names.key()  # precondition-failed: If-Match of another ETag on an existing object
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.request("GET", bucket, key, headers={"If-Match": '"0123"'})
    return _kind(reply, case, "PreconditionFailed")


def _kind(reply, case: str, code: str):
    """`reply` if it is the error `code`; other rules judge the code, so a target answering
    otherwise leaves this case NOT-CHECKED (not an ERROR of the rule read here)."""
    if reply.error_code != code:
        not_checked(f"{case}: not {code}; {reply.describe()}")
    return reply


# one error of each kind the spec's Errors table names an S3 code for: an implementer may build
# the 404s' body in one place and the signature, XML and condition refusals in others
ERROR_KINDS = [
    "no-such-bucket", "no-such-key", "signature-does-not-match", "malformed-xml",
    "precondition-failed",
]  # fmt: skip


@pytest.mark.rule("storage.protocol.error-no-xmlns")
@pytest.mark.parametrize("case", ["no-such-bucket", "no-such-key", "precondition-failed"])
def test_error_has_no_xmlns(s3, bucket, names, case):
    """The top-level <Error> element of an error body has no xmlns attribute, whatever the
    error."""
    reply = _error_of(s3, bucket, names, case)
    start = reply.body.find(b"<Error")
    opening = reply.body[start : reply.body.find(b">", start) + 1]
    assert opening == b"<Error>", f"top-level tag: {opening!r}"


@pytest.mark.rule("storage.protocol.error-message")
@pytest.mark.parametrize("case", ERROR_KINDS)
def test_error_has_a_message(s3, bucket, names, case):
    """Every error body holds a non-empty Message beside its Code (S3's error responses), not
    only the errors one handler builds."""
    reply = _error_of(s3, bucket, names, case)
    assert (reply.error_message or "").strip(), f"{case}: empty Message; {reply.describe()}"


@pytest.mark.rule("storage.errors.no-such-bucket")
@pytest.mark.parametrize(
    "operation",
    ["ListObjectsV2", "PutObject", "HeadObject-body-free", "DeleteBucket", "DeleteObject"],
)
def test_missing_bucket_is_no_such_bucket(s3, names, operation):
    """Operations on a missing bucket answer 404 NoSuchBucket: the deletes too (a delete of a
    missing key is 204, of a missing bucket not; an implementer may make both idempotent)."""
    missing = names.bucket()
    if operation == "DeleteBucket":
        s3.wire.request("DELETE", missing).assert_error(404, "NoSuchBucket")
    elif operation == "DeleteObject":
        s3.wire.request("DELETE", missing, "k").assert_error(404, "NoSuchBucket")
    elif operation == "ListObjectsV2":
        s3.wire.list_objects_v2(missing).assert_error(404, "NoSuchBucket")
    elif operation == "PutObject":
        s3.wire.put_object(missing, "k", b"x").assert_error(404, "NoSuchBucket")
    else:
        assert s3.wire.request("HEAD", missing, "k").status == 404
