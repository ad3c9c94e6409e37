"""CompleteMultipartUpload: publishing, the -N ETag, ETag quoting, part order, XML declaration."""

from __future__ import annotations

import hashlib
import re

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.setup_check import require_ok

MIB = 1024 * 1024
FIRST = b"a" * (5 * MIB)  # the smallest non-last part a target must accept
TAIL = b"the last part may be smaller"


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def _uploaded(s3, bucket, key, *bodies):
    """Start an upload of these parts (numbered from 1); its id and the ETags as sent back."""
    upload = mp.start(s3.wire, bucket, key)
    etags = [
        mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, body))
        for n, body in enumerate(bodies, start=1)
    ]
    return upload, etags


def _completed_etag(reply):
    root = reply.assert_ok().xml
    assert root is not None, f"no XML in the completion reply: {reply.body[:200]!r}"
    return root.findtext("ETag") or ""


@pytest.mark.rule("storage.complete-multipart-upload.last-part-smaller")
def test_last_part_may_be_smaller(s3, bucket, names):
    """A completion whose last part is smaller than the others is accepted."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, FIRST, TAIL)
    mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])]).assert_ok()


@pytest.mark.rule("storage.complete-multipart-upload.publishes")
def test_completion_publishes_parts_joined(s3, bucket, names):
    """The completed object reads back as its parts joined."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, FIRST, TAIL)
    done = mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])])
    require_ok(done, "the completion (a smaller last part is last-part-smaller's rule)")
    got = s3.wire.get_object(bucket, key).assert_ok()
    assert got.body == FIRST + TAIL, f"read back {len(got.body)} bytes, not the parts joined"


@pytest.mark.rule("storage.complete-multipart-upload.etag-suffix")
@pytest.mark.parametrize("count", [1, 2])
def test_etag_ends_with_part_count(s3, bucket, names, count):
    """The completion's ETag ends with -N, N the number of parts."""
    key = names.key()
    bodies = [FIRST] * (count - 1) + [TAIL]
    upload, etags = _uploaded(s3, bucket, key, *bodies)
    reply = mp.complete(s3.wire, bucket, key, upload, list(enumerate(etags, start=1)))
    etag = _completed_etag(reply).strip('"')
    assert re.fullmatch(rf"[0-9a-f]{{32}}-{count}", etag), f"ETag {etag!r}"


@pytest.mark.rule("storage.complete-multipart-upload.etag-suffix-dated")
def test_head_object_returns_completion_etag(s3, bucket, names):
    """HeadObject of the completed object returns the same -N ETag as the completion."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, b"only part")
    completed = _completed_etag(mp.complete(s3.wire, bucket, key, upload, [(1, etags[0])]))
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert head.header("etag") == completed, f"{head.header('etag')!r} != {completed!r}"
    assert completed.strip('"').endswith("-1")


@pytest.mark.rule("storage.complete-multipart-upload.quotes-optional")
@pytest.mark.parametrize("quoted", [True, False], ids=["quoted", "bare"])
def test_part_etag_quotes_optional(s3, bucket, names, quoted):
    """Part ETags are accepted with or without their surrounding quotes."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, b"quoted or not")
    sent = f'"{etags[0].strip(chr(34))}"' if quoted else etags[0].strip('"')
    mp.complete(s3.wire, bucket, key, upload, [(1, sent)]).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"quoted or not"


@pytest.mark.rule("storage.complete-multipart-upload.xml-declaration")
def test_completion_body_with_xml_declaration(s3, bucket, names):
    """A completion body starting with an XML declaration is accepted."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, b"declared")
    mp.complete(s3.wire, bucket, key, upload, [(1, etags[0])], declaration=True).assert_ok()


@pytest.mark.rule("storage.complete-multipart-upload.sorts-parts")
def test_out_of_order_parts_are_accepted(s3, bucket, names):
    """Parts listed 2, 1 in the completion body are accepted."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, FIRST, TAIL)
    mp.complete(s3.wire, bucket, key, upload, [(2, etags[1]), (1, etags[0])]).assert_ok()


@pytest.mark.rule("storage.complete-multipart-upload.sorted-order")
def test_out_of_order_parts_are_joined_ascending(s3, bucket, names):
    """The object of a completion listing parts 2, 1 joins them as 1, 2."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, FIRST, TAIL)
    done = mp.complete(s3.wire, bucket, key, upload, [(2, etags[1]), (1, etags[0])])
    require_ok(done, "the completion listing parts 2, 1 (accepting it is sorts-parts' rule)")
    body = s3.wire.get_object(bucket, key).assert_ok().body
    assert _md5(body) == _md5(FIRST + TAIL), "parts not joined in ascending order"


@pytest.mark.rule("storage.complete-multipart-upload.invalid-part-order")
def test_out_of_order_parts_refused(s3, bucket, names):
    """Before parts were sorted, parts listed 2, 1 are refused with 400 InvalidPartOrder."""
    key = names.key()
    upload, etags = _uploaded(s3, bucket, key, FIRST, TAIL)
    reply = mp.complete(s3.wire, bucket, key, upload, [(2, etags[1]), (1, etags[0])])
    reply.assert_error(400, "InvalidPartOrder")
