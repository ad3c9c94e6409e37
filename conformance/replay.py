"""`conformance replay RESULTS RULE`: send a failing case's recorded requests again, today.

Each request is re-signed with the target's credentials now (SigV4 through botocore for S3,
X-Auth-Email/X-Auth-Key for the management API, nothing for JSON-RPC), sent to the target's
endpoint for that surface, and its answer printed beside the recorded one. Requests go in the
recorded order, so the setup recorded before the failing request runs again too.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from conformance import recorded as rec_mod
from conformance.recorded import GATEWAY, MGMT, RAW, S3, Recorded
from conformance.results import NEEDS_ACTION

REPLAY_STATUSES = NEEDS_ACTION
TIMEOUT = 30.0
COLUMN = 58
SHOWN_HEADERS = ("content-type", "etag", "location", "x-amz-bucket-region", "x-amz-version-id",
                 "content-range", "access-control-allow-origin")  # fmt: skip
# parts of an answer that differ between two sends of the same request
_VOLATILE = re.compile(
    r"\d{4}-\d{2}-\d{2}T[\d:.]+Z?|[0-9a-fA-F-]{16,}|\b\d{9,}\b|"
    r"<(RequestId|HostId)>[^<]*</\1>|\"(ray|request)_?id\"\s*:\s*\"[^\"]*\""
)

_ERROR_CODE = re.compile(r"<Code>([^<]*)</Code>|\"code\"\s*:\s*\"?([\w.-]+)")
# a failure message about the answer's status: "expected 401 Unauthorized; GET … answered 200"
_ABOUT_STATUS = re.compile(r"\bexpected (a )?(\d{3}|4xx|refusal|success)\b.*\banswered \d{3}")
# ids a target mints (an upload): today's replaces the recorded one in the requests that follow
_MINTED = re.compile(r"<UploadId>([^<]+)</UploadId>")
NOT_SENT = ("it was written to the wire as bytes (a split head, a pipelined or unparseable "
            "request, a header on several lines), which an HTTP library cannot send; run "
            "the rule again (`conformance run --rule <its id>`)")  # fmt: skip

PARTIAL_STATE = ("run the rule again (`conformance run --rule <its id>`): the evidence keeps "
                 "the last requests of a test and a few writes per bucket")  # fmt: skip


class ReplayError(Exception):
    """Nothing to replay (no such rule, no failing case, no recorded request)."""


@dataclass
class Answer:
    status: int | None
    headers: dict[str, str]
    body: str


@dataclass
class Replayed:
    recorded: Recorded
    url: str
    answer: Answer
    notes: list[str]
    sent: bool = True  # False for bytes written as they are (RAW): not sent again
    left_out: int = 0  # writes its state came from that the evidence does not hold

    @property
    def same(self) -> bool:
        """Today's answer is the recorded one (status and body, volatile ids masked)."""
        return (
            self.sent
            and self.same_status
            and _masked(self.recorded.response_body) == _masked(self.answer.body)
        )

    @property
    def same_status(self) -> bool:
        """The same status and error code (the body may differ with the target's state)."""
        return (
            self.sent
            and self.recorded.status == self.answer.status
            and _code(self.recorded.response_body) == _code(self.answer.body)
        )

    @property
    def verdict(self) -> str:
        if not self.sent:
            return "not sent again: " + NOT_SENT
        if self.same:
            return "same answer as recorded"
        if self.same_status:
            return "same status and code as recorded; the body differs"
        return "answer differs"


@dataclass
class Outcome:
    requests: list[Replayed]
    failing_at: int  # index of the request the failure is about
    about_status: bool = False  # the failure message is about the status it was answered

    @property
    def failing(self) -> Replayed:
        return self.requests[self.failing_at]

    @property
    def reproduced(self) -> bool:
        """The failing request got the answer it got when the rule failed: the same status and
        code when the failure was about the status ("expected 400 …, answered 200"), else the
        same body too (ids and dates masked)."""
        if self.unsent_before:
            return False
        return self.failing.same or (self.about_status and self.failing.same_status)

    @property
    def unsent_before(self) -> bool:
        """A request up to the failing one was written as raw bytes and not sent again: what
        the failing request answers today says nothing of the recorded run."""
        return any(not item.sent for item in self.requests[: self.failing_at + 1])

    @property
    def left_out_before(self) -> int:
        """Writes the failing request's state came from that the evidence does not hold."""
        return sum(item.left_out for item in self.requests[: self.failing_at + 1])

    @property
    def verdict(self) -> str:
        if self.unsent_before:
            return "not replayable: " + NOT_SENT
        if self.reproduced and self.left_out_before:
            return (f"reproduced, but {self.left_out_before} earlier write(s) it may depend on "
                    f"were not recorded, so not replayed: the answer may come from that "
                    f"missing state; {PARTIAL_STATE}")  # fmt: skip
        if self.failing.same:
            return "reproduced"
        if self.reproduced:
            return "reproduced (the failure is about the status; the body differs in detail)"
        if self.left_out_before:
            return (f"not replayable as recorded: {self.left_out_before} earlier write(s) it "
                    f"depends on were not recorded, so today's state is not the run's; "
                    f"{PARTIAL_STATE}")  # fmt: skip
        if self.failing.same_status:
            return ("not reproduced as recorded: same status and code, the body differs "
                    "(a fix, or the target's state)")  # fmt: skip
        return "not reproduced as recorded: the answer changed"


