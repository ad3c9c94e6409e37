"""Transport LOW rows of issue 26: strict chunk sizes, one Content-Length, quiet disconnects.

- aws-chunked chunk sizes were read with `int(x, 16)`, which also takes `0x2000`, `+2000` and
  `20_00`: a body framed against the grammar (chunk-size = 1*HEXDIG) was stored;
- the edge origin appended a `content-length` chosen by the request beside its own: two
  Content-Length headers on the wire (RFC 9110 8.6 / RFC 9112 6.3 make that a framing error);
- every client that dropped its connection mid-body left a traceback in the log.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability.rawhttp import connect, read_until_closed, request_head, statuses
from reliability.refproc import RefProcess, start

from conformance.clients import s3_chunked as chunked

BUCKET = "transport-lows"
BODY = [b"a" * 8192, b"b" * 8192, b"tail"]


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RefProcess, Path]]:
    log = tmp_path_factory.mktemp("lows-log") / "reference.stderr"
    proc = start(tmp_path_factory.mktemp("lows") / "data", log=log)
    proc.wire().create_bucket(BUCKET)
    yield proc, log
    proc.stop()


@pytest.mark.parametrize("size", [b"0x2000", b"+2000", b"20_00", b" 2000"])
def test_chunk_size_outside_the_grammar_is_refused(
    logged: tuple[RefProcess, Path], size: bytes
) -> None:
    ref, _ = logged
    wire = ref.wire()
    key = f"chunk-{size.strip().decode()}"
    reply = chunked.put_chunked(
        wire, BUCKET, key, BODY, tamper=lambda body: body.replace(b"2000;", size + b";", 1)
    )
    assert 400 <= reply.status < 500, (reply.status, reply.body[:300])
    assert wire.get_object(BUCKET, key).status == 404


def test_chunk_size_in_upper_case_hex_is_taken(logged: tuple[RefProcess, Path]) -> None:
    """The grammar's own forms still pass (HEXDIG is either case)."""
    ref, _ = logged
    wire = ref.wire()
    reply = chunked.put_chunked(wire, BUCKET, "upper", BODY)
    assert reply.status == 200, reply.body[:300]


def test_edge_never_sends_two_content_lengths(logged: tuple[RefProcess, Path]) -> None:
    ref, _ = logged
    url = str(ref.surface("edge")["url"]) + "/p"
    for chosen in ("x-ec-respond-content-length", "x-ec-respond-transfer-encoding"):
        sock = connect(url)
        value = "5" if chosen.endswith("length") else "chunked"
        sock.sendall(request_head("GET", url, {chosen: value, "Connection": "close"}))
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
        sock.close()
        head = raw.partition(b"\r\n\r\n")[0].lower()
        assert statuses(raw) == [200], raw[:300]
        framing = head.count(b"\r\ncontent-length:") + head.count(b"\r\ntransfer-encoding:")
        assert framing == 1, head.decode("latin-1")


def test_dropped_clients_leave_no_traceback(logged: tuple[RefProcess, Path]) -> None:
    """20 clients drop mid-body on the gateway, mgmt and S3: no traceback, few log lines."""
    ref, log = logged
    before = log.read_text("utf-8", "replace") if log.is_file() else ""
    wire = ref.wire()
    targets = [
        (str(ref.surface("gateway")["url"]) + "/v1/sepolia", {}),
        (str(ref.surface("bindings")["url"]) + "/bridge",
         {"Authorization": f"Bearer {ref.surface('bindings')['token']}"}),
    ]  # fmt: skip
    for i in range(10):
        for url, extra in targets:
            sock = connect(url)
            sock.sendall(request_head("POST", url, {"Content-Length": "100000", **extra}) + b"{")
            time.sleep(0.05)
            sock.close()
        prepared = wire.prepare("PUT", BUCKET, f"dropped-{i}", payload_hash="UNSIGNED-PAYLOAD",
                                headers={"Content-Length": "100000"})  # fmt: skip
        sock = connect(prepared.url)
        sock.sendall(request_head("PUT", prepared.url, dict(prepared.headers)) + b"x" * 1000)
        time.sleep(0.05)
        sock.close()
    time.sleep(1.0)
    added = (log.read_text("utf-8", "replace") if log.is_file() else "")[len(before) :]
    assert "Traceback" not in added, added[-3000:]
    assert added.count("\n") <= 30, f"{added.count(chr(10))} log lines for 30 drops"
