"""Reference multipart internals the suite cannot see: ETag arithmetic, restarts, dated flips."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from conformance.clients.s3 import WireClient

MIB = 1024 * 1024


def _code(exc: pytest.ExceptionInfo[ClientError]) -> tuple[int, str]:
    err = exc.value.response
    return err["ResponseMetadata"]["HTTPStatusCode"], err["Error"]["Code"]


def _wire(surface: dict[str, Any]) -> WireClient:
    return WireClient(surface["endpoint"], surface["access_key_id"], surface["secret_access_key"])


def test_round_trip_etag_and_listing(s3: Any, bucket: str) -> None:
    """Parts out of order are sorted; the ETag is md5(concatenated part md5s)-N."""
    first, second = b"a" * 5 * MIB, b"tail"
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    etags = [
        s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=n, Body=body)["ETag"]
        for n, body in ((1, first), (2, second))
    ]
    listed = s3.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [u["UploadId"] for u in listed] == [upload]
    parts = s3.list_parts(Bucket=bucket, Key="k", UploadId=upload)["Parts"]
    assert [(p["PartNumber"], p["Size"]) for p in parts] == [(1, len(first)), (2, len(second))]
    done = s3.complete_multipart_upload(
        Bucket=bucket,
        Key="k",
        UploadId=upload,
        MultipartUpload={
            "Parts": [{"PartNumber": 2, "ETag": etags[1]}, {"PartNumber": 1, "ETag": etags[0]}]
        },
    )
    digests = b"".join(hashlib.md5(b).digest() for b in (first, second))
    assert done["ETag"] == f'"{hashlib.md5(digests).hexdigest()}-2"'
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["ETag"] == done["ETag"] and got["Body"].read() == first + second
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_upload_survives_restart(launch: Callable[..., Any], tmp_path: Path) -> None:
    """An upload started before a restart completes after it (SQLite metadata, blob parts)."""
    data = tmp_path / "data"
    ref = launch(data_dir=data)
    wire = _wire(ref.s3)
    wire.create_bucket("restart-bkt").assert_ok()
    created = wire.request("POST", "restart-bkt", "k", query=[("uploads", None)]).assert_ok()
    assert created.xml is not None
    upload = created.xml.findtext("UploadId") or ""
    part = wire.request(
        "PUT", "restart-bkt", "k", query=[("partNumber", "1"), ("uploadId", upload)], body=b"x"
    ).assert_ok()
    ref.stop()
    wire = _wire(launch(data_dir=data).s3)
    body = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{part.header('etag')}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    wire.request("POST", "restart-bkt", "k", query=[("uploadId", upload)], body=body).assert_ok()
    assert wire.get_object("restart-bkt", "k").body == b"x"


def test_out_of_order_refused_before_2024(launch: Callable[..., Any]) -> None:
    """Before 2024-01-26 the reference refuses out-of-order parts with InvalidPartOrder."""
    wire = _wire(launch("--behaviour-date", "2023-12-01").s3)
    wire.create_bucket("order-bkt").assert_ok()
    created = wire.request("POST", "order-bkt", "k", query=[("uploads", None)]).assert_ok()
    assert created.xml is not None
    upload = created.xml.findtext("UploadId") or ""
    body = (
        b"<CompleteMultipartUpload>"
        b'<Part><PartNumber>2</PartNumber><ETag>"x"</ETag></Part>'
        b'<Part><PartNumber>1</PartNumber><ETag>"y"</ETag></Part>'
        b"</CompleteMultipartUpload>"
    )
    reply = wire.request("POST", "order-bkt", "k", query=[("uploadId", upload)], body=body)
    reply.assert_error(400, "InvalidPartOrder")


@pytest.mark.parametrize(
    "body",
    [b"", b"<nope", b"<CompleteMultipartUpload/>", b"<Other/>",
     b"<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>"],
)  # fmt: skip
def test_bad_completion_bodies_are_400(s3: Any, bucket: str, body: bytes) -> None:
    """Malformed completion bodies are 400 MalformedXML, never a 500."""
    wire = WireClient(s3.meta.endpoint_url, *_keys(s3))
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    reply = wire.request("POST", bucket, "k", query=[("uploadId", upload)], body=body)
    reply.assert_error(400, "MalformedXML")


@pytest.mark.parametrize("number", ["0", "10001", "-1", "x", "", "\u00b2", "1" * 30])
def test_bad_part_numbers_are_400(s3: Any, bucket: str, number: str) -> None:
    """Part numbers outside 1..10000 are 400 InvalidArgument."""
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    wire = WireClient(s3.meta.endpoint_url, *_keys(s3))
    query = [("partNumber", number), ("uploadId", upload)]
    wire.request("PUT", bucket, "k", query=query, body=b"x").assert_error(400, "InvalidArgument")


def test_copy_source_errors(s3: Any, bucket: str) -> None:
    """Bad copy sources are 400s; a missing source is NoSuchKey / NoSuchBucket."""
    wire = WireClient(s3.meta.endpoint_url, *_keys(s3))
    for source, status, code in (
        ("/", 400, "InvalidArgument"),
        (f"/{bucket}", 400, "InvalidArgument"),
        (f"/{bucket}/missing", 404, "NoSuchKey"),
        ("/no-such-bkt-zz/k", 404, "NoSuchBucket"),
    ):
        reply = wire.request("PUT", bucket, "dst", headers={"x-amz-copy-source": source})
        reply.assert_error(status, code)


def _keys(s3: Any) -> tuple[str, str]:
    creds = s3._request_signer._credentials
    return creds.access_key, creds.secret_key


@pytest.mark.parametrize(
    ("source_range", "status", "code"),
    [("bytes=5-2", 416, "InvalidRange"), ("bytes=0-99999", 416, "InvalidRange"),
     ("lines=1-2", 400, "InvalidArgument"), ("bytes=-5", 400, "InvalidArgument")],
)  # fmt: skip
def test_bad_copy_source_ranges(
    s3: Any, bucket: str, source_range: str, status: int, code: str
) -> None:
    """UploadPartCopy refuses ranges it cannot serve with a 4xx, never a 500."""
    s3.put_object(Bucket=bucket, Key="src", Body=b"0123456789")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    wire = WireClient(s3.meta.endpoint_url, *_keys(s3))
    headers = {"x-amz-copy-source": f"/{bucket}/src", "x-amz-copy-source-range": source_range}
    query = [("partNumber", "1"), ("uploadId", upload)]
    wire.request("PUT", bucket, "k", query=query, headers=headers).assert_error(status, code)


def test_head_object_conditions(s3: Any, bucket: str) -> None:
    """HeadObject honours the same conditions as GetObject: 304 and 412, no body."""
    etag = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["ETag"]
    wire = WireClient(s3.meta.endpoint_url, *_keys(s3))
    assert wire.request("HEAD", bucket, "k", headers={"If-None-Match": etag}).status == 304
    assert wire.request("HEAD", bucket, "k", headers={"If-Match": '"nope"'}).status == 412
    since = {"If-Modified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"}
    assert wire.request("HEAD", bucket, "k", headers=since).status == 200
    assert wire.request("HEAD", bucket, "k", headers={"If-Modified-Since": "junk"}).status == 200


def test_delete_after_complete_keeps_no_parts(s3: Any, bucket: str, reference: Any) -> None:
    """Completion removes the part blobs: only the joined object's blob stays on disk."""
    blobs = Path(reference.data_dir) / "storage" / "blobs"
    before = {p.name for p in blobs.rglob("*") if p.is_file()}
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=1, Body=b"p")["ETag"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="k", UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]},
    )  # fmt: skip
    after = {p.name for p in blobs.rglob("*") if p.is_file()}
    assert len(after - before) == 1


