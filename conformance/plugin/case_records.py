"""Controller side of recording: test reports in, one case record per (rule, test) out.

Runs where results are written (the xdist controller, or the only process), from the reports
alone, so it sees the same thing whether tests ran here or on workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.clients.evidence import redact_text
from conformance.plugin.applicability import CASE, NA_PREFIX, RULE_ID
from conformance.plugin.attribution import unchecked_rules
from conformance.plugin.collection import SUITE_DIR
from conformance.plugin.report_details import (
    DOC,
    EVIDENCE,
    FAILED_RULE,
    FAILURE_KIND,
    NA_REASON,
    details,
)
from conformance.plugin.rerun import is_rerun
from conformance.results import (
    ERROR,
    FAIL,
    FLAKY,
    NA,
    NO_VERDICT,
    NOT_CHECKED,
    NOT_CHECKED_PREFIX,
    PASS,
    XFAIL,
    XPASS,
    worst,
)

MESSAGE_LIMIT = 2000
PACKAGE_ROOT = SUITE_DIR.parent.parent


def stable_nodeid(report: pytest.TestReport | pytest.Item, rootpath: Path) -> str:
    """Node id of a suite test relative to the installed package, whatever the rootdir.

    pytest words node ids relative to the rootdir or to a --pyargs argument; results of runs
    from different directories must still name a test the same way.
    """
    path = (rootpath / report.location[0]).resolve()
    if not path.is_relative_to(SUITE_DIR):
        return report.nodeid
    parts = report.nodeid.split("::", 1)
    rest = parts[1] if len(parts) == 2 else report.location[2]
    return f"{path.relative_to(PACKAGE_ROOT).as_posix()}::{rest}"


def _message(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    text = redact_text(crash.message if crash is not None else str(longrepr or ""))
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "…"


def last_exchange(evidence: list[dict[str, Any]]) -> str:
    """The newest recorded exchange in one line: the request (and its body, when recorded) and
    the answer, so a failure message names what was sent and what came back even when the
    assertion itself only compares two values."""
    if not evidence:
        return ""
    e = evidence[-1]
    sent = f" {e['request_body_excerpt'][:300]}" if e.get("request_body_excerpt") else ""
    status = e.get("status")
    body = (e.get("body_excerpt") or "")[:300]
    answer = f"{status if status is not None else 'no response'}" + (f" {body}" if body else "")
    return f"last exchange: {e.get('method', '?')} {e.get('url', '')}{sent} -> {answer}"


def with_exchange(message: str, evidence: list[dict[str, Any]]) -> str:
    """A FAIL/ERROR message followed by the last exchange of the test (if any)."""
    line = last_exchange(evidence)
    return f"{message}\n{line}" if line else message


def phase_status(report: pytest.TestReport, props: dict[str, Any]) -> tuple[str, str | None]:
    """Status of one phase of a test and its message (None for a plain pass)."""
    wasxfail = getattr(report, "wasxfail", None)
    if report.skipped:
        if wasxfail is not None:
            return XFAIL, str(wasxfail) or "expected failure"
        reason = str(props.get(NA_REASON) or _message(report).removeprefix("Skipped: "))
        if reason.startswith(NOT_CHECKED_PREFIX):
            return NOT_CHECKED, reason.removeprefix(NOT_CHECKED_PREFIX) or "not checked"
        if reason.startswith(NA_PREFIX):
            return NA, reason.removeprefix(NA_PREFIX) or "skipped"
        # a skip the suite did not judge N/A (an empty parametrization, an importorskip): the
        # check did not run, and N/A would never block the certificate
        return NOT_CHECKED, f"skipped without an N/A reason: {reason or 'no reason'}"
    if report.passed:
        if wasxfail is not None and report.when == "call":
            return XPASS, f"unexpectedly passed: {wasxfail}" if wasxfail else "unexpectedly passed"
        return PASS, None
    message = _message(report)
    if report.when != "call":
        return ERROR, f"{report.when}: {message}"
    if message.startswith("[XPASS(strict)]"):
        return XPASS, message
    return (FAIL if props.get(FAILURE_KIND) == "assertion" else ERROR), message


@dataclass
class _Pending:
    nodeid: str = ""
    rule_ids: list[str] = field(default_factory=list)
    case: str = ""
    duration: float = 0.0
    # (status, message, evidence) of the call phase and of any setup/teardown that did not pass
    phases: list[tuple[str, str | None, list[dict[str, Any]]]] = field(default_factory=list)
    failed_rule: str | None = None  # the one rule a RuleFailure of the call phase named
    unchecked: dict[str, str] = field(default_factory=dict)  # rule -> why the call never checked it
    doc: str = ""  # the test's docstring (recorded at setup)
    # earlier attempts of a rerun test (--rerun), and whether the current one will be rerun
    attempts: list[dict[str, Any]] = field(default_factory=list)
    attempt_rules: list[str | None] = field(default_factory=list)  # each attempt's failed_rule
    rerunning: bool = False
    # what an expected failure (XFAIL) was: FAIL or ERROR, and its own message
    xfailed_as: tuple[str, str] | None = None

    def status_of(self, rule_id: str) -> tuple[str, str | None, list[dict[str, Any]]]:
        """The outcome for one rule: a failure attributed to another rule passes this one,
        and a rule the test said it never checked is NOT-CHECKED when it would read as a
        pass, or as its own expected failure, whatever its expectation says: a pass (PASS,
        or XPASS under its expectation), or an XFAIL the failure of another rule caused."""
        status, message, evidence = self._attributed(rule_id)
        if rule_id in self.unchecked and (
            status in (PASS, XPASS) or (status == XFAIL and self.failed_rule not in (None, rule_id))
        ):
            return self._not_checked(rule_id)
        return status, message, evidence

    def _not_checked(self, rule_id: str) -> tuple[str, str | None, list[dict[str, Any]]]:
        """A rule the test said it never checked: no pass, whatever the test's outcome."""
        return NOT_CHECKED, f"the test did not check this rule: {self.unchecked[rule_id]}", []

    def _attributed(self, rule_id: str) -> tuple[str, str | None, list[dict[str, Any]]]:
        status, message, evidence = self.final(rule_id)
        named = self.failed_rule
        if status != FAIL or named is None or named == rule_id:
            return status, message, evidence
        if named in self.rule_ids:
            return PASS, f"held until the test stopped on a failure of {named}", []
        # a rule this run does not record for the test (deselected, or not in force): the
        # test stopped before it could settle this one
        return ERROR, f"undecided: the test stopped on a failure of {named}: {message}", evidence

    def unexpected(
        self, rule_id: str, status: str, message: str | None, evidence: list[dict[str, Any]]
    ) -> tuple[str, str | None, list[dict[str, Any]]]:
        """The outcome of a rule with no expectation in a test xfailed for another rule's: an
        expected failure passing is this rule's PASS; an expected failure is this rule's FAIL
        when it names this rule, NOT-CHECKED when it names another rule (the test stopped
        before this rule's checks), and
        ERROR (undecided) when it names none: an expectation of a SHOULD rule must never turn a
        MUST rule's failure into a known one."""
        if status == XPASS:  # a rule the test never checked is NOT-CHECKED (status_of)
            return PASS, None, []
        named = self.failed_rule
        if named == rule_id:
            return FAIL, message, evidence
        if named is not None and named in self.rule_ids:
            return NOT_CHECKED, f"the test stopped on an expected failure of {named}", []
        return ERROR, f"undecided: the test failed as another rule expected: {message}", evidence

    def outcome(self) -> tuple[str, str | None, list[dict[str, Any]]]:
        if not self.phases:
            return ERROR, "the test did not run to completion", []
        status = worst(phase[0] for phase in self.phases)
        return next(phase for phase in self.phases if phase[0] == status)

    def close_attempt(self) -> None:
        status, message, evidence = self.outcome()
        self.attempts.append({"status": status, "message": message, "evidence": evidence})
        self.attempt_rules.append(self.failed_rule)
        self.phases, self.rerunning, self.failed_rule = [], False, None

    def _could_be(self, rule_id: str | None, named: str | None) -> bool:
        """A failed attempt may be this rule's: it named none, this one, or one not recorded."""
        return rule_id is None or named is None or named == rule_id or named not in self.rule_ids

    def final(self, rule_id: str | None = None) -> tuple[str, str | None, list[dict[str, Any]]]:
        """Verdict over all attempts: a pass after a failed attempt is FLAKY, not PASS; its
        message and evidence are those of the first failed attempt (all are in `attempts`);
        a skip (N/A, NOT-CHECKED) after a failed attempt keeps that attempt's failure.
        For one rule, only attempts whose failure may be that rule's count: a SHOULD check that
        flaked in a test that also checks a MUST rule leaves the MUST rule PASS."""
        status, message, evidence = self.outcome()
        if not self.attempts or status not in (PASS, *NO_VERDICT):
            return status, message, evidence
        failed = [
            attempt
            for attempt, named in zip(self.attempts, self.attempt_rules, strict=True)
            if self._could_be(rule_id, named)
        ]
        if not failed:
            return status, message, evidence
        ran = len(self.attempts) + 1
        if status != PASS:
            # a skip gives no verdict: the failure of an earlier attempt stands (a FAIL then
            # a skip must never read N/A, which certifies)
            last = failed[-1]
            note = f"attempt {ran} of {ran} was {status} ({message}); an earlier attempt was"
            text = f"{note} {last['status']}: {last['message']}"
            return last["status"], text, list(last["evidence"])
        first = failed[0]
        note = f"passed on attempt {ran} of {ran}; attempt 1 was {self.attempts[0]['status']}"
        if first is not self.attempts[0]:
            note = f"passed on attempt {ran} of {ran}; an earlier attempt was {first['status']}"
        text = f"{note}: {first['message']}" if first["message"] else note
        return FLAKY, text, list(first["evidence"])


