"""The survivor ledger: one entry per mutant that may survive, with why (survivors.yaml).

An entry names exactly one mutant: its module, the function it sits in (`def`, cosmic-ray's
definition name), the operator, the source lines before and after the mutation (stripped,
" / "-joined) and `nth`, the mutant's place among the module's mutants that share all of these
(0 for the first in the file). That stays stable while unrelated lines move, and a reason
written for one line never excuses a twin elsewhere. `kind` is `equivalent` (no observable
behaviour changes) or `out-of-spec` (the behaviour changed is one the spec does not state).
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cosmic_ray.plugins
import yaml
from cosmic_ray.mutating import mutate_code
from cosmic_ray.work_item import WorkItem

LEDGER = Path(__file__).with_name("survivors.yaml")
KINDS = ("equivalent", "out-of-spec")
FIELDS = ("module", "def", "operator", "nth", "before", "after", "kind", "reason")


@dataclass(frozen=True, order=True)
class MutantId:
    module: str
    definition: str
    operator: str  # short name, without "core/"
    before: str
    after: str
    nth: int = 0

    def describe(self) -> str:
        return f"{self.module} {self.definition or '<module>'} {self.operator} #{self.nth}: " + (
            f"{self.before!r} -> {self.after!r}"
        )


def short(operator_name: str) -> str:
    return operator_name.removeprefix("core/")


class LedgerError(ValueError):
    """survivors.yaml has an entry that does not name one mutant."""


def load(path: Path = LEDGER) -> dict[MutantId, dict[str, Any]]:
    data: list[dict[str, Any]] = yaml.safe_load(path.read_text("utf-8")) or []
    out: dict[MutantId, dict[str, Any]] = {}
    for entry in data:
        missing = [f for f in FIELDS if f not in entry]
        if missing or set(entry) - set(FIELDS):
            raise LedgerError(f"ledger entry needs exactly {FIELDS}: {entry}")
        key = MutantId(
            str(entry["module"]), str(entry["def"] or ""), str(entry["operator"]),
            str(entry["before"]).strip(), str(entry["after"]).strip(), int(entry["nth"]),
        )  # fmt: skip
        if key in out:
            raise LedgerError(f"two ledger entries name one mutant: {key.describe()}")
        out[key] = entry
    return out


def changed_lines(diff: str) -> tuple[str, str]:
    """The (before, after) lines of a unified diff, stripped and " / "-joined."""
    lines = diff.splitlines()
    before = [ln[1:].strip() for ln in lines if ln.startswith("-") and not ln.startswith("---")]
    after = [ln[1:].strip() for ln in lines if ln.startswith("+") and not ln.startswith("+++")]
    return " / ".join(before).strip(), " / ".join(after).strip()


def mutated_source(source: str, operator_name: str, occurrence: int) -> str | None:
    """`source` as one mutant makes it (None when the operator makes none).

    None too for a mutant cosmic-ray offers but cannot make: its ExceptionReplacer fails on a
    dotted name inside an except tuple (`except (binascii.Error, ValueError)`: AttributeError,
    a parso PythonNode has no `value`). A run counts that mutant under `harness`.
    """
    operator = cosmic_ray.plugins.get_operator(operator_name)()
    try:
        mutated: str | None = mutate_code(source, operator, occurrence)
    except AttributeError:
        return None
    return mutated


def mutant_diff(source: str, operator_name: str, occurrence: int) -> str | None:
    """The unified diff one mutant makes of `source`; None for no mutant (mutated_source): it
    has no diff, so no ledger identity, and naming its twins on the line must not fail on it."""
    mutated = mutated_source(source, operator_name, occurrence)
    if mutated is None:
        return None
    return "\n".join(difflib.unified_diff(source.split("\n"), mutated.split("\n"), lineterm=""))


def identify(
    module: str, items: Sequence[WorkItem], root: Path, wanted: Callable[[str], bool]
) -> dict[str, MutantId]:
    """job id -> MutantId of the module's mutants whose first line's text is `wanted`.

    `items` must be all the module's mutants (plan.mutants), so that `nth` counts every twin;
    `wanted` sees the stripped source line a mutant starts on and only saves the cost of
    making the others (twins share that line's text, so they are kept or skipped together).
    """
    source = (root / module).read_text("utf-8")
    lines = source.split("\n")
    seen: Counter[tuple[str, str, str, str]] = Counter()
    found: dict[str, MutantId] = {}
    ordered = sorted(items, key=lambda w: (w.mutations[0].operator_name, w.mutations[0].occurrence))
    for item in ordered:
        spec = item.mutations[0]
        if not wanted(lines[spec.start_pos[0] - 1].strip()):
            continue
        diff = mutant_diff(source, spec.operator_name, spec.occurrence)
        if diff is None:
            continue
        before, after = changed_lines(diff)
        base = (spec.definition_name or "", short(spec.operator_name), before, after)
        found[item.job_id] = MutantId(module, *base, nth=seen[base])
        seen[base] += 1
    return found


def wanted_by(befores: Iterable[str]) -> Callable[[str], bool]:
    """A line filter for `identify`: the line is part of one of these `before` texts."""
    texts = [b for b in befores if b]
    return lambda line: bool(line) and any(line in text for text in texts)


def resolve(
    entries: Iterable[MutantId], items_of: Callable[[str], Sequence[WorkItem]], root: Path
) -> dict[MutantId, str]:
    """entry -> job id of the mutant it names, for the entries the harness still makes."""
    by_module: dict[str, list[MutantId]] = defaultdict(list)
    for entry in entries:
        by_module[entry.module].append(entry)
    found: dict[MutantId, str] = {}
    for module, wanted in by_module.items():
        if not (root / module).is_file():
            continue
        ids = identify(module, items_of(module), root, wanted_by(e.before for e in wanted))
        by_id = {mid: job for job, mid in ids.items()}
        found.update({e: by_id[e] for e in wanted if e in by_id})
    return found


def stub(mid: MutantId) -> str:
    """The survivors.yaml entry to paste for a survivor, reason to be written."""
    data = [
        {"module": mid.module, "def": mid.definition, "operator": mid.operator, "nth": mid.nth,
         "before": mid.before, "after": mid.after, "kind": "equivalent | out-of-spec",
         "reason": "..."},
    ]  # fmt: skip
    return yaml.safe_dump(data, sort_keys=False, width=100, allow_unicode=True).rstrip()
