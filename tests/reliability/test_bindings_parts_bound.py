"""The bindings bridge's completeMultipartUpload takes at most 10,000 parts (issue 26, fresh
adversarial pass).

A bridge body may be 128 MiB, room for millions of `{partNumber, etag}` entries that
`completeMultipartUpload` validated and sorted one by one on the event loop. S3 and the binding
allow 10,000 parts; a longer list is now a TypeError of the binding before any work.
"""

from __future__ import annotations

import pytest
import requests
from reliability.refproc import RefProcess

BUCKET = "bindings-parts"


def _bridge(ref: RefProcess, op: str, args: dict[str, object]) -> dict[str, object]:
    bridge = ref.surface("bindings")
    headers = {"Authorization": f"Bearer {bridge['token']}"}
    request = {"op": op, "bucket": BUCKET, "args": args}
    reply = requests.post(bridge["url"] + "/bridge", json=request, headers=headers, timeout=60)
    assert reply.status_code == 200, reply.text[:300]
    found: dict[str, object] = reply.json()
    return found


@pytest.mark.parametrize("count", [10_001, 200_000])
def test_more_parts_than_s3_allows_are_refused(ref: RefProcess, count: int) -> None:
    assert ref.wire().request("PUT", BUCKET).status in (200, 409)
    created = _bridge(ref, "createMultipartUpload", {"key": "k"})
    upload = created["result"]["uploadId"]  # type: ignore[index]
    parts = [{"partNumber": 1 + i % 10_000, "etag": "x"} for i in range(count)]
    answer = _bridge(ref, "completeMultipartUpload", {"key": "k", "uploadId": upload,
                                                      "parts": parts})  # fmt: skip
    error = answer.get("error")
    assert isinstance(error, dict) and error.get("name") == "TypeError", answer
    assert "10000" in str(error.get("message")), answer
