"""pytest11 entry point `edge_conformance`: wires the plugin's modules into pytest.

Loaded in every pytest run of the environment, so everything here is cheap and inert: options
are parsed, a run prefix is drawn, and nothing else happens until a test names a rule or asks
for a target fixture, or --results is given.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.model.targets import REFERENCE
from conformance.plugin import (
    account,
    allure_labels,
    applicability,
    cleanup,
    collection,
    deselected,
    fixtures,
    hookspecs,
    lifecycle,
    prefilter,
    report_details,
    rerun,
    results_file,
    uncollected,
    xfail_marks,
    zone_test_lock,
)
from conformance.plugin.case_records import CaseRecorder
from conformance.plugin.options import Options, add_options, read_options
from conformance.plugin.run_problems import ProblemRecorder
from conformance.plugin.state import STATE_KEY, WORKERINPUT_KEY, State, build_state, get_state
from conformance.safety import signals

SUBPLUGINS = (
    prefilter,
    collection,
    applicability,
    report_details,
    fixtures,
    zone_test_lock,
    xfail_marks,
    allure_labels,
    deselected,
    uncollected,
)
RECORDER_KEY = pytest.StashKey[CaseRecorder]()
PROBLEMS_KEY = pytest.StashKey[ProblemRecorder]()
STARTED_KEY = pytest.StashKey[str]()
USED_KEY = "edge_conformance_surfaces_used"
SIGNALS_KEY = pytest.StashKey[Any]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def with_report_dir(config: pytest.Config, state: State, started: str) -> Options:
    """--report-dir without --results: DIR/<run-id>/results.json, and junit.xml beside it
    unless --junitxml was given (the layout `conformance run` writes, for plain pytest runs)."""
    options = state.options
    if options.report_dir is None or options.results is not None:
        return options
    run_id = options.run_id or results_file.default_run_id(started, state.run_prefix)
    run_dir = options.report_dir / run_id
    if not getattr(config.option, "xmlpath", None):
        config.option.xmlpath = str(run_dir / "junit.xml")  # junitxml configures after us
    return dataclasses.replace(options, run_id=run_id, results=run_dir / "results.json")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    started = results_file.utc_now()
    cleanup.forget_silent_targets()
    state = build_state(config, read_options(config))
    if not state.is_worker:
        state.options = with_report_dir(config, state, started)
    options = state.options
    config.stash[STATE_KEY] = state
    # SIGTERM/SIGHUP end the session like Ctrl-C, so teardown and the zone's restore run
    config.stash[SIGNALS_KEY] = signals.install()
    xfail_marks.configure(config, options.expectations, options.target)
    rerun.configure(config)
    collection.register_marker(config)
    for module in SUBPLUGINS:
        name = f"edge_conformance.{module.__name__.rpartition('.')[2]}"
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(module, name)
    if options.target != REFERENCE:
        from conformance.plugin.provision import resolve_named

        state.target_cache = resolve_named(config)  # usage error now, not mid-run
    if not state.is_worker and options.results is not None:
        links = {k: e.link for k, e in xfail_marks.loaded(config).items() if e.link}
        expected = frozenset(xfail_marks.loaded(config))
        wanted = {k: e.status for k, e in xfail_marks.loaded(config).items()}
        config.stash[RECORDER_KEY] = CaseRecorder(
            config.rootpath, links=links, expected=expected, expected_status=wanted
        )
        config.stash[STARTED_KEY] = started
        config.pluginmanager.register(config.stash[RECORDER_KEY], "edge_conformance.records")
        config.stash[PROBLEMS_KEY] = ProblemRecorder(config.rootpath, state.problems)
        config.pluginmanager.register(config.stash[PROBLEMS_KEY], "edge_conformance.problems")


def pytest_unconfigure(config: pytest.Config) -> None:
    undo = config.stash.get(SIGNALS_KEY, None)
    if undo is not None:
        undo()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker shares this run's prefix and run directory."""
    from conformance.plugin.state import workerinput_for

    node.workerinput[WORKERINPUT_KEY] = workerinput_for(get_state(node.config))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: learn which surfaces a worker used, for the end-of-run cleanup."""
    used = getattr(node, "workeroutput", {}).get(USED_KEY, [])
    get_state(node.config).surfaces_used.update(used)


def pytest_sessionstart(session: pytest.Session) -> None:
    state = get_state(session.config)
    if state.options.selective and not state.is_worker:
        catalog = state.catalog(session.config)
        collection.check_selection(catalog, state.options.rules, state.options.areas)
    if xfail_marks.loaded(session.config) and not state.is_worker:
        xfail_marks.check_known(session.config, state.catalog(session.config))


def _tests_left(session: pytest.Session) -> bool:
    """Whether collected tests did not run: pytest sets `shouldfail` on the failure that
    reaches -x/--maxfail even when it is the last test, which skipped nothing."""
    recorder = session.config.stash.get(RECORDER_KEY, None)
    if recorder is None:
        return True  # nothing counted the tests that ran: read the stop as a stop
    return len(recorder.finished) < session.testscollected


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    state = get_state(config)
    if state.is_worker:
        config.workeroutput[USED_KEY] = sorted(state.surfaces_used)  # type: ignore[attr-defined]
        return
    with signals.held():  # a signal now must not cut the restore, cleanup or results short
        failed = lifecycle.finish_run(state)
        if failed:
            # a run problem, not only the exit status: beside a failing SHOULD case the
            # exit 1 would read as explained, and the run as certified
            state.problems.append(
                {"kind": "pytest", "where": "zone restore", "message": "\n".join(failed),
                 "rules": []}
            )  # fmt: skip
            if session.exitstatus == 0:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if session.shouldfail and _tests_left(session):
            # -x / --maxfail stopped the run (exit 1): the tests after the failure did not
            # run, so a rule they check may read PASS from an earlier test; a failing SHOULD
            # case must not make that exit read as explained
            state.problems.append(
                {"kind": "pytest", "where": "pytest -x/--maxfail",
                 "message": f"{session.shouldfail}: the tests after it did not run",
                 "rules": []}
            )  # fmt: skip
        if state.options.results is not None:
            _write_results(config)
    stopped = signals.held_back()
    if stopped and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        account.say(
            f"edge-conformance: {stopped[0]} came while the run was ending; the restore and "
            "cleanup were finished first, and the run counts as interrupted"
        )
        session.exitstatus = pytest.ExitCode.INTERRUPTED
        if state.options.results is not None:
            # results.json was written before: it must not certify a run that exits 2
            config.stash[PROBLEMS_KEY].add(
                "pytest", "end of run", f"{stopped[0]} came while the run was ending: interrupted"
            )
            with signals.held():
                _write_results(config)


def _write_results(config: pytest.Config) -> None:
    state = get_state(config)
    cases = config.stash[RECORDER_KEY]
    cases.finish_all()
    started, finished = config.stash[STARTED_KEY], results_file.utc_now()
    errors = [*config.stash[PROBLEMS_KEY].error_cases(), *deselected.cases(config)]
    document = results_file.build_document(
        state.options, state.catalog(config), [*cases.cases, *errors], problems=state.problems,
        run_id=state.options.run_id or results_file.default_run_id(started, state.run_prefix),
        started=started, finished=finished,
    )  # fmt: skip
    if state.target_version:
        document["run"]["target_version"] = state.target_version
    assert state.options.results is not None
    results_file.write(state.options.results, document)
