"""The shared continuation-token codec (s3/listing.py) takes a token only byte for byte as it
issued it (a defect found by a review of 9788910, fixed): base64's lenient mode accepted a token
with bytes added (a control character, spaces, extra padding) as the token it was, and
ListObjectsV2 then echoed a control character into a 200 whose XML no client can parse. Now
400 InvalidArgument. One listing's token is refused by the other."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.s3 import WireClient
from reference_impl.s3.listing import bucket_token_magic, decode_token, encode_token
from reference_impl.wire.s3.errors import S3Error


def test_one_listings_token_is_refused_by_the_other() -> None:
    for made, asked in (("v1:", "b1:"), ("b1:", "v1:")):
        with pytest.raises(S3Error):
            decode_token(encode_token("a", made), asked)


@pytest.mark.parametrize("extra", ["\x01", " ", "====", "\n"])
def test_an_altered_token_is_refused(extra: str) -> None:
    with pytest.raises(S3Error):
        decode_token(encode_token("a") + extra)


def test_a_control_character_in_a_token_is_a_400_or_valid_xml(
    s3: Any, wire: WireClient, bucket: str
) -> None:
    s3.put_object(Bucket=bucket, Key="a", Body=b"")
    s3.put_object(Bucket=bucket, Key="b", Body=b"")
    token = encode_token("a", bucket_token_magic(bucket))  # a token of this bucket, so only
    reply = wire.list_objects_v2(bucket, continuation_token=token + "\x01")  # the byte is wrong
    assert reply.status == 400 or reply.xml is not None, (reply.status, reply.body[:300])
    assert reply.error_code == "InvalidArgument", (reply.status, reply.body[:300])


def test_a_token_of_another_bucket_is_refused(s3: Any, wire: WireClient, bucket: str) -> None:
    """A ListObjectsV2 token names its bucket (hostile round 3: a token issued for one bucket
    was read as a position in any other): elsewhere 400 InvalidArgument, at home the next page."""
    other = f"{bucket}-o"
    s3.create_bucket(Bucket=other)
    for name in (bucket, other):
        for key in ("a", "b", "c"):
            s3.put_object(Bucket=name, Key=key, Body=b"")
    first = s3.list_objects_v2(Bucket=bucket, MaxKeys=1)
    token = first["NextContinuationToken"]
    elsewhere = wire.list_objects_v2(other, continuation_token=token)
    assert elsewhere.error_code == "InvalidArgument", (elsewhere.status, elsewhere.body[:300])
    home = s3.list_objects_v2(Bucket=bucket, ContinuationToken=token)
    assert [o["Key"] for o in home["Contents"]] == ["b", "c"], home
