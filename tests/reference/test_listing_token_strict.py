"""The shared continuation-token codec (s3/listing.py) takes a token only byte for byte as it
issued it (a defect found by a review of 9788910, fixed): base64's lenient mode accepted a token
with bytes added (a control character, spaces, extra padding) as the token it was, and
ListObjectsV2 then echoed a control character into a 200 whose XML no client can parse. Now
400 InvalidArgument. One listing's token is refused by the other."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.s3 import WireClient
from reference_impl.s3.listing import decode_token, encode_token
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
    reply = wire.list_objects_v2(bucket, continuation_token=encode_token("a") + "\x01")
    assert reply.status == 400 or reply.xml is not None, (reply.status, reply.body[:300])
    assert reply.error_code == "InvalidArgument", (reply.status, reply.body[:300])