def _code(body: str) -> str | None:
    found = _ERROR_CODE.search(body)
    return (found.group(1) or found.group(2)) if found else None


def _masked(body: str) -> str:
    return _VOLATILE.sub("…", body.strip())


def failing_cases(doc: dict[str, Any], rule_id: str) -> list[dict[str, Any]]:
    """The rule's cases that did not pass, with their recorded exchanges."""
    known = {str(r.get("id")) for r in doc.get("rules", [])}
    cases = [c for c in doc.get("cases", []) if c.get("rule_id") == rule_id]
    if rule_id not in known and not cases:
        raise ReplayError(f"rule {rule_id!r} is not in this results file")
    bad = [c for c in cases if c.get("status") in REPLAY_STATUSES]
    if not bad:
        raise ReplayError(f"rule {rule_id!r} has no failing case in this results file")
    return bad


def rule_surface(doc: dict[str, Any], rule_id: str) -> str | None:
    for rule in doc.get("rules", []):
        if rule.get("id") == rule_id:
            return str(rule.get("surface") or "") or None
    return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def base_of(kind: str, surfaces: dict[str, dict[str, Any]]) -> tuple[str | None, str | None]:
    """(base URL, surface name) of today's target for requests of `kind`."""
    if kind == S3 and "s3" in surfaces:
        return str(surfaces["s3"]["endpoint"]), "s3"
    if kind == MGMT:
        for name in ("mgmt", "rules_api"):
            if name in surfaces:
                return str(surfaces[name]["base_url"]), name
    if kind == GATEWAY and "gateway" in surfaces:
        return str(surfaces["gateway"]["url"]), "gateway"
    return None, None


def retarget(rec: Recorded, surfaces: dict[str, dict[str, Any]]) -> str:
    """The recorded URL on today's target: its origin replaced when the surface moved (a
    reference launched on another port); a recorded origin the target still has is kept."""
    known = set()
    for surface in surfaces.values():
        for key in ("endpoint", "base_url", "url"):
            if isinstance(surface.get(key), str):
                known.add(_origin(surface[key]))
    if _origin(rec.url) in known:
        return rec.url
    base, _ = base_of(rec.kind, surfaces)
    if base is None:
        return rec.url
    new, old = urlsplit(base), urlsplit(rec.url)
    return urlunsplit((new.scheme, new.netloc, old.path, old.query, ""))


def _sign_s3(rec: Recorded, url: str, s3: dict[str, Any]) -> tuple[str, dict[str, str]]:
    from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    creds = Credentials(str(s3["access_key_id"]), str(s3["secret_access_key"]))
    region = str(s3.get("region") or "auto")
    request = AWSRequest(method=rec.method, url=url, headers=dict(rec.headers), data=rec.body)
    if rec.presign_expires is not None:
        S3SigV4QueryAuth(creds, "s3", region, expires=rec.presign_expires).add_auth(request)
    elif rec.signed:
        S3SigV4Auth(creds, "s3", region).add_auth(request)
    prepared = request.prepare()
    return str(prepared.url), dict(prepared.headers.items())


