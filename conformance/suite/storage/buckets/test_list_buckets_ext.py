"""ListBuckets: listing, the ext- paging headers, per_page=0, presigned ListBuckets."""

from __future__ import annotations

from typing import Any

import pytest
import requests


@pytest.fixture
def family(s3, names):
    """Three buckets sharing a prefix no other test uses: (prefix, sorted names)."""
    base = names.bucket()
    made = [f"{base}{suffix}" for suffix in ("a", "b", "c")]
    try:
        for name in made:
            s3.boto.create_bucket(Bucket=name)
        yield base, made
    finally:
        for name in made:
            s3.delete_bucket_recursive(name)


def _names(reply: Any) -> list[str | None]:
    root = reply.assert_ok().xml
    assert root is not None and root.tag == "ListAllMyBucketsResult", reply.body[:300]
    return [node.findtext("Name") for node in root.iter("Bucket")]


def _list(s3: Any, headers: dict[str, str] | None = None, query: Any = ()) -> Any:
    return s3.wire.request("GET", headers=headers or {}, query=query)


@pytest.mark.rule("storage.list-buckets.lists-created")
def test_created_bucket_is_listed(s3, bucket):
    """A bucket just created is in ListBuckets."""
    assert bucket in s3.list_bucket_names()


@pytest.mark.rule("storage.list-buckets.ext-prefix")
def test_ext_prefix_header(s3, family, bucket):
    """The ext-prefix header keeps only buckets whose name starts with it."""
    base, made = family
    assert not bucket.startswith(base) and bucket in _names(_list(s3))
    assert _names(_list(s3, {s3.wire.ext("prefix"): base})) == made


@pytest.mark.rule("storage.list-buckets.ext-max-keys")
def test_ext_max_keys_header(s3, family):
    """The ext-max-keys header limits the page size."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("max-keys"): "2"}
    assert _names(_list(s3, headers)) == made[:2]


@pytest.mark.rule("storage.list-buckets.ext-start-after")
def test_ext_start_after_header(s3, family):
    """The ext-start-after header lists only names after it."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("start-after"): made[0]}
    assert _names(_list(s3, headers)) == made[1:]


def _next_token(reply: Any, s3: Any) -> str | None:
    token: str | None = reply.header(s3.wire.ext("next-continuation-token"))
    if token is None:
        root = reply.xml
        token = None if root is None else root.findtext("ContinuationToken")
    return token


@pytest.mark.rule("storage.list-buckets.ext-continuation-token")
def test_ext_continuation_token_header(s3, family):
    """A token from a truncated page, sent as ext-continuation-token, continues the list."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("max-keys"): "2"}
    first = _list(s3, headers)
    assert _names(first) == made[:2]
    token = _next_token(first, s3)
    assert token, f"no continuation token on a truncated page: {dict(first.headers)}"
    second = _list(s3, {**headers, s3.wire.ext("continuation-token"): token})
    assert _names(second) == made[2:]


@pytest.mark.rule("storage.list-buckets.ext-continuation-token")
def test_ext_continuation_token_walk(s3, family):
    """Pages of one bucket, each continued by its token, list the family once; the last,
    which leaves nothing to list, carries no token. AWS ListBuckets API reference
    (Response Elements): ContinuationToken "is included in the response when there are more
    buckets that can be listed with pagination"."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("max-keys"): "1"}
    seen: list[str | None] = []
    token: str | None = None
    for _ in made:
        sent = headers if token is None else {**headers, s3.wire.ext("continuation-token"): token}
        reply = _list(s3, sent)
        seen += _names(reply)
        token = _next_token(reply, s3)
        if len(seen) < len(made):
            assert token, f"no continuation token after {seen}: {dict(reply.headers)}"
    assert seen == made
    assert not token, f"the last page ({seen[-1]}) still carries a continuation token {token!r}"


