"""Shared steps of the area A tests: rule bodies, schema checks, and leaving the zone as found.

The zone's log custom fields entry point is shared state: the `rules_api` fixture journals it
before the first test and the run puts it back once at the end (docs/safety.md), so the
ruleset's version moves only by the tests' own changes; `entrypoint_guard` deletes an entry
point a test created on a zone that had none (and, outside such a run, restores rules). Jobs
a test creates carry the run prefix and are deleted by `job_cleanup`, also when it fails.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient

SCHEMAS = ("envelope", "rule", "ruleset", "logpush_job")
RULE_REQUEST_KEYS = ("action", "expression", "description", "action_parameters", "enabled", "ref")


def log_rule(
    request: tuple[str, ...] = (),
    response: tuple[str, ...] = (),
    cookies: tuple[str, ...] = (),
    **overrides: Any,
) -> dict[str, Any]:
    """A log_custom_field rule body naming the given fields (only non-empty arrays are sent)."""
    params: dict[str, Any] = {}
    for key, names in (
        ("request_fields", request),
        ("response_fields", response),
        ("cookie_fields", cookies),
    ):
        if names:
            params[key] = [{"name": name} for name in names]
    rule: dict[str, Any] = {
        "action": "log_custom_field",
        "expression": "true",
        "description": "edge-conformance",
        "action_parameters": params,
    }
    rule.update(overrides)
    return rule


@cache
def _registry_and_schemas() -> tuple[Registry, dict[str, dict[str, Any]]]:
    folder = resources.files("conformance.schemas")
    schemas = {
        name: json.loads((folder / f"{name}.schema.json").read_text(encoding="utf-8"))
        for name in SCHEMAS
    }
    registry: Registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values()
    )
    return registry, schemas


def schema_errors(name: str, instance: Any) -> list[str]:
    """Messages of every violation of `conformance/schemas/<name>.schema.json`."""
    registry, schemas = _registry_and_schemas()
    validator = Draft202012Validator(
        schemas[name], registry=registry, format_checker=FormatChecker()
    )
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '(root)'}: {err.message}"
        for err in validator.iter_errors(instance)
    ]


def assert_schema(name: str, instance: Any) -> None:
    errors = schema_errors(name, instance)
    assert not errors, f"{name} schema violated: " + "; ".join(errors[:5])


def ensure_entrypoint(rules_api: RulesApiClient) -> str:
    """Id of the zone's log custom fields ruleset, created (per the setup order) if missing."""
    found = rules_api.find_zone_ruleset()
    if found is not None:
        assert found.get("id"), f"the listed entry point has no id: {found}"
        return str(found["id"])
    body = {
        "name": "edge-conformance",
        "kind": "zone",
        "description": "created by edge-conformance",
        "phase": LOG_PHASE,
    }
    created = rules_api.create_ruleset(body).assert_envelope_ok()
    assert isinstance(created, dict) and created.get("id"), f"created without an id: {created}"
    return str(created["id"])


@contextmanager
def entrypoint_guard(rules_api: RulesApiClient) -> Iterator[None]:
    """Leave the log custom fields entry point as the block found it: delete one the block
    created, put back the rules of one that existed. Under a run whose journal restores the
    zone at the end (`rules_api.journaled`, docs/safety.md) the rules are not put back after
    every test: one restore per run keeps the user's ruleset version from racing ahead."""
    before = rules_api.find_zone_ruleset()
    saved: list[dict[str, Any]] = []
    if before is not None and not rules_api.journaled:
        assert before.get("id"), f"the listed entry point has no id: {before}"
        full = rules_api.get_ruleset(str(before["id"])).assert_envelope_ok()
        saved = [
            {k: rule[k] for k in RULE_REQUEST_KEYS if k in rule} for rule in full.get("rules", [])
        ]
    try:
        yield
    finally:
        now = rules_api.find_zone_ruleset()
        if before is None and now is not None and now.get("id"):
            rules_api.delete_ruleset(str(now["id"]))
        elif before is not None and not rules_api.journaled:
            rules_api.update_ruleset(str(before["id"]), {"rules": saved})


@contextmanager
def job_cleanup(rules_api: RulesApiClient, run_prefix: str) -> Iterator[None]:
    """Delete every job named with the run prefix once the block ends (never any other)."""
    try:
        yield
    finally:
        listed = rules_api.list_jobs().result
        for job in listed if isinstance(listed, list) else []:
            if isinstance(job, dict) and str(job.get("name") or "").startswith(run_prefix):
                rules_api.delete_job(job["id"])


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", errors="replace")
        self.server.received.append((self.path, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def http_destination(run_prefix: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """A loopback HTTP destination that keeps what it receives (the ownership challenge)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.received = []  # type: ignore[attr-defined]
    # serve_forever's default poll of 0.5 s is how long shutdown() waits: every job test paid it
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{run_prefix}/logs"
        yield url, server.received  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def challenge_token(received: list[tuple[str, str]]) -> str:
    """The token of the ownership challenge the destination received (JSON or plain text)."""
    assert received, "the destination received no ownership challenge"
    body = received[-1][1].strip()
    try:
        decoded = json.loads(body)
    except ValueError:
        return body
    if isinstance(decoded, dict):
        for key in ("content", "token", "ownership_challenge"):
            if isinstance(decoded.get(key), str):
                return str(decoded[key])
    return body


def job_body(run_prefix: str, destination: str, token: str, **overrides: Any) -> dict[str, Any]:
    """A job that logs the custom fields, named with the run prefix."""
    body: dict[str, Any] = {
        "name": f"{run_prefix}-custom-fields",
        "destination_conf": destination,
        "dataset": "http_requests",
        "logpull_options": "fields=RayID,ClientRequestHost,RequestHeaders,ResponseHeaders,"
        "Cookies&timestamps=rfc3339",
        "ownership_challenge": token,
    }
    body.update(overrides)
    return body
