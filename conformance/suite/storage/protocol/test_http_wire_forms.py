"""A valid request is served whatever its wire form (RFC 9112 2.2 and 9.3.2, RFC 9110 7.8).

TCP carries a byte stream: a server reads a request over as many reads as it arrives in, and
reads the next pipelined request wherever the previous one's body ended. A server that does
not switch protocols ignores a request's Upgrade. docs/decisions.md,
`storage.http.wire-forms-served`.
"""

from __future__ import annotations

import pytest

from conformance.clients.raw_wire import request_bytes, send_pieces

BIG = bytes(range(256)) * 80  # 20 KiB: past a 16 KiB head bound if it were counted as head
SMALL = b"read back over a split head"


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, SMALL).assert_ok()
    return bucket, key


def _get(s3, bucket: str, key: str, unsigned: dict[str, str] | None = None) -> bytes:
    return request_bytes(s3.wire.prepare("GET", bucket, key), unsigned)[0]


def _closes(reply) -> bool:
    fields = {name.lower(): value for name, value in reply.headers.items()}
    return "close" in fields.get("connection", "").lower()


@pytest.mark.rule("storage.http.wire-forms-served")
def test_a_head_split_across_writes_is_served(s3, stored) -> None:
    bucket, key = stored
    data = _get(s3, bucket, key)
    cut = data.index(b"\r\n") + 2 + 5  # inside the first header line
    answers = send_pieces(s3.wire, s3.wire.url(bucket, key), [data[:cut], data[cut:]], limit=1)
    seen = [(r.status, len(r.body)) for r in answers]
    assert seen == [(200, len(SMALL))], f"a GET whose head came in two writes: {seen or 'none'}"
    assert answers[0].body == SMALL


@pytest.mark.rule("storage.http.wire-forms-served")
def test_a_request_pipelined_behind_a_big_body_is_served(s3, stored, names) -> None:
    bucket, key = stored
    put = request_bytes(s3.wire.prepare("PUT", bucket, names.key(), body=BIG))[0]
    get = _get(s3, bucket, key)
    cut = len(get) // 2  # the GET's head split: half in the PUT's write, half after a pause
    answers = send_pieces(s3.wire, s3.wire.url(bucket, key), [put + get[:cut], get[cut:]], limit=2)
    seen = [reply.status for reply in answers]
    if seen == [200] and _closes(answers[0]):  # RFC 9112 9.6: it may close after any answer
        pytest.skip("N/A: the target closes the connection after each answer: nothing pipelined")
    assert seen == [200, 200], f"a PUT of {len(BIG)} bytes, then a GET split in two: {seen}"
    assert answers[1].body == SMALL, "the pipelined GET's body"


@pytest.mark.rule("storage.http.wire-forms-served")
def test_an_upgrade_the_server_does_not_take_is_ignored(s3, stored) -> None:
    """`curl --http2 http://...` sends this; a server that stays on HTTP/1.1 answers as usual
    (RFC 9110 7.8), or switches (101) if it speaks h2c. The Upgrade fields are hop-by-hop: sent
    unsigned, as a proxy in front of a store may strip them before the signature is checked."""
    bucket, key = stored
    headers = {"Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c",
               "HTTP2-Settings": "AAMAAABkAARAAAAAAAIAAAAA"}  # fmt: skip
    answers = send_pieces(s3.wire, s3.wire.url(bucket, key), [_get(s3, bucket, key, headers)], 1)
    seen = [reply.status for reply in answers]
    assert seen in ([200], [101]), f"a GET carrying Upgrade: h2c: {seen or 'no answer'}"
    if seen == [200]:
        assert answers[0].body == SMALL
