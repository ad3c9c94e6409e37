"""Which rules' tests executed each reference line: a mutant runs only those rules.

The coverage baseline (executed.py) runs with EC_MUTCTX_DIR set: the sitecustomize below makes
each Python process of the run switch its coverage context on SIGUSR1, and the suite's pytest
loads bench/mutation/context_plugin.py, which gives each test's window (setup, call, teardown)
the context `DAY|node id` in every process, the reference subprocess included. What runs outside
a test's own window (the reference's start, fixtures wider than a function, what runs after the
last test) is recorded under no test: a line with such a context needs the whole selection.
So does a line run when its module is imported (module level, a class body, a def line with its
defaults and decorators: outside every function body): it runs once per process, in whichever
window first imports the module (a lazy import inside a function), and what it makes (a
constant, a default) serves every later test.

Kept beside the baseline (`baseline-*.contexts.json`): per module and physical line, a plan,
per as-of date, of the rules whose tests executed it there (or "the whole selection"; a date
missing from a plan did not execute the line). A mutant's plan is the union over its lines;
a line that is not a statement to coverage needs the whole selection. The plan is sound as far
as a test observes only what the reference did during its own window: the suite's tests make
their own buckets and objects, and what a shared fixture makes is recorded as shared.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cosmic_ray.work_item import WorkItem

from bench.mutation.context_plugin import DIR_ENV, SHARED

# one sitecustomize for every process of the coverage baseline (executed.coverage_env)
SITECUSTOMIZE = f"""\
import os
import coverage

