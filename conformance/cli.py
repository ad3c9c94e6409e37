"""`conformance`: run the suite, serve the reference, list rules and targets, report, diff,
merge results of many machines, keep a target's expected failures."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance import __version__
from conformance.cli_run import RunOptions
from conformance.model import run_options as run_options_table

EPILOG = "Run `conformance COMMAND -h` for a command's options."


def _add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        help="run the suite against a target and write a report",
        description="Run the suite (pytest + xdist) and write <report-dir>/<run-id>/ with "
        "results.json, junit.xml and index.html. Arguments after `--` go to pytest.",
    )
    run_options_table.add_to_argparse(p)


def _add_others(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the bundled reference implementation")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=Path(".conformance-data"),
        help="persisted state (default: ./.conformance-data)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="first port; surfaces take consecutive ports (default 0: ephemeral)",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--behaviour-date", metavar="DATE", help="behaviour of that date")
    p.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="K=V",
        help="override a behaviour profile field (repeatable)",
    )

    sub.add_parser("rules", help="list the rule catalog (`conformance rules -h`)", add_help=False)

    p = sub.add_parser("report", help="render results.json as HTML (several: a matrix)")
    p.add_argument(
        "results", nargs="+", type=Path, metavar="RESULTS",
        help="results files; a directory stands for its *.json (merge --matrix output)",
    )  # fmt: skip
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        help="output file (default: index.html beside one file; ./matrix.html)",
    )
    p.add_argument(
        "--label",
        action="append",
        default=[],
        help="column label per results file, in order (matrix)",
    )
    p.add_argument("--spec-base", metavar="URL", help="base URL of the spec files (links)")
    p.add_argument(
        "--ledgers", type=Path, metavar="DIR",
        help="peer verdict ledgers (*.yaml) for 'which other implementations fail it' "
        "(default: $CONFORMANCE_LEDGERS, else the checkout's fixtures/peers/verdicts)",
    )  # fmt: skip

    p = sub.add_parser(
        "replay", help="send a failing rule's recorded requests again and compare the answers",
        description="Re-sends the recorded requests of RULE's failing case in RESULTS to the "
        "target, signed with its credentials now, and prints the recorded answer beside "
        "today's (docs/triage.md).",
    )  # fmt: skip
    p.add_argument("results", type=Path, metavar="RESULTS")
    p.add_argument("rule", metavar="RULE", help="rule id")
    p.add_argument("--target", help="target name (default: the run's)")
    p.add_argument(
        "--targets-file", metavar="PATH", help="(default: the run's, else ./conformance.toml)"
    )
    p.add_argument("--case", help="which failing case (default: the first)")

    p = sub.add_parser("diff", help="regressions and fixes between two runs")
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--format", choices=("text", "markdown"), default="text")

    p = sub.add_parser("targets", help="list known targets and their surfaces")
    p.add_argument("--targets-file", metavar="PATH")

    p = sub.add_parser(
        "recover",
        help="restore what a killed run left changed and remove its resources",
        description="Applies the pending restore of the target's zone (the journal a run "
        "writes before it changes the zone) and removes the ec- resources, jobs and leases of "
        "runs whose process is gone; a live run is left alone (docs/safety.md).",
    )
    p.add_argument("--target", required=True, help="target name")
    p.add_argument("--targets-file", metavar="PATH")
    _add_results_tools(sub)
    from conformance.history.cli import add_parser as add_history

    add_history(sub)


def _add_results_tools(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "merge",
        help="combine results files of one run split over many machines",
        description="Union of the cases of results files of the same target and as-of date, "
        "rolled up again. Different targets or dates are refused unless --matrix, which "
        "merges each (target, date) group on its own into the directory OUT.",
    )
    p.add_argument("results", nargs="+", type=Path, metavar="RESULTS")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="OUT")
    p.add_argument("--matrix", action="store_true", help="keep targets/dates apart (OUT: dir)")
    p.add_argument("--run-id", help="run id of the merged run (default: merged-TARGET-DATE)")

    p = sub.add_parser("expectations", help="a target's known failures (expectations/*.yaml)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser(
        "update",
        help="write the file from a run: failing rules added, passing ones removed",
        description="Links and reasons of existing entries are kept; rules the run did not "
        "judge keep their entries.",
    )
    q.add_argument("results", type=Path, metavar="RESULTS")
    q.add_argument(
        "-o", "--output", type=Path, metavar="PATH",
        help="expectations file (default: ./expectations/<target>.yaml)",
    )  # fmt: skip
    q.add_argument(
        "--must", action="store_true",
        help="also add failing MUST rules (a known MUST failure exits 0, still NOT CERTIFIED)",
    )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conformance", description=__doc__, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run(sub)
    _add_others(sub)
    return parser


def split_passthrough(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Our arguments, and pytest's: everything after the first `--`."""
    args = list(argv)
    if "--" in args:
        at = args.index("--")
        return args[:at], args[at + 1 :]
    return args, []


