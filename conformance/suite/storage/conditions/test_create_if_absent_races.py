"""Create-if-absent under a race: of two writes with `If-None-Match: *`, exactly one wins.

HTTP's If-None-Match exists to prevent lost updates (RFC 9110 section 13.1.2); S3 documents
the race: the first conditional write to finish succeeds and a later one fails with 412
PreconditionFailed. An implementer who evaluates the condition when the request arrives, and
then stores the body whenever it has been read, answers 200 to both and the later body
silently replaces the one already acknowledged.

Each race is made certain, not likely: one write sends its headers and half its body
(`storage/support.py`), the other request runs to its end, then the first sends the rest. The write
that finished first wins (200); the other answers 412, or 409 where the target refused to run
it next to the other at all (the provider's TooMuchConcurrency, S3's ConditionalRequestConflict:
nothing stored); a read afterwards returns the winner's bytes.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireReply
from conformance.suite.setup_check import require_ok
from conformance.suite.storage.support import HalfSent

IF_ABSENT = {"If-None-Match": "*"}
CONFLICT_CODES = {"ConditionalRequestConflict", "TooMuchConcurrency"}
FIRST, SECOND = b"F" * 200_000, b"S" * 150_000  # several TCP segments each


def _judge(
    s3: Any,
    bucket: str,
    key: str,
    first: tuple[str, WireReply, bytes],
    last: tuple[str, WireReply, bytes],
) -> None:
    """`first` finished before `last`; exactly one wins and the key holds its bytes."""
    winners = [(name, body) for name, reply, body in (first, last) if reply.status == 200]
    answers = f"{first[0]} answered {first[1].describe()}; {last[0]} answered {last[1].describe()}"
    assert len(winners) == 1, f"exactly one create-if-absent write must win: {answers}"
    for name, reply, _ in (first, last):
        if reply.status == 200:
            continue
        lost = reply.status == 412 or (reply.status == 409 and reply.error_code in CONFLICT_CODES)
        assert lost, f"{name} lost the race but answered neither 412 nor a 409 conflict: {answers}"
    assert first[1].status != 412, (
        f"{first[0]} finished first, when nothing was stored yet, and answered 412: {answers}"
    )
    got = s3.wire.get_object(bucket, key)
    winner, body = winners[0]
    assert got.status == 200 and got.body == body, (
        f"after the race ({answers}) GetObject returns {got.status} with {len(got.body)} bytes, "
        f"not the {len(body)} bytes of the winner, {winner}"
    )


@pytest.mark.rule("storage.put-object.create-if-absent-race")
@pytest.mark.parametrize("order", ["later-finishes-first", "overlapping"])
def test_two_conditional_puts_one_winner(s3, bucket, names, order):
    """Two `If-None-Match: *` PUTs of a new key: the first to finish wins, the other is 412."""
    key = names.key()
    slow = HalfSent(s3.wire, "PUT", bucket, key, FIRST, headers=IF_ABSENT)
    try:
        if order == "later-finishes-first":
            quick = s3.wire.put_object(bucket, key, SECOND, IF_ABSENT)
            late = slow.finish()
            _judge(s3, bucket, key, ("the second PUT", quick, SECOND),
                   ("the first PUT (finished last)", late, FIRST))  # fmt: skip
        else:
            other = HalfSent(s3.wire, "PUT", bucket, key, SECOND, headers=IF_ABSENT)
            try:
                early = slow.finish()
                late = other.finish()
            finally:
                other.close()
            _judge(s3, bucket, key, ("the first PUT", early, FIRST),
                   ("the second PUT (finished last)", late, SECOND))  # fmt: skip
    finally:
        slow.close()
        s3.wire.request("DELETE", bucket, key)


def _upload(s3: Any, bucket: str, key: str, body: bytes) -> tuple[str, bytes]:
    """An upload of one part holding `body`: (upload id, completion document)."""
    upload = mp.start(s3.wire, bucket, key)
    part = require_ok(mp.upload_part(s3.wire, bucket, key, upload, 1, body), "UploadPart")
    return upload, mp.completion_body([(1, mp.etag(part))])


@pytest.mark.rule(
    "storage.complete-multipart-upload.create-if-absent-race",
    "storage.put-object.create-if-absent-race",
)
def test_completion_wins_over_a_slower_conditional_put(s3, bucket, names):
    """A conditional completion finishing while an `If-None-Match: *` PUT streams: the PUT
    finishes last and must lose."""
    key = names.key()
    upload, document = _upload(s3, bucket, key, SECOND)
    slow = HalfSent(s3.wire, "PUT", bucket, key, FIRST, headers=IF_ABSENT)
    try:
        headers = {"Content-Type": "application/xml", **IF_ABSENT}
        query = [("uploadId", upload)]
        done = s3.wire.request("POST", bucket, key, query=query, body=document, headers=headers)
        late = slow.finish()
        _judge(s3, bucket, key, ("CompleteMultipartUpload", done, SECOND),
               ("the PUT (finished last)", late, FIRST))  # fmt: skip
    finally:
        slow.close()
        mp.abort(s3.wire, bucket, key, upload)
        s3.wire.request("DELETE", bucket, key)


@pytest.mark.rule("storage.complete-multipart-upload.create-if-absent-race")
def test_conditional_completion_loses_to_a_put_that_finished_first(s3, bucket, names):
    """A completion with `If-None-Match: *` whose document is still arriving when a plain PUT
    of the key finishes: the object exists when the completion would publish, so 412."""
    key = names.key()
    upload, document = _upload(s3, bucket, key, SECOND)
    headers = {"Content-Type": "application/xml", **IF_ABSENT}
    slow = HalfSent(s3.wire, "POST", bucket, key, document, query=[("uploadId", upload)],
                    headers=headers)  # fmt: skip
    try:
        put = s3.wire.put_object(bucket, key, FIRST)
        late = slow.finish()
        _judge(s3, bucket, key, ("the plain PUT", put, FIRST),
               ("CompleteMultipartUpload (finished last)", late, SECOND))  # fmt: skip
    finally:
        slow.close()
        mp.abort(s3.wire, bucket, key, upload)
        s3.wire.request("DELETE", bucket, key)
