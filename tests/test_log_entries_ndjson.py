"""Delivered log batches are NDJSON: records are split at LF only.

Found by the hostile round of 2026-11-27 (hostile7). The suite split a batch with
`str.splitlines()`, which also breaks at U+0085, U+2028, U+2029, FF, VT and U+001C-U+001E.
JSON escapes only the controls below U+0020, so a header value holding U+2028 (a service that
decodes header bytes as UTF-8) or byte 0x85 (one that decodes them as Latin-1, as the
reference does) is written raw inside a JSON string: the suite cut that record in two and the
test errored on valid output. Any client's traffic can do that on a zone shared with users.
"""

from __future__ import annotations

import gzip
import io
import json
from typing import Any

from conformance.suite.logs.log_delivery import _read_entries

RECORDS = [
    {"RayID": "r1", "RequestHeaders": {"x-a": "line\u2028separator"}},
    {"RayID": "r2", "RequestHeaders": {"x-a": "next\x85line", "x-b": "para\u2029graph"}},
    {"RayID": "r3", "Cookies": {"c": "\x0b\x0c\x1c\x1d\x1e"}},
]


class _Boto:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects

    def list_objects_v2(self, **_: Any) -> dict[str, Any]:
        return {"Contents": [{"Key": key} for key in self.objects]}

    def get_object(self, Key: str, **_: Any) -> dict[str, Any]:
        return {"Body": io.BytesIO(self.objects[Key])}


class _S3:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.boto = _Boto(objects)


def test_records_with_unicode_line_breaks_read_whole() -> None:
    """Each record comes back whole, whatever non-LF line break its values hold."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS)
    batch = gzip.compress(text.encode("utf-8"))
    s3 = _S3({"job/20261127/batch.log.gz": batch, "job/ownership-challenge.txt": b"token"})
    assert _read_entries(s3, "bucket", "job") == RECORDS


def test_crlf_and_blank_lines_tolerated() -> None:
    text = "\r\n".join(json.dumps(r) for r in RECORDS) + "\r\n\r\n"
    s3 = _S3({"job/batch.log.gz": gzip.compress(text.encode())})
    assert _read_entries(s3, "bucket", "job") == RECORDS
