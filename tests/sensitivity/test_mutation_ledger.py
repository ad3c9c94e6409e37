"""The mutation survivor ledger (bench/mutation/survivors.yaml) is exact.

A code-level mutant of the reference that the suite does not kill is a blind spot, unless it
changes nothing observable (equivalent) or changes a behaviour the spec does not state
(out-of-spec); the ledger lists those with the reason. An entry whose mutant the harness can no
longer make (the line changed or went away) is stale and must go; a survivor missing from the
ledger fails the harness run and the CI sample (test_mutation_sample.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.mutation import ledger, plan

ENTRIES = ledger.load()


def test_entries_have_a_kind_and_a_reason() -> None:
    for key, entry in ENTRIES.items():
        assert entry.get("kind") in ledger.KINDS, (key, entry.get("kind"))
        assert len(str(entry.get("reason", "")).strip()) >= 30, (key, "reason too short")
        assert key.before != key.after, key


@pytest.mark.parametrize("key", list(ENTRIES), ids=lambda k: f"{k.module}:{k.before[:40]}")
def test_entry_is_a_mutant_the_harness_makes(key: ledger.Key) -> None:
    """Not stale: the module still has the line and a configured operator makes the mutant."""
    assert (plan.ROOT / key.module).is_file(), f"{key.module} is gone"
    operators = plan.load_config().operators
    assert ledger.generable(key, operators, plan.ROOT), f"stale ledger entry: {key}"


def test_ledger_file_is_sorted_and_unique() -> None:
    import yaml

    raw = yaml.safe_load(Path(ledger.LEDGER).read_text("utf-8")) or []
    keys = [(e["module"], e["before"].strip(), e["after"].strip()) for e in raw]
    assert len(keys) == len(set(keys)), "duplicate ledger entries"
