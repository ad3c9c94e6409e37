"""A completion whose condition fails never ends another completion of the same upload.

A failed condition of CompleteMultipartUpload aborts the upload (decisions.md). The check ran
before the one that answers a second completion TooMuchConcurrency, so a conditional
completion arriving while another completion of the same upload was joining its parts deleted
the upload under it: the running completion then found no parts and answered 400 InvalidPart,
and the object it was publishing was lost although nothing had failed for its client.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from reliability import rawhttp
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient, WireReply

BUCKET = "complete-race"


def _completing(wire: WireClient, upload_id: str, within_s: float = 10.0) -> None:
    """Wait until the upload's completion runs: ListParts, harmless, answers 429 then."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        reply = wire.request("GET", BUCKET, "k", query=[("uploadId", upload_id)])
        if reply.status == 429:
            return
        time.sleep(0.02)
    raise AssertionError("the first completion never started")


def test_a_failed_condition_never_ends_a_completion_under_way(
    launch: Callable[..., RefProcess],
) -> None:
    ref = launch("--profile", "multipart_complete_delay_seconds=1.5")  # the join, held open
    wire = ref.wire()
    wire.create_bucket(BUCKET).assert_ok()
    wire.put_object(BUCKET, "k", b"old").assert_ok()
    created = wire.request("POST", BUCKET, "k", query=[("uploads", None)]).assert_ok()
    assert created.xml is not None
    upload_id = created.xml.findtext("UploadId") or ""
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    etag = wire.request("PUT", BUCKET, "k", query=query, body=b"new").assert_ok().header("ETag")
    body = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{etag}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    # the conditional completion is under way first (its upload found), its body still coming
    late = wire.prepare(
        "POST", BUCKET, "k", query=[("uploadId", upload_id)], body=body,
        headers={"If-None-Match": "*"},
    )  # fmt: skip
    sock = rawhttp.connect(late.url)
    head = {**late.headers, "Content-Length": str(len(body)), "Connection": "close"}
    sock.sendall(rawhttp.request_head("POST", late.url, head))
    time.sleep(0.3)  # its handler passes the upload check (slower: it answers 429, as fixed)
    first: list[WireReply] = []

    def complete() -> None:
        query = [("uploadId", upload_id)]
        first.append(ref.wire().request("POST", BUCKET, "k", query=query, body=body))

    thread = threading.Thread(target=complete)
    thread.start()
    try:
        _completing(wire, upload_id)
        sock.sendall(body)
        raw, _ = rawhttp.read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
        thread.join(timeout=20)
    assert first and first[0].status == 200, first[0].describe() if first else "no answer"
    assert wire.get_object(BUCKET, "k").assert_ok().body == b"new"
    assert rawhttp.statuses(raw)[:1] == [429], raw[:400]
    assert b"TooMuchConcurrency" in raw
