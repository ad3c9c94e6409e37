"""What one mutant's run proves, read from the results.json files, never from an exit status.

A kill is a rule that PASSed on the baseline (the same selection and date on the unmutated
tree) and FAILs, or ERRORs outside setup, under the mutant. Everything else that goes wrong is
named for what it is and is never a kill: the harness's timeout, a reference that did not start,
a collection error (or nothing collected), and any other non-zero exit that no killing rule
explains (a setup or teardown ERROR, a rule that already failed on the baseline, no results).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

KILLED, SURVIVED = "killed", "survived"
# a survivor not run: no suite test of its selection executes its lines (bench/mutation/executed.py)
NOT_EXECUTED = "not-executed"
TIMEOUT, START, COLLECTION, OTHER = "timeout", "start-failure", "collection-error", "other-exit"
# the reference exits before it is ready under the mutant, twice (stillborn.py): no
# implementation to judge, left out of the score like a mutant that does not compile
STILLBORN = "stillborn"
CLASSES = (KILLED, SURVIVED, NOT_EXECUTED, TIMEOUT, START, COLLECTION, OTHER, STILLBORN)
SURVIVORS = (SURVIVED, NOT_EXECUTED)  # judged and not killed
UNJUDGED = (TIMEOUT, START, COLLECTION, OTHER)  # the suite said nothing about the mutant
MARKER = "MUTANT-VERDICT "
MODULE_MARKER = "MUTANT-MODULE-SHA256 "  # the unmutated module a stored result was made from
PASS, FAIL, ERROR = "PASS", "FAIL", "ERROR"
# pytest: 2 interrupted, 3 internal error, 4 usage error, 5 nothing collected
COLLECTION_EXITS = frozenset({2, 3, 4, 5})

# what a case's failure is (case_kind): only FAILING_KINDS can kill
FAILS, ERRORS, SETUP, TEARDOWN, START_KIND, COLLECTION_KIND, SLOW_KIND = (
    "fail", "error", "setup", "teardown", "start", "collection", "case-timeout",
)  # fmt: skip
# a case stopped by the run's --case-timeout ends within about this much of it (pytest-timeout
# fires on time; the recorded duration adds the fixture's teardown)
CASE_TIMEOUT_SLACK = 0.98
FAILING_KINDS = frozenset({FAILS, ERRORS})


def case_kind(case: Mapping[str, Any], case_timeout: float | None = None) -> str | None:
    """What a case's outcome is, None when it did not go wrong (PASS, N/A, XFAIL, ...).

    A FAIL or ERROR (or a fixture's, stopped in setup or teardown) that took the run's whole
    `case_timeout` is SLOW_KIND, never a kill: the case was stopped, not shown wrong (a mutant
    that parses every XML body a second slower "failed" the storage model's test at the
    harness's old 60 s bound, with hypothesis's wrapped exception as its message, and passes
    in 136 s under a user's 300 s).

    The recorder words a fixture's failure "setup: ..." / "teardown: ..." (case_records.py), a test
    whose precondition did not hold raises SetupFailed ("setup did not hold, the rule was not
    checked"), a reference that did not start or answer fails the first test's setup with
    "target '...': ...", and a module that did not import becomes a "collection" case.
    """
    kind = _plain_kind(case)
    if kind in (*FAILING_KINDS, SETUP, TEARDOWN) and _ran_out(case, case_timeout):
        return SLOW_KIND
    return kind


def _plain_kind(case: Mapping[str, Any]) -> str | None:
    status = str(case.get("status"))
    if status == FAIL:
        return FAILS
    if status != ERROR:
        return None
    message = str(case.get("message") or "")
    first = message.splitlines()[0] if message else ""
    if case.get("case") == "collection" or first.startswith("collection error in "):
        return COLLECTION_KIND
    # the plugin's own words, or the same words behind pytest.fail's "Failed: " (a pre-flight
    # test's fixture reports a reference that exited before it was ready that way)
    if first.startswith(("setup: target '", "setup: Failed: target '")):
        return START_KIND
    if first.startswith("setup:") or "SetupFailed" in first or "setup did not hold" in first:
        return SETUP
    if first.startswith("teardown:"):
        return TEARDOWN
    return ERRORS


def _ran_out(case: Mapping[str, Any], case_timeout: float | None) -> bool:
    """The case took the whole bound: its duration reached it (a timeout wrapped by another
    exception says nothing of it: hypothesis), or came within the slack of it with
    pytest-timeout's own words (a fixture's setup or teardown included). A failure a little
    before the bound with other words stays a failure."""
    if not case_timeout or case_timeout <= 0:
        return False
    try:
        duration = float(case.get("duration") or 0.0)
    except (TypeError, ValueError):
        return False
    if not math.isfinite(duration) or duration > 10 * case_timeout:
        return False
    first = str(case.get("message") or "").split("\n", 1)[0]
    timed = "Timeout >" in first and duration >= case_timeout * CASE_TIMEOUT_SLACK
    return duration >= case_timeout or timed


@dataclass
class Run:
    """One `conformance run` (one as-of date) of a selection, condensed."""

    as_of: str
    exit: int
    has_results: bool = False
    statuses: dict[str, str] = field(default_factory=dict)  # rule id -> rule status
    failures: dict[str, list[str]] = field(default_factory=dict)  # rule id -> case kinds
    problems: list[str] = field(default_factory=list)  # run.problems kinds
    stop_first: bool = False  # ran with -x: rules after the first failure did not run
    start_notes: list[str] = field(default_factory=list)  # first lines of start-failure cases
    slow: list[str] = field(default_factory=list)  # node ids of cases the case timeout stopped
    case_timeout: float | None = None  # the run's bound on one case (None: an older harness's)

    def kinds(self) -> set[str]:
        return {kind for kinds in self.failures.values() for kind in kinds}


def condense(
    doc: Mapping[str, Any] | None,
    exit_code: int,
    as_of: str,
    stop_first: bool,
    case_timeout: float | None = None,
) -> Run:
    """The part of a results.json (None when the run wrote none) a verdict needs; a case that
    ran the whole `case_timeout` (the run's --case-timeout) counts as stopped, not failed."""
    run = Run(as_of=as_of, exit=exit_code, stop_first=stop_first, has_results=doc is not None,
              case_timeout=case_timeout)  # fmt: skip
    if doc is None:
        return run
    run.statuses = {str(r["id"]): str(r["status"]) for r in doc.get("rules", [])}
    for case in doc.get("cases", []):
        kind = case_kind(case, case_timeout)
        if kind is not None:
            run.failures.setdefault(str(case["rule_id"]), []).append(kind)
        if kind == START_KIND:
            run.start_notes.append(str(case.get("message") or "").splitlines()[0])
        if kind == SLOW_KIND and case.get("nodeid"):
            run.slow.append(str(case["nodeid"]))
    run.problems = [str(p.get("kind")) for p in (doc.get("run") or {}).get("problems") or []]
    return run


@dataclass
class Baseline:
    """The unmutated tree's runs of one selection, one per as-of date."""

    runs: dict[str, Run] = field(default_factory=dict)

    def passing(self, as_of: str) -> set[str]:
        run = self.runs.get(as_of)
        return {r for r, s in run.statuses.items() if s == PASS} if run else set()

    def not_passing(self) -> list[str]:
        """'date rule STATUS' of every rule that FAILs or ERRORs on the baseline: it cannot
        produce a kill."""
        return [
            f"{day} {rule} {status}"
            for day, run in sorted(self.runs.items())
            for rule, status in sorted(run.statuses.items())
            if status not in (PASS, "N/A", "UNTESTED", "XFAIL")
        ]

    def clean(self, as_of: str) -> bool:
        """No case went wrong on the baseline: -x may stop a mutant's run at its first failure."""
        run = self.runs.get(as_of)
        return run is not None and run.has_results and not run.failures and run.exit == 0

    def bound_differs(self, case_timeout: float) -> bool:
        """A run of this baseline had another case bound (or an older harness's, unrecorded):
        a rule stopped there and passing under `case_timeout`, or the other way round, would be
        judged against the wrong baseline."""
        runs = self.runs.values()
        return not runs or any(run.case_timeout != case_timeout for run in runs)

    def to_json(self) -> dict[str, Any]:
        return {day: asdict(run) for day, run in self.runs.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Baseline:
        return cls({day: Run(**run) for day, run in data.items()})


@dataclass
class Verdict:
    cls: str
    kills: list[str] = field(default_factory=list)  # "date rule" that PASSed and now fail
    notes: list[str] = field(default_factory=list)  # why an unjudged mutant is unjudged

    def line(self) -> str:
        return MARKER + json.dumps(asdict(self), sort_keys=True)

    @property
    def judged(self) -> bool:
        return self.cls in (KILLED, *SURVIVORS)

    @property
    def settled(self) -> bool:
        """Nothing to learn by running it again: judged, or no implementation (stillborn)."""
        return self.judged or self.cls == STILLBORN


def keep_slow(rerun: Run, first: Run) -> Run:
    """`rerun` (made without the cases `first` saw stopped by the case timeout) still says
    those rules' cases were stopped: a mutant nothing else kills is a timeout, not a survivor."""
    for rule, found in first.failures.items():
        if SLOW_KIND in found and SLOW_KIND not in rerun.failures.get(rule, []):
            rerun.failures.setdefault(rule, []).append(SLOW_KIND)
    return rerun


def kills(baseline: Baseline, run: Run) -> list[str]:
    """'date rule' of each rule that PASSed on the baseline and fails (not in setup) now."""
    passing = baseline.passing(run.as_of)
    return [
        f"{run.as_of} {rule}"
        for rule, found in sorted(run.failures.items())
        if rule in passing and FAILING_KINDS.intersection(found)
    ]


def classify(baseline: Baseline, runs: Iterable[Run]) -> Verdict:
    """The verdict over a mutant's runs (one per date): killed when any run kills; else the
    first thing that kept the suite from judging it; else survived."""
    runs = list(runs)
    killed = [k for run in runs for k in kills(baseline, run)]
    if killed:
        return Verdict(KILLED, kills=killed)
    checks = ((START, _start), (COLLECTION, _collection), (TIMEOUT, _slow), (OTHER, _other))
    for cls, check in checks:
        notes = [note for run in runs for note in check(baseline, run)]
        if notes:
            return Verdict(cls, notes=notes)
    return Verdict(SURVIVED)


def _start(baseline: Baseline, run: Run) -> list[str]:
    if START_KIND in run.kinds():
        return [f"{run.as_of}: the reference did not start or answer (setup of the first test)"]
    return []


def _collection(baseline: Baseline, run: Run) -> list[str]:
    if not run.has_results and run.exit in COLLECTION_EXITS:
        return [f"{run.as_of}: exit {run.exit} without results (collection or usage error)"]
    if COLLECTION_KIND in run.kinds() or "collection" in run.problems:
        return [f"{run.as_of}: collection error"]
    return []


def _slow(baseline: Baseline, run: Run) -> list[str]:
    """A case of a passing rule stopped by the case timeout: slower, not shown wrong."""
    passing = baseline.passing(run.as_of)
    return [
        f"{run.as_of} {rule}: a case ran the whole --case-timeout (stopped, not a kill)"
        for rule, found in sorted(run.failures.items())
        if rule in passing and SLOW_KIND in found
    ]


def _other(baseline: Baseline, run: Run) -> list[str]:
    """A run that went wrong in a way no killing rule explains (kills were looked for first)."""
    if run.exit == 0:
        return []
    if not run.has_results:
        return [f"{run.as_of}: exit {run.exit} without results.json"]
    passing = baseline.passing(run.as_of)
    notes = [
        f"{run.as_of} {rule}: {'/'.join(sorted(set(found)))} ERROR (not a kill)"
        for rule, found in sorted(run.failures.items())
        if rule in passing
    ]
    before = baseline.runs.get(run.as_of)
    new_problems = sorted(set(run.problems) - set(before.problems if before else []))
    notes += [f"{run.as_of}: run problem '{kind}'" for kind in new_problems]
    if not notes and not run.failures and (before is None or before.exit == 0):
        notes.append(f"{run.as_of}: exit {run.exit} with no failing case")
    return notes


def module_sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def module_hash_of(output: str | None) -> str | None:
    """The unmutated module's sha256 a stored result records (None for an older harness's)."""
    for line in reversed((output or "").splitlines()):
        if line.startswith(MODULE_MARKER):
            return line[len(MODULE_MARKER) :].strip()
    return None


def from_output(output: str | None) -> Verdict | None:
    """The verdict the test command printed (its last MARKER line); cosmic-ray's own 'timeout'
    output is the harness's timeout; None when there is neither (an older harness's result)."""
    if output is None:
        return None
    if output.strip() == "timeout":
        return Verdict(TIMEOUT, notes=["the harness's per-mutant timeout"])
    for line in reversed(output.splitlines()):
        if line.startswith(MARKER):
            data = json.loads(line[len(MARKER) :])
            return Verdict(str(data["cls"]), list(data["kills"]), list(data["notes"]))
    return None
