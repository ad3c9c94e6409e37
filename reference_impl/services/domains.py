"""Custom domains linked to buckets: the registry both the mgmt API and the public entrypoint read.

One JSON document (`<data_dir>/public/domains.json`), rewritten atomically after each change,
because the public listener must find a domain's bucket from the `Host` alone and the set is
small: the management API caps it per bucket and per account (profile
`custom_domains_max_per_*`), so each rewrite stays short. A domain belongs to at most one
bucket; deleting the bucket removes its domains, so that a bucket later created under the
same name is private until a domain is linked to it again.
"""

from __future__ import annotations

import ipaddress
import json
import re
import threading
from pathlib import Path
from typing import Any

from reference_impl.atomic_file import replace_file
from reference_impl.context import ServerContext

MIN_TLS_VALUES = ("1.0", "1.1", "1.2", "1.3")
_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
DOMAIN = re.compile(rf"\A{_LABEL}(\.{_LABEL})+\Z")


def valid_domain(name: str) -> bool:
    """A host name of two or more labels whose last label is not all digits (RFC 3696 section
    2: a top-level domain is never numeric), so that no IPv4 address (`127.0.0.1`) is one."""
    return (
        len(name) <= 253
        and DOMAIN.match(name) is not None
        and not name.rpartition(".")[2].isdigit()
    )


# RFC 9110 section 7.2: Host = uri-host [ ":" port ]; uri-host a bracketed IPv6 literal or an
# RFC 3986 reg-name (unreserved, pct-encoded, sub-delims: `minio_1` is a Host, if no domain);
# a port of ASCII digits only. The S3 and public listeners both read Host with it.
HOST = re.compile(
    r"\A(\[[0-9a-f:.]+\]|(?:[a-z0-9._~!$&'()*+,;=-]|%[0-9a-f]{2})+)(?::([0-9]{0,5}))?\Z"
)
MAX_PORT = 65535


class MalformedHost(ValueError):
    """A Host header that is not a host name with an optional port (400 on the surface)."""


def normalise_host(host: str) -> str:
    """The domain of a Host header: lower case, port and one trailing dot removed (RFC 1034
    section 3.1: the absolute form of the same name; `a.example..` is not `a.example`).
    MalformedHost for anything else (whitespace inside, a port that is not 0-65535 in ASCII
    digits): a Host that only looks like a domain once cut must never choose a bucket.

    Spaces and tabs around the value are not part of it (RFC 9110 section 5.5: a recipient
    excludes that whitespace): they are stripped first, as hypercorn's TLS listener already
    does, so both listeners answer a Host the same way."""
    found = HOST.match(host.strip(" \t").lower())
    if found is None or (found.group(2) and int(found.group(2)) > MAX_PORT):
        raise MalformedHost(host)
    name = found.group(1)
    if name.startswith("["):  # RFC 3986 IP-literal: an IPv6 address, not any hex and colons
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            raise MalformedHost(host) from None
        return name
    return name.removesuffix(".")


class DomainRegistry:
    """domain -> {domain, account, bucket, enabled, min_tls, zone_id, status, created}."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / "domains.json"
        self._lock = threading.RLock()
        self._domains: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self._domains = json.loads(self.path.read_text(encoding="utf-8"))

    def _save(self) -> None:
        text = json.dumps(self._domains, indent=1, sort_keys=True, allow_nan=False)
        replace_file(self.path, text.encode("utf-8"))

    def get(self, domain: str) -> dict[str, Any] | None:
        with self._lock:
            record = self._domains.get(domain)
            return dict(record) if record else None

    def of_bucket(self, account: str, bucket: str) -> list[dict[str, Any]]:
        with self._lock:
            return [
                dict(r)
                for _, r in sorted(self._domains.items())
                if r["account"] == account and r["bucket"] == bucket
            ]

    def count(self, account: str, bucket: str | None = None) -> int:
        """Domains of an account (of one of its buckets, when named)."""
        with self._lock:
            return sum(
                1
                for r in self._domains.values()
                if r["account"] == account and (bucket is None or r["bucket"] == bucket)
            )

    def put(self, record: dict[str, Any]) -> dict[str, Any]:
        """Store a domain's record; its `created` stamp comes from the caller's clock."""
        with self._lock:
            record = dict(record)
            self._domains[record["domain"]] = record
            self._save()
            return dict(record)

    def remove(self, domain: str) -> bool:
        with self._lock:
            if self._domains.pop(domain, None) is None:
                return False
            self._save()
            return True

    def remove_bucket(self, account: str, bucket: str) -> None:
        """Unlink every domain of a bucket being deleted."""
        with self._lock:
            linked = [
                d
                for d, r in self._domains.items()
                if (r["account"], r["bucket"]) == (account, bucket)
            ]
            for domain in linked:
                del self._domains[domain]
            if linked:
                self._save()

    def bucket_of(self, host: str, enabled_only: bool = True) -> tuple[str, str] | None:
        """(account, bucket) served on this Host header, when an enabled domain names it
        (`enabled_only` False: any linked domain, the break-check of a disabled one served)."""
        record = self.get(normalise_host(host))
        if record is None or (enabled_only and not record.get("enabled", True)):
            return None
        return str(record["account"]), str(record["bucket"])


def registry(ctx: ServerContext) -> DomainRegistry:
    """The process's one registry (made by whichever surface asks first)."""
    if ctx.domains is None:
        ctx.domains = DomainRegistry(ctx.data_dir / "public")
    return ctx.domains
