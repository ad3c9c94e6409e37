"""Anonymous reads of a public bucket on a custom domain: bytes, HEAD, ranges, gzip, HTTP/2."""

from __future__ import annotations

import datetime as dt
import gzip

import pytest

from conformance.clients.public import CustomDomains, PublicClient

BODY = b"0123456789abcdefghij"
GZIP_ENCODED_SINCE = dt.date(2023, 3, 16)  # storage.public.gzip-content-encoding (item 6)


@pytest.fixture
def stored(s3, public, names):
    """An object of the public bucket; its key."""
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY, ContentType="text/plain")
    return key


@pytest.mark.rule("storage.public.get-object")
def test_unsigned_get_serves_the_object(public, stored):
    """An unsigned GET on the custom domain answers 200 with the object's bytes and type."""
    reply = public.get(stored)
    assert reply.status == 200, reply.describe()
    assert reply.body == BODY
    assert (reply.header("content-type") or "").startswith("text/plain"), reply.describe()


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("suffix", ["/a b.txt", "/caf\u00e9.txt"], ids=["space", "non-ascii"])
def test_key_percent_encoded_in_the_path_is_served(s3, public, names, suffix):
    """A key holding a space or a non-ASCII character is sent percent-encoded in the path
    (`%20`, the UTF-8 octets of RFC 3986 2.1 / 3.3); the entrypoint decodes it to the key and
    serves the object."""
    key = names.key(suffix)
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY, ContentType="text/plain")
    reply = public.get(key)
    assert reply.status == 200, reply.describe()
    assert reply.body == BODY, reply.describe()


@pytest.mark.rule("storage.public.write-methods-refused")
@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE", "PATCH"])
def test_write_method_is_refused_and_changes_nothing(s3, public, stored, method):
    """The public entrypoint serves reads: a write method (sent anonymously, without a body) is
    refused, with a 4xx or 501 Not Implemented (RFC 9110 15.6.2: a method the server does not
    support), never a 2xx, which would claim the write or the delete was done (RFC 9110 9.3.4,
    9.3.5); and the object is still there with its bytes when read back over S3."""
    reply = public.request(method, stored)
    refused = 400 <= reply.status < 500 or reply.status == 501
    assert refused, f"{method} on the public entrypoint: {reply.describe()}"
    kept = s3.boto.get_object(Bucket=public.bucket, Key=stored)["Body"].read()
    assert kept == BODY, f"after {method} on the public entrypoint the object holds {kept[:40]!r}"


@pytest.mark.rule("storage.public.get-object")
def test_missing_key_is_404(public, names):
    """An unsigned GET of a key the bucket lacks answers 404, not a grant or a 5xx."""
    reply = public.get(names.key())
    assert reply.status == 404, reply.describe()


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("accept", ["identity", "gzip"])
def test_missing_key_ranged_is_404(public, names, accept):
    """A ranged GET of a key the bucket lacks answers 404 whatever Accept-Encoding says (the
    range and the coding apply to an object there is none of)."""
    reply = public.get(names.key(), {"Range": "bytes=0-9", "Accept-Encoding": accept})
    assert reply.status == 404, reply.describe()


@pytest.mark.rule("storage.public.head-object")
def test_unsigned_head_answers_length(public, stored):
    """An unsigned HEAD answers 200 with Content-Length and no body."""
    reply = public.head(stored)
    assert reply.status == 200, reply.describe()
    assert reply.header("content-length") == str(len(BODY)), reply.describe()
    assert reply.body == b""


@pytest.mark.rule("storage.public.range-206")
@pytest.mark.parametrize(
    ("spec", "start", "end"),
    [("bytes=0-0", 0, 0), ("bytes=5-9", 5, 9), ("bytes=-3", 17, 19), ("bytes=-25", 0, 19)],
)
def test_ranged_read_is_206(public, stored, spec, start, end):
    """A ranged read answers 206 with the inclusive range and its Content-Range. A suffix
    longer than the object selects all of it (RFC 9110 14.1.1), not an error or a cut body."""
    reply = public.get(stored, {"Range": spec})
    assert reply.status == 206, reply.describe()
    assert reply.body == BODY[start : end + 1]
    assert reply.header("content-range") == f"bytes {start}-{end}/{len(BODY)}", reply.describe()


@pytest.mark.rule("storage.public.range-206")
def test_ranged_read_refusing_codings_is_206(public, stored):
    """A client that accepts no content coding (`Accept-Encoding: identity`) still gets its
    range of an object stored without one: 206 and the inclusive range (the header names
    codings, RFC 9110 12.5.3; it does not turn a range request into a whole read)."""
    reply = public.get(stored, {"Range": "bytes=5-9", "Accept-Encoding": "identity"})
    assert reply.status == 206, reply.describe()
    assert reply.body == BODY[5:10], reply.describe()
    assert reply.header("content-range") == f"bytes 5-9/{len(BODY)}", reply.describe()


