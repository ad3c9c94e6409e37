"""Multipart through the binding: what completion checks, and what a completed object carries.

The provider's multipart page: a part that is not the last is at least 5 MiB; the ETag of a
completed multipart object is the MD5 of the parts' binary MD5s joined, then `-` and the number
of parts. The Workers R2 reference: complete() takes the uploaded parts ({partNumber, etag});
createMultipartUpload() takes httpMetadata and customMetadata, which the completed object
carries; an upload is named by its key and uploadId, and is gone once completed.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from conformance.clients.bindings import body_of

PART = 5 * 1024 * 1024  # the smallest size of a part that is not the last


def _start(bindings: Any, key: str, **options: Any) -> str:
    return str(bindings.create_multipart_upload(key, **options).value()["uploadId"])


@pytest.mark.rule("storage.bindings.multipart")
def test_small_part_before_the_last_is_refused(bindings: Any, names: Any) -> None:
    """A first part one byte under 5 MiB, then a last part: complete() is refused cleanly and no
    object appears; the same upload completes with the first part alone (last, any size)."""
    key = names.key()
    upload_id = _start(bindings, key)
    first = bindings.upload_part(key, upload_id, 1, b"s" * (PART - 1)).value()
    second = bindings.upload_part(key, upload_id, 2, b"tail").value()
    bindings.complete(key, upload_id, [first, second]).refused()
    assert bindings.head(key).value() is None
    done = bindings.complete(key, upload_id, [first]).value()
    assert done["size"] == PART - 1, done


@pytest.mark.rule("storage.bindings.multipart")
def test_small_middle_part_is_refused(bindings: Any, names: Any) -> None:
    """Three parts: 5 MiB, one byte under 5 MiB, then a small last part. Every part that is not
    the last is held to the 5 MiB minimum, not only the first: complete() is refused cleanly and
    no object appears."""
    key = names.key()
    upload_id = _start(bindings, key)
    first = bindings.upload_part(key, upload_id, 1, b"f" * PART).value()
    middle = bindings.upload_part(key, upload_id, 2, b"m" * (PART - 1)).value()
    last = bindings.upload_part(key, upload_id, 3, b"tail").value()
    try:
        bindings.complete(key, upload_id, [first, middle, last]).refused()
        assert bindings.head(key).value() is None
    finally:
        bindings.abort(key, upload_id)


@pytest.mark.rule("storage.bindings.multipart")
def test_unknown_or_wrong_parts_are_refused(bindings: Any, names: Any) -> None:
    """complete() naming a part never uploaded, or a part with another part's ETag, is refused
    cleanly; nothing is stored."""
    key = names.key()
    upload_id = _start(bindings, key)
    one = bindings.upload_part(key, upload_id, 1, b"p" * PART).value()
    two = bindings.upload_part(key, upload_id, 2, b"second").value()
    bindings.complete(key, upload_id, [one, {"partNumber": 3, "etag": two["etag"]}]).refused()
    bindings.complete(key, upload_id, [one, {"partNumber": 2, "etag": one["etag"]}]).refused()
    assert bindings.head(key).value() is None
    bindings.abort(key, upload_id)


@pytest.mark.rule("storage.bindings.multipart")
def test_completed_object_carries_upload_metadata_and_etag(bindings: Any, names: Any) -> None:
    """The completed object has the upload's httpMetadata and customMetadata, the multipart
    ETag (MD5 of the parts' MD5s, `-2`), and the upload is gone: another uploadPart or complete
    is refused."""
    key = names.key()
    http = {"contentType": "text/x-ec-multipart", "contentLanguage": "fr"}
    upload_id = _start(bindings, key, httpMetadata=http, customMetadata={"k": "v"})
    first, last = b"f" * PART, b"last"
    one = bindings.upload_part(key, upload_id, 1, first).value()
    two = bindings.upload_part(key, upload_id, 2, last).value()
    done = bindings.complete(key, upload_id, [one, two]).value()
    digests = hashlib.md5(first).digest() + hashlib.md5(last).digest()
    assert done["etag"] == f"{hashlib.md5(digests).hexdigest()}-2", done
    head = bindings.head(key).value()
    assert head["httpMetadata"] == http, head
    assert head["customMetadata"] == {"k": "v"}, head
    assert head["etag"] == done["etag"] and head["size"] == PART + len(last), head
    bindings.upload_part(key, upload_id, 3, b"late").refused()
    bindings.complete(key, upload_id, [one, two]).refused()


@pytest.mark.rule("storage.bindings.multipart")
def test_upload_is_named_by_its_key_and_id(bindings: Any, names: Any) -> None:
    """uploadPart with an uploadId never issued, or with another key than the upload's, is
    refused cleanly; the upload's own key still takes parts."""
    key, other = names.key(), names.key()
    upload_id = _start(bindings, key)
    bindings.upload_part(key, "ec-no-such-upload-id", 1, b"x").refused()
    bindings.upload_part(other, upload_id, 1, b"x").refused()
    assert bindings.upload_part(key, upload_id, 1, b"x").value()["partNumber"] == 1
    bindings.abort(key, upload_id)


@pytest.mark.rule("storage.bindings.multipart")
def test_part_uploaded_again_replaces_the_first(bindings: Any, names: Any) -> None:
    """A part number uploaded twice keeps the second body (its ETag completes the upload)."""
    key = names.key()
    upload_id = _start(bindings, key)
    bindings.upload_part(key, upload_id, 1, b"old-body").value()
    again = bindings.upload_part(key, upload_id, 1, b"new-body").value()
    bindings.complete(key, upload_id, [again]).value()
    assert body_of(bindings.get(key).value()) == b"new-body"


@pytest.mark.rule("storage.bindings.multipart-no-md5")
def test_completed_object_has_no_md5_checksum(bindings: Any, names: Any) -> None:
    """The spec's object record: an MD5 is included by default for objects *not* uploaded by
    multipart. A completed multipart object's head().checksums carries no md5 (its ETag is no
    MD5 of its bytes); the same bytes put whole carry theirs."""
    key = names.key()
    upload_id = _start(bindings, key)
    part = bindings.upload_part(key, upload_id, 1, b"multipart bytes").value()
    bindings.complete(key, upload_id, [part]).value()
    checksums = bindings.head(key).value()["checksums"]
    assert "md5" not in checksums, f"a multipart object's checksums: {checksums}"
    whole = names.key()
    bindings.put(whole, b"multipart bytes").value()
    assert (
        bindings.head(whole).value()["checksums"].get("md5")
        == hashlib.md5(b"multipart bytes").hexdigest()
    )


@pytest.mark.rule("storage.bindings.multipart")
def test_custom_metadata_over_the_limit_is_refused(bindings: Any, names: Any) -> None:
    """customMetadata of 8193 UTF-8 bytes (key and value; dates.md "Other facts": metadata over
    8192 bytes is too large, as for put()) given to createMultipartUpload() is refused cleanly,
    there or at complete() (dates.md does not say when an upload checks it), and no object
    results: an upload taking it at both steps publishes an object put() refuses."""
    key = names.key()
    over = {"k": "v" * (8192 - len("k") + 1)}
    created = bindings.create_multipart_upload(key, customMetadata=over)
    if created.error is None:
        upload_id = str(created.value()["uploadId"])
        part = bindings.upload_part(key, upload_id, 1, b"over the limit").value()
        done = bindings.complete(key, upload_id, [part])
        assert done.error is not None, f"accepted at create and at complete: {done.describe()}"
        done.refused()
        bindings.abort(key, upload_id)
    else:
        created.refused()
    assert bindings.head(key).value() is None
