"""Conditional requests: If-Match / If-None-Match / If-(Un)Modified-Since, for reads and writes.

One evaluator serves GetObject/HeadObject (304 or 412), PutObject, CreateMultipartUpload and
CompleteMultipartUpload (412 against the existing object), CopyObject's source conditions and
the provider's `cf-copy-destination-if-*` headers. Which ETag forms count (lists, weak ETags,
`*`) is a dated profile field, so no handler compares dates.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from reference_impl.storage.engine import ObjectRecord
from reference_impl.wire.s3 import http_date
from reference_impl.wire.s3.errors import S3Error

NOT_MODIFIED = 304


@dataclass(frozen=True)
class Conditions:
    """The four conditional headers of a request (under some prefix), as sent."""

    if_match: str | None = None
    if_none_match: str | None = None
    if_modified_since: str | None = None
    if_unmodified_since: str | None = None

    @property
    def present(self) -> bool:
        return any(
            v is not None
            for v in (
                self.if_match,
                self.if_none_match,
                self.if_modified_since,
                self.if_unmodified_since,
            )
        )


def from_headers(header: Callable[[str], str | None], prefix: str = "") -> Conditions:
    """`<prefix>if-match` etc.; prefix "" (HTTP), `x-amz-copy-source-`, `cf-copy-destination-`."""
    return Conditions(
        header(prefix + "if-match"),
        header(prefix + "if-none-match"),
        header(prefix + "if-modified-since"),
        header(prefix + "if-unmodified-since"),
    )


def etag_matches(header: str, etag: str, lists: bool) -> bool:
    """Does the header name this ETag? With `lists`: comma lists, `W/` weak forms and `*`.

    Without it only one strong quoted (or bare) ETag is understood, as before 2022-07-30.
    """
    if not lists:
        return header.strip().strip('"') == etag
    for item in header.split(","):
        item = item.strip()
        if item == "*":
            return True
        if item.startswith(("W/", "w/")):
            item = item[2:]
        if item.strip('"') == etag:
            return True
    return False


def _date(value: str | None) -> float | None:
    """An HTTP date as a timestamp; None when absent or unparseable (the header is ignored)."""
    if not value:
        return None
    try:
        moment = http_date.parse_field(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # year 10**20: OverflowError
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def _modified_after(record: ObjectRecord, stamp: float) -> bool:
    """HTTP dates have whole seconds: compare the object's time truncated to the second."""
    return int(record.modified) > int(stamp)


def check_read(conditions: Conditions, record: ObjectRecord, lists: bool) -> int | None:
    """For GET/HEAD: raise 412 PreconditionFailed, return 304 for Not Modified, else None.

    Precedence follows RFC 9110: If-Match before If-Unmodified-Since, If-None-Match before
    If-Modified-Since.
    """
    if conditions.if_match is not None:
        if not etag_matches(conditions.if_match, record.etag, lists):
            raise S3Error("PreconditionFailed", Condition="If-Match")
    else:
        stamp = _date(conditions.if_unmodified_since)
        if stamp is not None and _modified_after(record, stamp):
            raise S3Error("PreconditionFailed", Condition="If-Unmodified-Since")
    if conditions.if_none_match is not None:
        if etag_matches(conditions.if_none_match, record.etag, lists):
            return NOT_MODIFIED
    else:
        stamp = _date(conditions.if_modified_since)
        if stamp is not None and not _modified_after(record, stamp):
            return NOT_MODIFIED
    return None


def range_applies(if_range: str | None, record: ObjectRecord) -> bool:
    """Does a Range still apply under this If-Range (RFC 9110 13.1.5)? Only when the validator
    names the object now stored: its ETag, compared strongly (a weak one never matches), or
    its Last-Modified date. A resumed download with a stale validator gets the whole object:
    its range of the new bytes, appended to the old ones, was a file that never existed."""
    if if_range is None:
        return True
    value = if_range.strip()
    if value.startswith('"'):
        return value == f'"{record.etag}"'
    if value.startswith(("W/", "w/")):
        return False
    stamp = _date(value)
    return stamp is not None and int(stamp) == int(record.modified)


def check_write(
    conditions: Conditions,
    record: ObjectRecord | None,
    lists: bool,
    name: str = "",
    missing: str = "PreconditionFailed",
) -> None:
    """For writes against the current object (None when absent): raise 412 when unmet.

    If-Match needs an object that matches; without any object it fails with `missing`
    (S3's conditional writes answer 404 NoSuchKey there, docs/decisions.md); If-None-Match
    fails on a match (`*`: on any object). On a missing key If-Modified-Since fails (no object
    was modified after the date) and If-Unmodified-Since passes (R2's conditional operations).
    """
    label = name
    if conditions.if_match is not None and record is None:
        if missing == "NoSuchKey":
            raise S3Error("NoSuchKey")
        raise S3Error("PreconditionFailed", Condition=f"{label}If-Match")
    if conditions.if_match is not None and (
        record is None or not etag_matches(conditions.if_match, record.etag, lists)
    ):
        raise S3Error("PreconditionFailed", Condition=f"{label}If-Match")
    if (
        conditions.if_none_match is not None
        and record is not None
        and etag_matches(conditions.if_none_match, record.etag, lists)
    ):
        raise S3Error("PreconditionFailed", Condition=f"{label}If-None-Match")
    if record is None:
        if _date(conditions.if_modified_since) is not None:
            raise S3Error("PreconditionFailed", Condition=f"{label}If-Modified-Since")
        return
    stamp = _date(conditions.if_unmodified_since)
    if stamp is not None and _modified_after(record, stamp):
        raise S3Error("PreconditionFailed", Condition=f"{label}If-Unmodified-Since")
    stamp = _date(conditions.if_modified_since)
    if stamp is not None and not _modified_after(record, stamp):
        raise S3Error("PreconditionFailed", Condition=f"{label}If-Modified-Since")


def delete_allowed(if_match: str, record: ObjectRecord | None, lists: bool) -> bool:
    """A conditional delete (DeleteObject If-Match, a DeleteObjects entry's ETag).

    S3 deletes when the ETag matches and answers a missing object as deleted: there is
    nothing whose ETag could differ.
    """
    return record is None or etag_matches(if_match, record.etag, lists)
