"""Log record tests' steps: configure fields, push to an r2:// bucket, send traffic, read back.

The flow is the spec's setup order (list/create the entry point, PUT the rule, create the job
after the ownership challenge), then traffic to the target's `edge` surface, then a bounded
poll of the destination bucket over S3. Real services deliver in minutes, so the wait is
configurable: `CONFORMANCE_LOG_WAIT` (seconds, default 60).

The origin behind the edge must behave as the reference's built-in one: answer 200, send two
`set-cookie` headers (first `ec_first=1; Path=/`), and for every request header
`x-ec-respond-<name>: <value>` send a response header `<name>: <value>`.

Other tests may change the zone's one entry point concurrently (xdist): after sending the
traffic the configuration is read again, and the round is repeated when it changed meanwhile.

A round that is not delivered whole within the wait is the rules' setup that did not hold (an
ERROR, not checked): a real pipeline may simply be late. With `partial=True` the round is
returned all the same, with what is missing, so that the job status rule's ERROR can say what
the job reports meanwhile (`Delivered.missing`); no FAIL is drawn from it (docs/decisions.md).
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import secrets
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests

from conformance import settings
from conformance.clients.evidence import Exchange, collector
from conformance.clients.hand_http import hand_connection, send_fields
from conformance.clients.rules_api import RulesApiClient
from conformance.recorded import RAW
from conformance.suite.logs.helpers import ensure_entrypoint, entrypoint_guard
from conformance.suite.setup_check import require

WAIT_ENV = settings.LOG_WAIT.name
DEFAULT_WAIT = 60.0
POLL_INTERVAL = 0.5
ATTEMPTS = 3
QUIET_GRACE = 2.0  # seconds a quiet job is given beyond the others' delivery
RESPOND_PREFIX = "x-ec-respond-"
# the provider's logpull_options redaction (every `${` of a line becomes `x{`)
REDACTION = "&CVE-2021-44228=true"
REDACTION_SINCE = dt.date(2021, 12, 14)  # the option's blog post: before it, the job goes without
FIRST_ORIGIN_COOKIE = "ec_first=1; Path=/"
# the provider's Logpush API configuration page: `{DATE}` in the path of an R2, S3, GCS or Azure
# destination is substituted with the date in YYYYMMDD format (daily subdirectories)
DATE_PLACEHOLDER = "{DATE}"
# both timestamp fields of the dataset: a job's timestamps option covers each, not the first
TIMESTAMP_FIELDS = ("EdgeStartTimestamp", "EdgeEndTimestamp")
ALL_FIELDS = (
    "RayID,EdgeStartTimestamp,EdgeEndTimestamp,ClientRequestHost,ClientRequestMethod,"
    "ClientRequestURI,"
    "EdgeResponseStatus,RequestHeaders,ResponseHeaders,Cookies,ClientIP"
)


def log_wait() -> float:
    """Seconds to wait for delivery (`CONFORMANCE_LOG_WAIT`, default 60)."""
    return settings.seconds(settings.LOG_WAIT, DEFAULT_WAIT)


@dataclass
class Traffic:
    """One request to the edge: a unique path (to find its log entry), its headers, an
    optional query string (sent after the path; entries are still found by the path alone)
    and its method (every request of the zone is logged, whatever its method or answer).
    `pause` seconds pass before it is sent. `suffix` is sent after the path's last segment but
    is no part of `path`: an entry is still found when a target logs the suffix re-encoded, and
    the test comparing the logged URI with the one sent then fails alone (no round left
    incomplete). `lines` are header field lines sent after `headers`, a name possibly more
    than once (a header sent on two lines, which no HTTP library sends from a mapping)."""

    name: str
    headers: dict[str, str]
    query: str = ""
    suffix: str = ""
    method: str = "GET"
    path: str = ""
    echoed: dict[str, Any] = field(default_factory=dict)
    pause: float = 0.0
    lines: tuple[tuple[str, str], ...] = ()


@dataclass
class Delivered:
    """Entries read back per job name, and per traffic name the entry whose URI matches."""

    entries: dict[str, list[dict[str, Any]]]
    paths: dict[str, str]
    # jobs that must get none of the round's lines (a disabled job, another dataset's): their
    # entries read after the others arrived, or None when the target refused to create the job
    quiet: dict[str, list[dict[str, Any]] | None] = field(default_factory=dict)
    # the id of each job whose lines arrived (job name -> id), to read the job back
    job_ids: dict[str, Any] = field(default_factory=dict)
    # a round not delivered whole within the wait (partial=True): per job, the traffic names
    # whose entry is missing (in the order sent), and the wait
    missing: dict[str, list[str]] = field(default_factory=dict)
    waited: float = 0.0
    # a round sent with partial=True: per traffic name, the 4xx/5xx the edge answered a GET with
    refused: dict[str, int] = field(default_factory=dict)
    bucket: str = ""  # the destination bucket of the round's jobs (each job has its folder)

    def require_whole(self) -> None:
        """ERROR (the rules were not checked) unless the round arrived whole."""
        require(not self.refused, f"the edge refused some of the round's GETs: {self.refused}")
        late = {job: names for job, names in self.missing.items() if names}
        require(not late, f"logs not delivered within {self.waited:.0f}s ({WAIT_ENV}): {late}")

    def quiet_entries_of_round(self, job: str) -> list[dict[str, Any]] | None:
        """The quiet job's entries that name one of the round's paths, or carry the RayID of one
        of the round's entries in the other jobs: a line the job's fields= cut down to RayID is
        still the round's (None: job not created)."""
        self.require_whole()
        entries = self.quiet.get(job)
        if entries is None:
            return None
        paths = list(self.paths.values())
        rays = {
            str(e["RayID"])
            for got in self.entries.values()
            for e in got
            if e.get("RayID") and any(p in str(e.get("ClientRequestURI")) for p in paths)
        }
        return [
            e
            for e in entries
            if str(e.get("RayID")) in rays or any(p in json.dumps(e) for p in paths)
        ]

    def entry(self, job: str, traffic: str) -> dict[str, Any]:
        self.require_whole()
        path = self.paths[traffic]
        found = [e for e in self.entries.get(job, []) if path in str(e.get("ClientRequestURI"))]
        if not found and any("ClientRequestURI" in e for e in self.entries.get(job, [])):
            raise AssertionError(f"job {job}: no log entry for {path}")
        assert found, f"job {job}: no log entry identifies {path} (no ClientRequestURI)"
        return found[-1]


