"""The public entrypoint serves only buckets made public through an enabled custom domain.

Issue 16 row 4: an anonymous GET with a loopback `Host` was served from the account's private
bucket named by the profile (`public`); the Host is the client's to choose, so any local
process could read it. A domain's link also ends with its bucket: a bucket recreated under the
same name is private until a domain is linked to it again.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import requests
from reliability.refproc import REQUEST_TIMEOUT, RefProcess, start

from conformance.clients.public import CustomDomains, PublicClient

SECRET = b"private: never served anonymously"
HOSTS = ("127.0.0.1", "localhost", "[::1]", "LOCALHOST.", "127.0.0.1:80")


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    proc = start(tmp_path_factory.mktemp("pub") / "data")
    wire = proc.wire()
    for bucket in ("public", "site"):
        wire.create_bucket(bucket).assert_ok()
        wire.put_object(bucket, "secret.txt", SECRET).assert_ok()
    yield proc
    proc.stop()


def _public(ref: RefProcess) -> str:
    url: str = ref.surface("public")["url"]
    return url


@pytest.mark.parametrize("host", [*HOSTS, None], ids=[*HOSTS, "listener-address"])
def test_no_host_fallback_serves_a_private_bucket(ref: RefProcess, host: str | None) -> None:
    url = _public(ref)
    sent = host if host is not None else urlsplit(url).netloc
    for method in ("GET", "HEAD"):
        reply = requests.request(
            method, f"{url}/secret.txt", headers={"Host": sent}, timeout=REQUEST_TIMEOUT
        )
        assert reply.status_code == 404, (method, sent, reply.status_code, reply.content[:200])
        assert SECRET not in reply.content


def test_a_linked_domain_serves_and_its_bucket_deletion_unlinks_it(ref: RefProcess) -> None:
    domains = CustomDomains(ref.surface("mgmt"))
    domain = "site.public.example"
    domains.create("site", domain).assert_envelope_ok()
    client = PublicClient(_public(ref), domain, "site")
    assert client.get("secret.txt").body == SECRET  # made public on purpose: served
    wire = ref.wire()
    assert wire.request("DELETE", "site", "secret.txt").status == 204
    assert wire.request("DELETE", "site").status == 204
    wire.create_bucket("site").assert_ok()
    wire.put_object("site", "secret.txt", SECRET).assert_ok()
    reply = client.get("secret.txt")
    assert reply.status == 404 and SECRET not in reply.body, "the recreated bucket is private"
    assert domains.list("site").assert_envelope_ok() == {"domains": []}