def send_one(rec: Recorded, surfaces: dict[str, dict[str, Any]], session: Any) -> Replayed:
    """Sign `rec` for today's target and send it; the answer, or the error, comes back."""
    url, notes = retarget(rec, surfaces), list[str]()
    if rec.method == RAW:
        return Replayed(rec, url, Answer(None, {}, "(not sent)"), notes, sent=False)
    headers = dict(rec.headers)
    if rec.kind == S3 and "s3" in surfaces:
        url, headers = _sign_s3(rec, url, surfaces["s3"])
        if rec.presign_expires is not None:
            notes.append("presigned anew now (an expiry in the past is not reproduced)")
        elif rec.signed:
            notes.append("SigV4-signed with the target's credentials (a deliberately wrong "
                         "signature of the test is not reproduced)")  # fmt: skip
        else:
            notes.append("sent unsigned, as recorded")
    elif rec.kind == MGMT:
        _, name = base_of(MGMT, surfaces)
        sent = [h for h in ("X-Auth-Email", "X-Auth-Key") if rec_mod.sends(rec, h)]
        if name is not None and sent:
            values = {"X-Auth-Email": "email", "X-Auth-Key": "api_key"}
            headers.update({h: str(surfaces[name][values[h]]) for h in sent})
            notes.append(f"with the target's {' / '.join(sent)}")
        elif not sent:
            notes.append("sent without X-Auth-Email / X-Auth-Key, as recorded")
    if not rec.body_complete:
        notes.append("the recorded body was cut at the recording limit: sent as recorded")
    try:
        resp = session.request(rec.method, url, headers=headers, data=rec.body or None,
                               timeout=TIMEOUT, allow_redirects=False)  # fmt: skip
    except requests.RequestException as exc:
        return Replayed(rec, url, Answer(None, {}, f"no response: {exc}"), notes)
    from conformance.clients.evidence import Exchange

    seen = Exchange.build(rec.method, url, resp.status_code, {}, resp.headers, resp.content)
    return Replayed(rec, url, Answer(seen.status, seen.response_headers, seen.body_excerpt), notes)


def failing_index(case: dict[str, Any], done: list[Replayed]) -> int:
    """Which replayed request is the failing one: the last whose method and path the failure
    message names (a test may clean up after its failing request), else the last one."""
    message = str(case.get("message") or "")
    # the assertion's own words first: the recorder appends a "last exchange:" line, which
    # names the last request whatever failed
    for text in (message.split("\nlast exchange:", 1)[0], message):
        for index in range(len(done) - 1, -1, -1):
            rec = done[index].recorded
            if f"{rec.method} " in text and urlsplit(rec.url).path in text:
                return index
    return len(done) - 1


def _learn_ids(recorded: str, today: str, minted: dict[str, str]) -> None:
    old, new = _MINTED.search(recorded), _MINTED.search(today)
    if old and new and old.group(1) != new.group(1):
        minted[old.group(1)] = new.group(1)


def _with_ids(rec: Recorded, minted: dict[str, str]) -> Recorded:
    """`rec` with recorded minted ids replaced by today's (URL, query-encoded too, and body)."""
    from dataclasses import replace
    from urllib.parse import quote

    url, body = rec.url, rec.body
    for old, new in minted.items():
        url = url.replace(quote(old, safe=""), quote(new, safe="")).replace(old, new)
        body = body.replace(old.encode(), new.encode())
    return rec if (url, body) == (rec.url, rec.body) else replace(rec, url=url, body=body)


def replay_case(
    case: dict[str, Any], surfaces: dict[str, dict[str, Any]], surface: str | None = None
) -> list[Replayed]:
    """Every recorded request of `case`, sent again in order."""
    exchanges = [e for e in case.get("evidence") or [] if rec_mod.replayable(e)]
    if not exchanges:
        raise ReplayError(f"case {case.get('case')!r} recorded no request to replay")
    session = requests.Session()
    session.trust_env = False  # no proxies from the environment: loopback stays local
    out: list[Replayed] = []
    minted: dict[str, str] = {}  # recorded id -> today's
    for exchange in exchanges:
        original = rec_mod.from_exchange(exchange, surface)
        rec = _with_ids(original, minted)
        item = send_one(rec, surfaces, session)
        _learn_ids(rec.response_body, item.answer.body, minted)
        if rec is not original:
            item.notes.append("today's UploadId put in place of the recorded one")
        if exchange.get("setup"):
            item.notes.insert(0, "setup: made a bucket or object the test used, before it began")
        left_out = exchange.get("left_out")
        if isinstance(left_out, int) and left_out > 0:
            item.left_out = left_out
            item.notes.append(f"{left_out} write(s) of the run not recorded here: not replayed")
        out.append(item)
    return out


def _column(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, COLUMN, replace_whitespace=False, drop_whitespace=False) or [""]
    return out


