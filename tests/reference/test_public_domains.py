"""Custom domains of the reference: the management shape and how the entrypoint uses `Host`.

The suite checks what the catalog states; these tests pin the reference's own choices where
the spec is silent (the custom-domain API, unknown and disabled hosts, no loopback fallback).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.public import CustomDomains, PublicClient, domain_for


@pytest.fixture(scope="module")
def domains(reference: Any) -> CustomDomains:
    return CustomDomains(reference.ready["surfaces"]["mgmt"])


@pytest.fixture
def site(reference: Any, s3: Any, bucket: str) -> tuple[str, str]:
    s3.put_object(Bucket=bucket, Key="index.html", Body=b"<p>home</p>", ContentType="text/html")
    return bucket, "ec-ref-" + domain_for(bucket)


def _client(reference: Any, bucket: str, domain: str) -> PublicClient:
    return PublicClient(reference.ready["surfaces"]["public"]["url"], domain, bucket)


def test_create_list_get_delete(domains: CustomDomains, site: tuple[str, str]) -> None:
    bucket, domain = site
    made = domains.create(bucket, domain.upper()).assert_envelope_ok()
    assert made["domain"] == domain and made["enabled"] is True and made["bucket"] == bucket
    assert made["min_tls"] == "1.0"
    assert made["status"] == {"ownership": "active", "ssl": "active"}
    listed = domains.list(bucket).assert_envelope_ok()
    assert [d["domain"] for d in listed["domains"]] == [domain]
    got = domains.request("GET", domains.path(bucket, domain)).assert_envelope_ok()
    assert got == made
    changed = domains.request(
        "PUT", domains.path(bucket, domain), {"enabled": False, "min_tls": "1.2"}
    ).assert_envelope_ok()
    assert changed["enabled"] is False and changed["min_tls"] == "1.2"
    assert domains.delete(bucket, domain).assert_envelope_ok() == {"domain": domain}
    assert domains.list(bucket).assert_envelope_ok() == {"domains": []}
    domains.delete(bucket, domain).assert_envelope_error(404, code=10071)


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"enabled": True}, "/domain"),
        ({"domain": "no_underscores.example", "enabled": True}, "/domain"),
        ({"domain": "single-label", "enabled": True}, "/domain"),
        ({"domain": "ok.public.example"}, "/enabled"),
        ({"domain": "ok.public.example", "enabled": "yes"}, "/enabled"),
        ({"domain": "ok.public.example", "enabled": True, "min_tls": "1.4"}, "/min_tls"),
    ],
)
def test_invalid_bodies_are_400(
    domains: CustomDomains, bucket: str, body: dict[str, Any], pointer: str
) -> None:
    reply = domains.request("POST", domains.path(bucket), body)
    reply.assert_envelope_error(400, code=10070, pointer=pointer)


def test_domain_of_one_bucket_only(domains: CustomDomains, s3: Any, site: tuple[str, str]) -> None:
    bucket, domain = site
    domains.create(bucket, domain).assert_envelope_ok()
    other = bucket + "-b"
    s3.create_bucket(Bucket=other)
    domains.create(other, domain).assert_envelope_error(409, code=10072)
    domains.request("GET", domains.path(other, domain)).assert_envelope_error(404, code=10071)
    domains.delete(bucket, domain).assert_envelope_ok()


def test_missing_bucket_and_foreign_account(domains: CustomDomains, reference: Any) -> None:
    domains.create("ec-no-such-bucket", "ec-x.public.example").assert_envelope_error(404)
    foreign = CustomDomains({**reference.ready["surfaces"]["mgmt"], "account_id": "f" * 32})
    foreign.list("anything").assert_envelope_error(403)


def test_host_names_the_bucket(
    reference: Any, domains: CustomDomains, site: tuple[str, str]
) -> None:
    bucket, domain = site
    client = _client(reference, bucket, domain)
    assert client.get("index.html").status == 404  # not linked yet: no such host
    domains.create(bucket, domain).assert_envelope_ok()
    reply = client.get("index.html")
    assert reply.status == 200 and reply.body == b"<p>home</p>"
    assert _client(reference, bucket, domain.upper() + ":443").get("index.html").status == 200
    domains.request("PUT", domains.path(bucket, domain), {"enabled": False}).assert_envelope_ok()
    assert client.get("index.html").status == 404  # a disabled domain serves nothing
    domains.delete(bucket, domain).assert_envelope_ok()
    assert client.get("index.html").status == 404


def test_writes_are_refused(reference: Any, domains: CustomDomains, site: tuple[str, str]) -> None:
    bucket, domain = site
    domains.create(bucket, domain).assert_envelope_ok()
    client = _client(reference, bucket, domain)
    for method in ("PUT", "POST", "DELETE"):
        assert client.request(method, "index.html").status == 405
    domains.delete(bucket, domain).assert_envelope_ok()


def test_loopback_host_serves_nothing(reference: Any, s3: Any) -> None:
    """No Host fallback: a bucket, whatever its name, is public only through a domain."""
    s3.create_bucket(Bucket="public")
    s3.put_object(Bucket="public", Key="dev.txt", Body=b"dev")
    url = reference.ready["surfaces"]["public"]["url"]
    for host in (url.split("//", 1)[1], "localhost", "127.0.0.1"):
        assert PublicClient(url, host, "public").get("dev.txt").status == 404


def test_the_providers_field_names_are_read_and_answered(
    domains: CustomDomains, site: tuple[str, str]
) -> None:
    """R2's API names the fields zoneId and minTLS; a body using them was silently ignored."""
    bucket, domain = site
    made = domains.request(
        "POST",
        domains.path(bucket),
        {"domain": domain, "enabled": True, "zoneId": "abc123", "minTLS": "1.2"},
    ).assert_envelope_ok(200)
    assert made["zoneId"] == "abc123" and made["minTLS"] == "1.2", made
    changed = domains.request(
        "PUT", domains.path(bucket, domain), {"minTLS": "1.3"}
    ).assert_envelope_ok(200)
    assert changed["minTLS"] == "1.3" and changed["min_tls"] == "1.3", changed
    bad = domains.request("PUT", domains.path(bucket, domain), {"minTLS": "1.4"})
    bad.assert_envelope_error(400, pointer="/minTLS")
    assert 200 <= domains.delete(bucket, domain).status < 300
