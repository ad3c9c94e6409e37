"""ListParts lists the parts of an upload in progress."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

BODIES = [b"first part", b"second, longer part", b""]


@pytest.mark.rule("storage.list-parts.supported")
def test_list_parts_names_numbers_sizes_etags(s3, bucket, names):
    """ListParts returns every uploaded part with its number, size and ETag, in order."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    sent = {}
    for number, body in zip((3, 1, 2), BODIES, strict=True):
        reply = mp.upload_part(s3.wire, bucket, key, upload, number, body)
        sent[number] = (len(body), mp.etag(reply).strip('"'))
    root = mp.list_parts(s3.wire, bucket, key, upload).assert_ok().xml
    assert root is not None and root.tag == "ListPartsResult", "no ListPartsResult"
    assert root.findtext("UploadId") == upload
    listed = [
        (int(p.findtext("PartNumber") or 0), int(p.findtext("Size") or -1),
         (p.findtext("ETag") or "").strip('"'))
        for p in root.iter("Part")
    ]  # fmt: skip
    assert listed == [(n, *sent[n]) for n in sorted(sent)]
