"""A singleton request header sent as two different lines is 400; a list-valued one is combined.

RFC 9110 5.3: only a field defined as a list may be combined from several lines. The S3 front
read the first line of every header (defects13), so a second Content-MD5, x-amz-date, Range or
metadata directive was silently dropped; and the second line of an If-Match (a list) never
counted. One case per class: signing, body integrity, conditional dates, ranges, directives,
an identical repeat (one reading: accepted), and a list-valued condition.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.s3.app import build_app
from reference_impl.storage.engine import Store

BUCKET = "repeated"
BODY = b"0123456789"
MD5 = base64.b64encode(hashlib.md5(BODY).digest()).decode()
OTHER_MD5 = base64.b64encode(hashlib.md5(b"other").digest()).decode()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    day = dt.date.today()
    # signatures off: what is read of the headers, not how they are signed
    ctx = ServerContext(tmp_path, Profile(day, {"verify_signatures": "false"}),
                        default_identity(), day, Store(tmp_path / "storage"))  # fmt: skip
    client = TestClient(build_app(ctx))
    assert client.put(f"/{BUCKET}").status_code == 200
    assert client.put(f"/{BUCKET}/k", content=BODY).status_code == 200
    yield client
    ctx.store.close()


def _refused(reply: Any, name: str) -> None:
    assert reply.status_code == 400 and "<Code>InvalidArgument</Code>" in reply.text, (
        name,
        reply.status_code,
        reply.text,
    )


@pytest.mark.parametrize(
    ("method", "name", "first", "second"),
    [
        ("GET", "x-amz-date", "20261128T120000Z", "20261128T130000Z"),
        ("PUT", "content-md5", MD5, OTHER_MD5),
        ("GET", "range", "bytes=0-1", "bytes=5-6"),
        ("PUT", "x-amz-metadata-directive", "COPY", "REPLACE"),
    ],
    ids=["signing", "body-integrity", "range", "directive"],
)
def test_singleton_sent_twice_differently_is_400(
    client: TestClient, method: str, name: str, first: str, second: str
) -> None:
    headers = [(name, first), (name, second)]
    if name == "x-amz-metadata-directive":
        headers.append(("x-amz-copy-source", f"/{BUCKET}/k"))
    key, body = ("k", None) if method == "GET" else ("k2", BODY)
    reply = client.request(method, f"/{BUCKET}/{key}", content=body, headers=headers)
    _refused(reply, name)


def test_identical_repeat_has_one_reading(client: TestClient) -> None:
    reply = client.get(f"/{BUCKET}/k", headers=[("range", "bytes=0-1"), ("range", "bytes=0-1")])
    assert reply.status_code == 206 and reply.content == b"01", reply.text


def test_if_match_lines_are_one_list(client: TestClient) -> None:
    """If-Match's second line names the object's ETag: the list holds it, the GET is served."""
    etag = client.head(f"/{BUCKET}/k").headers["etag"]
    reply = client.get(f"/{BUCKET}/k", headers=[("if-match", '"nope"'), ("if-match", etag)])
    assert reply.status_code == 200 and reply.content == BODY, reply.text
    reply = client.get(f"/{BUCKET}/k", headers=[("if-match", '"nope"'), ("if-match", '"no"')])
    assert reply.status_code == 412, reply.text


CRC32 = base64.b64encode(zlib.crc32(BODY).to_bytes(4, "big")).decode()
SHA256 = base64.b64encode(hashlib.sha256(BODY).digest()).decode()


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"x-amz-checksum-crc32": CRC32}, 200, ""),
        ({"x-amz-checksum-sha256": SHA256}, 400, "Value for x-amz-sdk-checksum-algorithm"),
        ({}, 400, "no corresponding x-amz-checksum-*"),
        ({"x-amz-trailer": "x-amz-checksum-sha256"}, 400, "Value for x-amz-sdk-checksum-algorithm"),
    ],
    ids=["header-of-it", "header-of-another", "no-checksum", "trailer-of-another"],
)
def test_sdk_checksum_algorithm_names_the_checksum_carried(
    client: TestClient, headers: dict[str, str], status: int, message: str
) -> None:
    """x-amz-sdk-checksum-algorithm: CRC32 with a CRC32 header is stored; with a SHA-256 header
    or trailer, or with no checksum, S3 answers 400 InvalidRequest (the reference ignored it:
    the SHA-256 was checked, or nothing, and the object stored)."""
    sent = {"x-amz-sdk-checksum-algorithm": "CRC32", **headers}
    reply = client.put(f"/{BUCKET}/sdk", content=BODY, headers=sent)
    assert reply.status_code == status, reply.text
    if status == 400:
        assert "<Code>InvalidRequest</Code>" in reply.text and message in reply.text, reply.text
        assert client.head(f"/{BUCKET}/sdk").status_code == 404
