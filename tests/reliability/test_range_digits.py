"""Range positions with leading zeros name the same bytes (RFC 9110 14.1.2: `1*DIGIT`).

A position of more than 20 digits was read as "past any object" before its zeros were dropped:
`bytes=000000000000000000001-2` (bytes 1 to 2) was taken as a start beyond its end, so the
range was ignored and the whole object answered 200 in place of the two bytes asked for.
"""

from __future__ import annotations

import pytest
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient

BUCKET = "range-digits"
ZEROS = "0" * 30


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    client.put_object(BUCKET, "k", b"0123456789").assert_ok()
    return client


@pytest.mark.parametrize(
    ("header", "body"),
    [
        (f"bytes={ZEROS}1-{ZEROS}2", b"12"),
        (f"bytes={ZEROS}8-", b"89"),
        (f"bytes=-{ZEROS}3", b"789"),
        (f"bytes=0-{ZEROS}", b"0"),
    ],
)
def test_leading_zeros_select_the_same_bytes(wire: WireClient, header: str, body: bytes) -> None:
    reply = wire.get_object(BUCKET, "k", range=header)
    assert (reply.status, reply.body) == (206, body), reply.describe()


def test_a_long_position_is_still_past_the_end(wire: WireClient) -> None:
    reply = wire.get_object(BUCKET, "k", range="bytes=" + "9" * 30 + "-")
    assert reply.status == 416, reply.describe()
