"""S3 behaviours an outside S3 test suite found missing or different (issue 18, deliverable 1).

Each test pins what S3 answers where the spec is silent and the reference had answered
otherwise: completion retries, If-Match on a missing key, conditional deletes, `response-*`
overrides, `max-keys=0`, an empty continuation token, `?partNumber=` and self-copies.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from conformance.clients.s3_wire import WireClient

PART = 5 * 1024 * 1024


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[int, str]:
    err = exc.value.response
    return err["ResponseMetadata"]["HTTPStatusCode"], err["Error"]["Code"]


def _multipart(s3: Any, bucket: str, key: str, sizes: list[int]) -> tuple[str, list[Any], bytes]:
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts, data = [], b""
    for number, size in enumerate(sizes, start=1):
        body = bytes([number]) * size
        etag = s3.upload_part(
            Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=body
        )["ETag"]
        parts.append({"PartNumber": number, "ETag": etag})
        data += body
    return upload, parts, data


# 2. a retried completion
def test_retried_completion_answers_the_same_success(s3: Any, bucket: str) -> None:
    upload, parts, data = _multipart(s3, bucket, "mp", [PART, 10])
    done = {"Parts": parts}
    first = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload=done
    )
    again = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload=done
    )
    assert (again["ETag"], again["Key"], again["Bucket"]) == (
        first["ETag"],
        first["Key"],
        first["Bucket"],
    )
    assert s3.get_object(Bucket=bucket, Key="mp")["Body"].read() == data
    other = {"Parts": parts[:1]}  # another part list: the upload is gone for that
    with pytest.raises(ClientError) as exc:
        s3.complete_multipart_upload(
            Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload=other
        )
    assert _error(exc) == (404, "NoSuchUpload")
    with pytest.raises(ClientError) as exc:  # and under another key it is not that upload
        s3.complete_multipart_upload(
            Bucket=bucket, Key="mp2", UploadId=upload, MultipartUpload=done
        )
    assert _error(exc) == (404, "NoSuchUpload")


# 3. If-Match on a missing key
@pytest.mark.parametrize("method", ["GET", "HEAD", "PUT"])
def test_if_match_on_a_missing_key_is_404(wire: WireClient, bucket: str, method: str) -> None:
    headers = {"If-Match": '"00000000000000000000000000000000"'}
    body = b"new" if method == "PUT" else b""
    reply = wire.request(method, bucket, "absent", headers=headers, body=body)
    assert reply.status == 404, reply.status
    if method != "HEAD":
        assert reply.error_code == "NoSuchKey"
    assert wire.get_object(bucket, "absent").status == 404  # nothing written


def test_if_match_on_a_missing_key_refuses_completion(s3: Any, bucket: str) -> None:
    upload, parts, _ = _multipart(s3, bucket, "mp-absent", [10])
    with pytest.raises(ClientError) as exc:
        s3.complete_multipart_upload(
            Bucket=bucket, Key="mp-absent", UploadId=upload,
            MultipartUpload={"Parts": parts}, IfMatch='"00000000000000000000000000000000"',
        )  # fmt: skip
    assert _error(exc) == (404, "NoSuchKey")


# 4. conditional deletes
def test_delete_object_if_match(s3: Any, wire: WireClient, bucket: str) -> None:
    etag = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["ETag"]
    other = '"00000000000000000000000000000000"'
    wire.request("DELETE", bucket, "k", headers={"If-Match": other}).assert_error(
        412, "PreconditionFailed"
    )
    assert wire.get_object(bucket, "k").status == 200
    assert wire.request("DELETE", bucket, "k", headers={"If-Match": etag}).status == 204
    assert wire.get_object(bucket, "k").status == 404
    # a missing object: nothing to compare, the delete succeeds as an unconditional one
    assert wire.request("DELETE", bucket, "k", headers={"If-Match": etag}).status == 204


def test_delete_objects_with_etags(s3: Any, bucket: str) -> None:
    etags = {k: s3.put_object(Bucket=bucket, Key=k, Body=k.encode())["ETag"] for k in "abc"}
    other = '"00000000000000000000000000000000"'
    reply = s3.delete_objects(
        Bucket=bucket,
        Delete={
            "Objects": [
                {"Key": "a", "ETag": etags["a"]},
                {"Key": "b", "ETag": other},
                {"Key": "c"},
                {"Key": "gone", "ETag": other},
            ]
        },
    )
    assert sorted(d["Key"] for d in reply["Deleted"]) == ["a", "c", "gone"]
    assert [(e["Key"], e["Code"]) for e in reply["Errors"]] == [("b", "PreconditionFailed")]
    left = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    assert left == ["b"]


# 5. response-* overrides
OVERRIDES = {
    "ResponseContentType": ("content-type", "text/x-override"),
    "ResponseContentLanguage": ("content-language", "de-CH"),
    "ResponseExpires": ("expires", "Thu, 01 Dec 1994 16:00:00 GMT"),
    "ResponseCacheControl": ("cache-control", "no-cache"),
    "ResponseContentDisposition": ("content-disposition", 'attachment; filename="x.bin"'),
    "ResponseContentEncoding": ("content-encoding", "identity"),
}


def test_response_overrides_on_get_and_head(s3: Any, wire: WireClient, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"body", ContentType="text/plain")
    query = [("response-" + header, value) for header, value in OVERRIDES.values()]
    for method in ("GET", "HEAD"):
        reply = wire.request(method, bucket, "k", query=query).assert_ok()
        for header, value in OVERRIDES.values():
            assert reply.header(header) == value, (method, header)
    url = wire.presign("GET", bucket, "k", query=query)  # a presigned download relies on it
    got = wire.session.get(url, timeout=10)
    assert got.headers["content-disposition"] == OVERRIDES["ResponseContentDisposition"][1]
    plain = wire.get_object(bucket, "k")
    assert plain.header("content-type") == "text/plain"  # nothing stored changed


# 6. max-keys=0
@pytest.mark.parametrize("version", [1, 2])
def test_max_keys_zero_is_an_empty_untruncated_page(s3: Any, bucket: str, version: int) -> None:
    for key in ("a", "b"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    lister = s3.list_objects_v2 if version == 2 else s3.list_objects
    page = lister(Bucket=bucket, MaxKeys=0)
    assert page["IsTruncated"] is False
    assert "Contents" not in page and "NextContinuationToken" not in page
    assert "NextMarker" not in page


# 7. an empty continuation token
def test_empty_continuation_token_lists_from_the_start(s3: Any, bucket: str) -> None:
    for key in ("a", "b"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    page = s3.list_objects_v2(Bucket=bucket, ContinuationToken="")
    assert [o["Key"] for o in page["Contents"]] == ["a", "b"]
    assert page["ContinuationToken"] == "" and page["IsTruncated"] is False


# 8. GetObject ?partNumber=
def test_get_part_of_a_multipart_object(s3: Any, wire: WireClient, bucket: str) -> None:
    upload, parts, data = _multipart(s3, bucket, "mp", [PART, PART, 7])
    whole = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": parts}
    )["ETag"]
    starts = [0, PART, 2 * PART]
    ends = [PART - 1, 2 * PART - 1, 2 * PART + 6]
    for number in (1, 2, 3):
        reply = wire.request("GET", bucket, "mp", query=[("partNumber", str(number))])
        assert reply.status == 206
        start, end = starts[number - 1], ends[number - 1]
        assert reply.body == data[start : end + 1]
        assert reply.header("content-range") == f"bytes {start}-{end}/{len(data)}"
        assert reply.header("x-amz-mp-parts-count") == "3"
        assert reply.header("etag") == whole
    head = s3.head_object(Bucket=bucket, Key="mp", PartNumber=3)
    assert head["ContentLength"] == 7 and head["PartsCount"] == 3
    wire.request("GET", bucket, "mp", query=[("partNumber", "4")]).assert_error(
        416, "InvalidPartNumber"
    )
    wire.request("GET", bucket, "mp", query=[("partNumber", "0")]).assert_error(
        400, "InvalidArgument"
    )
    both = wire.request(
        "GET", bucket, "mp", query=[("partNumber", "1")], headers={"Range": "bytes=0-1"}
    )
    both.assert_error(400, "InvalidRequest")


def test_get_part_one_of_a_single_part_object(s3: Any, wire: WireClient, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"0123456789")
    reply = wire.request("GET", bucket, "k", query=[("partNumber", "1")])
    assert reply.status in (200, 206) and reply.body == b"0123456789"
    assert reply.header("x-amz-mp-parts-count") is None
    wire.request("GET", bucket, "k", query=[("partNumber", "2")]).assert_error(
        416, "InvalidPartNumber"
    )
    s3.put_object(Bucket=bucket, Key="empty", Body=b"")
    empty = wire.request("GET", bucket, "empty", query=[("partNumber", "1")]).assert_ok()
    assert (empty.body, empty.header("content-range")) == (b"", None)


# 9. copying an object onto itself
def test_self_copy_without_change_is_refused(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", Metadata={"a": "1"})
    with pytest.raises(ClientError) as exc:
        s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k"})
    assert _error(exc) == (400, "InvalidRequest")
    s3.copy_object(
        Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k"},
        MetadataDirective="REPLACE", Metadata={"a": "2"},
    )  # fmt: skip
    assert s3.head_object(Bucket=bucket, Key="k")["Metadata"] == {"a": "2"}
