"""The ranged read of a gzip object is dated by both rules it rests on.

`storage.public.range-206` holds from 2022-11-17, but which bytes a gzip-accepting client gets
(the stored gzip bytes, Content-Encoding: gzip) is item 6, in force from 2023-03-16 only
(`storage.public.gzip-content-encoding`). Between the two dates a target that serves the
decoded object answers a correct 206 of the decoded bytes; from 2023-03-16 it does not.
"""

from __future__ import annotations

import datetime as dt
import gzip
from dataclasses import dataclass, field
from typing import Any

import pytest

from conformance.suite.storage.public import test_public_get_object as suite

CONTENT = b'{"hello": "world"}' * 50


@dataclass
class _Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def describe(self) -> str:
        return f"{self.status} {self.headers}"


class _Decoding:
    """A public bucket that serves gzip objects decoded (no Content-Encoding), ranges of them."""

    bucket = "b"

    def __init__(self) -> None:
        self.stored: dict[str, bytes] = {}

    def get(self, key: str, headers: dict[str, str]) -> _Reply:
        start, end = (int(x) for x in headers["Range"].removeprefix("bytes=").split("-"))
        content = gzip.decompress(self.stored[key])
        rng = f"bytes {start}-{end}/{len(content)}"
        return _Reply(206, content[start : end + 1], {"content-range": rng})


class _Boto:
    def __init__(self, public: _Decoding) -> None:
        self.public = public

    def put_object(self, **kw: Any) -> None:
        self.public.stored[kw["Key"]] = kw["Body"]


class _Names:
    def key(self, suffix: str = "") -> str:
        return "k" + suffix


def _run(as_of: dt.date) -> None:
    public = _Decoding()
    s3 = type("S3", (), {"boto": _Boto(public)})()
    suite.test_ranged_read_of_gzip_object_accepting_gzip_is_206(s3, public, _Names(), as_of)


def test_before_item_6_a_decoded_range_is_a_range() -> None:
    _run(dt.date(2023, 1, 10))


def test_from_item_6_the_stored_bytes_are_ranged() -> None:
    with pytest.raises(AssertionError):
        _run(dt.date(2023, 3, 16))
