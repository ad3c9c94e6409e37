"""XML request bodies are parsed in bounded slices (issue 26, fresh adversarial pass).

On main every S3 XML body (DeleteObjects, ?cors, ?lifecycle, CompleteMultipartUpload,
CreateBucket) was parsed by one expat `feed()` on the shared event loop, which holds the GIL
for the whole document: a 4 MiB body of a million empty elements held every surface for ~5 s.
Now a document with more markup than any S3 request needs is refused before parsing, and the
rest is parsed 16 KiB at a time, yielding the loop between slices.
"""

from __future__ import annotations

import re
import threading
import time

import pytest
from reliability.offload_probe import meanwhile, median_latency
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
BUCKET = "offload-xml"
MIB = 1 << 20


def _wide(root: str, element: bytes, size: int = 4 * MIB - 4096) -> bytes:
    """`<root>` holding copies of `element` up to about `size` bytes (under the 4 MiB cap)."""
    head, tail = f"<{root}>".encode(), f"</{root}>".encode()
    return head + element * ((size - len(head) - len(tail)) // len(element)) + tail


@pytest.fixture(scope="module")
def upload_id(ref: RefProcess) -> str:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    reply = wire.request("POST", BUCKET, "mpu", query=[("uploads", "")])
    found = re.search(r"<UploadId>([^<]+)</UploadId>", reply.body.decode())
    assert reply.status == 200 and found, reply.body[:300]
    return found.group(1)


def _targets(upload: str) -> list[tuple[str, str | None, list[tuple[str, str]], str]]:
    return [
        ("POST", BUCKET, [("delete", "")], "Delete"),
        ("PUT", BUCKET, [("cors", "")], "CORSConfiguration"),
        ("PUT", BUCKET, [("lifecycle", "")], "LifecycleConfiguration"),
        ("POST", BUCKET, [("uploadId", upload)], "CompleteMultipartUpload"),
        ("PUT", "offload-xml-new", [], "CreateBucketConfiguration"),
    ]


@pytest.mark.parametrize("element", [b"<x/>", b'<x a="0123456789abcdefghij"/>'])
def test_huge_documents_do_not_stall_other_surfaces(
    ref: RefProcess, upload_id: str, element: bytes
) -> None:
    """4 MiB XML bodies of many tiny elements, two at a time on every XML operation: each is a
    clean 400 MalformedXML (CreateBucket ignores
    unknown elements) and a JSON-RPC call meanwhile stays prompt."""
    wire = ref.wire()
    quiet = median_latency(ref, samples=3)
    answers: list[tuple[str, int, str | None]] = []

    def flood(stop: threading.Event) -> None:
        while not stop.is_set():
            for method, bucket, query, root in _targets(upload_id):
                key = "mpu" if root == "CompleteMultipartUpload" else None
                reply = wire.request(method, bucket, key, query=query, body=_wide(root, element))
                answers.append((root, reply.status, reply.error_code))

    with meanwhile(flood, threads=2) as errors:
        time.sleep(0.5)
        busy = median_latency(ref, samples=7, gap=0.1)
    assert errors == []
    assert answers and all(status < 500 for _, status, _ in answers), answers
    refused = {
        (status, code) for root, status, code in answers if root != "CreateBucketConfiguration"
    }
    assert refused == {(400, "MalformedXML")}, answers
    assert busy < max(0.5, quiet * 5), f"JSON-RPC median {busy:.3f} s during the XML bodies"


def test_legal_documents_still_parse(ref: RefProcess, upload_id: str) -> None:
    """The slices change nothing for a valid document with namespaces and many elements."""
    wire = ref.wire()
    ns = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'
    objects = "".join(f"<Object><Key>k{i}</Key></Object>" for i in range(1000))
    body = f"<Delete {ns}><Quiet>false</Quiet>{objects}</Delete>".encode()
    reply = wire.request("POST", BUCKET, query=[("delete", "")], body=body)
    assert reply.status == 200, reply.body[:300]
    assert reply.body.count(b"<Deleted>") == 1000
