"""The test command cosmic-ray runs per mutant: `conformance run` once per as-of date.

Its verdict comes from the runs' results.json, compared with the baseline (the same selection on
the unmutated tree, `--write-baseline` once per selection, then `--baseline` for every mutant):
the last line it prints is the verdict (bench/mutation/verdict.py), and its exit status is 0 only
for a survivor. A run stops at the first failing test (-x) when the baseline has no failing case,
so a killed mutant costs seconds; a -x run that stopped on something that is not a kill (a setup
ERROR, say) is run again without -x, so a later rule can still kill. Report folders go to a
temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.mutation import forkrun, stillborn, verdict
from bench.mutation.context_plugin import DAY_ENV, DIR_ENV
from conformance.cli_run import RunOptions, suite_plugin_args

MOTO_STARTUP_S = 30.0
# the plugins a run needs, with autoloading off (conformance.cli_run.SUITE_PLUGINS says why)
PLUGINS = tuple(suite_plugin_args())
OUTPUT_TAIL = 3000
CONTEXT_PLUGIN = "bench.mutation.context_plugin"
ORDER_PLUGIN = "bench.mutation.order_plugin"  # the storage model's test last (-x runs stop early)
PROFILE = "--reference-profile"
# a user's run's bound on one case (conformance.cli_run); a case it stops is no kill (verdict.py)
CASE_TIMEOUT = RunOptions.case_timeout


@contextlib.contextmanager
def moto_source() -> Iterator[str]:
    """A loopback moto S3 server for the migration (sippy) tests; its endpoint, stopped after.

    Without a `migration_source` surface those tests are N/A, and every mutant of the migration
    hook and source would survive unseen.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + MOTO_STARTUP_S
        while True:
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto server did not start") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--area", action="append", default=[])
    parser.add_argument("--rule", action="append", default=[])
    parser.add_argument("--as-of", action="append", default=[])
    parser.add_argument("--case-timeout", type=_seconds, default=CASE_TIMEOUT)
    parser.add_argument("--moto", action="store_true", help="a moto server as migration source")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--baseline", type=Path, help="judge a mutant against this baseline")
    mode.add_argument("--write-baseline", type=Path, help="run the unmutated tree, write here")
    parser.add_argument(
        "--subset", type=Path,
        help="with --baseline: per date, the rules to run instead of the selection (a JSON "
        "file: date -> null for the whole selection, or the selection args and the baseline "
        "file of those rules alone); a date it lacks is not run",
    )  # fmt: skip
    args = parser.parse_args(argv)
    selection = [x for a in args.area for x in ("--area", a)]
    selection += [x for r in args.rule for x in ("--rule", r)]
    with contextlib.ExitStack() as stack:
        if args.moto:
            try:
                endpoint = stack.enter_context(moto_source())
            except RuntimeError as exc:  # not a kill: nothing was checked
                print(verdict.Verdict(verdict.START, notes=[str(exc)]).line(), flush=True)
                return 1
            selection += [PROFILE, f"migration_source_endpoint={endpoint}"]
        if args.write_baseline:
            days = [_day(d) for d in args.as_of or ["today"]]
            return _write_baseline(args, selection, days)
        baseline = verdict.Baseline.from_json(json.loads(args.baseline.read_text("utf-8")))
        if baseline.bound_differs(float(args.case_timeout)):
            why = f"the baseline {args.baseline.name} ran under another case bound: run it again"
            print(verdict.Verdict(verdict.OTHER, notes=[why]).line(), flush=True)
            return 1
        # the baseline's dates: "today" stays the day the baseline ran, past midnight too
        days = list(baseline.runs)
        per_day: dict[str, list[str]] = {}
        if args.subset:
            days, per_day, baseline = _subset(args.subset, baseline, selection)
        found = _judge(args, selection, days, baseline, per_day)
        print(found.line(), flush=True)
        return 0 if found.cls == verdict.SURVIVED else 1


def _seconds(text: str) -> int:
    """A case bound as `conformance run --case-timeout` takes it: whole seconds, above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of seconds: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0: {text!r}")
    return value


def _day(day: str) -> str:
    return dt.date.today().isoformat() if day == "today" else day


def _write_baseline(args: argparse.Namespace, selection: list[str], days: list[str]) -> int:
    baseline = verdict.Baseline()
    for day in days:
        run, output = _run(args, selection, day, stop_first=False)
        baseline.runs[day] = run
        if not run.has_results:
            sys.stdout.write(output[-OUTPUT_TAIL:])
    partial = args.write_baseline.with_name(args.write_baseline.name + ".part")
    partial.write_text(json.dumps(baseline.to_json(), indent=1), "utf-8")
    os.replace(partial, args.write_baseline)  # never a half-written baseline to reuse
    return 0 if all(r.has_results for r in baseline.runs.values()) else 1


def _subset(
    path: Path, full: verdict.Baseline, selection: list[str]
) -> tuple[list[str], dict[str, list[str]], verdict.Baseline]:
    """The dates to run, the selection of each that runs only some rules, and the baseline to
    judge by: on such a date, the run of those rules alone on the unmutated tree, where a rule
    counts as passing only when it also passed in the whole selection's baseline."""
    spec: dict[str, Any] = json.loads(path.read_text("utf-8"))
    days = [day for day in full.runs if day in spec]
    per_day: dict[str, list[str]] = {}
    judged = verdict.Baseline()
    for day in days:
        entry = spec[day]
        if entry is None:
            judged.runs[day] = full.runs[day]
            continue
        alone = verdict.Baseline.from_json(json.loads(Path(entry["baseline"]).read_text("utf-8")))
        run = alone.runs[day]
        whole = full.runs[day].statuses
        run.statuses = {
            rule: status if whole.get(rule) == verdict.PASS else whole.get(rule, "ABSENT")
            for rule, status in run.statuses.items()
        }
        judged.runs[day] = run
        # the rules alone, and the migration source's profile when the selection has one
        profile = selection[selection.index(PROFILE) :][:2] if PROFILE in selection else []
        per_day[day] = [*entry["args"], *profile]
    return days, per_day, judged


