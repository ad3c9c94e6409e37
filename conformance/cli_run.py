"""`conformance run`: the suite in a pytest subprocess, then the report and the verdict.

pytest runs in a child process so that xdist, the plugin and the reference server live and die
with it, and so that this process only ever reads results.json: the file is the interface.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from conformance.model import run_options
from conformance.report.load import ResultsError, failing_cases, load_results
from conformance.report.shadowed import problem as shadowed_problem
from conformance.report.shadowed import shadowed_must_rules
from conformance.results import (
    EXIT_FAILING,
    FLAKY,
    NA,
    NOT_CERTIFIED_VERDICT,
    NOT_CHECKED,
    PASS,
    RAN,
    UNTESTED,
    XFAIL,
    Status,
    verdict,
    write_results,
)

# run options this module's fixed part of the pytest command line passes itself
FIXED = frozenset({"workers", "target", "run_id", "case_timeout"})
# The pytest plugins a suite run needs, by entry-point name, for a run made with
# PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 (the break-checks' runner, the mutation harness): the others
# installed (hypothesis's, allure's, anyio's, randomly's) cost ~0.5-1.5 s of CPU a run and change
# nothing there (the storage model uses hypothesis itself; randomly would shuffle a -x order).
# xdist first: the suite's plugin imports it, and pytest warns when it cannot rewrite a module
# that is already imported. Here, not in conformance.plugin: bench must not import the plugin.
SUITE_PLUGINS = ("xdist", "edge_conformance", "timeout", "rerunfailures")
PYTEST_TESTS_FAILED = 1
PYTEST_NO_TESTS = 5
PYTEST_MEANINGS = {
    1: "tests failed",
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


@dataclass
class RunOptions:
    """What `conformance run` was asked for, already parsed; its fields are those of
    `model.run_options.RUN_OPTIONS` (tests/test_run_options.py keeps the two alike)."""

    target: str = "reference"
    targets_file: str | None = None
    as_of: str | None = None
    rules: list[str] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    report_dir: Path = Path("reports")
    run_id: str | None = None
    reference_profile: list[str] = field(default_factory=list)
    workers: str = "auto"
    pytest_args: list[str] = field(default_factory=list)
    baseline: Path | None = None
    spec_base: str | None = None
    no_html: bool = False
    expectations: str | None = None
    case_timeout: int = 300
    compat_date: str | None = None
    compat_flags: list[str] = field(default_factory=list)
    history: str | None = None  # --store URL: record the run in that results store at its end
    allow_shared_zone: bool = False
    rerun: int = 0  # --rerun N (FLAKY versus broken)
    # --failed-from: the earlier run and its re-run rules' statuses (results `run.rerun_of`)
    rerun_of: dict[str, Any] | None = None


def safe_name(text: str) -> str:
    """Filesystem-safe on every OS: letters, digits, dot, dash, underscore."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip(".-")
    return cleaned or "run"


def default_run_id(target: str, now: dt.datetime | None = None) -> str:
    """`20241121T103000Z-reference`: sorts by time, says what was checked."""
    now = now or dt.datetime.now(dt.UTC)
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{safe_name(target)}"


def build_pytest_argv(
    opts: RunOptions, run_dir: Path, run_id: str, python: str = sys.executable
) -> list[str]:
    """The child pytest command line (pure: tested without running pytest); the options of
    the table that this fixed part does not pass are forwarded from it (model/run_options)."""
    argv = [
        python, "-m", "pytest", "--pyargs", "conformance.suite",
        "-p", "no:cacheprovider",
        "-n", str(opts.workers),
        "--target", opts.target,
        "--run-id", run_id,
        "--results", str(run_dir / "results.json"),
        "--junitxml", str(run_dir / "junit.xml"),
        "-o", "junit_family=xunit2",
        # a module that does not import fails its own rules (ERROR), not the whole run
        "--continue-on-collection-errors",
        # pytest-timeout: a target that hangs costs one test an ERROR, never the whole run
        "--timeout", str(opts.case_timeout),
    ]  # fmt: skip
    argv += run_options.pytest_args(dataclasses.asdict(opts), skip=FIXED)
    return argv + list(opts.pytest_args)


def suite_plugin_args() -> list[str]:
    """`-p <name>` for each of SUITE_PLUGINS, for a pytest command line."""
    return [arg for name in SUITE_PLUGINS for arg in ("-p", name)]


