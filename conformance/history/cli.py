"""`conformance history add|show` and the `--store` step of `conformance run`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_STORE = "conformance-history.sqlite"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("history", help="record runs in a results store; render the history page")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser(
        "add",
        help="record results files of runs made elsewhere",
        description="Each file is recorded in one transaction; a run already in the store is "
        "reported and left as it is.",
    )
    q.add_argument("results", nargs="+", type=Path, metavar="RESULTS")
    q.add_argument("--store", default=DEFAULT_STORE, metavar="URL", help=_STORE_HELP)
    q.add_argument("--night", metavar="DATE", help="night to plot the run at (default: its start)")
    q.add_argument("--target-version", metavar="V", help="the target's version, if not in RESULTS")
    q = actions.add_parser("show", help="write the history page of a target")
    q.add_argument("--target", required=True, metavar="NAME")
    q.add_argument("-o", "--output", type=Path, default=Path("history.html"))
    q.add_argument(
        "--as-of", metavar="DATE",
        help="only runs judged at this as-of date; `current`: runs judged at their own night",
    )  # fmt: skip
    q.add_argument("--store", default=DEFAULT_STORE, metavar="URL", help=_STORE_HELP)


_STORE_HELP = (
    f"SQLite file path, sqlite:///PATH or postgresql://USER@HOST/DB (default: ./{DEFAULT_STORE})"
)


def main(ns: argparse.Namespace) -> int:
    from conformance.history.store import StoreError

    try:
        if ns.action == "add":
            return add(ns.store, ns.results, ns.night, ns.target_version)
        return show(ns.store, ns.target, ns.output, ns.as_of)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def record_doc(store_url: str, doc: dict[str, Any], **options: Any) -> str:
    """Record one results document; the line that says what happened."""
    from conformance.history.store import Store

    with Store(store_url) as store:
        done = store.record(doc, **options)
    run = doc["run"]
    what = "recorded" if done.created else "already recorded, left as it is:"
    return f"{what} run {run['run_id']} of {run['target']} (store run {done.run_pk})"


def add(store_url: str, paths: list[Path], night: str | None, version: str | None) -> int:
    from conformance.report.load import ResultsError, load_results, schema_problems

    code = 0
    for path in paths:
        try:
            doc = load_results(path)
        except ResultsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            code = 2
            continue
        problems = schema_problems(doc)
        if problems:
            print(f"error: {path}: not a valid results file: {problems[0]}", file=sys.stderr)
            code = 2
            continue
        print(f"{path}: " + record_doc(store_url, doc, night=night, target_version=version))
    return code


def show(store_url: str, target: str, out: Path, as_of: str | None = None) -> int:
    from conformance.history.page import write_history
    from conformance.history.store import Store
    from conformance.history.store import store_url as url_of

    url = url_of(store_url)
    if url.get_backend_name() == "sqlite" and url.database and not Path(url.database).exists():
        print(f"error: no results store at {url.database}", file=sys.stderr)
        return 1
    with Store(store_url) as store:
        try:
            page = write_history(store, target, out, as_of)
        except LookupError as exc:
            print(f"error: {exc.args[0]}", file=sys.stderr)
            return 1
    print(f"history: {page}")
    return 0
