"""Public reads as an HTTP origin: validators, conditional GETs and the object's HTTP metadata.

The spec names public buckets and the object record (ETag, LastModified, HTTP metadata) but
none of the headers a public read answers; RFC 9110, which the public entrypoint speaks, does:
an origin SHOULD send ETag and Last-Modified (8.8.2.1, 8.8.3) and MUST evaluate the
preconditions it receives on GET/HEAD (13.2.1): If-None-Match / If-Modified-Since that fail
answer 304 carrying the ETag (13.1.2, 13.1.3, 15.4.5), If-Match that fails answers 412
(13.1.1). Hence SHOULD rules: each was found missing by a hand-made slip in the public
entrypoint (a header dropped or unquoted, a condition ignored) that every other test passed.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

import pytest

from conformance.suite.setup_check import not_checked

BODY = b"validators of a public object"
# stored over S3; a public read answers each (the object record's HTTP metadata). max-age is a
# year: Cloudflare rewrites an origin max-age below the zone's Browser Cache TTL (4 h by default,
# at most a year), so a smaller one would come back changed through a real custom domain.
HTTP_METADATA = {
    "Cache-Control": "public, max-age=31536000",
    "Content-Disposition": 'attachment; filename="public.txt"',
    "Content-Language": "fr-CA",
}
# Cloudflare turns a strong ETag weak (W/"...") unless the zone's cache rule respects strong ETags
# ("Using ETag headers"): the opaque tag stays the object's, so that is what is compared.
WEAK = "W/"


@pytest.fixture
def stored(s3: Any, public: Any, names: Any) -> tuple[str, dict[str, Any]]:
    """An object of the public bucket with HTTP metadata; its key and S3 HeadObject answer."""
    key = names.key(".txt")
    s3.boto.put_object(
        Bucket=public.bucket,
        Key=key,
        Body=BODY,
        ContentType="text/plain",
        CacheControl=HTTP_METADATA["Cache-Control"],
        ContentDisposition=HTTP_METADATA["Content-Disposition"],
        ContentLanguage=HTTP_METADATA["Content-Language"],
    )
    return key, s3.boto.head_object(Bucket=public.bucket, Key=key)


@pytest.mark.rule("storage.public.validators")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_read_carries_the_objects_validators(public: Any, stored: Any, method: str) -> None:
    """A public GET / HEAD answers the object's ETag, quoted as HeadObject over S3 gives it, and
    its Last-Modified (the same instant)."""
    key, head = stored
    reply = public.request(method, key)
    assert reply.status == 200, reply.describe()
    etag = reply.header("etag")
    assert etag is not None, reply.describe()
    opaque = etag.removeprefix(WEAK)
    assert opaque == head["ETag"], f"ETag {etag!r}, S3 HeadObject {head['ETag']!r}"
    assert opaque.startswith('"') and opaque.endswith('"'), reply.describe()
    modified = reply.header("last-modified")
    assert modified is not None, reply.describe()
    assert parsedate_to_datetime(modified) == head["LastModified"], reply.describe()


@pytest.mark.rule("storage.public.conditional-get")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_if_none_match_its_etag_is_304(public: Any, stored: Any, method: str) -> None:
    """If-None-Match with the object's ETag: 304 Not Modified, carrying that ETag and no body;
    with another ETag: 200 and the object."""
    key, head = stored
    reply = public.request(method, key, {"If-None-Match": head["ETag"]})
    assert reply.status == 304, reply.describe()
    assert (reply.header("etag") or "").removeprefix(WEAK) == head["ETag"], reply.describe()
    assert reply.body == b""
    other = public.request(method, key, {"If-None-Match": '"0123456789abcdef0123456789abcdef"'})
    assert other.status == 200, other.describe()


@pytest.mark.rule("storage.public.conditional-get")
def test_if_modified_since_its_date_is_304(public: Any, stored: Any) -> None:
    """If-Modified-Since its own Last-Modified: 304; a day earlier: 200 with the bytes."""
    key, _ = stored
    modified = public.get(key).header("last-modified")
    assert modified is not None, "no Last-Modified to send back (storage.public.validators)"
    reply = public.get(key, {"If-Modified-Since": modified})
    assert reply.status == 304, reply.describe()
    earlier = public.get(key, {"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})
    assert earlier.status == 200 and earlier.body == BODY, earlier.describe()


@pytest.mark.rule("storage.public.conditional-get")
def test_if_match_another_etag_is_412(public: Any, stored: Any) -> None:
    """If-Match naming another ETag: 412 Precondition Failed; naming its own: 200. Not checked
    when the ETag comes back weak: If-Match compares strongly (RFC 9110 13.1.1) and a cache
    evaluates only If-None-Match / If-Modified-Since (RFC 9111 4.3.2)."""
    key, head = stored
    etag = public.get(key).header("etag") or ""
    if etag.startswith(WEAK):
        not_checked(f"the public ETag came back weak ({etag}): If-Match is not judged through it")
    reply = public.get(key, {"If-Match": '"0123456789abcdef0123456789abcdef"'})
    assert reply.status == 412, reply.describe()
    own = public.get(key, {"If-Match": head["ETag"]})
    assert own.status == 200 and own.body == BODY, own.describe()


@pytest.mark.rule("storage.public.http-metadata")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_read_answers_the_objects_http_metadata(public: Any, stored: Any, method: str) -> None:
    """Cache-Control, Content-Disposition and Content-Language stored with the object are
    answered by a public read, each one (a cache in front of the domain obeys Cache-Control)."""
    key, _ = stored
    reply = public.request(method, key)
    assert reply.status == 200, reply.describe()
    wrong = {
        name: reply.header(name)
        for name, value in HTTP_METADATA.items()
        if reply.header(name) != value
    }
    assert not wrong, f"{method}: {wrong} differ from the stored {HTTP_METADATA}"


@pytest.mark.rule("storage.public.range-unsatisfiable")
@pytest.mark.parametrize("past", [5, 0], ids=["past-the-end", "at-the-size"])
def test_range_past_the_end_is_416(public: Any, stored: Any, past: int) -> None:
    """A GET of a range starting past the object's end: 416 (InvalidRange, the provider's error
    table) with Content-Range: bytes */<size> (RFC 9110 15.5.17), not the object. GET only:
    RFC 9110 14.2 defines range handling for GET alone. A first byte equal to the size is past
    the end too (RFC 9110 14.1.1: satisfiable only if it is less than the length)."""
    key, _ = stored
    reply = public.get(key, {"Range": f"bytes={len(BODY) + past}-"})
    assert reply.status == 416, reply.describe()
    assert reply.header("content-range") == f"bytes */{len(BODY)}", reply.describe()