def run_exit_code(doc: dict[str, Any] | None, pytest_rc: int) -> tuple[int, list[str]]:
    """Exit status of `conformance run` and the lines that explain it.

    Non-zero on any FAIL, ERROR or XPASS case; on pytest failing without results; on no tests
    collected (a filter that selects nothing is a mistake, not a pass); on any other pytest
    failure even when no case recorded it (e.g. an error outside any rule's test).
    """
    meaning = PYTEST_MEANINGS.get(pytest_rc, "unexpected exit status")
    if pytest_rc == PYTEST_NO_TESTS:
        return PYTEST_NO_TESTS, [
            "no tests collected (pytest exit code 5): check --rule/--area/--target; "
            "nothing was checked"
        ]
    if doc is None:
        return (pytest_rc or 1), [
            f"pytest exited with code {pytest_rc} ({meaning if pytest_rc else 'ok'}) "
            "without writing results.json"
        ]
    bad = failing_cases(doc)
    if bad:
        counts = {s: sum(1 for c in bad if c.get("status") == s) for s in sorted(EXIT_FAILING)}
        text = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        if pytest_rc in (0, PYTEST_TESTS_FAILED):
            return 1, [f"failing cases: {text}"]
        # the failing cases do not explain an interrupt or an internal error: say both
        return pytest_rc, [
            f"failing cases: {text}",
            f"pytest exited with code {pytest_rc} ({meaning}); see its output above",
        ]
    if pytest_rc != 0:
        return pytest_rc, [
            f"pytest exited with code {pytest_rc} ({meaning}) "
            "although no case failed; see its output above"
        ]
    blocking = uncertified_must(doc)
    if blocking:
        return 1, [f"not certified: MUST rules in force that did not pass: {blocking}"]
    if not _ran_any(doc):
        return 1, [
            "nothing was checked: every selected rule was N/A (not in force at --as-of, or "
            "its surface not offered by the target); check --rule/--area/--as-of/--target"
        ]
    return 0, []


def uncertified_must(doc: dict[str, Any]) -> str:
    """What keeps a run with no failing case from certification, in a few words ('' when
    nothing does, or only known failures (XFAIL) do: those are expected by the user; '' too
    for NO VERDICT, a run with no MUST rule in force to judge, which refuses nothing)."""
    summary = doc.get("summary") or {}
    if summary.get("certified"):
        return ""
    counts: dict[str, int] = {}
    for levels in (summary.get("areas") or {}).values():
        must = (levels or {}).get("MUST") or {}
        for status in (FLAKY, UNTESTED, NOT_CHECKED, XFAIL):
            counts[status] = counts.get(status, 0) + int(must.get(status.key) or 0)
    counts.pop(XFAIL, 0)
    problems = (doc.get("run") or {}).get("problems") or []
    parts = [f"{n} {status}" for status, n in counts.items() if n]
    if problems:
        parts.append(f"{len(problems)} run problem(s)")
    if not parts and verdict(doc) == NOT_CERTIFIED_VERDICT and not _known_failures_only(doc):
        # a summary whose counts do not explain it: still refuse, never print NOT CERTIFIED
        # beside exit status 0
        parts.append("the summary is not certified although no MUST rule failed")
    return ", ".join(parts)


def _ran_any(doc: dict[str, Any]) -> bool:
    """A case of some rule ran to a verdict (RAN), by the summary's counts."""
    areas = (doc.get("summary") or {}).get("areas") or {}
    return any(
        int((counts or {}).get(status.key) or 0)
        for levels in areas.values()
        for counts in (levels or {}).values()
        for status in RAN
    )


def _known_failures_only(doc: dict[str, Any]) -> bool:
    """Every MUST rule that is not PASS or N/A is a known failure (XFAIL), by the summary."""
    counts: dict[str, int] = {}
    for levels in ((doc.get("summary") or {}).get("areas") or {}).values():
        for status in Status:
            key = status.key
            counts[key] = counts.get(key, 0) + int(((levels or {}).get("MUST") or {}).get(key) or 0)
    others = [n for key, n in counts.items() if key not in {PASS.key, NA.key, XFAIL.key}]
    return counts.get(XFAIL.key, 0) > 0 and not any(others)


def agree(doc: dict[str, Any], code: int, reasons: list[str], pytest_rc: int) -> bool:
    """Make the verdict agree with a non-zero exit status that no failing case explains: pytest
    failing outside any case (its own error, an interrupt) or a run that checked nothing is NOT
    CERTIFIED, with the reason in results.json `run.problems`. Failing cases explain exit 1 on
    their own: a failing MUST rule already refused the verdict, and a failing SHOULD or MAY rule
    is not part of it (the verdict line names them). pytest failing is recorded even when the
    verdict was refused already (e.g. an interrupt left a MUST rule UNTESTED): `merge` must
    see it, as another shard may have run that rule. True when the document changed."""
    summary = doc.get("summary") or {}
    run_info = doc.setdefault("run", {})
    if code == 0 or run_info.get("problems"):
        return False  # a run problem refuses the verdict already, and `merge` carries it
    if failing_cases(doc) and pytest_rc in (0, PYTEST_TESTS_FAILED):
        shadowed = shadowed_must_rules(doc)
        if not shadowed or verdict(doc) == NOT_CERTIFIED_VERDICT:
            return False
        run_info.setdefault("problems", []).append(shadowed_problem(shadowed))
        summary["certified"] = False
        return True
    # a run that checked nothing (pytest's 5: no tests collected, too) is told apart: `merge`
    # judges that from the merged counts
    checked_nothing = pytest_rc in (0, PYTEST_NO_TESTS)
    if checked_nothing and verdict(doc) == NOT_CERTIFIED_VERDICT:
        return False  # a MUST rule that blocks explains the exit status
    kind = "nothing-checked" if checked_nothing else "pytest"
    run_info.setdefault("problems", []).append(
        {"kind": kind, "where": "pytest", "message": "; ".join(reasons), "rules": []}
    )
    summary["certified"] = False
    return True


