"""AbortMultipartUpload ends an upload; repeating it is no error."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp


@pytest.fixture
def aborted(s3, bucket, names):
    """An upload with one part, aborted once: (bucket, key, upload id, part ETag)."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    part = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"part"))
    mp.abort(s3.wire, bucket, key, upload).assert_ok()
    return bucket, key, upload, part


def _listed_ids(s3, bucket) -> list[str] | None:
    """Upload ids ListMultipartUploads lists; None where the target does not serve it (501
    NotImplemented, as the provider before 2022-07-13): the other halves still decide."""
    reply = mp.list_uploads(s3.wire, bucket)
    if reply.status == 501 and reply.error_code == "NotImplemented":
        return None
    reply.assert_ok()
    assert reply.xml is not None, reply.body[:200]
    return [u.findtext("UploadId") or "" for u in reply.xml.iter("Upload")]


@pytest.mark.rule("storage.abort-multipart-upload.aborts")
def test_abort_ends_upload(s3, aborted):
    """The rule's own words: an aborted upload is no longer listed and its parts are gone; and
    it can no longer be completed into an object. Which error a completion of an unknown upload
    carries is the completion's rule, not this one: any refusal will do here."""
    bucket, key, upload, part = aborted
    listed = _listed_ids(s3, bucket)
    assert listed is None or upload not in listed, f"aborted upload {upload} is still listed"
    parts = mp.list_parts(s3.wire, bucket, key, upload)
    kept = [] if parts.xml is None or parts.status >= 300 else list(parts.xml.iter("Part"))
    assert not kept, f"ListParts of the aborted upload still shows parts: {parts.body[:300]!r}"
    reply = mp.complete(s3.wire, bucket, key, upload, [(1, part)])
    assert reply.status >= 300, f"the aborted upload was completed: {reply.status}"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.abort-multipart-upload.repeat-no-error")
def test_repeated_abort_is_no_error(s3, aborted):
    """Aborting the same upload again raises no error."""
    bucket, key, upload, _ = aborted
    reply = mp.abort(s3.wire, bucket, key, upload)
    assert reply.error_code is None, f"{reply.status} {reply.error_code}"
    reply.assert_ok()


@pytest.mark.rule("storage.abort-multipart-upload.repeat-2xx")
@pytest.mark.parametrize("times", [2, 3])
def test_repeated_abort_is_2xx_without_error_body(s3, aborted, times):
    """Every repeated abort answers 2xx with no error body."""
    bucket, key, upload, _ = aborted
    for _ in range(times - 1):
        reply = mp.abort(s3.wire, bucket, key, upload)
        assert 200 <= reply.status < 300, f"repeat abort answered {reply.status}"
        assert b"<Error" not in reply.body, reply.body[:200]
