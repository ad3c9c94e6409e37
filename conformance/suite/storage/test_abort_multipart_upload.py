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


@pytest.mark.rule("storage.abort-multipart-upload.aborts")
def test_abort_ends_upload(s3, aborted):
    """An aborted upload can no longer be completed and publishes nothing."""
    bucket, key, upload, part = aborted
    mp.complete(s3.wire, bucket, key, upload, [(1, part)]).assert_error(404, "NoSuchUpload")
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
