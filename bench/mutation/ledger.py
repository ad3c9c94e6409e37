"""The survivor ledger: mutants that may survive, each with why (survivors.yaml).

A mutant is named by its module and the source line before and after the mutation (stripped),
which stays stable while unrelated lines move. `kind` is `equivalent` (no observable behaviour
changes) or `out-of-spec` (the behaviour changed is one the spec does not state).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

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
    return Key(module, " / ".join(before), " / ".join(after))
