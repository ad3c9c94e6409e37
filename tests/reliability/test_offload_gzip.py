"""Public gzip decoding is bounded work: a gzip bomb, multi-member and corrupt gzip (issue 26).

A client that refuses gzip gets the stored gzip object decoded on the fly (public/encoding.py).
A 1 MB object can decode to 1 GiB: the decoder must never hold more than a small piece, must
let the event loop serve others between pieces, and must stop when the client leaves.
"""

from __future__ import annotations

import gzip
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from reliability.offload_probe import (
    gzip_of_zeros,
    meanwhile,
    median_latency,
    public_domain,
    public_get_head,
    public_request,
    rss_mib,
    status_of,
)
from reliability.rawhttp import connect, read_until_closed
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
BUCKET = "offload-gzip"
IDENTITY = {"Accept-Encoding": "identity"}
TEXT = b"line of text, decoded for a client that refuses gzip\n" * 40


@pytest.fixture(scope="module")
def domain(ref: RefProcess) -> str:
    client = ref.boto()
    client.create_bucket(Bucket=BUCKET)
    client.put_object(Bucket=BUCKET, Key="bomb", Body=gzip_of_zeros(1024), ContentEncoding="gzip")
    return public_domain(ref, BUCKET)


def _put(ref: RefProcess, key: str, body: bytes) -> None:
    ref.boto().put_object(Bucket=BUCKET, Key=key, Body=body, ContentEncoding="gzip")


def _get(ref: RefProcess, domain: str, key: str, headers: dict[str, str]) -> bytes:
    url = ref.surface("public")["url"] + "/" + key
    sock = connect(url, timeout=30)
    try:
        sock.sendall(public_request("GET", key, domain, {"Connection": "close", **headers}))
        raw, closed = read_until_closed(sock, time.monotonic() + 60)
    finally:
        sock.close()
    assert closed, "the reply did not end within 60 s"
    return raw


def _body(raw: bytes) -> tuple[int, dict[str, str], bytes, bool]:
    """(status, headers, de-chunked body, whether the chunked body ended with its terminator)."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    if headers.get("transfer-encoding") != "chunked":
        return status_of(raw), headers, rest, True
    body = b""
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return status_of(raw), headers, body, True
        body, rest = body + rest[:size], rest[size + 2 :]
    return status_of(raw), headers, body, False


def test_gzip_bomb_heads_keep_memory_flat(ref: RefProcess, domain: str) -> None:
    """Three identity GETs of 1 GiB of zeros in 1 MB of gzip read their head and stop: the
    reference's RSS stays within 100 MiB of idle while they hang on and after they close
    (on main: +1.4 GiB while open)."""
    idle = rss_mib(ref)
    peak = idle

    def head() -> bytes:
        return public_get_head(ref, domain, "bomb", IDENTITY, read=64 * 1024, hold=3.0)

    with ThreadPoolExecutor(3) as pool:
        heads = [pool.submit(head) for _ in range(3)]
        while not all(f.done() for f in heads):
            peak = max(peak, rss_mib(ref))
            time.sleep(0.1)
        raws = [f.result() for f in heads]
    time.sleep(1.0)
    after = rss_mib(ref)
    assert all(status_of(raw) == 200 for raw in raws), [raw[:60] for raw in raws]
    assert all(b"\x00" * 1024 in raw for raw in raws), "the head of the decoded zeros"
    assert peak - idle < 100, f"RSS {idle:.0f} -> {peak:.0f} MiB during three bomb heads"
    assert after - idle < 100, f"RSS {idle:.0f} -> {after:.0f} MiB after they closed"


def test_bomb_download_does_not_stall_the_loop(ref: RefProcess, domain: str) -> None:
    """While a client downloads the decoded bomb as fast as it can, a JSON-RPC call on the
    gateway still answers promptly (on main: one inflate call of ~256 MiB held the loop)."""
    quiet = median_latency(ref, samples=3)

    def download(stop: threading.Event) -> None:
        public_get_head(ref, domain, "bomb", IDENTITY, read=1 << 30, stop=stop)

    with meanwhile(download, threads=2) as errors:
        time.sleep(0.5)
        busy = median_latency(ref, samples=5, gap=0.2)
    assert errors == []
    assert busy < max(0.5, quiet * 5), f"JSON-RPC median {busy:.3f} s during the download"


@pytest.mark.parametrize("size", [40, 400_000], ids=["whole-body", "streamed"])
def test_every_member_is_decoded(ref: RefProcess, domain: str, size: int) -> None:
    """RFC 1952: a gzip file is a series of members; the decoded body holds them all."""
    parts = [os.urandom(size // 2).hex().encode(), TEXT, b"third member\n"]
    key = f"members-{size}"
    _put(ref, key, b"".join(gzip.compress(p) for p in parts))
    status, headers, body, ended = _body(_get(ref, domain, key, IDENTITY))
    assert (status, ended) == (200, True) and "content-encoding" not in headers
    assert body == b"".join(parts)


def test_not_gzip_at_all_is_not_an_empty_200(ref: RefProcess, domain: str) -> None:
    """Bytes labelled gzip that are not gzip: 406 with a reason (docs/reference-choices.md), not an
    empty 200 as on main; with gzip accepted the stored bytes go out unchanged."""
    _put(ref, "corrupt", b"these bytes were never gzip" * 10)
    status, _, body, _ = _body(_get(ref, domain, "corrupt", IDENTITY))
    assert status == 406 and b"not valid gzip" in body
    status, headers, body, _ = _body(_get(ref, domain, "corrupt", {"Accept-Encoding": "gzip"}))
    assert (status, headers.get("content-encoding")) == (200, "gzip")
    assert body == b"these bytes were never gzip" * 10


@pytest.mark.parametrize("damage", ["truncated", "garbage-after-head"])
def test_damage_after_the_head_cuts_the_reply(ref: RefProcess, domain: str, damage: str) -> None:
    """A body that fails to decode after the reply started ends without the chunked
    terminator (the client sees an incomplete body), never as a complete short 200."""
    whole = gzip.compress(os.urandom(300_000).hex().encode(), compresslevel=1)
    cut = whole[: len(whole) // 2]
    _put(ref, damage, cut if damage == "truncated" else cut + b"\xff" * 300_000)
    status, _, body, ended = _body(_get(ref, domain, damage, IDENTITY))
    assert status == 200 and body, "the head decodes, so the reply starts"
    assert not ended, f"a damaged gzip body ended as a complete reply of {len(body)} bytes"


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0", "br, gzip;q=0"])
@pytest.mark.parametrize("size", [40, 400_000], ids=["whole-body", "streamed"])
def test_refusing_gzip_gets_the_decoded_body(
    ref: RefProcess, domain: str, accept: str, size: int
) -> None:
    """Issue 23's doubtful cases: a client refusing gzip (RFC 9110 12.5.3: q=0 is "not
    acceptable") gets the whole decoded body, never gzip and never an empty 200."""
    plain = os.urandom(size // 2).hex().encode()
    key = f"refused-{size}"
    _put(ref, key, gzip.compress(plain))
    status, headers, body, ended = _body(_get(ref, domain, key, {"Accept-Encoding": accept}))
    assert (status, ended) == (200, True)
    assert "content-encoding" not in headers and body == plain
