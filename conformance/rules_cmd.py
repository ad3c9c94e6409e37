"""`conformance rules`: list catalog rules, filtered, or the black-box rules no test checks yet."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from conformance.coverage import covered_rule_ids
from conformance.model.catalog import Rule, load_catalog

AREAS = ("logs", "gateway", "storage")
SURFACES = ("s3", "public", "bindings", "mgmt", "rules-api", "logpush", "edge", "jsonrpc")
FORMATS = ("table", "ids", "json")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (the CLI may embed it as a sub-command)."""
    parser = argparse.ArgumentParser(
        prog="conformance rules", description="List the rules of the conformance catalog."
    )
    parser.add_argument("--area", action="append", choices=AREAS, help="repeatable")
    parser.add_argument("--surface", action="append", choices=SURFACES, help="repeatable")
    parser.add_argument("--rule", action="append", metavar="PREFIX", help="id prefix; repeatable")
    parser.add_argument("--as-of", type=_date, metavar="DATE", help="only rules in force then")
    parser.add_argument(
        "--uncovered", action="store_true", help="only black-box rules that no suite test names"
    )
    parser.add_argument("--format", choices=FORMATS, default="table")
    return parser


def _table(rules: Sequence[Rule], out: TextIO) -> None:
    rows = [(r.id, r.level, r.since.isoformat() if r.since else "-", r.title) for r in rules]
    header = ("ID", "LEVEL", "SINCE", "TITLE")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        cells = [row[i].ljust(widths[i]) for i in range(3)]
        out.write("  ".join([*cells, row[3]]) + "\n")
    out.write(f"{len(rows)} rule(s)\n")


def run_rules(argv: list[str], out: TextIO | None = None) -> int:
    """Run `conformance rules ARGV`; returns the exit status."""
    out = out or sys.stdout
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage or the help
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    catalog = load_catalog()
    rules = catalog.select(
        area=args.area, surface=args.surface, prefixes=args.rule, as_of=args.as_of
    )
    covered = covered_rule_ids()
    if args.uncovered:
        rules = [r for r in rules if r.testability == "black-box" and r.id not in covered]
    if args.format == "ids":
        out.writelines(f"{r.id}\n" for r in rules)
    elif args.format == "json":
        records = [{**r.to_dict(), "tests": covered.get(r.id, [])} for r in rules]
        json.dump({"catalog_hash": catalog.hash, "rules": records}, out, indent=2)
        out.write("\n")
    else:
        _table(rules, out)
    return 0
