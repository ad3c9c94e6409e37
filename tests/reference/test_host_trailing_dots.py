"""One trailing dot names the same domain; two do not (hostile round 11).

`normalise_host` cut every trailing dot, so `Host: example.com..` (and `example.com...`) served
the bucket linked to `example.com` on the public listener. RFC 1034 section 3.1: a name ending
in one dot is the absolute form of the same name (the suite's trailing-dot case keeps it
served); a second dot leaves an empty label, which no domain name has, so that Host names no
linked domain (404 NoSuchBucket, as any unknown host). Whether the provider answers 400 or 404
there is not documented, so this is the reference's choice, not a conformance rule.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from conformance.clients.public import CustomDomains, domain_for
from reference_impl.services.domains import normalise_host


@pytest.fixture
def linked(reference: Any, s3: Any, bucket: str) -> str:
    s3.put_object(Bucket=bucket, Key="page.txt", Body=b"served")
    domain = "ec-dots-" + domain_for(bucket)
    mgmt = CustomDomains(reference.ready["surfaces"]["mgmt"])
    mgmt.create(bucket, domain).assert_envelope_ok()
    return domain


def _get(reference: Any, host: str) -> requests.Response:
    url = reference.ready["surfaces"]["public"]["url"] + "/page.txt"
    return requests.get(url, headers={"Host": host}, timeout=10)


@pytest.mark.parametrize("suffix", ["", ".", ".:8080"])
def test_absolute_form_is_the_same_domain(reference: Any, linked: str, suffix: str) -> None:
    reply = _get(reference, linked + suffix)
    assert reply.status_code == 200 and reply.content == b"served"


@pytest.mark.parametrize("suffix", ["..", "...", "..:8080"])
def test_two_trailing_dots_name_no_domain(reference: Any, linked: str, suffix: str) -> None:
    reply = _get(reference, linked + suffix)
    assert reply.status_code == 404, reply.content[:300]
    assert b"NoSuchBucket" in reply.content and b"served" not in reply.content


def test_normalise_host_cuts_one_dot() -> None:
    assert normalise_host("Example.COM.") == "example.com"
    assert normalise_host("example.com.:80") == "example.com"
    assert normalise_host("example.com..") == "example.com."
