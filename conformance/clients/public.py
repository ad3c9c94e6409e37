"""Client of public buckets on custom domains: the management calls that link a domain to a
bucket, and anonymous reads from the public entrypoint naming that domain in `Host`.

Reads go out exactly as written: no default `Accept-Encoding`, no decoding of the body (a gzip
object's bytes arrive as stored), a timeout on every call, and only transient network failures
retried (conformance/clients/retry.py). The HTTP/2 check uses
httpx with `h2`, given the target's certificate explicitly (the machines set CA-bundle
variables, so nothing is left to the environment).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests
from requests.structures import CaseInsensitiveDict
from urllib3.util import SKIP_HEADER

from conformance.clients import retry
from conformance.clients.evidence import Exchange, collector
from conformance.clients.rules_api import Reply

DEFAULT_TIMEOUT = 15.0
DOMAIN_SUFFIX = ".public.example"


@dataclass
class PublicReply:
    """One answer of the public entrypoint; `body` is the bytes as sent (never decoded)."""

    method: str
    url: str
    status: int
    headers: CaseInsensitiveDict[str]
    body: bytes
    http_version: str = "HTTP/1.1"

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def describe(self) -> str:
        shown = {k: v for k, v in self.headers.items() if k.lower() != "set-cookie"}
        return f"{self.method} {self.url} -> {self.status} {self.http_version} {shown}"


class CustomDomains:
    """`/accounts/{account_id}/r2/buckets/{bucket}/domains/custom` of the management API."""

    def __init__(self, mgmt: Mapping[str, Any], timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base_url = str(mgmt["base_url"]).rstrip("/")
        self.account_id = str(mgmt["account_id"])
        self.credentials = {"X-Auth-Email": str(mgmt["email"]), "X-Auth-Key": str(mgmt["api_key"])}
        self.timeout = timeout
        self.session = retry.mount(requests.Session())
        self.session.trust_env = False

    def path(self, bucket: str, domain: str | None = None) -> str:
        base = f"/accounts/{self.account_id}/r2/buckets/{quote(bucket)}/domains/custom"
        return base + (f"/{quote(domain)}" if domain else "")

    def request(self, method: str, path: str, body: Any = None) -> Reply:
        url = self.base_url + path
        headers = dict(self.credentials)
        try:
            resp = self.session.request(
                method, url, json=body, headers=headers, timeout=self.timeout
            )
        except requests.RequestException as exc:
            collector.add(Exchange.build(method, url, None, headers, None, str(exc)))
            raise
        collector.add(
            Exchange.build(
                method, url, resp.status_code, headers, resp.headers, resp.content,
                resp.request.body,
            )
        )  # fmt: skip
        return Reply(method, url, resp.status_code, dict(resp.headers), resp.text)

    def create(self, bucket: str, domain: str, enabled: bool = True) -> Reply:
        return self.request("POST", self.path(bucket), {"domain": domain, "enabled": enabled})

    def list(self, bucket: str) -> Reply:
        return self.request("GET", self.path(bucket))

    def update(self, bucket: str, domain: str, enabled: bool) -> Reply:
        return self.request("PUT", self.path(bucket, domain), {"enabled": enabled})

    def delete(self, bucket: str, domain: str) -> Reply:
        return self.request("DELETE", self.path(bucket, domain))


class PublicClient:
    """Anonymous requests to one custom domain through the target's public entrypoint."""

    def __init__(
        self,
        url: str,
        domain: str,
        bucket: str,
        tls: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.url = url.rstrip("/")
        self.domain = domain
        self.bucket = bucket
        self.tls = dict(tls) if tls else None
        self.timeout = timeout
        self.session = retry.mount(requests.Session())
        self.session.trust_env = False
        self.session.headers.clear()  # nothing implicit: no Accept-Encoding unless a test sends it
        self.unlinked: int | None = None  # status of the unlink `attached` sent at its end

    def key_url(self, base: str, key: str) -> str:
        return f"{base}/{quote(key, safe='/')}"

    def request(
        self, method: str, key: str, headers: Mapping[str, str] | None = None
    ) -> PublicReply:
        url = self.key_url(self.url, key)
        sent = {"Host": self.domain, **(headers or {})}
        if not any(k.lower() == "accept-encoding" for k in sent):
            sent["Accept-Encoding"] = SKIP_HEADER  # else http.client adds `identity`
        shown = {k: v for k, v in sent.items() if v != SKIP_HEADER}
        try:
            resp = self.session.request(
                method, url, headers=sent, timeout=self.timeout, stream=True,
                allow_redirects=False,
            )  # fmt: skip
            body = resp.raw.read(decode_content=False) if method != "HEAD" else b""
        except requests.RequestException as exc:
            collector.add(Exchange.build(method, url, None, shown, None, str(exc)))
            raise
        collector.add(Exchange.build(method, url, resp.status_code, shown, resp.headers, body))
        headers_ci: CaseInsensitiveDict[str] = CaseInsensitiveDict(resp.headers)
        return PublicReply(method, url, resp.status_code, headers_ci, body)

    def get(self, key: str, headers: Mapping[str, str] | None = None) -> PublicReply:
        return self.request("GET", key, headers)

    def head(self, key: str, headers: Mapping[str, str] | None = None) -> PublicReply:
        return self.request("HEAD", key, headers)

    def options(self, key: str, headers: Mapping[str, str] | None = None) -> PublicReply:
        return self.request("OPTIONS", key, headers)

    def get_over_tls(self, key: str) -> PublicReply:
        """GET over the TLS entrypoint offering HTTP/2; `http_version` is what was negotiated."""
        import httpx

        if self.tls is None:
            raise LookupError("the target offers no public_tls surface")
        url = self.key_url(str(self.tls["url"]).rstrip("/"), key)
        setting = self.tls.get("verify", True)
        verify: ssl.SSLContext | bool = bool(setting)
        if isinstance(setting, str):
            verify = ssl.create_default_context(cafile=setting)
        headers = {"Host": self.domain}
        # verify: a CA bundle path, or a bool; never the environment's bundle
        with httpx.Client(http2=True, verify=verify, trust_env=False, timeout=self.timeout) as c:
            try:
                resp = c.get(url, headers=headers)
            except httpx.HTTPError as exc:
                collector.add(Exchange.build("GET", url, None, headers, None, str(exc)))
                raise
        collector.add(Exchange.build("GET", url, resp.status_code, headers, resp.headers, b""))
        found: CaseInsensitiveDict[str] = CaseInsensitiveDict(dict(resp.headers))
        return PublicReply("GET", url, resp.status_code, found, resp.content, resp.http_version)


def domain_for(bucket: str) -> str:
    """The custom domain the suite links to a bucket: it carries the bucket's run prefix."""
    return bucket + DOMAIN_SUFFIX


@contextmanager
def attached(
    public: Mapping[str, Any],
    mgmt: Mapping[str, Any],
    tls: Mapping[str, Any] | None,
    bucket: str,
) -> Iterator[PublicClient]:
    """Link a custom domain to `bucket` for the duration of the block, then unlink it; the
    client's `unlinked` is the status of that unlink (the caller says when it failed)."""
    domain = domain_for(bucket)
    if not domain.startswith("ec-"):
        raise ValueError(f"refusing a custom domain without the run prefix: {domain}")
    domains = CustomDomains(mgmt)
    domains.create(bucket, domain).assert_envelope_ok()
    client = PublicClient(str(public["url"]), domain, bucket, tls)
    try:
        yield client
    finally:
        client.unlinked = domains.delete(bucket, domain).status