coverage.process_startup()
_DIR = os.environ.get({DIR_ENV!r})
if _DIR:
    import signal

    def _ec_switch(signum, frame):
        cov = coverage.Coverage.current()
        try:
            with open(os.path.join(_DIR, "context"), encoding="utf-8") as fh:
                seq, _, context = fh.read().partition("\\n")
        except OSError:
            return
        if cov is not None:
            cov.switch_context(context)
        ack = os.path.join(_DIR, "ack", str(os.getpid()))
        with open(ack + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(seq)
        os.replace(ack + ".tmp", ack)

    signal.signal(signal.SIGUSR1, _ec_switch)
    open(os.path.join(_DIR, "pids", str(os.getpid())), "w").close()
"""

WHOLE = None  # a date's plan entry: the whole selection
Plan = dict[str, list[str] | None]  # as-of date -> rule ids, or WHOLE


def prepare(workdir: Path) -> None:
    for sub in ("pids", "ack"):
        (workdir / sub).mkdir(exist_ok=True)


def _rules_of(workdir: Path) -> dict[str, dict[str, list[str]]]:
    """Per date, node id -> rule ids, as the plugin wrote them."""
    return {
        path.name[len("rules-") : -len(".json")]: json.loads(path.read_text("utf-8"))
        for path in workdir.glob("rules-*.json")
    }


def _plan_of(contexts: list[str], rules: Mapping[str, Mapping[str, list[str]]]) -> Plan:
    plan: dict[str, set[str] | None] = {}
    for context in contexts:
        day, _, nodeid = context.partition("|")
        if not context or nodeid == SHARED or day not in rules or nodeid not in rules[day]:
            if day not in rules:  # the reference's start (no context): every date
                return dict.fromkeys(rules, WHOLE)
            plan[day] = WHOLE
            continue
        found = rules[day][nodeid]
        if not found:  # a test of no rule: nothing could name what it saw
            plan[day] = WHOLE
        elif day not in plan or plan[day] is not None:
            plan[day] = (plan.get(day) or set()) | set(found)
    return {day: (sorted(r) if r is not None else WHOLE) for day, r in sorted(plan.items())}


# decorators whose function body runs once per distinct argument and serves every later call
MEMOIZING = frozenset({"cache", "lru_cache", "cached_property"})


def _memoized(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name in MEMOIZING:
            return True
    return False


def function_body_lines(source: str) -> frozenset[int]:
    """Physical lines inside a function's body (run per call); every other line of the module
    runs at its import, once per process. A memoized function's body (@cache, @lru_cache) is
    not per call either: it runs in the first test that asks, and its result serves every later
    one (xmlio's Jinja environment, built once, escapes every template), so like an import-time
    line it needs the whole selection. A line belongs to its innermost function."""
    innermost: dict[int, tuple[int, bool]] = {}  # line -> (its function's first line, memoized)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            end = node.end_lineno or node.body[-1].lineno
            for line in range(node.body[0].lineno, end + 1):
                if line not in innermost or innermost[line][0] < node.lineno:
                    innermost[line] = (node.lineno, _memoized(node))
    return frozenset(line for line, (_, memo) in innermost.items() if not memo)


def lines_by_context(workdir: Path, root: Path) -> dict[str, Any] | None:
    """Per module, physical line -> index into `plans`; None when the switches were not all
    acknowledged (a window may be misattributed: no plan is used, every mutant runs whole)."""
    import coverage
    from coverage.parser import PythonParser

    if (workdir / "failed").exists():
        return None
    rules = _rules_of(workdir)
    if not rules:
        return None
    cov = coverage.Coverage(
        data_file=str(workdir / "data" / ".coverage"), config_file=str(workdir / "coveragerc")
    )
    cov.load()
    data = cov.get_data()
    plans: list[Plan] = []
    index: dict[str, int] = {}
    modules: dict[str, dict[int, int]] = {}
    for path in sorted((root / "reference_impl").rglob("*.py")):
        by_line = data.contexts_by_lineno(str(path))
        if not by_line:
            continue
        parser = PythonParser(filename=str(path))
        parser.parse_source()
        source = path.read_text("utf-8")
        per_call = function_body_lines(source)
        found: dict[int, int] = {}
        for n in range(1, len(source.splitlines()) + 1):
            contexts = by_line.get(parser.first_line(n))
            if not contexts:
                continue
            at_import = parser.first_line(n) not in per_call
            plan = dict.fromkeys(rules, WHOLE) if at_import else _plan_of(sorted(contexts), rules)
            key = json.dumps(plan, sort_keys=True)
            found[n] = index.setdefault(key, len(plans))
            if found[n] == len(plans):
                plans.append(plan)
        modules[path.relative_to(root).as_posix()] = found
    return {"days": sorted(rules), "plans": plans, "modules": modules}


def write(target: Path, doc: Mapping[str, Any] | None) -> None:
    target.write_text(json.dumps(doc if doc is not None else {"unusable": True}), "utf-8")


class Plans:
    """A baseline's per-line plans, read back."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.usable = not doc.get("unusable")
        self.days: list[str] = list(doc.get("days", []))
        self.plans: list[Plan] = list(doc.get("plans", []))
        self.modules = {m: {int(k): v for k, v in lines.items()} for m, lines in
                        doc.get("modules", {}).items()}  # fmt: skip

    @classmethod
    def load(cls, path: Path) -> Plans:
        return cls(json.loads(path.read_text("utf-8")))

    def of(self, item: WorkItem, unexecuted: Mapping[str, frozenset[int]]) -> Plan | None:
        """The mutant's plan: per date, the rules to run, or WHOLE; a date it lacks executed
        none of its lines. None (the whole selection on every date) when the record is
        unusable or nothing is known of a line it touches."""
        if not self.usable:
            return None
        spec = item.mutations[0]
        module = Path(spec.module_path).as_posix()
        lines = self.modules.get(module, {})
        never = unexecuted.get(module, frozenset())
        merged: dict[str, set[str] | None] = {}
        first, last = spec.start_pos[0], max(spec.end_pos[0], spec.start_pos[0])
        for n in range(first, last + 1):
            if n not in lines:
                if n in never:
                    continue
                return None  # not a statement to coverage: who executes it is not known
            for day, rules in self.plans[lines[n]].items():
                if rules is None or merged.get(day, set()) is None:
                    merged[day] = None
                else:
                    merged[day] = (merged.get(day) or set()) | set(rules)
        return {day: (sorted(r) if r is not None else WHOLE) for day, r in sorted(merged.items())}