def _judge(
    args: argparse.Namespace,
    selection: list[str],
    days: list[str],
    baseline: verdict.Baseline,
    per_day: dict[str, list[str]] | None = None,
) -> verdict.Verdict:
    runs: list[verdict.Run] = []
    dead_at: list[str] = []  # why the reference is stillborn, per date it did not start
    for day in days:
        sel = (per_day or {}).get(day, selection)
        stop_first = baseline.clean(day)
        run, output = _run(args, sel, day, stop_first)
        if _exited_at_start(baseline, run) and (why := stillborn.probe(day, sel, _env())):
            dead_at.append(why)  # no run without -x: the reference does not start at this date
            runs.append(run)
            sys.stdout.write(output[-OUTPUT_TAIL:])
            continue
        if stop_first and run.exit != 0 and not verdict.kills(baseline, run):
            # -x stopped on something that is not a kill: a later rule may still kill. A case
            # the case timeout stopped is left out of that run (it would take the whole bound
            # again and push the mutant past the harness's own timeout), and still counted.
            first = run
            run, output = _run(args, sel, day, stop_first=False, deselect=first.slow)
            run = verdict.keep_slow(run, first)
        runs.append(run)
        if run.exit != 0:
            sys.stdout.write(output[-OUTPUT_TAIL:])
        if verdict.kills(baseline, run):
            break
    found = verdict.classify(baseline, runs)
    if found.cls == verdict.START and len(dead_at) == len(runs):  # at every date it was run
        return verdict.Verdict(verdict.STILLBORN, notes=[*found.notes, *dead_at])
    return found


def _exited_at_start(baseline: verdict.Baseline, run: verdict.Run) -> bool:
    """The suite's run says the reference exited before it was ready, and nothing was killed."""
    return (
        verdict.START_KIND in run.kinds()
        and stillborn.exited_at_start(run.start_notes)
        and not verdict.kills(baseline, run)
    )


# The suite and the reference it launches run on a zone half a day from UTC: on a UTC host a
# mutant that reads a zoneless date (asctime) or formats a date in local time changes nothing,
# here it moves the instant by 12:45-13:45 hours (tests/test_host_zone.py: the suite holds there)
HOST_ZONE = "Pacific/Chatham"


# a sitecustomize giving fresh interpreters of a mutant's command cosmic-ray's testing
# exception (forked ones inherit it from the fork server: forkrun.provide_testing_exception)
TESTING_EXCEPTION_DIR = Path(__file__).with_name("testing_exception")


def with_testing_exception(env: dict[str, str]) -> dict[str, str]:
    """`env` with TESTING_EXCEPTION_DIR first on PYTHONPATH (the unmutated baseline's coverage
    run keeps its own sitecustomize, executed.py: it runs no mutated `except`)."""
    path = [str(TESTING_EXCEPTION_DIR), *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(path)}


_SUITE_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "TZ": HOST_ZONE}


def _env() -> dict[str, str]:
    """A mutant's run's environment (and its stillborn probe's): the suite's plugins only, the
    host zone, cosmic-ray's testing exception."""
    return with_testing_exception({**os.environ, **_SUITE_ENV})


def _run(
    args: argparse.Namespace,
    selection: list[str],
    day: str,
    stop_first: bool,
    deselect: list[str] | None = None,
) -> tuple[verdict.Run, str]:
    with tempfile.TemporaryDirectory(prefix="ec-mutant-") as reports:
        command = [
            sys.executable, "-m", "conformance.cli", "run", "-n", "0", "--run-id", "mutant",
            "--as-of", day, "--report-dir", reports, "--case-timeout", str(args.case_timeout),
            "--no-html", *selection, "--", *(["-x"] if stop_first else []), *PLUGINS,
            "-p", ORDER_PLUGIN, "-q", "--model-shrink-seconds", "0",
            *(arg for nodeid in deselect or [] for arg in ("--ec-deselect-exact", nodeid)),
        ]  # fmt: skip
        env = _env()
        if os.environ.get(DIR_ENV):  # the coverage baseline: a context per test (contexts.py)
            command += ["-p", CONTEXT_PLUGIN]
            env = {**os.environ, **_SUITE_ENV, DAY_ENV: day}
        if forkrun.FORKED:  # forked by the harness's fork server: fork this run too
            code, output = forkrun.run_captured(command[2], command[3:], env)
        else:
            proc = subprocess.run(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
            )  # fmt: skip
            code, output = proc.returncode, proc.stdout.decode("utf-8", "replace")
        doc = _results(Path(reports) / "mutant" / "results.json")
        return verdict.condense(doc, code, day, stop_first, float(args.case_timeout)), output


def _results(path: Path) -> dict[str, Any] | None:
    try:
        doc: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return doc


if __name__ == "__main__":
    raise SystemExit(main())
