"""Multipart uploads through the binding: createMultipartUpload, uploadPart, complete, abort."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.bindings import body_of

PART = 5 * 1024 * 1024  # the smallest size of a part that is not the last


@pytest.mark.rule("storage.bindings.multipart")
def test_multipart_completes_into_one_object(bindings: Any, names: Any) -> None:
    """Two parts uploaded and completed read back as one object, the parts in order."""
    key = names.key()
    first, last = b"a" * PART, b"tail-bytes"
    upload = bindings.create_multipart_upload(key, customMetadata={"via": "multipart"}).value()
    assert upload["key"] == key and upload["uploadId"]
    upload_id = str(upload["uploadId"])
    second = bindings.upload_part(key, upload_id, 2, last).value()
    one = bindings.upload_part(key, upload_id, 1, first).value()
    assert (one["partNumber"], second["partNumber"]) == (1, 2)
    done = bindings.complete(key, upload_id, [one, second]).value()
    assert done["key"] == key and done["size"] == PART + len(last)
    got = bindings.get(key, range={"offset": PART - 2}).value()
    assert body_of(got) == b"aa" + last
    assert bindings.head(key).value()["customMetadata"] == {"via": "multipart"}


@pytest.mark.rule("storage.bindings.multipart")
def test_aborted_upload_takes_no_parts(bindings: Any, names: Any) -> None:
    """After abort(), the upload is gone: uploadPart is refused and no object appears."""
    key = names.key()
    upload_id = str(bindings.create_multipart_upload(key).value()["uploadId"])
    bindings.upload_part(key, upload_id, 1, b"part").value()
    bindings.abort(key, upload_id).value()
    bindings.upload_part(key, upload_id, 2, b"more").refused()
    assert bindings.head(key).value() is None