def _side(answer_status: int | None, headers: dict[str, str], body: str) -> list[str]:
    lines = [f"status {answer_status if answer_status is not None else 'no response'}"]
    lines += [f"{k}: {v}" for k, v in headers.items() if k.lower() in SHOWN_HEADERS]
    lines += body.strip().splitlines()[:12] or ["(empty body)"]
    return _column(lines)


def format_replayed(item: Replayed, index: int) -> list[str]:
    """One request: its line, then the recorded answer and today's in two columns."""
    rec = item.recorded
    out = [f"[{index}] {rec.method} {item.url}  ({rec.kind})"]
    out += [f"    note: {note}" for note in item.notes]
    left = _side(rec.status, rec.response_headers, rec.response_body)
    right = _side(item.answer.status, item.answer.headers, item.answer.body)
    out.append(f"    {'recorded':<{COLUMN}} | today")
    for a, b in zip_longest(left, right, fillvalue=""):
        out.append(f"    {a:<{COLUMN}} | {b}")
    out.append("    => " + item.verdict)
    return out


def replay(
    results: Path,
    rule_id: str,
    surfaces: dict[str, dict[str, Any]],
    echo: Callable[[str], None] = print,
    case_name: str | None = None,
) -> Outcome:
    """Replay the rule's failing case (the first, or `case_name`) and print the comparison."""
    from conformance.report.load import load_results

    doc = load_results(results)
    cases = failing_cases(doc, rule_id)
    if case_name is not None:
        cases = [c for c in cases if c.get("case") == case_name]
        if not cases:
            raise ReplayError(f"rule {rule_id!r} has no failing case {case_name!r}")
    case = cases[0]
    echo(f"{rule_id} [{case.get('case')}]: {case.get('status')} in {doc['run'].get('run_id')}")
    if case.get("message"):
        echo(f"  {str(case['message']).splitlines()[0][:200]}")
    done = replay_case(case, surfaces, rule_surface(doc, rule_id))
    at = failing_index(case, done)
    for index, item in enumerate(done, 1):
        for line in format_replayed(item, index):
            echo(line)
    same = sum(1 for item in done if item.same)
    about_status = bool(_ABOUT_STATUS.search(str(case.get("message") or "").split("\n")[0]))
    outcome = Outcome(done, at, about_status)
    echo(f"{same} of {len(done)} answers as recorded; "
         f"the failing request [{at + 1}]: {outcome.verdict}")  # fmt: skip
    return outcome


def main(results: Path, rule_id: str, target: str | None, targets_file: str | None,
         case_name: str | None) -> int:  # fmt: skip
    """`conformance replay`: the target and targets file default to those the run recorded."""
    import sys

    from conformance.launcher import LaunchError
    from conformance.model.targets import REFERENCE, TargetError, load_target, targets_path
    from conformance.report.load import ResultsError, load_results

    try:
        run = load_results(results)["run"]
        name = target or str(run.get("target") or "")
        if name == REFERENCE:
            _replay_on_a_fresh_reference(results, rule_id, run, case_name)
            return 0
        path = targets_file or (run.get("flags") or {}).get("targets_file")
        loaded = load_target(name, targets_path(Path(path) if path else None))
        replay(results, rule_id, loaded.surfaces, print, case_name)
    except (ResultsError, ReplayError, TargetError, LaunchError) as exc:
        print(f"error: replay: {exc}", file=sys.stderr)
        return 2
    return 0


def _replay_on_a_fresh_reference(
    results: Path, rule_id: str, run: dict[str, Any], case_name: str | None
) -> None:
    """The bundled reference lives only as long as its run: start one as the run did (its date
    and profile), empty, replay (the case's recorded setup makes what it used), stop it."""
    import datetime as dt
    import signal
    import tempfile

    from conformance import launcher
    from conformance.report.load import load_results

    try:
        as_of = dt.date.fromisoformat(str(run.get("as_of") or dt.date.today().isoformat()))
        flags = run.get("flags") or {}
        profile = {str(k): str(v) for k, v in (flags.get("reference_profile") or {}).items()}
    except (ValueError, AttributeError) as exc:
        raise ReplayError(f"{results}: the run's as_of or reference_profile: {exc}") from None
    failing_cases(load_results(results), rule_id)  # its refusal, before starting anything
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)  # so the finally below runs
    try:
        with tempfile.TemporaryDirectory(prefix="conformance-replay-") as scratch:
            ref = launcher.launch(Path(scratch), as_of, profile)
            try:
                print(f"a fresh bundled reference (behaviour of {as_of}), started for this replay")
                replay(results, rule_id, ref.surfaces, print, case_name)
            finally:
                launcher.stop(Path(scratch), ref)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)
