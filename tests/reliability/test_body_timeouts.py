"""Every listener times request bodies and idle connections out (issue 26, HIGH 3).

A body that stops (no byte for body_idle_timeout_s) or trickles (below body_min_rate_bps on
average after that grace) is answered 408 and closed, on every surface and every body kind
(S3 PUT, the XML bodies of `?cors`, DeleteObjects and CompleteMultipartUpload, JSON-RPC,
management JSON, bindings bridge, edge, public, TLS); a slow honest client that keeps sending
is not cut off; an idle keep-alive connection is closed. On main none of this was timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from reliability.rawhttp import connect, read_until_closed, request_head, statuses
from reliability.refproc import RefProcess, checked_reference

pytestmark = pytest.mark.slow  # each case waits out a timeout of the reference

BODY_TIMEOUT = 3.0  # body_idle_timeout_s of this module's reference (default 30)
MIN_RATE = 1024  # body_min_rate_bps (the default)
KEEPALIVE = 3.0  # keepalive_timeout_s (default 30)
SLACK = 6.0  # a busy machine's margin beyond a timeout
BUCKET = "body-timeouts"
DECLARED = 200_000


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"body_idle_timeout_s": BODY_TIMEOUT, "keepalive_timeout_s": KEEPALIVE}
    yield from checked_reference(tmp_path_factory, "body-timeouts", profile, BUCKET)


def _s3(ref: RefProcess, method: str, key: str | None, query: tuple[tuple[str, str], ...],
        listener: str = "s3") -> tuple[str, bytes]:  # fmt: skip
    wire = ref.wire()
    if listener != "s3":
        wire.endpoint = ref.url(listener)
    prepared = wire.prepare(method, BUCKET, key, query=query, payload_hash="UNSIGNED-PAYLOAD",
                            headers={"Content-Length": str(DECLARED)})  # fmt: skip
    return prepared.url, request_head(method, prepared.url, dict(prepared.headers))


def _plain(ref: RefProcess, listener: str, path: str, **headers: str) -> tuple[str, bytes]:
    url = ref.url(listener) + path
    head = {"Content-Type": "application/json", "Content-Length": str(DECLARED), **headers}
    return url, request_head("POST", url, head)


def _upload_id(ref: RefProcess) -> str:
    reply = ref.wire().request("POST", BUCKET, "mpu", query=[("uploads", "")])
    root = reply.xml
    assert reply.status == 200 and root is not None, reply.describe()
    return next(el.text for el in root.iter() if el.tag.endswith("UploadId")) or ""


CASES: dict[str, Callable[[RefProcess], tuple[str, bytes]]] = {
    "s3-put": lambda r: _s3(r, "PUT", "stalled", ()),
    "s3-cors-xml": lambda r: _s3(r, "PUT", None, (("cors", ""),)),
    "s3-delete-objects-xml": lambda r: _s3(r, "POST", None, (("delete", ""),)),
    "s3-complete-multipart-xml": lambda r: _s3(r, "POST", "mpu", (("uploadId", _upload_id(r)),)),
    "s3-tls-put": lambda r: _s3(r, "PUT", "stalled-tls", (), listener="s3_tls"),
    "gateway": lambda r: _plain(r, "gateway", "/v1/sepolia"),
    "mgmt": lambda r: _plain(r, "mgmt", "/client/v4/accounts/x/r2/buckets"),
    "bindings": lambda r: _plain(
        r, "bindings", "/bridge", Authorization=f"Bearer {r.surface('bindings')['token']}"
    ),
    "edge": lambda r: _plain(r, "edge", "/"),
    "public": lambda r: _plain(r, "public", "/"),
    "public-tls": lambda r: _plain(r, "public_tls", "/"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_stalled_body_is_timed_out(ref: RefProcess, case: str) -> None:
    """Declared 200,000 bytes, sent 1,000, then silence: closed within the body timeout."""
    url, head = CASES[case](ref)
    sock = connect(url)
    started = time.monotonic()
    sock.sendall(head + b"{" * 1000)
    raw, closed = read_until_closed(sock, started + BODY_TIMEOUT + SLACK)
    elapsed = time.monotonic() - started
    sock.close()
    assert closed, f"{case}: a stalled body still open after {elapsed:.1f} s"
    codes = statuses(raw)
    assert all(code < 500 for code in codes), f"{case}: {raw[:300]!r}"
    assert elapsed >= BODY_TIMEOUT - 0.5 or codes[:1] not in ([200], [201]), raw[:300]
    early = codes[:1] != [] and codes[0] != 408  # answered before the body (401, 404): closed
    if case != "public-tls" and not early:  # hypercorn closes a stalled body without answer
        assert codes == [408], f"{case}: {raw[:300]!r}"


def _trickle(ref: RefProcess, per_second: int, seconds: float) -> tuple[list[int], float, bool]:
    """A PUT declaring `per_second * seconds` bytes, sent `per_second` bytes a second."""
    total = int(per_second * seconds)
    wire = ref.wire()
    prepared = wire.prepare("PUT", BUCKET, f"trickle-{per_second}", payload_hash="UNSIGNED-PAYLOAD",
                            headers={"Content-Length": str(total)})  # fmt: skip
    sock = connect(prepared.url)
    started = time.monotonic()
    sock.sendall(request_head("PUT", prepared.url, dict(prepared.headers)))
    sent, closed = 0, False
    while sent < total and time.monotonic() - started < seconds + SLACK:
        piece = min(per_second // 4 or 1, total - sent)
        try:
            sock.sendall(b"t" * piece)
        except OSError:
            closed = True
            break
        sent += piece
        time.sleep(0.25)
    raw, closed_after = read_until_closed(sock, time.monotonic() + BODY_TIMEOUT + SLACK)
    sock.close()
    return statuses(raw), time.monotonic() - started, closed or closed_after


@pytest.mark.slow
def test_slow_honest_body_is_not_cut_off(ref: RefProcess) -> None:
    """4 KiB/s for 8 s (well past the 3 s idle limit in total, never idle): stored."""
    codes, _, _ = _trickle(ref, 4096, 8.0)
    assert codes == [200], codes
    assert ref.wire().get_object(BUCKET, "trickle-4096").status == 200


def test_trickling_body_below_the_minimum_rate_is_cut_off(ref: RefProcess) -> None:
    """40 bytes/s (a byte well within the idle limit, 25x below the minimum rate): 408 once
    its grace plus what it sent at the minimum rate is over, long before it would end."""
    codes, elapsed, closed = _trickle(ref, 40, 30.0)
    assert closed and codes == [408], (codes, elapsed)
    assert elapsed < BODY_TIMEOUT + 40 * 30 / MIN_RATE + 2 * SLACK, elapsed


@pytest.mark.parametrize("listener", ["s3", "gateway", "mgmt", "public", "s3_tls"])
def test_idle_keepalive_connection_is_closed(ref: RefProcess, listener: str) -> None:
    url = ref.url(listener)
    sock = connect(url)
    sock.sendall(request_head("GET", url, {}))
    started = time.monotonic()
    raw, closed = read_until_closed(sock, started + KEEPALIVE + SLACK)
    sock.close()
    assert statuses(raw)[:1] and closed, f"{listener}: idle keep-alive connection kept open"
