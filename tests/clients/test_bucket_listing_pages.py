"""The run's buckets are found past ListBuckets' first page (S3Client.list_bucket_names).

The spec's ListBuckets pages (max-keys, continuation-token; the reference: 1000 a page). On an
account with 1000 buckets named before `ec-`, one unpaged ListBuckets never showed the run's
buckets: the end-of-run cleanup left them, the run left the registry as if nothing remained,
and `conformance recover` did not see them either; a silent leak on a live account.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from helpers.reference_process import s3_client_on_reference

from conformance.clients.s3 import S3Client
from conformance.plugin import cleanup

PREFIX = "ec-pages00"


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Client]:
    with s3_client_on_reference(Path(tmp_path_factory.mktemp("ref")) / "data", PREFIX) as client:
        yield client


@pytest.mark.slow
def test_a_bucket_after_the_first_page_is_listed_and_cleaned(s3: S3Client) -> None:
    with ThreadPoolExecutor(4) as pool:  # a user's buckets, all sorting before `ec-`
        list(pool.map(lambda i: s3.boto.create_bucket(Bucket=f"aa-user-{i:05d}"), range(1001)))
    late = f"{PREFIX}-late"
    s3.boto.create_bucket(Bucket=late)
    assert late in s3.list_bucket_names()
    assert s3.list_bucket_names(PREFIX + "-") == [late]
    assert cleanup.delete_prefixed(s3, PREFIX + "-") == [late]
    assert late not in s3.list_bucket_names()


class Paging:
    """A boto stand-in whose ListBuckets pages by token, or repeats its last page forever."""

    def __init__(self, pages: list[tuple[list[str], str | None]]) -> None:
        self.pages = pages
        self.calls: list[dict[str, Any]] = []

    def list_buckets(self, **params: Any) -> dict[str, Any]:
        self.calls.append(params)
        names, token = self.pages[min(len(self.calls), len(self.pages)) - 1]
        reply: dict[str, Any] = {"Buckets": [{"Name": n} for n in names]}
        return reply | ({"ContinuationToken": token} if token else {})


def _client(boto: Paging) -> S3Client:
    client = S3Client.__new__(S3Client)
    client.boto = boto
    return client


def test_pages_are_followed_with_the_prefix_and_token() -> None:
    boto = Paging([(["a", "b"], "t1"), (["ec-x-1"], None)])
    assert _client(boto).list_bucket_names("ec-x-") == ["ec-x-1"]
    assert boto.calls == [{"Prefix": "ec-x-"}, {"Prefix": "ec-x-", "ContinuationToken": "t1"}]


def test_a_token_that_comes_back_ends_the_listing() -> None:
    boto = Paging([(["a"], "same")])
    assert _client(boto).list_bucket_names() == ["a"]
    assert len(boto.calls) == 2


def test_a_fresh_token_with_the_same_page_ends_the_listing() -> None:
    boto = Paging([(["a"], "t1"), (["a"], "t2"), (["a"], "t3")])
    assert _client(boto).list_bucket_names() == ["a"]
    assert len(boto.calls) == 2
