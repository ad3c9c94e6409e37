"""Hostile S3 requests: odd keys, odd headers, bad ranges and dates (hypothesis, bounded).

Keys reach SQLite and headers reach parsers of our own; a key like `../../x` must never become
a path, and nothing a client sends may produce a 500 or a hang. A key that is accepted must
read back byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient, WireReply

BUCKET = "hostile-req"
BODY = b"0123456789" * 10
KEY_CHARS = st.characters(codec="utf-8", exclude_categories=["Cs"])
TRICKY = st.sampled_from(
    [
        "..",
        "../",
        "/..",
        "./",
        "//",
        "\x00",
        "\r\n",
        "\x7f",
        "%2e%2e",
        "?",
        "#",
        "\\",
        "~",
        " ",
        "\u202e",
        "\ufeff",
        "\U0001f600",
        "é",
        "ﬃ",
    ]
)
HEADER_NAME = st.from_regex(r"\A[A-Za-z][A-Za-z0-9\-]{0,30}\Z")
HEADER_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80).map(
    str.strip
)
SKIP_HEADERS = {
    "host",
    "authorization",
    "content-length",
    "x-amz-content-sha256",
    "x-amz-date",
    "transfer-encoding",
    "expect",
    "connection",
}


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> Iterator[WireClient]:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    client.put_object(BUCKET, "fixed", BODY).assert_ok()
    yield client


def _no_500(reply: WireReply) -> WireReply:
    assert reply.status < 500, f"{reply.method} {reply.url}: {reply.status} {reply.body[:300]!r}"
    return reply


@given(
    key=st.lists(st.one_of(TRICKY, st.text(KEY_CHARS, max_size=8)), min_size=1, max_size=8).map(
        "".join
    )
)
@example(key="../../../../escape")
@example(key="a/../../b")
@example(key="\x01\x02\x1f")
def test_odd_keys_round_trip_or_refused(wire: WireClient, key: str) -> None:
    put = _no_500(wire.put_object(BUCKET, key, BODY))
    if put.status != 200:
        assert put.status >= 400 and put.error_code, put.body[:200]
        return
    got = _no_500(wire.get_object(BUCKET, key))
    assert (got.status, got.body) == (200, BODY), f"key {key!r} did not read back"
    listed = _no_500(wire.list_objects_v2(BUCKET, prefix=key))
    assert listed.status == 200
    _no_500(wire.request("HEAD", BUCKET, key))
    assert _no_500(wire.request("DELETE", BUCKET, key)).status == 204


@pytest.mark.parametrize(("size", "ok"), [(1024, True), (1025, False)])
@pytest.mark.parametrize("unit", ["a", "é", "\U0001f600"], ids=["ascii", "2-byte", "4-byte"])
def test_key_length_limit_counts_utf8_bytes(
    wire: WireClient, size: int, ok: bool, unit: str
) -> None:
    width = len(unit.encode())
    key = unit * (size // width) + "a" * (size % width)
    assert len(key.encode()) == size
    reply = _no_500(wire.put_object(BUCKET, key, BODY))
    if ok:
        reply.assert_ok()
        assert wire.get_object(BUCKET, key).body == BODY
    else:
        assert reply.status == 400 and reply.error_code in {"KeyTooLongError", "InvalidObjectName"}


def test_nothing_written_outside_the_data_dir(ref: RefProcess, wire: WireClient) -> None:
    for key in ["../../../outside", "..%2F..%2Foutside", "/abs/outside", "..\\..\\outside"]:
        _no_500(wire.put_object(BUCKET, key, BODY))
    root = ref.data_dir.parent
    strays = [
        p
        for p in root.rglob("*")
        if ref.data_dir not in p.parents
        and p != ref.data_dir
        and not p.name.startswith(f"{ref.data_dir.name}-ready-")
    ]
    assert strays == []
    assert not Path("outside").exists() and not Path("/abs/outside").exists()


@given(
    value=st.one_of(
        st.from_regex(r"\Abytes=-?[0-9]{0,20}-?[0-9]{0,20}(,[0-9]*-[0-9]*){0,3}\Z"),
        HEADER_VALUE,
    )
)
@example(value="bytes=99999999999999999999999-")
@example(value="bytes=5-2")
@example(value="bytes=-0")
@example(value="bytes=0-0,1-1")
def test_bad_ranges_never_500(wire: WireClient, value: str) -> None:
    reply = _no_500(wire.get_object(BUCKET, "fixed", range=value))
    assert reply.status in {200, 206, 416, 400}, reply.status
    if reply.status == 206:
        assert reply.body and reply.body in BODY


@given(
    value=HEADER_VALUE,
    name=st.sampled_from(
        ["If-Modified-Since", "If-Unmodified-Since", "If-Match", "If-None-Match", "Date"]
    ),
)
@example(value="Thu, 31 Dec 9999 23:59:59 GMT", name="If-Modified-Since")
@example(value="Mon, 00 Jan 0000 00:00:00 GMT", name="If-Unmodified-Since")
def test_bad_conditional_dates_never_500(wire: WireClient, value: str, name: str) -> None:
    reply = _no_500(wire.get_object(BUCKET, "fixed", headers={name: value}))
    assert reply.status in {200, 304, 400, 412}, reply.status


@given(value=HEADER_VALUE)
@example(value="20991231T000000Z")
@example(value="99999999T999999Z")
def test_bad_amz_date_refused(wire: WireClient, value: str) -> None:
    """The signed date is garbage: refused with a 4xx, never served and never a 500."""
    prepared = wire.prepare("GET", BUCKET, "fixed")
    prepared.headers["X-Amz-Date"] = value
    reply = _no_500(wire.send(prepared))
    assert 400 <= reply.status < 500 and reply.error_code


@given(
    headers=st.dictionaries(HEADER_NAME, HEADER_VALUE, max_size=6),
    method=st.sampled_from(["GET", "PUT", "HEAD", "DELETE", "POST"]),
)
def test_odd_headers_never_500(wire: WireClient, headers: dict[str, str], method: str) -> None:
    sent = {k: v for k, v in headers.items() if k.lower() not in SKIP_HEADERS}
    body = BODY if method in ("PUT", "POST") else b""
    _no_500(wire.request(method, BUCKET, "odd-headers", headers=sent, body=body))
