"""SigV4 regions: `auto`, its aliases `""` and `us-east-1`, and any other region refused."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.auth.region-auto")
def test_region_auto_is_accepted(s3, bucket):
    """A request signed for region `auto` is accepted."""
    s3.wire.request("HEAD", bucket, region="auto").assert_ok()
    s3.wire.request("GET", region="auto").assert_ok()


@pytest.mark.rule("storage.auth.region-empty-alias")
def test_region_empty_is_accepted(s3, bucket):
    """A request signed for the empty region string is accepted as `auto`."""
    s3.wire.request("HEAD", bucket, region="").assert_ok()
    s3.wire.request("GET", region="").assert_ok()


@pytest.mark.rule("storage.auth.region-us-east-1-alias")
def test_region_us_east_1_is_accepted(s3, bucket):
    """A request signed for `us-east-1` is accepted as `auto`."""
    s3.wire.request("HEAD", bucket, region="us-east-1").assert_ok()
    s3.wire.request("GET", region="us-east-1").assert_ok()


@pytest.mark.rule("storage.auth.region-other-refused")
@pytest.mark.parametrize("region", ["eu-west-1", "wnam"])
def test_other_region_is_refused(s3, bucket, region):
    """A request signed for another region is refused with a 4xx and changes nothing."""
    reply = s3.wire.request("PUT", bucket, "other-region", body=b"x", region=region)
    assert 400 <= reply.status < 500, f"signed for {region}: status {reply.status}"
    assert reply.error_code, f"signed for {region}: {reply.status} without an error code"
    assert s3.wire.request("HEAD", bucket, "other-region").status == 404, "object written"


@pytest.mark.rule("storage.auth.region-other-refused")
@pytest.mark.parametrize("region", ["eu-west-1", "wnam"])
def test_presigned_url_for_another_region_is_refused(s3, bucket, names, region, presigned_in_force):
    """A presigned URL is a SigV4 request too (spec, Authentication item 2: requests are
    signed for `auto`, presigned URLs supported): one signed for another region is refused
    with a 4xx, serves nothing (GET) and writes nothing (PUT); the same URLs signed for `auto`
    work (presigned-get, presigned-put)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"regional secret").assert_ok()
    for method, body in (("GET", b""), ("PUT", b"overwritten")):
        prepared = s3.wire.prepare(method, bucket, key, sign="none")
        prepared.url = s3.wire.presign(method, bucket, key, expires=300, region=region)
        prepared.body = body
        reply = s3.wire.send(prepared)
        assert 400 <= reply.status < 500, f"presigned {method} for {region}: {reply.status}"
        assert b"regional secret" not in reply.body, f"presigned GET for {region} served it"
    stored = s3.wire.get_object(bucket, key).assert_ok().body
    assert stored == b"regional secret", "the presigned PUT for another region wrote the object"


@pytest.mark.rule("storage.auth.unsigned-refused")
@pytest.mark.parametrize("operation", ["list-buckets", "get-object", "put-object"])
def test_unsigned_request_is_refused(s3, bucket, operation):
    """A request without any signature answers 401 Unauthorized and changes nothing."""
    s3.wire.put_object(bucket, "private", b"secret").assert_ok()
    if operation == "list-buckets":
        reply = s3.wire.request("GET", sign="none")
    elif operation == "get-object":
        reply = s3.wire.request("GET", bucket, "private", sign="none")
    else:
        reply = s3.wire.request("PUT", bucket, "private", body=b"changed", sign="none")
    reply.assert_error(401, "Unauthorized")
    assert b"secret" not in reply.body, "the unsigned GetObject served the object"
    assert s3.wire.get_object(bucket, "private").assert_ok().body == b"secret"
