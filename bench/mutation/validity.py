"""A mutant that is not valid Python is no mutant: mark it `harness`, never run it.

cosmic-ray's operators work on the syntax tree without asking whether the result compiles:
`ReplaceBinaryOperator_Mul_Add` turns the keyword-only marker of `def f(a, *, b)` into
`def f(a, +, b)`, and `AddNot` puts a `not` in front of a walrus target. No implementer can
ship such code, and running it only shows a reference that cannot import its module (an
`other exit` that counted against the area's score as if the suite had missed a defect).
"""

from __future__ import annotations

from pathlib import Path

from cosmic_ray.work_item import WorkerOutcome, WorkItem, WorkResult

from bench.mutation.ledger import mutated_source
from bench.mutation.verdict import MODULE_MARKER

NOT_PYTHON = "not valid Python, so not a mutant (never run): "


def syntax_error(item: WorkItem, root: Path) -> str | None:
    """Why the mutated module does not compile, or None when it does (or cosmic-ray cannot
    make the mutant at all: its own run then records that as its exception)."""
    spec = item.mutations[0]
    source = (root / spec.module_path).read_text(encoding="utf-8")
    mutated = mutated_source(source, spec.operator_name, spec.occurrence)
    if mutated is None:
        return None
    try:
        compile(mutated, str(spec.module_path), "exec")
    except SyntaxError as exc:
        return f"{exc.msg} (line {exc.lineno})"
    return None


def not_python_result(reason: str, module_sha256: str) -> WorkResult:
    """The stored result of a mutant that does not compile: counted under `harness`. It names
    the unmutated module's sha256 like every run result, so a merge refuses to join it with
    runs of other module bytes (where its job id may name another mutant)."""
    output = f"{NOT_PYTHON}{reason}\n{MODULE_MARKER}{module_sha256}"
    return WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=output)
