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


# --- folded from test_multipart_limits_checked.py ---
# Multipart through the binding at the part-number limits: 1 and 10,000 accepted (with a gap
# between them), 0 and 10,001 refused cleanly.
#
# dates.md ("Other facts") puts the limit at 10,000 parts; an implementer with an off-by-one
# bound refuses the last valid part number or stores one past it.

MAX_PART_NUMBER = 10_000


@pytest.mark.rule("storage.bindings.multipart")
def test_part_numbers_one_and_max_complete(bindings: Any, names: Any) -> None:
    """Parts numbered 1 and 10,000 (nothing between) complete into one object, in order."""
    key = names.key()
    first, last = b"m" * PART, b"last-part-number"
    upload_id = str(bindings.create_multipart_upload(key).value()["uploadId"])
    top = bindings.upload_part(key, upload_id, MAX_PART_NUMBER, last).value()
    one = bindings.upload_part(key, upload_id, 1, first).value()
    assert (one["partNumber"], top["partNumber"]) == (1, MAX_PART_NUMBER)
    done = bindings.complete(key, upload_id, [one, top]).value()
    assert done["size"] == PART + len(last), done
    assert body_of(bindings.get(key, range={"offset": PART - 1}).value()) == b"m" + last


@pytest.mark.rule("storage.bindings.multipart")
@pytest.mark.parametrize("number", [0, MAX_PART_NUMBER + 1], ids=["zero", "max-plus-one"])
def test_part_number_out_of_range_is_refused(bindings: Any, names: Any, number: int) -> None:
    """uploadPart with part number 0 or 10,001 throws; nothing is stored under that number."""
    key = names.key()
    upload_id = str(bindings.create_multipart_upload(key).value()["uploadId"])
    try:
        bindings.upload_part(key, upload_id, number, b"out-of-range").refused()
    finally:
        bindings.abort(key, upload_id)