def test_conflicts_during_completion_are_too_much_concurrency(
    launch: Callable[..., Any],
) -> None:
    """While a completion runs, a part, a second completion or an abort is TooMuchConcurrency."""
    ref = launch("--profile", "multipart_complete_delay_seconds=1.5")
    wire = _wire(ref.s3)
    wire.create_bucket("busy-bkt").assert_ok()
    created = wire.request("POST", "busy-bkt", "k", query=[("uploads", None)]).assert_ok()
    assert created.xml is not None
    upload = created.xml.findtext("UploadId") or ""
    query = [("partNumber", "1"), ("uploadId", upload)]
    part = wire.request("PUT", "busy-bkt", "k", query=query, body=b"x").assert_ok()
    body = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{part.header('etag')}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    done: list[int] = []

    def complete() -> None:
        other = _wire(ref.s3)
        reply = other.request("POST", "busy-bkt", "k", query=[("uploadId", upload)], body=body)
        done.append(reply.status)

    worker = threading.Thread(target=complete)
    worker.start()
    time.sleep(0.5)
    conflicts = [
        wire.request("PUT", "busy-bkt", "k", query=[("partNumber", "2"), ("uploadId", upload)],
                     body=b"y"),
        wire.request("POST", "busy-bkt", "k", query=[("uploadId", upload)], body=body),
        wire.request("DELETE", "busy-bkt", "k", query=[("uploadId", upload)]),
    ]  # fmt: skip
    worker.join(timeout=30)
    for reply in conflicts:
        reply.assert_error(429, "TooMuchConcurrency")
    assert done == [200]
    assert wire.get_object("busy-bkt", "k").body == b"x"
