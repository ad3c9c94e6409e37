"""Conditional CompleteMultipartUpload: a met condition publishes, a failed one aborts."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.setup_check import require_refused

OLD, NEW = b"the object before", b"the completed upload"


@pytest.fixture
def pending(s3, bucket, names):
    """An existing object and an upload of one part to the same key: (bucket, key, id, etags)."""
    key = names.key()
    old_etag = mp.etag(s3.wire.put_object(bucket, key, OLD))
    upload = mp.start(s3.wire, bucket, key)
    part = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, NEW))
    return bucket, key, upload, old_etag, part


def _failing(old_etag):
    """Headers of each failing condition against an object whose ETag is `old_etag`."""
    return {
        "if-match": {"If-Match": '"00000000000000000000000000000000"'},
        "if-none-match": {"If-None-Match": old_etag},
        "if-none-match-star": {"If-None-Match": "*"},
    }


FAILING = ["if-match", "if-none-match", "if-none-match-star"]


@pytest.mark.rule("storage.complete-multipart-upload.condition-met")
@pytest.mark.parametrize("header", ["If-Match", "If-None-Match"])
def test_met_condition_publishes(s3, pending, header):
    """Completion whose condition holds publishes the upload."""
    bucket, key, upload, old_etag, part = pending
    value = old_etag if header == "If-Match" else '"00000000000000000000000000000000"'
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, part)], headers={header: value})
    reply.assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == NEW


@pytest.mark.rule("storage.complete-multipart-upload.condition-fails-412")
@pytest.mark.parametrize("case", FAILING)
def test_failed_condition_is_412(s3, pending, case):
    """Completion whose condition fails answers 412 PreconditionFailed; the object stays."""
    bucket, key, upload, old_etag, part = pending
    headers = _failing(old_etag)[case]
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, part)], headers=headers)
    reply.assert_error(412, "PreconditionFailed")
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD


@pytest.mark.rule("storage.complete-multipart-upload.condition-fails-aborts")
def test_failed_condition_aborts_upload(s3, pending):
    """After a failed completion condition the upload is no longer listed or completable."""
    bucket, key, upload, old_etag, part = pending
    headers = {"If-None-Match": old_etag}
    failed = mp.complete(s3.wire, bucket, key, upload, [(1, part)], headers=headers)
    require_refused(failed, "the completion with a failing If-None-Match")
    listed = mp.list_uploads(s3.wire, bucket, prefix=key).assert_ok()
    root = listed.xml
    ids = [u.findtext("UploadId") for u in root.iter("Upload")] if root is not None else []
    assert upload not in ids, "the upload is still listed after the failed completion"
    retry = mp.complete(s3.wire, bucket, key, upload, [(1, part)])
    # not completable: which error a gone upload answers is aborted-upload-gone's rule
    assert retry.status >= 300, f"completion after abort: {retry.describe()}"
    assert s3.wire.get_object(bucket, key).assert_ok().body == OLD


@pytest.mark.rule("storage.complete-multipart-upload.aborted-upload-gone")
@pytest.mark.parametrize("operation", ["upload-part", "list-parts", "complete", "abort"])
def test_aborted_upload_is_gone(s3, pending, operation):
    """After a failed condition: UploadPart, ListParts, Complete → 404 NoSuchUpload; Abort → 2xx."""
    bucket, key, upload, old_etag, part = pending
    failed = mp.complete(
        s3.wire, bucket, key, upload, [(1, part)], headers={"If-None-Match": old_etag}
    )
    require_refused(failed, "the completion with a failing If-None-Match")
    if operation == "upload-part":
        reply = mp.upload_part(s3.wire, bucket, key, upload, 2, b"more")
    elif operation == "list-parts":
        reply = mp.list_parts(s3.wire, bucket, key, upload)
    elif operation == "complete":
        reply = mp.complete(s3.wire, bucket, key, upload, [(1, part)])
    else:
        mp.abort(s3.wire, bucket, key, upload).assert_ok()
        return
    reply.assert_error(404, "NoSuchUpload")
