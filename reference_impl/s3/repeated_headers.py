"""Request headers a request may carry once: a second, different line is 400, not a choice.

RFC 9110 5.3 lets a recipient combine repeated field lines only for a field defined as a
comma-separated list. The fields below are not lists (a date, a hash, a length, one range, one
directive, one ETag-less token), so two different lines have no single meaning; the reference
read the first and ignored the second (a Content-MD5, x-amz-date or Range sent twice was
served by its first line: defects13). `If-Match` / `If-None-Match` are lists (`#entity-tag`) and
are combined instead (wire/s3/call_view.py). If-(Un)Modified-Since sent twice is ignored, not
refused: RFC 9110 13.1.3-4 say a recipient MUST ignore one whose value has more than one member
(wire/s3/http_date.parse_field). x-amz-copy-source and x-amz-checksum-* lines are
already joined into one value by their readers (hostile round 12), which refuses it.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.wire.s3.errors import S3Error

SINGLETONS = frozenset(
    name.encode()
    for name in (
        "authorization",
        "content-length",
        "content-md5",
        "content-type",
        "host",
        "range",
        "x-amz-checksum-algorithm",
        "x-amz-content-sha256",
        "x-amz-copy-source-if-modified-since",
        "x-amz-copy-source-if-unmodified-since",
        "x-amz-copy-source-range",
        "x-amz-date",
        "x-amz-decoded-content-length",
        "x-amz-metadata-directive",
        "x-amz-sdk-checksum-algorithm",
    )
)


def refuse_repeated(headers: Iterable[tuple[bytes, bytes]]) -> None:
    """InvalidArgument when a singleton field has two lines that differ (an identical repeat
    has one reading, RFC 9112 6.3 allows it for Content-Length)."""
    seen: dict[bytes, bytes] = {}
    for name, value in headers:
        if name in SINGLETONS and seen.setdefault(name, value.strip()) != value.strip():
            raise S3Error(
                "InvalidArgument",
                f"Header {name.decode('latin-1')} may be sent only once",
                ArgumentName=name.decode("latin-1"),
            )