@pytest.mark.rule("storage.list-buckets.ext-truncation-headers")
def test_ext_truncation_headers(s3, family):
    """A truncated page's ext-is-truncated / ext-next-continuation-token continue the list."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("max-keys"): "1"}
    reply = _list(s3, headers)
    if reply.header(s3.wire.ext("is-truncated")) is None:
        pytest.skip("N/A: the target does not send the optional ext-is-truncated header")
    assert reply.header(s3.wire.ext("is-truncated")) == "true"
    token = reply.header(s3.wire.ext("next-continuation-token"))
    assert token, "ext-is-truncated without ext-next-continuation-token"
    follow = _list(s3, {**headers, s3.wire.ext("continuation-token"): token})
    assert _names(follow) == made[1:2]


@pytest.mark.rule("storage.list-buckets.search-parameters")
def test_search_parameters_in_the_url(s3, family):
    """prefix, max-keys, start-after and continuation-token work as URL parameters too (the
    provider's S3 extensions page: ListBuckets "supports all the same search parameters as
    ListObjectsV2"; the headers are the fallback for tools that cannot set them)."""
    base, made = family
    assert _names(_list(s3, query=[("prefix", base)])) == made
    first = _list(s3, query=[("prefix", base), ("max-keys", "2")])
    assert _names(first) == made[:2]
    assert _names(_list(s3, query=[("prefix", base), ("start-after", made[0])])) == made[1:]
    token = _next_token(first, s3)
    assert token, f"no continuation token on a truncated page: {dict(first.headers)}"
    query = [("prefix", base), ("max-keys", "2"), ("continuation-token", token)]
    assert _names(_list(s3, query=query)) == made[2:]


@pytest.mark.rule("storage.list-buckets.search-parameters")
def test_header_takes_precedence_over_parameter(s3, family):
    """A header and the URL parameter of the same name disagreeing: the header's value is the
    one used ("Values in headers take precedence over the search parameters", the provider's
    S3 extensions page)."""
    base, made = family
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("max-keys"): "1"}
    query = [("prefix", base + "-none"), ("max-keys", "3")]
    assert _names(_list(s3, headers, query)) == made[:1]
    headers = {s3.wire.ext("prefix"): base, s3.wire.ext("start-after"): made[1]}
    assert _names(_list(s3, headers, [("start-after", made[0])])) == made[2:]


@pytest.mark.rule("storage.list-buckets.per-page-zero")
def test_per_page_zero_accepted(s3, bucket):
    """ListBuckets with per_page=0 is accepted (200); what it lists is the SHOULD rule's."""
    _names(_list(s3, query=[("per_page", "0")]))


@pytest.mark.rule("storage.list-buckets.per-page-zero-empty")
def test_per_page_zero_empty(s3, bucket):
    """ListBuckets with per_page=0 answers 200 with no buckets."""
    names = _names(_list(s3, query=[("per_page", "0")]))
    assert names == [], f"per_page=0 listed {len(names)} bucket(s): {names[:5]}"


@pytest.mark.rule("storage.auth.presigned-list-buckets")
def test_presigned_list_buckets(s3, bucket):
    """A presigned ListBuckets URL lists the buckets."""
    url = s3.wire.presign("GET", expires=300)
    reply = requests.get(url, timeout=30, verify=s3.wire.verify)
    assert reply.status_code == 200, f"status {reply.status_code}: {reply.content[:200]!r}"
    assert f"<Name>{bucket}</Name>".encode() in reply.content


@pytest.mark.rule("storage.auth.presigned-list-objects")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_presigned_list_objects(s3, bucket, names, version):
    """A presigned ListObjects URL lists the bucket."""
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=b"x")
    query = [("list-type", "2")] if version == "v2" else []
    url = s3.wire.presign("GET", bucket, query=query, expires=300)
    reply = requests.get(url, timeout=30, verify=s3.wire.verify)
    assert reply.status_code == 200, f"status {reply.status_code}: {reply.content[:200]!r}"
    assert f"<Key>{key}</Key>".encode() in reply.content
