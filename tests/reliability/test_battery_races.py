"""Adversarial battery, storage (issue 16 rows 1-4 and their class): races between bucket and
object operations, key encodings, the public entrypoint's Host.

What they refuse: a PUT or completion acknowledged into a bucket that was deleted meanwhile, objects
or uploads that come back with a recreated bucket, two keys that alias each other, a private
object served anonymously.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from reliability.rawhttp import connect, read_until_closed, request_head, statuses
from reliability.refproc import RefProcess, start

from conformance.clients.s3_wire import WireClient

STREAMERS = 4
PART = 5 * 2**20


@pytest.fixture
def wire(ref: RefProcess) -> WireClient:
    return ref.wire()


def _fresh(wire: WireClient, tag: str) -> str:
    name = f"race-{tag}-{time.monotonic_ns() % 10**9}"
    wire.create_bucket(name).assert_ok()
    return name


def _open_streaming_put(ref: RefProcess, bucket: str, key: str, size: int) -> Any:
    """A signed PUT whose head and first half are sent; the caller finishes it later."""
    body = b"s" * size
    prepared = ref.wire().prepare(
        "PUT", bucket, key, body=body, headers={"Content-Length": str(size)}
    )
    sock = connect(prepared.url)
    head = request_head("PUT", prepared.url, {**prepared.headers, "Connection": "close"})
    sock.sendall(head + body[: size // 2])
    return sock, body[size // 2 :]


def test_delete_bucket_while_puts_stream_leaves_nothing_behind(ref: RefProcess) -> None:
    """Row 1: DeleteBucket 204 while PUTs stream, then the PUTs 200 into the deleted bucket, and
    a recreated bucket showed their objects. A delete and a commit are serialised: if the
    delete is acknowledged, no PUT into the bucket is, and a recreated bucket is empty."""
    wire = ref.wire()
    bucket = _fresh(wire, "stream")
    streams = [_open_streaming_put(ref, bucket, f"k{i}", 256 * 1024) for i in range(STREAMERS)]
    time.sleep(0.3)  # the PUT handlers are reading their bodies now
    deleted = wire.request("DELETE", bucket)
    results: list[list[int]] = []
    for sock, rest in streams:
        with contextlib.suppress(OSError):  # the server may have answered already
            sock.sendall(rest)
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
        sock.close()
        results.append(statuses(raw))
    assert all(codes and codes[0] < 500 for codes in results), results
    acknowledged = [codes for codes in results if codes[0] == 200]
    if deleted.status == 204:
        assert not acknowledged, f"DeleteBucket 204 and then PUTs 200 into it: {results}"
    wire.create_bucket(bucket)
    listed = wire.list_objects_v2(bucket)
    keys = (
        [] if listed.xml is None else [e.text for e in listed.xml.iter() if e.tag.endswith("Key")]
    )
    if deleted.status == 204:
        assert keys == [], f"a recreated bucket brought back {keys}"


def test_delete_bucket_with_upload_in_progress(ref: RefProcess) -> None:
    """Row 2: the upload survived the bucket and completed in a recreated one."""
    wire = ref.wire()
    bucket = _fresh(wire, "mpu")
    created = wire.request("POST", bucket, "big", query=[("uploads", None)]).assert_ok()
    assert created.xml is not None
    upload = created.xml.findtext("{*}UploadId") or created.xml.findtext("UploadId") or ""
    part = wire.request(
        "PUT", bucket, "big", query=[("partNumber", "1"), ("uploadId", upload)], body=b"p" * 1024
    ).assert_ok()
    deleted = wire.request("DELETE", bucket)
    assert deleted.status in (204, 409), deleted.body[:300]
    if deleted.status == 409:  # refused as not empty: S3's BucketNotEmpty
        assert deleted.error_code == "BucketNotEmpty"
        return
    wire.create_bucket(bucket).assert_ok()
    listed = wire.request("GET", bucket, query=[("uploads", None)])
    assert b"<UploadId>" not in listed.body, "the upload survived its bucket"
    etag = part.header("ETag") or ""
    body = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{etag}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    done = wire.request("POST", bucket, "big", query=[("uploadId", upload)], body=body)
    assert done.status == 404 and done.error_code == "NoSuchUpload", done.body[:300]


@pytest.fixture(scope="module")
def unsigned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    """A reference that does not verify signatures: a client library cannot sign a path that
    is not UTF-8, and a signature failure must not hide what the key handling does."""
    proc = start(tmp_path_factory.mktemp("unsigned") / "data", "--profile",
                 "verify_signatures=false")  # fmt: skip
    yield proc
    proc.stop()


@pytest.mark.parametrize("escape", ["%ff", "%fe", "%80", "%c3", "%ed%a0%80", "%c0%af"])
def test_invalid_utf8_key_is_refused_not_aliased(unsigned: RefProcess, escape: str) -> None:
    """Row 3: `x%ff`, `x%fe`, ... all became `x\\ufffd` and overwrote each other."""
    wire = unsigned.wire()
    bucket = _fresh(wire, "utf8")
    wire.put_object(bucket, "x\ufffd", b"the replacement-character key").assert_ok()
    signed = wire.prepare("PUT", bucket, "x", body=b"evil")
    reply = requests.put(signed.url + escape, data=b"evil", headers=signed.headers, timeout=(5, 20))
    assert reply.status_code == 400, f"x{escape}: {reply.status_code} {reply.text[:300]}"
    assert wire.get_object(bucket, "x\ufffd").body == b"the replacement-character key"


def test_public_entrypoint_never_serves_a_private_bucket(ref: RefProcess) -> None:
    """Row 4: a loopback Host made the account's private bucket named `public` readable."""
    wire = ref.wire()
    name = "public"
    wire.create_bucket(name)
    wire.put_object(name, "secret.txt", b"private data").assert_ok()
    url = ref.surface("public")["url"].rstrip("/") + "/secret.txt"
    for host in ["127.0.0.1", "localhost", "[::1]", None]:
        headers = {"Host": host} if host else {}
        reply = requests.get(url, headers=headers, timeout=(5, 20))
        assert 400 <= reply.status_code < 500, f"Host {host}: {reply.status_code}"
        assert b"private data" not in reply.content


@pytest.mark.slow
def test_concurrent_create_delete_put_never_500(ref: RefProcess) -> None:
    """The race class: CreateBucket / DeleteBucket / PutObject / DeleteObject on one bucket
    from 6 threads for 3 s; every answer is a clean S3 answer, never a 5xx."""
    bucket = f"race-churn-{time.monotonic_ns() % 10**9}"
    stop = threading.Event()
    bad: list[str] = []

    def churn(seed: int) -> None:
        client = ref.wire()
        i = 0
        while not stop.is_set() and i < 500:
            i += 1
            step = (seed + i) % 4
            if step == 0:
                reply = client.create_bucket(bucket)
            elif step == 1:
                reply = client.put_object(bucket, f"k{seed}", b"v" * 100)
            elif step == 2:
                reply = client.request("DELETE", bucket, f"k{seed}")
            else:
                reply = client.request("DELETE", bucket)
            if reply.status >= 500:
                bad.append(f"{reply.method} {reply.url}: {reply.status} {reply.body[:200]!r}")

    threads = [threading.Thread(target=churn, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    stop.set()
    for thread in threads:
        thread.join(timeout=20)
    assert not bad, bad[:5]