def _popen_pytest(argv: list[str]) -> Any:
    return subprocess.Popen(argv, start_new_session=True)


# How `run` starts its pytest child, in a session of its own. The mutation harness's fork server
# swaps in a fork of this process (bench/mutation/forkrun.py); nothing else changes it.
spawn_pytest: Callable[[list[str]], Any] = _popen_pytest


def call_forwarding_signals(argv: list[str]) -> int:
    """Run pytest in its own session and pass SIGINT/SIGTERM/SIGHUP on to it, once, then wait:
    the child ends its run and restores the zone (docs/safety.md) before this process exits.
    Its own session keeps a terminal's Ctrl-C from reaching every process at once."""
    child = spawn_pytest(argv)
    forwarded = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def forward(signum: int, frame: FrameType | None) -> None:
        if child.poll() is None:
            child.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)

    # a signal this process ignores (SIG_IGN: `nohup`, a shell's `cmd &`) is not passed on
    previous = {
        signum: signal.signal(signum, forward)
        for signum in forwarded
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        while True:
            try:
                return int(child.wait())
            except KeyboardInterrupt:  # pragma: no cover - a handler replaced ours
                continue
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _read_results(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    if not path.exists():
        return None, None
    try:
        return load_results(path), None
    except ResultsError as exc:
        return None, str(exc)


def _record_history(store_url: str, doc: dict[str, Any], code: int) -> int:
    """Record the finished run in the results store.

    A store that fails leaves the verdict as printed (the target was judged; the tool failed
    to record it): the output says so, and a run that would exit 0 exits 2 so a nightly job
    notices the missing record; a failing run keeps its own status.
    """
    from conformance.history import cli as history_cli
    from conformance.history.store import StoreError
    from conformance.results import verdict

    try:
        print(f"history: {history_cli.record_doc(store_url, doc)}")
    except StoreError as exc:
        print(f"error: history: {exc}", file=sys.stderr)
        print(f"the verdict above stands ({verdict(doc)}); the run was NOT recorded in the "
              f"results store: record it later with `conformance history add RESULTS --store "
              f"URL`{' (exit 2: the store write failed)' if not code else ''}",
              file=sys.stderr)  # fmt: skip
        return code or 2
    return code


def run(opts: RunOptions) -> int:
    """Run the suite, render the report, print the summary; return the exit status."""
    from conformance.report.diff import diff_results, format_text
    from conformance.report.failing_rules import failing_rule_lines, xpass_rule_lines
    from conformance.report.render import render_report, write_html
    from conformance.report.sensitivity import terminal_lines as sensitivity_lines
    from conformance.report.summary import summary_lines

    run_id = safe_name(opts.run_id) if opts.run_id else default_run_id(opts.target)
    run_dir = opts.report_dir / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    argv = build_pytest_argv(opts, run_dir, run_id)
    print("running:", " ".join(argv[1:]), flush=True)
    pytest_rc = call_forwarding_signals(argv)
    doc, problem = _read_results(run_dir / "results.json")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
    code, reasons = run_exit_code(doc, pytest_rc)
    if doc is not None:
        # what only this process knows goes back into the file the child wrote
        changed = agree(doc, code, reasons, pytest_rc)
        if opts.rerun_of is not None:
            doc["run"]["rerun_of"] = opts.rerun_of
            changed = True
        if changed:
            write_results(run_dir / "results.json", doc)
        if not opts.no_html:
            index = write_html(render_report(doc, opts.spec_base), run_dir / "index.html")
            print(f"\nreport: {index}")
        else:  # a report left by an earlier run of this id would not be this run's
            (run_dir / "index.html").unlink(missing_ok=True)
        for line in summary_lines(doc):
            print(line)
        for line in sensitivity_lines():
            print(line)
        for line in failing_rule_lines(doc, run_dir / "results.json"):
            print(line)
        for line in xpass_rule_lines(doc, run_dir / "results.json"):
            print(line)
        if opts.rerun_of is not None:
            print(f"\nre-run of {opts.rerun_of['run_id']} (old → new):")
            new = {str(r.get("id")): str(r.get("status")) for r in doc.get("rules", [])}
            for rule_id, old in opts.rerun_of["statuses"].items():
                print(f"  {rule_id}: {old} → {new.get(rule_id, 'not run')}")
    for reason in reasons:
        print(reason, file=sys.stderr)
    if doc is not None and opts.history:
        code = _record_history(opts.history, doc, code)
    if doc is not None and opts.baseline:
        try:
            change = diff_results(load_results(opts.baseline), doc)
        except ResultsError as exc:
            print(f"error: baseline: {exc}", file=sys.stderr)
            return code or 2
        print(f"\ncompared with {opts.baseline}:\n{format_text(change)}")
        if change.fails and code == 0:
            code = 1
    return code
