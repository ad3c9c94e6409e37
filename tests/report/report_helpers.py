"""Helpers of the report tests: the sample results files, runs and shards built from them as
`conformance run` leaves them, and an HTML nesting check."""

from __future__ import annotations

import copy
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from conformance import results
from conformance.cli_run import agree, run_exit_code
from conformance.report.merge import merge_run

RESULTS = Path(__file__).resolve().parents[2] / "fixtures" / "results"
VOID = {"meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr", "source",
        "line", "circle", "path", "rect"}  # fmt: skip


class NestingChecker(HTMLParser):
    """Fails on a closing tag that does not close the innermost open element."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def well_formed_problems(html: str) -> list[str]:
    checker = NestingChecker()
    checker.feed(html)
    checker.close()
    problems = list(checker.errors)
    if checker.stack:
        problems.append(f"unclosed: {checker.stack}")
    if not checker.doctype:
        problems.append("no <!DOCTYPE html>")
    return problems


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    return doc


def with_status(doc: dict[str, Any], rule_id: str, status: str) -> dict[str, Any]:
    """A copy of `doc` in which one rule (and its cases) has `status`."""
    doc = copy.deepcopy(doc)
    for rule in doc["rules"]:
        if rule["id"] == rule_id:
            rule["status"] = status
    for case in doc["cases"]:
        if case["rule_id"] == rule_id:
            case["status"] = status
            case["message"] = None if status == "PASS" else f"{status} made by the test"
    return doc


def as_run(doc: dict[str, Any], pytest_rc: int | None = None, label: str = "run") -> dict[str, Any]:
    """`doc` as `conformance run` leaves it: rolled up (a merge of one, named `label`), then its
    exit status made to agree with pytest's `pytest_rc` (by default 1 when a case failed)."""
    ran = merge_run([doc], [label], doc["run"]["run_id"])
    if pytest_rc is None:
        pytest_rc = int(any(c["status"] in results.EXIT_FAILING for c in ran["cases"]))
    code, reasons = run_exit_code(ran, pytest_rc)
    agree(ran, code, reasons, pytest_rc)
    return ran


def shard_of(doc: dict[str, Any], rule_ids: set[str]) -> dict[str, Any]:
    """A copy of `doc` holding only the rules `rule_ids` and their cases (one shard's part)."""
    shard = copy.deepcopy(doc)
    shard["rules"] = [r for r in doc["rules"] if r["id"] in rule_ids]
    shard["cases"] = [c for c in doc["cases"] if c["rule_id"] in rule_ids]
    return shard
