"""R2Object as the bridge shows it: the binding's fields, from a stored object record.

Metadata shares the S3 surface's layout in the record (`meta["user"]`, `meta["http"]` keyed by
header name, `meta["checksums"]` base64 by algorithm), so one object is the same object through
either surface. Checksums are shown as lowercase hex, as `R2Checksums.toJSON()` gives them.
"""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

from reference_impl.storage.engine import ObjectRecord

# binding httpMetadata field -> header name in the record's meta["http"]
HTTP_FIELDS = {
    "contentType": "content-type",
    "contentLanguage": "content-language",
    "contentDisposition": "content-disposition",
    "contentEncoding": "content-encoding",
    "cacheControl": "cache-control",
    "cacheExpiry": "expires",
}
CHECKSUMS = ("md5", "sha1", "sha256", "sha384", "sha512")
# R2's object metadata limit (r2/platform/limits), the S3 surface's MetadataTooLarge bound too:
# custom metadata names and values, UTF-8 bytes; HTTP metadata values have a budget as large
METADATA_LIMIT = 8192
ORIGIN_KEY = "binding"  # meta flag: written through the binding (content type only if given)
MULTIPART_KEY = "multipart"  # meta flag: completed multipart upload (no MD5 checksum)


def http_meta_of(options: dict[str, Any]) -> dict[str, str]:
    """Record layout (`meta["http"]`) of a binding `httpMetadata` option."""
    given = options.get("httpMetadata") or {}
    return {HTTP_FIELDS[k]: str(v) for k, v in dict(given).items() if k in HTTP_FIELDS}


def metadata_too_large(user: dict[str, str], http: dict[str, str]) -> bool:
    """Custom metadata (names and values) or HTTP metadata (values) over METADATA_LIMIT."""
    custom = sum(len(k.encode()) + len(v.encode()) for k, v in user.items())
    given = sum(len(v.encode()) for v in http.values())
    return custom > METADATA_LIMIT or given > METADATA_LIMIT


def http_metadata(record: ObjectRecord) -> dict[str, str]:
    stored = dict(record.meta.get("http") or {})
    if not record.meta.get(ORIGIN_KEY) and record.content_type:
        stored.setdefault("content-type", record.content_type)
    return {name: stored[header] for name, header in HTTP_FIELDS.items() if header in stored}


def checksums(record: ObjectRecord, drop: bool = False) -> dict[str, str]:
    """MD5 by default for objects not uploaded by multipart, plus the user checksums."""
    if drop:
        return {}
    found: dict[str, str] = {}
    if record.md5 and not record.meta.get(MULTIPART_KEY):
        found["md5"] = record.md5
    for algorithm, value in dict(record.meta.get("checksums") or {}).items():
        if algorithm in CHECKSUMS:
            found[algorithm] = base64.b64decode(value).hex()
    return found


def iso(seconds: float) -> str:
    moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def describe(
    record: ObjectRecord,
    include: tuple[str, ...] = ("httpMetadata", "customMetadata"),
    drop_checksums: bool = False,
) -> dict[str, Any]:
    """The R2Object fields of a record; metadata kinds only when `include` names them."""
    doc: dict[str, Any] = {
        "key": record.key,
        "version": record.blob,
        "size": record.size,
        "etag": record.etag,
        "httpEtag": f'"{record.etag}"',
        "uploaded": iso(record.modified),
        "checksums": checksums(record, drop_checksums),
        "storageClass": "Standard",
    }
    if "httpMetadata" in include:
        doc["httpMetadata"] = http_metadata(record)
    if "customMetadata" in include:
        doc["customMetadata"] = dict(record.meta.get("user") or {})
    return doc


def metadata_size(doc: dict[str, Any]) -> int:
    """Bytes of metadata an object adds to a list page (the budget of the page)."""
    total = 0
    for kind in ("httpMetadata", "customMetadata"):
        for key, value in dict(doc.get(kind) or {}).items():
            total += len(str(key).encode()) + len(str(value).encode())
    return total
