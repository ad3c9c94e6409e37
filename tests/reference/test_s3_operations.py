"""Reference S3 behaviours beyond the suite slice: errors, listing, deletes, dispatch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from botocore.exceptions import ClientError

from conformance.clients.public import CustomDomains
from conformance.clients.s3 import WireClient


def _code(exc: pytest.ExceptionInfo[ClientError]) -> tuple[int, str]:
    err = exc.value.response
    return err["ResponseMetadata"]["HTTPStatusCode"], err["Error"]["Code"]


@pytest.mark.parametrize("name", ["ab", "-abc", "abc-", "UPPER", "a" * 64, "under_score"])
def test_invalid_bucket_names(wire: WireClient, name: str) -> None:
    wire.create_bucket(name).assert_error(400, "InvalidBucketName")


def test_bucket_lifecycle_errors(s3: Any, wire: WireClient) -> None:
    wire.create_bucket("lifecycle-errs").assert_ok()
    assert wire.create_bucket("lifecycle-errs").status == 409
    s3.put_object(Bucket="lifecycle-errs", Key="k", Body=b"x")
    wire.request("DELETE", "lifecycle-errs").assert_error(409, "BucketNotEmpty")
    wire.get_object("lifecycle-errs", "missing").assert_error(404, "NoSuchKey")
    wire.get_object("no-such-bucket-x", "k").assert_error(404, "NoSuchBucket")
    assert wire.head_bucket("no-such-bucket-x").status == 404


def test_error_xml_shape(wire: WireClient) -> None:
    reply = wire.get_object("no-such-bucket-x", "k")
    assert reply.header("content-type") == "application/xml"
    assert b"<Error>" in reply.body and b"xmlns" not in reply.body


def test_unsatisfiable_range_is_416(s3: Any, wire: WireClient, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"0123456789")
    wire.get_object(bucket, "k", range="bytes=10-20").assert_error(416, "InvalidRange")
    plain = wire.get_object(bucket, "k").assert_ok()
    assert plain.status == 200 and plain.header("content-range") is None
    assert wire.get_object(bucket, "k", range="bytes=-3").body == b"789"
    assert wire.get_object(bucket, "k", range="bytes=junk").status == 200


def test_post_put_object(wire: WireClient, bucket: str) -> None:
    wire.put_object(bucket, "posted", b"via post", method="POST").assert_ok()
    assert wire.get_object(bucket, "posted").body == b"via post"


def test_delete_objects_keeps_spaces(s3: Any, wire: WireClient, bucket: str) -> None:
    for key in (" padded ", "padded"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    reply = wire.delete_objects(bucket, [" padded "], declaration=True).assert_ok()
    assert b"<Key> padded </Key>" in reply.body
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == ["padded"]
    wire.request("POST", bucket, query=[("delete", None)], body=b"<Delete><Object>").assert_error(
        400, "MalformedXML"
    )


def test_listing_pages_and_prefixes(s3: Any, wire: WireClient, bucket: str) -> None:
    for key in ("a/1", "a/2", "b", "c/x/y", "d"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    page = s3.list_objects_v2(Bucket=bucket, Delimiter="/", MaxKeys=2)
    assert [p["Prefix"] for p in page["CommonPrefixes"]] == ["a/"]
    assert page["KeyCount"] == 2 and page["IsTruncated"]
    rest = s3.list_objects_v2(
        Bucket=bucket, Delimiter="/", ContinuationToken=page["NextContinuationToken"]
    )
    assert rest["ContinuationToken"] == page["NextContinuationToken"]
    assert [o["Key"] for o in rest["Contents"]] == ["d"]
    assert [p["Prefix"] for p in rest["CommonPrefixes"]] == ["c/"]
    full = s3.list_objects_v2(Bucket=bucket, MaxKeys=5)
    assert not full["IsTruncated"] and "NextContinuationToken" not in full
    after = s3.list_objects_v2(Bucket=bucket, StartAfter="b")
    assert [o["Key"] for o in after["Contents"]] == ["c/x/y", "d"]
    v1 = s3.list_objects(Bucket=bucket, Delimiter="/", MaxKeys=1)
    assert v1["IsTruncated"] and v1["NextMarker"] == "a/"
    wire.list_objects_v2(bucket, continuation_token="bogus").assert_error(400, "InvalidArgument")
    wire.list_objects_v2(bucket, **{"x_search": "1"}).assert_error(501, "NotImplemented")


def test_unsupported_operations_are_501(wire: WireClient, bucket: str) -> None:
    wire.request("GET", bucket, query=[("website", None)]).assert_error(501, "NotImplemented")
    wire.request("PUT", bucket, "k", query=[("tagging", None)], body=b"<Tagging/>").assert_error(
        501, "NotImplemented"
    )
    wire.create_bucket(
        "object-lock-x", headers={"x-amz-bucket-object-lock-enabled": "true"}
    ).assert_error(501, "NotImplemented")


def test_location_constraints(wire: WireClient) -> None:
    wire.create_bucket("loc-auto", location="auto").assert_ok()
    wire.create_bucket("loc-other", location="eu-west-1").assert_error(
        400, "InvalidLocationConstraint"
    )


def test_public_entrypoint_reads_a_bucket_through_its_domain(reference: Any, s3: Any) -> None:
    s3.create_bucket(Bucket="pages")
    s3.put_object(Bucket="pages", Key="page.html", Body=b"<p>hi</p>", ContentType="text/html")
    domain = "pages.public.example"
    CustomDomains(reference.ready["surfaces"]["mgmt"]).create("pages", domain).assert_envelope_ok()
    base = reference.ready["surfaces"]["public"]["url"]
    sent = {"Host": domain, "Range": "bytes=0-2"}
    got = requests.get(f"{base}/page.html", headers=sent, timeout=10)
    assert got.status_code == 206 and got.content == b"<p>"
    options = requests.options(f"{base}/page.html", headers={"Host": domain}, timeout=10)
    assert options.status_code == 400


XML_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "xml"


def test_delete_body_from_fixture(s3: Any, wire: WireClient, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key=" spaced key ", Body=b"x")
    body = (XML_DIR / "delete-with-declaration.xml").read_bytes()
    reply = wire.request("POST", bucket, query=[("delete", None)], body=body).assert_ok()
    assert b"<Key> spaced key </Key>" in reply.body and b"<Key>plain</Key>" in reply.body
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_entity_declarations_are_malformed(wire: WireClient, bucket: str) -> None:
    body = (XML_DIR / "delete-entity-expansion.xml").read_bytes()
    wire.request("POST", bucket, query=[("delete", None)], body=body).assert_error(
        400, "MalformedXML"
    )