@dataclass(eq=False)  # registered as a pytest plugin: must stay hashable
class CaseRecorder:
    """Accumulates the phases of each test; `cases` holds the finished records."""

    rootpath: Path
    # rule id -> tracking link of its expectation, shown on XFAIL / XPASS cases
    links: dict[str, str] = field(default_factory=dict)
    # rule ids with an expectation: an xfail marks the whole test, so the rules of it without
    # one take their own outcome (`unexpected`), never XFAIL/XPASS; None: not known, as given
    expected: frozenset[str] | None = None
    # rule id -> the status (FAIL or ERROR) its expectation names: an XFAIL of the other one
    # is a new breakage, recorded as what happened
    expected_status: dict[str, str] = field(default_factory=dict)
    cases: list[dict[str, Any]] = field(default_factory=list)
    # node ids whose teardown was reported: the tests that ran to their end (-x stopped early?)
    finished: set[str] = field(default_factory=set)
    _pending: dict[str, _Pending] = field(default_factory=dict)

    def add(self, report: pytest.TestReport) -> None:
        # dict.fromkeys: a rerun test's user_properties repeat the ids of earlier attempts
        rule_ids = list(dict.fromkeys(str(v) for k, v in report.user_properties if k == RULE_ID))
        if not rule_ids and report.nodeid not in self._pending:
            return
        props: dict[str, Any] = dict(report.user_properties) | details(report)
        pending = self._pending.setdefault(report.nodeid, _Pending())
        pending.nodeid = stable_nodeid(report, self.rootpath)
        pending.rule_ids = rule_ids or pending.rule_ids
        pending.case = str(props.get(CASE, pending.case))
        pending.duration += float(report.duration or 0.0)
        pending.doc = str(props.get(DOC) or pending.doc)
        status, message = phase_status(report, props)
        pending.rerunning = pending.rerunning or is_rerun(report)
        if report.when == "call":
            pending.failed_rule = props.get(FAILED_RULE)
            pending.unchecked = unchecked_rules(report.user_properties)
        if status == XFAIL:
            kind = props.get(FAILURE_KIND) if report.when == "call" else None
            pending.xfailed_as = (FAIL if kind == "assertion" else ERROR), _message(report)
        evidence = list(props.get(EVIDENCE, []))
        if status in (FAIL, ERROR) and message is not None:
            message = with_exchange(message, evidence)
        if report.when == "call" or status != PASS:
            pending.phases.append((status, message, evidence))
        if report.when == "teardown" and pending.rerunning:
            pending.close_attempt()  # the test runs again: its next reports follow
        elif report.when == "teardown":
            self._finish(report.nodeid)

    def _finish(self, nodeid: str) -> None:
        pending = self._pending.pop(nodeid)
        attempts = [*pending.attempts, self._attempt(pending)] if pending.attempts else []
        for rule_id in pending.rule_ids:
            status, message, evidence = pending.status_of(rule_id)
            if status in (XFAIL, XPASS) and self._by_expectation(pending, rule_id):
                status, message, evidence = pending.unexpected(rule_id, status, message, evidence)
            wanted, got_as = self.expected_status.get(rule_id), pending.xfailed_as
            if status == XFAIL and wanted and got_as and got_as[0] != wanted:
                status, got = got_as
                message = with_exchange(f"expected {wanted}, got {status}: {got}", evidence)
            record = {
                "rule_id": rule_id, "nodeid": pending.nodeid, "case": pending.case,
                "status": status, "message": message,
                "duration": round(pending.duration, 6), "evidence": evidence,
            }  # fmt: skip
            if pending.doc:
                record["doc"] = pending.doc
            if status in (XFAIL, XPASS) and rule_id in self.links:
                record["link"] = self.links[rule_id]
            if attempts:
                record["attempts"] = attempts
            self.cases.append(record)

    def _by_expectation(self, pending: _Pending, rule_id: str) -> bool:
        """The test is xfailed for another rule's expectation (not a marker in test code)."""
        if self.expected is None or rule_id in self.expected:
            return False
        return any(other in self.expected for other in pending.rule_ids)

    @staticmethod
    def _attempt(pending: _Pending) -> dict[str, Any]:
        status, message, evidence = pending.outcome()
        return {"status": status, "message": message, "evidence": evidence}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":
            self.finished.add(report.nodeid)
        self.add(report)

    def finish_all(self) -> None:
        """Close tests whose teardown never came (a crashed worker, an interrupted run)."""
        for nodeid in list(self._pending):
            self._finish(nodeid)