def r2_destination(bucket: str, folder: str, s3_surface: Mapping[str, Any]) -> str:
    """`r2://bucket/folder` with the account and key options the real service needs."""
    dest = f"r2://{bucket}/{folder}"
    if s3_surface.get("account_id"):
        dest += (
            f"?account-id={s3_surface['account_id']}"
            f"&access-key-id={s3_surface['access_key_id']}"
            f"&secret-access-key={s3_surface['secret_access_key']}"
        )
    return dest


def _send(
    edge_url: str,
    path: str,
    headers: dict[str, str],
    method: str,
    lines: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    url = edge_url.rstrip("/") + path
    body = b"edge-conformance" if method in ("POST", "PUT", "PATCH") else None
    if lines:
        status, content = _send_lines(url, headers, method, lines, body)
    else:
        reply = requests.request(method, url, headers=headers, data=body, timeout=15)
        status, content = reply.status_code, reply.content
        collector.add(Exchange.build(method, url, status, headers, reply.headers, content))
    if method != "GET":
        return {}  # logged whatever the answer: a real zone's origin may refuse the method (405)
    if status >= 400:
        raise EdgeRefused(status, path)
    try:
        decoded = json.loads(content)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _send_lines(
    url: str,
    headers: dict[str, str],
    method: str,
    lines: tuple[tuple[str, str], ...],
    body: bytes | None,
) -> tuple[int, bytes]:
    """The request written by hand (http.client): the User-Agent and Accept `requests` sends
    (a zone may challenge a request without a User-Agent, and the round would then not be
    checked), `headers`, then each of `lines` as a field line of its own, in order (a name sent
    twice is two lines, not one joined value)."""
    usual = requests.utils.default_headers()
    ordinary = {"User-Agent": usual["User-Agent"], "Accept": usual["Accept"]}
    length = [("Content-Length", str(len(body)))] if body is not None else []
    fields = [*ordinary.items(), *headers.items(), *lines, *length]
    connection = hand_connection(url, None, 15)
    try:
        status, got, content = send_fields(connection, method, url, fields, body)
    finally:
        connection.close()
    # recorded as written, not as a request a library (replay, curl) could send: one joined
    # value would be logged as the first instance
    shown = f"{method} with " + ", ".join(f"{n}: {v}" for n, v in lines) + " as separate lines"
    collector.add(Exchange.build(RAW, url, status, headers, got, content, shown))
    return status, content


class EdgeRefused(AssertionError):
    """A GET of the round answered 4xx/5xx: the round's setup did not hold (with `partial`, the
    round goes on and the answer is kept in `Delivered.refused`)."""

    def __init__(self, status: int, path: str) -> None:
        super().__init__(f"edge answered {status} for {path}")
        self.status = status


@dataclass
class QuietJob:
    """A job that must receive none of the round's lines: disabled, or of another dataset."""

    options: str
    dataset: str = "http_requests"
    enabled: bool = True


def _job_body(rules_api: RulesApiClient, s3: Any, name: str, dest: str) -> dict[str, Any]:
    challenge = rules_api.request_ownership(dest).assert_envelope_ok()
    bucket = dest.split("/")[2]
    token = s3.boto.get_object(Bucket=bucket, Key=challenge["filename"])["Body"].read()
    return {"name": name, "destination_conf": dest, "ownership_challenge": token.decode().strip()}


def _create_job(
    rules_api: RulesApiClient, s3: Any, name: str, dest: str, options: str
) -> dict[str, Any]:
    body = _job_body(rules_api, s3, name, dest)
    body |= {"dataset": "http_requests", "logpull_options": options, "enabled": True}
    job: dict[str, Any] = rules_api.create_job(body).assert_envelope_ok()
    return job


def _create_quiet_job(
    rules_api: RulesApiClient, s3: Any, name: str, dest: str, quiet: QuietJob
) -> dict[str, Any] | None:
    """The job, or None when the target refuses it (a dataset its plan lacks): its rule is then
    not checked, and the other jobs' rules still are."""
    body = _job_body(rules_api, s3, name, dest)
    body |= {"dataset": quiet.dataset, "logpull_options": quiet.options, "enabled": quiet.enabled}
    reply = rules_api.create_job(body)
    result = reply.result
    if not (200 <= reply.status < 300 and isinstance(result, dict) and "id" in result):
        return None
    return result


def _params(ruleset: Any) -> list[Any]:
    rules = ruleset.get("rules", []) if isinstance(ruleset, dict) else []
    return [r.get("action_parameters") for r in rules]


def _read_entries(s3: Any, bucket: str, folder: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    listed = s3.boto.list_objects_v2(Bucket=bucket, Prefix=folder + "/")
    for item in listed.get("Contents", []):
        if not item["Key"].endswith(".gz"):
            continue  # the ownership challenge
        raw = s3.boto.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        # NDJSON lines end at LF only: splitlines() also breaks at U+2028, U+0085..., which
        # JSON leaves raw inside a string (a header value can hold them)
        for line in gzip.decompress(raw).decode("utf-8").split("\n"):
            if line.strip():
                entries.append(json.loads(line))
    return entries


@contextmanager
def delivered_logs(
    rules_api: RulesApiClient,
    s3: Any,
    edge_url: str,
    run_prefix: str,
    rules: list[dict[str, Any]],
    jobs: dict[str, str],
    traffic: list[Traffic],
    quiet: Mapping[str, QuietJob] | None = None,
    partial: bool = False,
    dated: Collection[str] = (),
) -> Iterator[Delivered]:
    """Configure `rules`, push with `jobs` (name -> logpull_options), send `traffic`, read back.
    The `quiet` jobs are created too, and read once the others' lines arrived. With `partial`
    a round not delivered whole is returned too (`Delivered.missing`), else it raises. A job
    named in `dated` pushes to `<its folder>/{DATE}` (the provider's daily subdirectories); its
    entries are read from below its folder all the same.

    The bucket, the jobs and the zone's entry point are restored when the block ends.
    """
    bucket = f"{run_prefix}-logs-{secrets.token_hex(4)}"
    s3.boto.create_bucket(Bucket=bucket)
    created: list[dict[str, Any]] = []
    try:
        with entrypoint_guard(rules_api):
            ruleset_id = ensure_entrypoint(rules_api)
            for job_name, options in jobs.items():
                folder = f"{job_name}/{DATE_PLACEHOLDER}" if job_name in dated else job_name
                dest = r2_destination(bucket, folder, s3.surface)
                created.append(
                    _create_job(rules_api, s3, f"{run_prefix}-{job_name}", dest, options)
                )
            made: dict[str, bool] = {}
            for job_name, spec in (quiet or {}).items():
                dest = r2_destination(bucket, job_name, s3.surface)
                job = _create_quiet_job(rules_api, s3, f"{run_prefix}-{job_name}", dest, spec)
                made[job_name] = job is not None
                created += [job] if job is not None else []
            refused: dict[str, int] = {}
            paths = _send_while_configured(
                rules_api, ruleset_id, edge_url, rules, traffic, refused if partial else None
            )
            delivered = _wait_for(s3, bucket, list(jobs), paths, partial)
            delivered.refused = refused
            delivered.bucket = bucket
            delivered.job_ids = {name: job["id"] for name, job in zip(jobs, created, strict=False)}
            if made:
                time.sleep(QUIET_GRACE)  # lines fed to a quiet job may land a batch later
            for job_name, was_made in made.items():
                read = _read_entries(s3, bucket, job_name) if was_made else None
                delivered.quiet[job_name] = read
            yield delivered
    finally:
        for job in created:
            rules_api.delete_job(job["id"])
        s3.delete_bucket_recursive(bucket)


def _send_while_configured(
    rules_api: RulesApiClient,
    ruleset_id: str,
    edge_url: str,
    rules: list[dict[str, Any]],
    traffic: list[Traffic],
    refused: dict[str, int] | None = None,
) -> dict[str, str]:
    """Send the round; an edge refusing a GET raises, unless `refused` is given to keep it."""
    for _ in range(ATTEMPTS):
        put = rules_api.update_ruleset(ruleset_id, {"rules": rules}).assert_envelope_ok()
        marker = secrets.token_hex(6)
        paths: dict[str, str] = {}
        if refused is not None:
            refused.clear()
        for item in traffic:
            item.path = f"/ec-logs/{marker}/{item.name}"
            target = item.path + item.suffix
            sent = f"{target}?{item.query}" if item.query else target
            time.sleep(item.pause)
            try:
                item.echoed = _send(edge_url, sent, item.headers, item.method, item.lines)
            except EdgeRefused as exc:
                if refused is None:
                    raise
                refused[item.name] = exc.status
            paths[item.name] = item.path
        now = rules_api.get_ruleset(ruleset_id).assert_envelope_ok()
        if _params(now) == _params(put):
            return paths
    raise AssertionError("the zone's custom fields kept changing under the test (concurrency)")


def _wait_for(
    s3: Any, bucket: str, folders: list[str], paths: dict[str, str], partial: bool = False
) -> Delivered:
    deadline = time.monotonic() + log_wait()
    entries: dict[str, list[dict[str, Any]]] = {}
    while True:
        entries = {folder: _read_entries(s3, bucket, folder) for folder in folders}
        if all(_covers(entries[f], paths.values()) for f in folders):
            return Delivered(entries, paths, waited=log_wait())
        if time.monotonic() > deadline:
            if partial:
                missing = {f: _missing(entries[f], paths) for f in folders}
                return Delivered(entries, paths, missing=missing, waited=log_wait())
            counts = {f: len(entries[f]) for f in folders}
            raise AssertionError(
                f"logs not delivered within {log_wait():.0f}s ({WAIT_ENV}); entries: {counts}"
            )
        time.sleep(POLL_INTERVAL)


def _missing(entries: list[dict[str, Any]], paths: dict[str, str]) -> list[str]:
    """The traffic names whose entry is not among `entries` (all, when none has a URI)."""
    uris = [str(e.get("ClientRequestURI", "")) for e in entries]
    if not any(uris):
        return list(paths)
    return [name for name, path in paths.items() if not any(path in uri for uri in uris)]


def _covers(entries: list[dict[str, Any]], paths: Any) -> bool:
    uris = [str(e.get("ClientRequestURI", "")) for e in entries]
    if entries and not any(uris):
        return len(entries) >= len(list(paths))  # a job without ClientRequestURI
    return all(any(path in uri for uri in uris) for path in paths)
