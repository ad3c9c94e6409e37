"""A mutant that is not valid Python is no mutant: mark it `harness`, never run it.

cosmic-ray's operators work on the syntax tree without asking whether the result compiles:
`ReplaceBinaryOperator_Mul_Add` turns the keyword-only marker of `def f(a, *, b)` into
`def f(a, +, b)`, and `AddNot` puts a `not` in front of a walrus target. No implementer can
ship such code, and running it only shows a reference that cannot import its module (an
`other exit` that counted against the area's score as if the suite had missed a defect).
"""

from __future__ import annotations

from pathlib import Path

import cosmic_ray.plugins
from cosmic_ray.mutating import mutate_code
from cosmic_ray.work_item import WorkerOutcome, WorkItem, WorkResult

NOT_PYTHON = "not valid Python, so not a mutant (never run): "


def syntax_error(item: WorkItem, root: Path) -> str | None:
    """Why the mutated module does not compile, or None when it does (or cosmic-ray cannot
    make the mutant at all: its own run then records that as its exception)."""
    spec = item.mutations[0]
    path = root / spec.module_path
    operator_class = cosmic_ray.plugins.get_operator(spec.operator_name)
    try:
        operator = operator_class(**(getattr(spec, "operator_args", None) or {}))
        mutated = mutate_code(path.read_text(encoding="utf-8"), operator, spec.occurrence)
    except Exception:  # cosmic-ray's own failure, recorded when it runs
        return None
    if mutated is None:
        return None
    try:
        compile(mutated, str(spec.module_path), "exec")
    except SyntaxError as exc:
        return f"{exc.msg} (line {exc.lineno})"
    return None


def not_python_result(reason: str) -> WorkResult:
    """The stored result of a mutant that does not compile: counted under `harness`."""
    return WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=NOT_PYTHON + reason)
