"""A conditional PUT whose object disappears while its body streams: the condition is judged
against the key as it is when the write would take effect, where it holds no object.

An implementer may check the condition only when the request arrives (the object was there,
the ETag matched) and then store the body whatever happened since, or check it again at the
end with the rules of an existing object only. One request sends its headers and half its
body (`storage/support.py`), the object is deleted, then the rest of the body goes.
S3 then writes nothing and answers 404 NoSuchKey (or 409 ConditionalRequestConflict for a
conflicting operation during the upload). HTTP does not decide it: RFC 9110 section 13.2.1 has
the preconditions evaluated "just before it would process the request content", when the object
was still there and the ETag matched, so both cases are S3's semantics, SHOULD
(`storage.put-object.if-match-missing-404`; docs/decisions.md "S3 semantics the spec relies on":
MUST only where HTTP itself decides, as for If-Match on a key already missing).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireReply
from conformance.suite.storage.support import HalfSent

OLD, NEW = b"the stored object", b"N" * 150_000  # several TCP segments
CONFLICT_CODES = {"ConditionalRequestConflict", "TooMuchConcurrency"}


def _put_while_deleted(s3: Any, bucket: str, key: str) -> WireReply:
    """PUT If-Match <the object's ETag>; the object is deleted while the body is half sent."""
    etag = mp.etag(s3.wire.put_object(bucket, key, OLD))
    slow = HalfSent(s3.wire, "PUT", bucket, key, NEW, headers={"If-Match": etag})
    try:
        s3.wire.request("DELETE", bucket, key).assert_ok()
        return slow.finish()
    finally:
        slow.close()


@pytest.mark.rule("storage.put-object.if-match-missing-404")
def test_if_match_put_whose_object_was_deleted_writes_nothing(s3, bucket, names):
    """The If-Match PUT finishes after its object was deleted: refused, and the key stays
    empty (a 200 here stored a body under a condition that no longer held; S3's semantics,
    not HTTP's, hence SHOULD: hostile round 13)."""
    key = names.key()
    reply = _put_while_deleted(s3, bucket, key)
    assert not 200 <= reply.status < 300, (
        f"If-Match PUT whose object was deleted mid-body: {reply.describe()}; expected a refusal"
    )
    after = s3.wire.get_object(bucket, key)
    assert after.status == 404, f"the refused PUT left an object: GET answered {after.status}"


@pytest.mark.rule("storage.put-object.if-match-missing-404")
def test_if_match_put_whose_object_was_deleted_is_404(s3, bucket, names):
    """The same PUT answers as If-Match on a missing key does, 404 NoSuchKey (or S3's 409 for
    a conflicting operation during the upload), not 412."""
    reply = _put_while_deleted(s3, bucket, names.key())
    if reply.status == 409:
        assert reply.error_code in CONFLICT_CODES, f"409 of another code: {reply.describe()}"
        return
    reply.assert_error(404, "NoSuchKey")
