"""Runtime bindings client: speaks the bindings bridge protocol (docs/bindings-bridge.md).

Every call is one `POST {url}/bridge` carrying the operation, the bucket, JSON arguments and the
calling worker's compatibility date and flags (`--compat-date`, `--compat-flag`), so that one
target serves every compatibility setting. Bodies travel as base64. No retries: an internal
error retried into a success would hide a failure. Each exchange is recorded as evidence.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import requests

from conformance.clients.evidence import Exchange, collector

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_BUCKET = "conformance-bindings"
JSON_HEADERS = {"Content-Type": "application/json"}
INTERNAL = "InternalError"


@dataclass
class Outcome:
    """What one binding call gave: a result, or the error the binding threw."""

    status: int
    result: Any = None
    error: dict[str, str] | None = None
    raw: str = ""

    def describe(self) -> str:
        return f"HTTP {self.status}: {self.raw[:300] or '(empty body)'}"

    def value(self) -> Any:
        """The result; AssertionError when the binding threw or the bridge broke."""
        assert self.status == 200 and self.error is None, f"expected a result, {self.describe()}"
        return self.result

    def refused(self) -> dict[str, str]:
        """The error of a clean refusal: thrown by the binding, not an internal error."""
        assert self.error is not None, f"expected the binding to throw, got {self.describe()}"
        assert self.status == 200, (
            f"expected a thrown error, not a bridge failure: {self.describe()}"
        )
        assert self.error.get("name") != INTERNAL, f"internal error: {self.describe()}"
        assert "internal error" not in self.error.get("message", "").lower(), (
            f"internal error: {self.describe()}"
        )
        return self.error


def body_of(obj: Mapping[str, Any]) -> bytes:
    """The bytes of an R2ObjectBody result (AssertionError when it has no body, or when the body
    is not one valid base64 text: RFC 4648 3.3, so padding inside the text is no body either)."""
    assert "body" in obj, f"expected an object with a body, got fields {sorted(obj)}"
    text = str(obj["body"])
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise AssertionError(f"the body is not valid base64 ({len(text)} characters)") from None


class BindingsClient:
    def __init__(
        self,
        url: str,
        bucket: str,
        compat_date: dt.date,
        compat_flags: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT_S,
        token: str | None = None,
    ) -> None:
        self.url = url.rstrip("/") + "/bridge"
        self.bucket = bucket
        self.compat_date = compat_date
        self.compat_flags = list(compat_flags)
        self.timeout = timeout
        self.token = token
        self.session = requests.Session()
        if token:  # the bridge's credential (docs/bindings-bridge.md); kept out of the evidence
            self.session.headers["Authorization"] = f"Bearer {token}"

    @classmethod
    def from_surface(
        cls, surface: Mapping[str, Any], compat_date: dt.date, compat_flags: Sequence[str] = ()
    ) -> BindingsClient:
        return cls(
            str(surface["url"]),
            str(surface.get("bucket") or DEFAULT_BUCKET),
            compat_date,
            compat_flags,
            float(surface.get("timeout", DEFAULT_TIMEOUT_S)),
            surface.get("token"),
        )

    def with_flags(self, *flags: str) -> BindingsClient:
        """The same target called by a worker that also has these compatibility flags."""
        return self._copy(self.bucket, [*self.compat_flags, *flags])

    def for_bucket(self, bucket: str) -> BindingsClient:
        """The same worker's binding bound to another bucket (one a test made over S3), so one
        object can be checked through both surfaces."""
        return self._copy(bucket, self.compat_flags)

    def _copy(self, bucket: str, flags: Sequence[str]) -> BindingsClient:
        client = BindingsClient(
            self.url.removesuffix("/bridge"),
            bucket,
            self.compat_date,
            flags,
            self.timeout,
            self.token,
        )
        client.session = self.session
        return client

    def call(self, op: str, args: Mapping[str, Any]) -> Outcome:
        """One bridge call; the outcome holds the result or the thrown error."""
        doc = {
            "op": op,
            "bucket": self.bucket,
            "args": dict(args),
            "compat": {"date": self.compat_date.isoformat(), "flags": self.compat_flags},
        }
        data = json.dumps(doc)
        resp = self.session.post(self.url, data=data, headers=JSON_HEADERS, timeout=self.timeout)
        collector.add(
            Exchange.build(
                "POST",
                self.url,
                resp.status_code,
                JSON_HEADERS,
                resp.headers,
                f"{op} -> {resp.text}",
            )
        )
        try:
            reply = resp.json()
        except ValueError:
            return Outcome(
                resp.status_code, error={"name": INTERNAL, "message": "not JSON"}, raw=resp.text
            )
        if not isinstance(reply, dict):
            reply = {}
        error = reply.get("error")
        if error is not None or "result" not in reply:
            shaped = error if isinstance(error, dict) else {"name": INTERNAL, "message": resp.text}
            return Outcome(
                resp.status_code, error={str(k): str(v) for k, v in shaped.items()}, raw=resp.text
            )
        return Outcome(resp.status_code, result=reply["result"], raw=resp.text)

    # the binding's methods (options named as the workers binding names them)
    def put(self, key: str, value: bytes, **options: Any) -> Outcome:
        encoded = base64.b64encode(value).decode()
        return self.call("put", {"key": key, "value": encoded, "options": options})

    def get(self, key: str, **options: Any) -> Outcome:
        return self.call("get", {"key": key, "options": options})

    def head(self, key: str) -> Outcome:
        return self.call("head", {"key": key})

    def delete(self, keys: str | Sequence[str]) -> Outcome:
        return self.call("delete", {"keys": keys if isinstance(keys, str) else list(keys)})

    def list(self, **options: Any) -> Outcome:
        return self.call("list", {"options": options})

    def create_multipart_upload(self, key: str, **options: Any) -> Outcome:
        return self.call("createMultipartUpload", {"key": key, "options": options})

    def upload_part(self, key: str, upload_id: str, number: int, value: bytes) -> Outcome:
        encoded = base64.b64encode(value).decode()
        return self.call(
            "uploadPart",
            {"key": key, "uploadId": upload_id, "partNumber": number, "value": encoded},
        )

    def complete(self, key: str, upload_id: str, parts: Sequence[Mapping[str, Any]]) -> Outcome:
        return self.call(
            "completeMultipartUpload",
            {"key": key, "uploadId": upload_id, "parts": [dict(p) for p in parts]},
        )

    def abort(self, key: str, upload_id: str) -> Outcome:
        return self.call("abortMultipartUpload", {"key": key, "uploadId": upload_id})

    def delete_prefixed(self, prefix: str) -> int:
        """Delete every key starting with `prefix` (cleanup); returns how many it removed."""
        if not prefix.startswith("ec-"):
            raise ValueError(f"refusing to clean up with prefix {prefix!r}")
        removed, cursor = 0, None
        while True:
            options: dict[str, Any] = {"prefix": prefix, "limit": 1000}
            if cursor:
                options["cursor"] = cursor
            page = self.list(**options).value()
            keys = [str(o["key"]) for o in page.get("objects", [])]
            if keys:
                self.delete(keys).value()
                removed += len(keys)
            cursor = page.get("cursor")
            if not page.get("truncated") or not cursor:
                return removed


def preflight(surface: Mapping[str, Any]) -> str | None:
    """None when the bridge answers its protocol greeting, else one line naming the problem."""
    url = str(surface.get("url", "")).rstrip("/")
    if not url:
        return "bindings surface: no url configured"
    try:
        resp = requests.get(url + "/", timeout=DEFAULT_TIMEOUT_S)
        doc = resp.json()
    except (requests.RequestException, ValueError) as exc:
        return f"bindings surface at {url} does not answer the bridge protocol: {exc}"[:300]
    if not isinstance(doc, dict) or doc.get("protocol") != "edge-conformance-bindings-bridge":
        return f"bindings surface at {url}: not a bindings bridge (GET / gave {resp.text[:100]!r})"
    return None
