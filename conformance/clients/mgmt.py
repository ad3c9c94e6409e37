"""Client of the management API's R2 endpoints (area C): buckets, migration (sippy), audit log.

Account scoped: every path is under `/accounts/{account_id}/r2`. Answers are the envelope, so
replies reuse the rules API's envelope-aware `Reply` (status, code and pointer in one line).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import requests

from conformance.clients.rules_api import EnvelopeClient, Reply

__all__ = ["MgmtClient", "Reply", "preflight"]


class MgmtClient(EnvelopeClient):
    """One account's R2 management endpoints, with the target's credentials."""

    def __init__(
        self,
        base_url: str,
        email: str,
        api_key: str,
        account_id: str,
        timeout: float | None = None,
    ) -> None:
        super().__init__(base_url, email, api_key, timeout)
        self.account_id = account_id

    @classmethod
    def from_surface(cls, surface: Mapping[str, Any]) -> MgmtClient:
        return cls(
            base_url=str(surface["base_url"]),
            email=str(surface["email"]),
            api_key=str(surface["api_key"]),
            account_id=str(surface["account_id"]),
        )

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str | int] | None = None,
    ) -> Reply:
        """Send one request (path below base_url); every exchange is recorded as evidence."""
        data = json.dumps(body).encode() if body is not None else None
        return self.send(method, path, data=data, params=params)

    def r2(self, suffix: str, account_id: str | None = None) -> str:
        return f"/accounts/{account_id or self.account_id}/r2{suffix}"

    def bucket_path(self, bucket: str, suffix: str = "", account_id: str | None = None) -> str:
        return self.r2(f"/buckets/{quote(bucket, safe='')}{suffix}", account_id)

    # -- buckets ----------------------------------------------------------------------------
    def list_buckets(self, account_id: str | None = None, **params: str | int) -> Reply:
        return self.request("GET", self.r2("/buckets", account_id), params=params)

    def create_bucket(self, name: str, jurisdiction: str | None = None) -> Reply:
        body: dict[str, Any] = {"name": name}
        if jurisdiction is not None:
            body["jurisdiction"] = jurisdiction
        return self.request("POST", self.r2("/buckets"), body=body)

    def get_bucket(self, name: str, account_id: str | None = None) -> Reply:
        return self.request("GET", self.bucket_path(name, account_id=account_id))

    def delete_bucket(self, name: str) -> Reply:
        return self.request("DELETE", self.bucket_path(name))

    # -- migration (sippy) ------------------------------------------------------------------
    def get_sippy(self, bucket: str) -> Reply:
        return self.request("GET", self.bucket_path(bucket, "/sippy"))

    def put_sippy(self, bucket: str, config: Any) -> Reply:
        return self.request("PUT", self.bucket_path(bucket, "/sippy"), body=config)

    def delete_sippy(self, bucket: str) -> Reply:
        return self.request("DELETE", self.bucket_path(bucket, "/sippy"))

    def validate_sippy(self, bucket: str, config: Any = None) -> Reply:
        return self.request("POST", self.bucket_path(bucket, "/sippy/validate"), body=config)

    # -- config audit log (reference's own listing) -------------------------------------------
    def audit_log(self, bucket: str | None = None) -> Reply:
        params: dict[str, str | int] = {"bucket": bucket} if bucket else {}
        return self.request("GET", self.r2("/audit"), params=params)

    # -- REFERENCE-ONLY: the reference's moving clock ------------------------------------------
    def advance_clock(self, seconds: float, bucket: str | None = None) -> Reply:
        """Move the clock of one bucket of the credentials' account (None: every bucket's)."""
        body: dict[str, Any] = {"advance_seconds": seconds}
        if bucket is not None:
            body["bucket"] = bucket
        return self.request("POST", "/_reference/clock", body=body)


def preflight(surface: Mapping[str, Any]) -> str | None:
    """None when the bucket list answers with the credentials; else a one-line problem.

    The plainest list, with no query parameter: the pre-flight proves reachability and
    credentials only. A parameter some rule is about (per_page, cursor, name_contains) would
    turn a target's slip in that parameter into a stopped session, a "configuration" problem,
    instead of that rule's FAIL. The provider's List Buckets page marks every query parameter
    optional (developers.cloudflare.com/api/resources/r2/subresources/buckets/methods/list);
    without per_page the reference lists its default page of 20 (DEFAULT_PER_PAGE).
    """
    where = f"mgmt surface at {surface.get('base_url')}"
    try:
        client = MgmtClient.from_surface(surface)
        client.timeout = 10.0
        reply = client.list_buckets()
    except KeyError as exc:
        return f"{where}: missing setting {exc.args[0]!r}"
    except requests.RequestException as exc:
        return f"{where}: unreachable ({type(exc).__name__}: {exc})"
    if 200 <= reply.status < 300:
        return None
    codes = ", ".join(str(e.get("code")) for e in reply.envelope_errors) or "no error code"
    if reply.status in (400, 401, 403):
        return f"{where}: credentials refused (HTTP {reply.status}, {codes})"
    return f"{where}: GET r2/buckets answered HTTP {reply.status} ({codes})"
