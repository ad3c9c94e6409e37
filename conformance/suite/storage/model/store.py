"""The in-memory model of the store: what S3 semantics (and the spec) say a target holds.

Pure data and arithmetic, no HTTP: buckets holding objects and uploads in progress, the ETag
a multipart completion must produce, and the listing a request must return. Where the spec
leaves a value open (a Content-Type inferred, a Last-Modified, an upload id) the model holds
what the target answered, learned once, and checks only that it stays stable.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field


def unquote_etag(value: str | None) -> str:
    """An ETag as compared by the model: quotes and a weak prefix are the target's choice."""
    text = (value or "").strip()
    if text.startswith("W/"):
        text = text[2:]
    return text.strip('"')


def md5_hex(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


@dataclass(frozen=True)
class Body:
    """A body the model can rebuild: `size` copies of byte `fill` (cheap at 5 MiB)."""

    fill: int
    size: int

    def data(self) -> bytes:
        return bytes([self.fill]) * self.size


@dataclass
class Obj:
    """An object: its bytes (as digest and size), ETag, metadata and where it came from."""

    digest: str  # hex MD5 of the whole body
    size: int
    etag: str  # unquoted
    content_type: str
    meta: dict[str, str]
    origin: str  # the check whose operation wrote it: put, copy or complete
    multipart: bool = False
    last_modified: dt.datetime | None = None  # learned from the first HEAD or GET
    upload_id: str | None = None  # the multipart upload that published it


@dataclass
class Part:
    body: Body
    etag: str  # unquoted, as the target answered


@dataclass
class Upload:
    """A multipart upload in progress (ids are the target's)."""

    bucket: str
    key: str
    upload_id: str
    content_type: str
    parts: dict[int, Part] = field(default_factory=dict)


@dataclass
class Bucket:
    objects: dict[str, Obj] = field(default_factory=dict)
    uploads: dict[str, Upload] = field(default_factory=dict)  # by upload id


def multipart_etag(part_etags: list[str]) -> str:
    """S3's multipart ETag: MD5 of the concatenated binary part MD5s, then `-N`."""
    joined = b"".join(bytes.fromhex(etag) for etag in part_etags)
    return f"{md5_hex(joined)}-{len(part_etags)}"


def size_problem(sizes: list[int], min_part: int) -> set[str]:
    """Completion errors the part sizes allow: EntityTooSmall, InvalidPart, or none.

    A last part larger than the others is left open by the spec ("all parts except possibly
    the last have the same size"): the model then accepts success or InvalidPart.
    """
    head, last = sizes[:-1], sizes[-1]
    found: set[str] = set()
    if any(size < min_part for size in head):
        found.add("EntityTooSmall")
    if len(set(head)) > 1:
        found.add("InvalidPart")
    return found or ({"InvalidPart", ""} if head and last > head[0] else set())


@dataclass(frozen=True)
class Listing:
    """What a full (all pages) listing must show: keys and common prefixes in order."""

    keys: list[str]
    prefixes: list[str]

    def entries(self) -> list[tuple[str, bool]]:
        """Keys and common prefixes merged in UTF-8 byte order (True marks a prefix)."""
        merged = [(k, False) for k in self.keys] + [(p, True) for p in self.prefixes]
        return sorted(merged, key=lambda item: item[0].encode("utf-8"))


def utf8_sorted(names: list[str]) -> list[str]:
    return sorted(names, key=lambda name: name.encode("utf-8"))


def listing(keys: list[str], prefix: str, delimiter: str | None, start_after: str = "") -> Listing:
    """S3 listing semantics: prefix filter, roll-up at the delimiter, after start-after."""
    after = start_after.encode("utf-8")
    found: list[str] = []
    rolled: set[str] = set()
    for key in utf8_sorted(keys):
        if not key.startswith(prefix) or key.encode("utf-8") <= after:
            continue
        rest = key[len(prefix) :]
        if delimiter and delimiter in rest:
            rolled.add(prefix + rest[: rest.index(delimiter) + len(delimiter)])
        else:
            found.append(key)
    return Listing(found, utf8_sorted(list(rolled)))


@dataclass
class Store:
    """Every bucket of the model by name; an absent name is a bucket that does not exist."""

    buckets: dict[str, Bucket] = field(default_factory=dict)
    # (bucket, key) -> the check whose operation last removed the key (to name a resurrection)
    removed_by: dict[tuple[str, str], str] = field(default_factory=dict)
    # upload id -> the check whose operation ended it (abort, complete, bucket deletion, ...)
    ended: dict[str, str] = field(default_factory=dict)

    def exists(self, bucket: str) -> bool:
        return bucket in self.buckets

    def obj(self, bucket: str, key: str) -> Obj | None:
        found = self.buckets.get(bucket)
        return found.objects.get(key) if found else None

    def put(self, bucket: str, key: str, obj: Obj) -> None:
        self.buckets[bucket].objects[key] = obj
        self.removed_by.pop((bucket, key), None)

    def remove(self, bucket: str, key: str, check: str) -> None:
        if self.buckets[bucket].objects.pop(key, None) is not None:
            self.removed_by[(bucket, key)] = check

    def end_upload(self, upload: Upload, check: str) -> None:
        self.buckets[upload.bucket].uploads.pop(upload.upload_id, None)
        self.ended[upload.upload_id] = check

    def drop_bucket(self, bucket: str) -> None:
        """A deleted bucket: its objects and uploads are gone for good."""
        gone = self.buckets.pop(bucket)
        for key in gone.objects:
            self.removed_by[(bucket, key)] = "no-resurrection"
        for upload_id in gone.uploads:
            self.ended[upload_id] = "no-resurrection"

    def find_upload(self, upload_id: str) -> Upload | None:
        for bucket in self.buckets.values():
            if upload_id in bucket.uploads:
                return bucket.uploads[upload_id]
        return None
