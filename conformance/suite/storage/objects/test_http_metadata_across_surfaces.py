"""One object, two surfaces: the HTTP and custom metadata written over S3 are the binding's
httpMetadata and customMetadata, and the reverse.

The spec's Object record has one Content-Type, one Content-Encoding and HTTP metadata, and the
service reaches the same buckets through the S3 API and the runtime bindings. The provider's
Workers R2 reference names the binding's fields (contentType, contentLanguage,
contentDisposition, contentEncoding, cacheControl, cacheExpiry); each is checked, not only the
first. Expires / cacheExpiry are compared as instants (the binding holds a Date).
"""

from __future__ import annotations

import datetime as dt
import gzip
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

import pytest

from conformance.suite.setup_check import require

BODY = gzip.compress(b"one object, two surfaces")  # its Content-Encoding is gzip
EXPIRES = dt.datetime(2031, 5, 17, 8, 30, 0, tzinfo=dt.UTC)
# binding field -> (S3 header, value)
FIELDS = {
    "contentType": ("Content-Type", "text/x-ec-across; charset=utf-8"),
    "contentLanguage": ("Content-Language", "de-CH"),
    "contentDisposition": ("Content-Disposition", 'attachment; filename="across.txt"'),
    "contentEncoding": ("Content-Encoding", "gzip"),
    "cacheControl": ("Cache-Control", "max-age=4242, public"),
    "cacheExpiry": ("Expires", format_datetime(EXPIRES, usegmt=True)),
}
CUSTOM = {"shade": "ochre", "batch": "42"}  # custom metadata: x-amz-meta-* <-> customMetadata
MULTIPART_SINCE = "2022-11-21"  # storage.bindings.multipart: the binding's multipart upload


def _iso(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _instant(value: Any) -> dt.datetime | None:
    """An HTTP date or an ISO 8601 string as an aware datetime (None when it is neither)."""
    text = str(value)
    for parse in (parsedate_to_datetime, _iso):
        try:
            moment = parse(text)
        except (TypeError, ValueError, IndexError):
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return None


def _same(field: str, shown: Any, sent: str) -> bool:
    if field == "cacheExpiry":
        return shown is not None and _instant(shown) == _instant(sent)
    return bool(shown == sent)


@pytest.mark.rule("storage.object.http-metadata-across-surfaces")
@pytest.mark.parametrize("read", ["head", "get"])
def test_s3_metadata_is_the_bindings_http_metadata(s3, bucket, names, bucket_binding, read):
    """PutObject with every HTTP metadata header; head() / get() show each in httpMetadata."""
    key = names.key(".txt")
    headers = {header: value for header, value in FIELDS.values()}
    headers.update({s3.wire.vendor("meta-") + name: value for name, value in CUSTOM.items()})
    put = s3.wire.request("PUT", bucket, key, body=BODY, headers=headers)
    require(put.status == 200, f"PutObject with HTTP metadata: {put.describe()}")
    outcome = bucket_binding.head(key) if read == "head" else bucket_binding.get(key)
    doc = outcome.value()
    shown = dict(doc.get("httpMetadata") or {})
    wrong = {
        field: shown.get(field)
        for field, (_, sent) in FIELDS.items()
        if not _same(field, shown.get(field), sent)
    }
    assert not wrong, f"{read}() httpMetadata differs from the S3 headers: {wrong}; shown {shown}"
    assert doc.get("customMetadata") == CUSTOM, f"{read}() customMetadata: {doc}"


def _shown_over_s3(s3: Any, bucket: str, key: str, origin: str) -> None:
    """HeadObject and GetObject over S3 answer every header and custom field `origin` wrote."""
    prefix = s3.wire.vendor("meta-")
    for method in ("HEAD", "GET"):
        reply = s3.wire.request(method, bucket, key)
        assert reply.status == 200, reply.describe()
        wrong = {
            header: reply.header(header)
            for field, (header, sent) in FIELDS.items()
            if not _same(field, reply.header(header), sent)
        }
        assert not wrong, f"{method} over S3 differs from {origin}'s httpMetadata: {wrong}"
        custom = {
            k.lower()[len(prefix) :]: v
            for k, v in reply.headers.items()
            if k.lower().startswith(prefix)
        }
        assert custom == CUSTOM, f"{method} over S3: custom metadata {custom}, {origin} {CUSTOM}"


@pytest.mark.rule("storage.object.http-metadata-across-surfaces")
def test_bindings_http_metadata_is_the_s3_headers(s3, bucket, names, bucket_binding):
    """put() with every httpMetadata field; HeadObject and GetObject over S3 answer each header."""
    key = names.key(".txt")
    metadata = {field: value for field, (_, value) in FIELDS.items()}
    bucket_binding.put(key, BODY, httpMetadata=metadata, customMetadata=CUSTOM).value()
    _shown_over_s3(s3, bucket, key, "put()")


@pytest.mark.rule("storage.object.http-metadata-across-surfaces")
def test_bindings_multipart_http_metadata_is_the_s3_headers(
    s3, bucket, names, bucket_binding, as_of
):
    """createMultipartUpload() with every httpMetadata field (the Workers R2 reference gives it
    the same httpMetadata/customMetadata options as put()); once completed, HeadObject and
    GetObject over S3 answer each header. An upload that kept its Content-Type aside from the
    other fields served the completed object as application/octet-stream."""
    if as_of.isoformat() < MULTIPART_SINCE:
        pytest.skip(f"N/A: multipart bindings are not in force before {MULTIPART_SINCE}")
    key = names.key(".txt")
    metadata = {field: value for field, (_, value) in FIELDS.items()}
    upload = bucket_binding.create_multipart_upload(
        key, httpMetadata=metadata, customMetadata=CUSTOM
    )
    upload_id = str(upload.value()["uploadId"])
    part = bucket_binding.upload_part(key, upload_id, 1, BODY).value()
    bucket_binding.complete(key, upload_id, [part]).value()
    _shown_over_s3(s3, bucket, key, "createMultipartUpload()")
