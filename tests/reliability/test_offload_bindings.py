"""A bindings `get` of a large object streams its body (issue 26 LOW).

On main the reply was built whole: body joined, base64-encoded, decoded to text, serialised:
a 200 MiB object raised the reference's memory by 777 MiB.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time

import pytest
import requests
from reliability.offload_probe import MIB, rss_mib
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
BUCKET = "offload-bindings"
SIZE = 128 * MIB


def test_large_get_keeps_memory_flat(ref: RefProcess) -> None:
    """The reply is the same JSON as before (checked by hash); RSS stays within 100 MiB."""
    body = bytes(range(256)) * (SIZE // 256)
    s3 = ref.boto()
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="big", Body=body)
    bridge = ref.surface("bindings")
    request = {"op": "get", "bucket": BUCKET, "args": {"key": "big"}}
    headers = {"Authorization": f"Bearer {bridge['token']}"}
    time.sleep(0.5)
    idle = rss_mib(ref)
    peak = [idle]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(ref))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        reply = requests.post(bridge["url"] + "/bridge", json=request, headers=headers,
                              timeout=120, stream=True)  # fmt: skip
        text = b"".join(reply.iter_content(1 << 20))
    finally:
        done.set()
        watcher.join(timeout=10)
    assert reply.status_code == 200
    result = json.loads(text)["result"]
    assert result["key"] == "big" and result["size"] == SIZE
    got = base64.b64decode(result["body"], validate=True)
    assert hashlib.sha256(got).digest() == hashlib.sha256(body).digest()
    print(f"RSS during the get: {idle:.0f} -> {peak[0]:.0f} MiB")
    assert peak[0] - idle < 100, f"RSS {idle:.0f} -> {peak[0]:.0f} MiB for a {SIZE // MIB} MiB get"


@pytest.fixture(scope="module")
def odd_bucket(ref: RefProcess) -> str:
    ref.boto().create_bucket(Bucket=f"{BUCKET}-odd")
    return f"{BUCKET}-odd"


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 300_001])
def test_small_and_odd_sizes_round_trip(ref: RefProcess, odd_bucket: str, size: int) -> None:
    """Chunk cuts at multiples of 3 join into one valid base64 text for every length."""
    body = bytes((i * 7) % 256 for i in range(size))
    s3 = ref.boto()
    s3.put_object(Bucket=f"{BUCKET}-odd", Key=f"k{size}", Body=body)
    bridge = ref.surface("bindings")
    request = {"op": "get", "bucket": f"{BUCKET}-odd", "args": {"key": f"k{size}"}}
    headers = {"Authorization": f"Bearer {bridge['token']}"}
    reply = requests.post(bridge["url"] + "/bridge", json=request, headers=headers, timeout=60)
    assert reply.status_code == 200
    result = reply.json()["result"]
    assert base64.b64decode(result["body"], validate=True) == body and result["size"] == size
