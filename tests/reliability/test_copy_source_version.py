"""A copy source naming a version copies that version or nothing.

A copy reports the version id of the object it read (`x-amz-copy-source-version-id`, the blob
under the key) and of the one it wrote (`x-amz-version-id`). Before,
`x-amz-copy-source: /b/k?versionId=V` copied whatever object was under the key, whatever V
named: a client that pinned the version it had read got other bytes, answered 200. S3 answers
a version that does not exist 404 NoSuchVersion; the reference keeps no old versions, so only
the current one is there.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from reliability.refproc import RefProcess

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireClient

BUCKET = "copy-source-version"


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    return client


def _copy(wire: WireClient, key: str, source: str) -> tuple[int, str | None]:
    reply = mp.copy_object(wire, BUCKET, key, source)
    return reply.status, reply.error_code


def _version(wire: WireClient, key: str) -> str:
    """The version id of the object now under `key`, as a copy of it reports it."""
    reply = mp.copy_object(wire, BUCKET, "scratch", f"/{BUCKET}/{key}").assert_ok()
    version = reply.header("x-amz-copy-source-version-id")
    assert version, reply.describe()
    return version


def test_a_replaced_version_is_not_copied(wire: WireClient) -> None:
    wire.put_object(BUCKET, "src", b"version one").assert_ok()
    first = _version(wire, "src")
    wire.put_object(BUCKET, "src", b"version two").assert_ok()
    source = f"/{BUCKET}/src?versionId={quote(first)}"
    assert _copy(wire, "dst", source) == (404, "NoSuchVersion")
    assert wire.get_object(BUCKET, "dst").status == 404, "other bytes were copied"
    upload = mp.start(wire, BUCKET, "dst-part")
    part = mp.upload_part_copy(wire, BUCKET, "dst-part", upload, 1, source)
    assert (part.status, part.error_code) == (404, "NoSuchVersion")


def test_the_current_version_is_copied(wire: WireClient) -> None:
    wire.put_object(BUCKET, "now", b"current bytes").assert_ok()
    version = _version(wire, "now")
    assert _copy(wire, "now-copy", f"/{BUCKET}/now?versionId={version}") == (200, None)
    assert wire.get_object(BUCKET, "now-copy").body == b"current bytes"
    assert _copy(wire, "plain-copy", f"/{BUCKET}/now") == (200, None)