@pytest.mark.rule("storage.public.range-206")
def test_ranged_read_of_gzip_object_accepting_gzip_is_206(s3, public, names, as_of):
    """A ranged read of a gzip-stored object by a client accepting gzip answers 206 with the
    range of the bytes as served: a range is not dropped because the object is compressed.
    From 2023-03-16 (item 6) those are the stored gzip bytes; before it the object may be
    served decoded, and the range is then of the decoded bytes."""
    key = names.key(".json.gz")
    content = b'{"hello": "world"}' * 50
    packed = gzip.compress(content)
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=packed, ContentEncoding="gzip",
        ContentType="application/json",
    )  # fmt: skip
    reply = public.get(key, {"Range": "bytes=0-9", "Accept-Encoding": "gzip"})
    assert reply.status == 206, reply.describe()
    encoded = as_of >= GZIP_ENCODED_SINCE or "gzip" in (reply.header("content-encoding") or "")
    served = packed if encoded else content
    assert reply.body == served[:10], reply.describe()
    assert reply.header("content-range") == f"bytes 0-9/{len(served)}", reply.describe()


@pytest.mark.rule("storage.public.content-range-only-partial")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_whole_read_has_no_content_range(public, stored, method):
    """A whole-object read answers 200 without Content-Range."""
    reply = public.request(method, stored)
    assert reply.status == 200, reply.describe()
    assert reply.header("content-range") is None, reply.describe()


@pytest.mark.rule("storage.public.content-range-only-partial")
def test_partial_read_has_content_range(public, stored):
    """A partial read carries Content-Range (the other half of 'only when partial')."""
    reply = public.get(stored, {"Range": "bytes=1-2"})
    assert reply.status == 206, reply.describe()
    assert reply.header("content-range") == f"bytes 1-2/{len(BODY)}", reply.describe()


@pytest.mark.rule("storage.public.gzip-content-encoding")
@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br"])
def test_gzip_object_keeps_content_encoding(s3, public, names, accept):
    """A gzip-stored object read with Accept-Encoding: gzip carries Content-Encoding: gzip."""
    key = names.key(".json.gz")
    packed = gzip.compress(b'{"hello": "world"}' * 50)
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=packed, ContentEncoding="gzip",
        ContentType="application/json",
    )  # fmt: skip
    reply = public.get(key, {"Accept-Encoding": accept})
    assert reply.status == 200, reply.describe()
    assert (reply.header("content-encoding") or "").lower() == "gzip", reply.describe()
    assert gzip.decompress(reply.body) == b'{"hello": "world"}' * 50


@pytest.mark.rule("storage.public.http2-default")
def test_new_custom_domain_negotiates_http2(target, public, stored):
    """A GET over TLS to a newly linked custom domain is served over HTTP/2."""
    if not target.offers("public_tls"):
        pytest.skip("N/A: surface public_tls not offered by target " + target.name)
    reply = public.get_over_tls(stored)
    assert reply.status == 200, reply.describe()
    assert reply.http_version == "HTTP/2", reply.describe()
    assert reply.body == BODY


# --- folded from test_public_domains_checked.py ---
# Public reads resolve the custom domain from Host as HTTP defines it, and only while linked.
#
# An implementer may compare Host case-sensitively or with its port, keep serving a domain after
# it is unlinked, or serve a bucket's key under another bucket's domain.


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("form", ["upper", "port", "trailing-dot"])
def test_host_matched_case_insensitively_and_without_port(public, stored, form):
    """`Host: DOMAIN`, `Host: domain:port` and `Host: domain.` name the same domain."""
    host = {
        "upper": public.domain.upper(),
        "port": public.domain + ":" + (public.url.rsplit(":", 1)[-1].split("/")[0] or "80"),
        "trailing-dot": public.domain + ".",
    }[form]
    other = PublicClient(public.url, host, public.bucket, public.tls)
    reply = other.get(stored)
    assert reply.status == 200 and reply.body == BODY, reply.describe()


@pytest.mark.rule("storage.public.get-object")
def test_unlinked_domain_serves_nothing(s3, target, public, stored, names):
    """Once the domain is removed through the management API, its reads are refused."""
    assert public.get(stored).status == 200
    CustomDomains(target.surface("mgmt")).delete(public.bucket, public.domain)
    reply = public.get(stored)
    assert reply.status >= 400 and reply.body != BODY, reply.describe()


@pytest.mark.rule("storage.public.get-object")
def test_domain_serves_its_own_bucket_only(s3, public, names, bucket):
    """A key that exists only in another bucket is 404 on this bucket's domain."""
    other = names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    try:
        key = names.key(".txt")
        s3.wire.put_object(other, key, b"elsewhere").assert_ok()
        assert public.get(key).status == 404
    finally:
        s3.delete_bucket_recursive(other)


@pytest.mark.rule("storage.public.get-object")
def test_deleting_another_bucket_keeps_this_domain(s3, public, stored, names):
    """Deleting some other bucket leaves this bucket's custom domain serving: a deletion
    unlinks the deleted bucket's domains only."""
    other = names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    s3.delete_bucket_recursive(other)
    reply = public.get(stored)
    assert reply.status == 200 and reply.body == BODY, reply.describe()
