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


# 2, 1 and also 1, 3, 2: a check that compares only the first and last numbers (or only the
# first two) takes 1, 3, 2 for ascending and joins the parts as listed
ORDERS = {"2,1": [2, 1], "1,3,2": [1, 3, 2]}
SECOND = b"b" * (5 * MIB)


def _listed_out_of_order(s3, bucket, key, order):
    """An upload of len(order) parts (all but the last 5 MiB, each its own bytes), completed
    with the parts listed in `order`: (the completion's reply, the parts joined ascending)."""
    bodies = [*[FIRST, SECOND][: len(order) - 1], TAIL]
    upload, etags = _uploaded(s3, bucket, key, *bodies)
    reply = mp.complete(s3.wire, bucket, key, upload, [(n, etags[n - 1]) for n in order])
    return reply, b"".join(bodies)


@pytest.mark.rule("storage.complete-multipart-upload.sorts-parts")
@pytest.mark.parametrize("order", list(ORDERS))
def test_out_of_order_parts_are_accepted(s3, bucket, names, order):
    """Parts listed out of order in the completion body are accepted."""
    reply, _ = _listed_out_of_order(s3, bucket, names.key(), ORDERS[order])
    reply.assert_ok()


@pytest.mark.rule("storage.complete-multipart-upload.sorted-order")
@pytest.mark.parametrize("order", list(ORDERS))
def test_out_of_order_parts_are_joined_ascending(s3, bucket, names, order):
    """The object of a completion listing parts out of order joins them ascending."""
    key = names.key()
    done, joined = _listed_out_of_order(s3, bucket, key, ORDERS[order])
    require_ok(done, f"the completion listing parts {order} (accepting it is sorts-parts' rule)")
    body = s3.wire.get_object(bucket, key).assert_ok().body
    assert _md5(body) == _md5(joined), f"parts listed {order} not joined in ascending order"


@pytest.mark.rule("storage.complete-multipart-upload.invalid-part-order")
@pytest.mark.parametrize("order", list(ORDERS))
def test_out_of_order_parts_refused(s3, bucket, names, order):
    """Before parts were sorted, parts listed out of order are refused with 400
    InvalidPartOrder."""
    key = names.key()
    reply, _ = _listed_out_of_order(s3, bucket, key, ORDERS[order])
    reply.assert_error(400, "InvalidPartOrder")