def run_options(ns: argparse.Namespace, pytest_args: list[str]) -> RunOptions:
    from conformance.report.spec_links import default_spec_base

    values = run_options_table.parsed_values(ns)
    values["spec_base"] = values["spec_base"] or default_spec_base()
    opts = RunOptions(**values, pytest_args=pytest_args)
    if ns.failed_from is None:
        return opts
    from conformance import failed_from
    from conformance.report.load import load_results

    earlier = load_results(ns.failed_from)  # ResultsError: reported by _main
    opts = failed_from.options_from(earlier, opts, ns)
    opts.rerun_of = failed_from.rerun_of(earlier, ns.failed_from)
    if opts.run_id is not None:
        from conformance.cli_run import safe_name
        from conformance.report.load import ResultsError

        writes = opts.report_dir / safe_name(opts.run_id) / "results.json"
        if writes.resolve() == Path(ns.failed_from).resolve():
            raise ResultsError(
                f"the re-run would write over the results it re-runs ({ns.failed_from}); "
                "choose another --run-id or --report-dir"
            )
    return opts


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.settings import SettingError, check_seconds

    try:
        check_seconds()
        return _main(argv)
    except SettingError as exc:
        # a malformed CONFORMANCE_* variable: the user's input, said as such, never a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `conformance rules --format json | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["rules"]:
        from conformance.rules_cmd import run_rules  # written alongside; heavy catalog import

        return int(run_rules(args[1:]))
    ours, passthrough = split_passthrough(args)
    ns = build_parser().parse_args(ours)
    if passthrough and ns.command != "run":
        build_parser().error("arguments after `--` are only for `conformance run`")
    from conformance import cli_commands as cmd
    from conformance.report.spec_links import default_spec_base

    if ns.command == "run":
        from conformance.cli_run import run
        from conformance.report.load import ResultsError

        try:
            opts = run_options(ns, passthrough)
        except ResultsError as exc:
            print(f"error: --failed-from: {exc}", file=sys.stderr)
            return 2
        if opts.rerun_of is not None and not opts.rules:
            print(f"nothing to re-run: no rule failed, errored or was flaky in {ns.failed_from}")
            return 0
        return run(opts)
    if ns.command == "serve":
        return cmd.serve(ns.data_dir, ns.port, ns.behaviour_date, ns.profile, ns.host)
    if ns.command in ("merge", "expectations", "report"):
        from conformance import cli_results

        if ns.command == "merge":
            return cli_results.merge(ns.results, ns.output, ns.matrix, ns.run_id)
        if ns.command == "expectations":
            return cli_results.expectations_update(ns.results, ns.output, ns.must)
        paths = cli_results.expand_results(ns.results)
        return cmd.report(
            paths, ns.output, ns.label, ns.spec_base or default_spec_base(), ns.ledgers
        )
    if ns.command == "replay":
        from conformance.replay import main as replay_main

        return replay_main(ns.results, ns.rule, ns.target, ns.targets_file, ns.case)
    if ns.command == "diff":
        return cmd.diff(ns.old, ns.new, ns.format)
    if ns.command == "targets":
        return cmd.list_targets(ns.targets_file)
    if ns.command == "history":
        from conformance.history.cli import main as history_main

        return history_main(ns)
    if ns.command == "recover":
        from conformance.safety.recover import recover

        return recover(ns.target, ns.targets_file, print)
    raise AssertionError(f"unhandled command {ns.command}")


if __name__ == "__main__":
    sys.exit(main())
