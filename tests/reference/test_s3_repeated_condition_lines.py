"""A conditional header sent as two lines is read as the one list SigV4 signed (hostile round 13).

If-None-Match and If-Match are lists (RFC 9110 sections 13.1.1-2): two lines of one of them are
one comma-joined value (section 5.3), the value SigV4 signs. The reference read the first line
alone, so `If-None-Match: "other"` then `If-None-Match: *` on a PutObject overwrote the object
the `*` protects (200, the old bytes lost), a CopyObject copied a source its
`x-amz-copy-source-if-none-match` matched, and a GET whose second line named the ETag was
served 200 instead of 304. The joined list reads as on one line. Two lines of an
If-(Un)Modified-Since date are no date: the header is ignored (sections 13.1.3-4: "more than
one member", "appears to be a list of dates"); the first line alone was applied.

As test_s3_repeated_header_lines.py: what a header sent twice means comes from the RFC, no AWS
or R2 page, so reference tests rather than conformance rules.
"""

from __future__ import annotations

from reference.test_s3_repeated_header_lines import _send_split
from reliability.rawhttp import statuses

from conformance.clients.s3 import WireClient

OLD, NEW = b"the bytes If-None-Match: * protects", b"bytes that must not replace them"
PAST = "Mon, 01 Jan 2001 00:00:00 GMT"
FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT"


def _etag(wire: WireClient, bucket: str, key: str) -> str:
    etag = wire.request("HEAD", bucket, key).assert_ok().header("etag")
    assert etag is not None
    return etag


def test_put_if_none_match_star_on_a_second_line_is_412(wire: WireClient, bucket: str) -> None:
    wire.put_object(bucket, "k", OLD).assert_ok()
    headers = {"If-None-Match": '"not-the-etag",*'}
    prepared = wire.prepare("PUT", bucket, "k", headers=headers, body=NEW)
    raw = _send_split(prepared, "if-none-match")
    assert statuses(raw) == [412], raw[:400]
    assert wire.get_object(bucket, "k").assert_ok().body == OLD


def test_put_if_none_match_on_two_lines_is_kept_on_a_new_key(wire: WireClient, bucket: str) -> None:
    """The joined list still lets a create-if-absent write through where nothing is stored."""
    headers = {"If-None-Match": '"not-the-etag",*'}
    prepared = wire.prepare("PUT", bucket, "new", headers=headers, body=NEW)
    assert statuses(_send_split(prepared, "if-none-match")) == [200]
    assert wire.get_object(bucket, "new").assert_ok().body == NEW


def test_copy_source_if_none_match_on_a_second_line_is_412(wire: WireClient, bucket: str) -> None:
    wire.put_object(bucket, "src", NEW).assert_ok()
    wire.put_object(bucket, "dst", OLD).assert_ok()
    name = "x-amz-copy-source-if-none-match"
    headers = {"x-amz-copy-source": f"/{bucket}/src", name: f'"other",{_etag(wire, bucket, "src")}'}
    prepared = wire.prepare("PUT", bucket, "dst", headers=headers)
    raw = _send_split(prepared, name)
    assert statuses(raw) == [412], raw[:400]
    assert wire.get_object(bucket, "dst").assert_ok().body == OLD


def test_get_if_none_match_naming_the_etag_on_a_second_line_is_304(
    wire: WireClient, bucket: str
) -> None:
    wire.put_object(bucket, "k", OLD).assert_ok()
    headers = {"If-None-Match": f'"other",{_etag(wire, bucket, "k")}'}
    prepared = wire.prepare("GET", bucket, "k", headers=headers)
    assert statuses(_send_split(prepared, "if-none-match")) == [304]


def test_two_if_unmodified_since_lines_are_no_date(wire: WireClient, bucket: str) -> None:
    """A PUT whose first line alone would fail (a date long before the object) is written."""
    wire.put_object(bucket, "k", OLD).assert_ok()
    value = f"{PAST},{FUTURE}"
    prepared = wire.prepare("PUT", bucket, "k", headers={"If-Unmodified-Since": value}, body=NEW)
    raw = _send_split(prepared, "if-unmodified-since", [PAST, FUTURE])
    assert statuses(raw) == [200], raw[:400]
    assert wire.get_object(bucket, "k").assert_ok().body == NEW


def test_delete_if_match_naming_the_etag_on_a_second_line_deletes(
    wire: WireClient, bucket: str
) -> None:
    """DeleteObject's If-Match list is the joined one too: its second line names the ETag."""
    wire.put_object(bucket, "k", OLD).assert_ok()
    headers = {"If-Match": f'"other",{_etag(wire, bucket, "k")}'}
    prepared = wire.prepare("DELETE", bucket, "k", headers=headers)
    assert statuses(_send_split(prepared, "if-match")) == [204]
    wire.get_object(bucket, "k").assert_error(404, "NoSuchKey")


def test_complete_if_match_on_a_second_line_publishes(wire: WireClient, bucket: str) -> None:
    """CompleteMultipartUpload's early check reads the joined If-Match too: a first-line-only
    read answered 412 and aborted the upload, losing the client's parts."""
    wire.put_object(bucket, "k", OLD).assert_ok()
    upload = wire.request("POST", bucket, "k", query=[("uploads", None)])
    upload_id = next(el.text for el in upload.assert_ok().xml.iter() if el.tag.endswith("UploadId"))
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    part = wire.request("PUT", bucket, "k", query=query, body=NEW).assert_ok()
    body = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{part.header('etag')}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    headers = {"If-Match": f'"stale",{_etag(wire, bucket, "k")}'}
    prepared = wire.prepare(
        "POST", bucket, "k", query=[("uploadId", upload_id)], headers=headers, body=body
    )
    assert statuses(_send_split(prepared, "if-match")) == [200]
    assert wire.get_object(bucket, "k").assert_ok().body == NEW
