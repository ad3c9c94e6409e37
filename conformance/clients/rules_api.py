"""Client of the management API's rules and log push endpoints (area A), over `requests`.

Every exchange is recorded as evidence; every call has a timeout, and only a transient network
failure of an idempotent call is retried (conformance/clients/retry.py, recorded too), so the
suite sees exactly what the target answered. Replies carry envelope-aware assertions so that
tests check status, error code and pointer in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from conformance import settings
from conformance.clients import retry
from conformance.clients.evidence import Exchange, collector

LOG_PHASE = "http_log_custom_fields"


def api_timeout() -> float:
    """Seconds per read of a management API call (default 15); CONFORMANCE_API_TIMEOUT raises
    it for a run that may be paused mid-call (the safety tests SIGSTOP a run while its
    collector owes an answer). Read when a client is made: a malformed value is a clear
    error there, never an import crash."""
    return settings.seconds(settings.API_TIMEOUT, 15.0)


_NO_JSON = object()


@dataclass
class Reply:
    """One answer of the API: status, headers and the decoded JSON body (None if not JSON)."""

    method: str
    url: str
    status: int
    headers: Mapping[str, str]
    text: str
    _decoded: Any = field(default=_NO_JSON, repr=False)

    @property
    def json(self) -> Any:
        if self._decoded is _NO_JSON:
            try:
                self._decoded = json.loads(self.text)
            except ValueError:
                self._decoded = None
        return self._decoded

    @property
    def is_envelope(self) -> bool:
        body = self.json
        return isinstance(body, dict) and {"result", "success", "errors", "messages"} <= set(body)

    @property
    def result(self) -> Any:
        body = self.json
        return body.get("result") if isinstance(body, dict) else None

    @property
    def envelope_errors(self) -> list[dict[str, Any]]:
        body = self.json
        errors = body.get("errors") if isinstance(body, dict) else None
        return [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []

    def _where(self) -> str:
        excerpt = self.text[:400] + ("…" if len(self.text) > 400 else "")
        return f"{self.method} {self.url} -> {self.status}: {excerpt}"

    def assert_no_content(self) -> None:
        """204 with an empty body (the provider's answer to a deleted ruleset)."""
        assert self.status == 204 and not self.text.strip(), (
            f"expected 204, no body: {self._where()}"
        )

    def assert_envelope(self) -> dict[str, Any]:
        """The body is the envelope: result, success, errors (array), messages (array)."""
        body = self.json
        assert self.is_envelope and isinstance(body, dict), f"not the envelope: {self._where()}"
        assert isinstance(body["success"], bool), f"success is not a boolean: {self._where()}"
        assert isinstance(body["errors"], list), f"errors is not an array: {self._where()}"
        assert isinstance(body["messages"], list), f"messages is not an array: {self._where()}"
        return body

    def assert_envelope_ok(self, status: int | None = None) -> Any:
        """A success envelope (2xx, success true, no errors); returns `result`."""
        if status is None:
            assert 200 <= self.status < 300, f"expected a 2xx answer: {self._where()}"
        else:
            assert self.status == status, f"expected HTTP {status}: {self._where()}"
        body = self.assert_envelope()
        assert body["success"] is True, f"success is not true: {self._where()}"
        assert body["errors"] == [], f"errors is not empty: {self._where()}"
        return body["result"]

    def assert_status(self, status: int) -> None:
        """Only the status: a refusal rule that names no envelope, code or pointer."""
        assert self.status == status, f"expected HTTP {status}: {self._where()}"

    def describe(self) -> str:
        """The exchange in one line, for setup messages (setup_check.require_refused)."""
        return self._where()

    def assert_envelope_error(
        self, status: int, code: int | None = None, pointer: str | None = None
    ) -> dict[str, Any]:
        """A failure envelope with this status (and error code / source pointer when given)."""
        assert self.status == status, f"expected HTTP {status}: {self._where()}"
        body = self.assert_envelope()
        assert body["success"] is False, f"success is not false: {self._where()}"
        assert body["result"] is None, f"result is not null: {self._where()}"
        errors = self.envelope_errors
        assert errors, f"no error objects: {self._where()}"
        for error in errors:
            assert isinstance(error.get("code"), int), f"error without integer code: {error}"
            assert isinstance(error.get("message"), str), f"error without message: {error}"
        chosen = errors
        if code is not None:
            chosen = [e for e in errors if e.get("code") == code]
            assert chosen, f"no error with code {code}: {self._where()}"
        if pointer is not None:
            pointed = [e for e in chosen if error_pointer(e) == pointer]
            assert pointed, f"no error pointing at {pointer!r}: {self._where()}"
            chosen = pointed
        return chosen[0]


def error_pointer(error: Mapping[str, Any]) -> str | None:
    source = error.get("source")
    pointer = source.get("pointer") if isinstance(source, dict) else None
    return pointer if isinstance(pointer, str) else None


class EnvelopeClient:
    """Authenticated JSON calls to the management API (rules API and R2 endpoints alike).

    One place sends, times out and records evidence, so both clients see the wire the same way.
    """

    def __init__(
        self, base_url: str, email: str, api_key: str, timeout: float | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.email = email
        self.api_key = api_key
        self.timeout = api_timeout() if timeout is None else timeout
        self.session = retry.mount(requests.Session())
        self.session.trust_env = False  # no proxies from the environment: loopback stays local

    @property
    def credentials(self) -> dict[str, str]:
        return {"X-Auth-Email": self.email, "X-Auth-Key": self.api_key}

    def send(
        self,
        method: str,
        path: str,
        *,
        data: bytes | None = None,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
        chunked: bool = False,
    ) -> Reply:
        """One exchange below base_url; `headers` replaces the credentials when given; with
        `chunked` the body goes in the chunked transfer coding, without Content-Length."""
        url = self.base_url + path
        sent_headers = dict(self.credentials if headers is None else headers)
        if data is not None:
            sent_headers["Content-Type"] = "application/json"
        try:
            resp = self.session.request(
                method,
                url,
                data=iter([data]) if chunked and data is not None else data,
                params=dict(params or {}),
                headers=sent_headers,
                timeout=self.timeout,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            collector.add(Exchange.build(method, url, None, sent_headers, None, str(exc), data))
            raise
        sent = resp.request.url or url
        collector.add(
            Exchange.build(
                method, sent, resp.status_code, sent_headers, resp.headers, resp.content, data
            )
        )
        return Reply(method, sent, resp.status_code, dict(resp.headers), resp.text)


class RulesApiClient(EnvelopeClient):
    """Zone rulesets and log push jobs of one zone, with the target's credentials."""

    def __init__(
        self,
        base_url: str,
        email: str,
        api_key: str,
        zone_id: str,
        timeout: float | None = None,
    ) -> None:
        super().__init__(base_url, email, api_key, timeout)
        self.zone_id = zone_id
        # True once the run's safety journal holds the zone's entry point (docs/safety.md):
        # the run restores it once at the end, so tests need not restore its rules each time
        self.journaled = False
        # The id of the entry point the zone held when the run began ("" when it held none:
        # any entry point now is the run's own), from the run's journal, or "" for the launched
        # reference's zone (the run's own). None: not known, so only a ruleset a test created
        # itself is the run's to delete.
        self.entrypoint_at_start: str | None = None

    @classmethod
    def from_surface(cls, surface: Mapping[str, Any]) -> RulesApiClient:
        return cls(
            base_url=str(surface["base_url"]),
            email=str(surface["email"]),
            api_key=str(surface["api_key"]),
            zone_id=str(surface["zone_id"]),
        )

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        raw: bytes | None = None,
        auth_headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Send one request; `auth_headers` replaces the credentials (to test auth errors)."""
        data = json.dumps(body).encode() if body is not None else raw
        return self.send(method, path, data=data, headers=auth_headers)

    def zone(self, suffix: str) -> str:
        return f"/zones/{self.zone_id}{suffix}"

    # -- rulesets ---------------------------------------------------------------------------
    def list_rulesets(self) -> Reply:
        return self.request("GET", self.zone("/rulesets"))

    def create_ruleset(self, body: Any) -> Reply:
        return self.request("POST", self.zone("/rulesets"), body=body)

    def get_ruleset(self, ruleset_id: str) -> Reply:
        return self.request("GET", self.zone(f"/rulesets/{ruleset_id}"))

    def update_ruleset(self, ruleset_id: str, body: Any) -> Reply:
        return self.request("PUT", self.zone(f"/rulesets/{ruleset_id}"), body=body)

    def delete_ruleset(self, ruleset_id: str) -> Reply:
        return self.request("DELETE", self.zone(f"/rulesets/{ruleset_id}"))

    def get_entrypoint(self, phase: str = LOG_PHASE) -> Reply:
        return self.request("GET", self.zone(f"/rulesets/phases/{phase}/entrypoint"))

    def put_entrypoint(self, body: Any, phase: str = LOG_PHASE) -> Reply:
        return self.request("PUT", self.zone(f"/rulesets/phases/{phase}/entrypoint"), body=body)

    def find_zone_ruleset(self, phase: str = LOG_PHASE) -> dict[str, Any] | None:
        """The `kind: zone` ruleset of the phase from the list, or None. A list answered
        outside the envelope is still searched: that is the envelope rules' failure, and a
        finder that raised here would turn their tests' setup into an ERROR."""
        reply = self.list_rulesets()
        assert 200 <= reply.status < 300, f"listing rulesets failed: {reply.describe()}"
        body = reply.json
        listed = body.get("result") if isinstance(body, dict) else body
        for item in listed if isinstance(listed, list) else []:
            if isinstance(item, dict) and item.get("kind") == "zone" and item.get("phase") == phase:
                return item
        return None

    # -- log push jobs ----------------------------------------------------------------------
    def request_ownership(self, destination_conf: str) -> Reply:
        body = {"destination_conf": destination_conf}
        return self.request("POST", self.zone("/logpush/ownership"), body=body)

    def list_jobs(self) -> Reply:
        return self.request("GET", self.zone("/logpush/jobs"))

    def create_job(self, body: Any) -> Reply:
        return self.request("POST", self.zone("/logpush/jobs"), body=body)

    def get_job(self, job_id: int | str) -> Reply:
        return self.request("GET", self.zone(f"/logpush/jobs/{job_id}"))

    def update_job(self, job_id: int | str, body: Any) -> Reply:
        return self.request("PUT", self.zone(f"/logpush/jobs/{job_id}"), body=body)

    def delete_job(self, job_id: int | str) -> Reply:
        return self.request("DELETE", self.zone(f"/logpush/jobs/{job_id}"))


def preflight(surface: Mapping[str, Any]) -> str | None:
    """None when the rules API answers and accepts the credentials, else a one-line problem."""
    where = f"rules_api surface at {surface.get('base_url')}"
    try:
        client = RulesApiClient.from_surface(surface)
        client.timeout = 10.0
        reply = client.list_rulesets()
    except KeyError as exc:
        return f"{where}: missing setting {exc.args[0]!r}"
    except requests.RequestException as exc:
        return f"{where}: unreachable ({type(exc).__name__}: {exc})"
    if 200 <= reply.status < 300:
        return None
    codes = ", ".join(str(e.get("code")) for e in reply.envelope_errors) or "no error code"
    if reply.status in (400, 401, 403):
        return f"{where}: credentials refused (HTTP {reply.status}, {codes})"
    if reply.status == 404:
        return f"{where}: zone {surface.get('zone_id')} not found (HTTP 404, {codes})"
    return f"{where}: GET rulesets answered HTTP {reply.status} ({codes})"
