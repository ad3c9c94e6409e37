"""The survivor ledger: mutants that may survive, each with why (survivors.yaml).

A mutant is named by its module and the source line before and after the mutation (stripped),
which stays stable while unrelated lines move. `kind` is `equivalent` (no observable behaviour
changes) or `out-of-spec` (the behaviour changed is one the spec does not state).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cosmic_ray.plugins
import yaml
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code

LEDGER = Path(__file__).with_name("survivors.yaml")
KINDS = ("equivalent", "out-of-spec")


@dataclass(frozen=True)
class Key:
    module: str
    before: str
    after: str


def load(path: Path = LEDGER) -> dict[Key, dict[str, Any]]:
    data: list[dict[str, Any]] = yaml.safe_load(path.read_text("utf-8")) or []
    return {Key(e["module"], e["before"].strip(), e["after"].strip()): e for e in data}


def key_of(module: str, diff: str) -> Key:
    """The (before, after) lines of a one-line unified diff."""
    lines = diff.splitlines()
    before = [ln[1:].strip() for ln in lines if ln.startswith("-") and not ln.startswith("---")]
    after = [ln[1:].strip() for ln in lines if ln.startswith("+") and not ln.startswith("+++")]
    return Key(module, " / ".join(before).strip(), " / ".join(after).strip())


def generable(key: Key, operators: list[str], root: Path) -> bool:
    """Does one of the harness's mutants of `key.module` make exactly this before/after?"""
    source = (root / key.module).read_text("utf-8")
    lines = source.splitlines()
    nodes = list(ast_nodes(get_ast(source)))
    for short in operators:
        operator = cosmic_ray.plugins.get_operator(f"core/{short}")()
        positions = [s for n in nodes for s, _ in operator.mutation_positions(n)]
        for occurrence, (line, _col) in enumerate(positions):
            near = [t.strip() for t in lines[max(line - 3, 0) : line + 2] if t.strip()]
            if not any(t in key.before for t in near):
                continue
            mutated = mutate_code(source, operator, occurrence)
            if mutated is None:
                continue
            diff = "\n".join(difflib.unified_diff(lines, mutated.splitlines(), lineterm=""))
            if key_of(key.module, diff) == key:
                return True
    return False
