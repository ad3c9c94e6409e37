"""ListMultipartUploads lists uploads in progress; encoding-type=url encodes their keys."""

from __future__ import annotations

from urllib.parse import unquote_plus

import pytest

from conformance.clients import s3_multipart as mp


def _uploads(reply):
    root = reply.assert_ok().xml
    assert root is not None and root.tag == "ListMultipartUploadsResult", reply.body[:200]
    return [(u.findtext("Key"), u.findtext("UploadId")) for u in root.iter("Upload")], root


@pytest.mark.rule("storage.list-multipart-uploads.supported")
def test_lists_upload_in_progress(s3, bucket, names):
    """An upload that was started and not finished is listed with its key and id."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    listed, _ = _uploads(mp.list_uploads(s3.wire, bucket))
    assert (key, upload) in listed, f"{(key, upload)} not in {listed}"


@pytest.mark.rule("storage.list-multipart-uploads.key-encoded")
@pytest.mark.parametrize("suffix", [" space", "/ü+&=", "%percent"])
def test_key_encoded_with_encoding_type(s3, bucket, names, suffix):
    """With encoding-type=url the Key is URL-encoded. (Whether EncodingType is echoed is not
    this rule's: it says only that the key is encoded.)"""
    key = names.key(suffix)
    upload = mp.start(s3.wire, bucket, key)
    listed, _root = _uploads(mp.list_uploads(s3.wire, bucket, encoding_type="url"))
    shown = [shown_key for shown_key, shown_id in listed if shown_id == upload]
    assert shown, f"upload {upload} not listed: {listed}"
    assert shown[0] != key, f"Key {shown[0]!r} is not encoded"
    assert unquote_plus(shown[0] or "") == key, f"{shown[0]!r} does not decode to {key!r}"


@pytest.mark.rule("storage.list-multipart-uploads.markers-encoded")
def test_prefix_and_markers_encoded_with_encoding_type(s3, bucket, names):
    """encoding-type=url with a prefix and a key-marker that need encoding, two uploads under
    the prefix and max-uploads=1: Prefix and KeyMarker come back URL-encoded (they differ from
    the names sent and decode to them), and so does NextKeyMarker when the page is truncated
    (whether max-uploads truncates is list-multipart-uploads.supported's rule)."""
    prefix = names.key(" é+")
    first, second = prefix + "/a b", prefix + "/c d"
    for key in (first, second):
        mp.start(s3.wire, bucket, key)
    reply = mp.list_uploads(
        s3.wire, bucket, encoding_type="url", prefix=prefix, key_marker=prefix, max_uploads="1"
    )
    _listed, root = _uploads(reply)
    echoed = [("Prefix", prefix), ("KeyMarker", prefix)]
    if root.findtext("IsTruncated") == "true":
        echoed.append(("NextKeyMarker", first))
    for tag, raw in echoed:
        shown = root.findtext(tag)
        assert shown, f"<{tag}> missing or empty, sent {raw!r}; {reply.body[:400]!r}"
        assert shown != raw, f"<{tag}> {shown!r} is not URL-encoded"
        assert unquote_plus(shown) == raw, f"<{tag}> {shown!r} does not decode to {raw!r}"
