"""The mutation survivor ledger (bench/mutation/survivors.yaml) is exact: one entry, one mutant.

A code-level mutant of the reference that the suite does not kill is a blind spot, unless it
changes nothing observable (equivalent) or changes a behaviour the spec does not state
(out-of-spec); the ledger lists those with the reason, one entry per mutant (module, def,
operator, before / after lines, nth twin), so a reason written for one line never excuses a
twin elsewhere. An entry whose mutant the harness can no longer make is stale and must go; a
run also fails on an entry whose mutant it killed, and on a survivor missing from the ledger.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench.mutation import ledger, plan

ENTRIES = ledger.load()
MODULES = sorted({key.module for key in ENTRIES})


def test_entries_have_a_kind_and_a_reason() -> None:
    for key, entry in ENTRIES.items():
        assert entry.get("kind") in ledger.KINDS, (key, entry.get("kind"))
        assert len(str(entry.get("reason", "")).strip()) >= 30, (key, "reason too short")
        assert key.before != key.after, key


# a reason says why one mutant of one module is harmless; the same words under many modules are
# a reason pasted onto mutants it does not describe. At f32aa5f a rewrite of the ledger gave 442
# entries of ~40 modules (CORS, SigV4, XML, ...) the reason of five --durable-only mutants of
# engine.py; nothing noticed until a later session read one (restored from 6759915).
MODULES_PER_REASON_MAX = 4


def test_no_reason_is_pasted_across_many_modules() -> None:
    modules: dict[str, set[str]] = {}
    for key, entry in ENTRIES.items():
        modules.setdefault(" ".join(str(entry["reason"]).split()), set()).add(key.module)
    wide = {r[:80]: len(m) for r, m in modules.items() if len(m) > MODULES_PER_REASON_MAX}
    assert not wide, f"one reason under more than {MODULES_PER_REASON_MAX} modules: {wide}"


@pytest.mark.parametrize("module", MODULES)
def test_each_entry_names_one_mutant_the_harness_makes(module: str) -> None:
    """Not stale, and one mutant each: every entry of the module resolves to a mutant a
    configured operator makes, and no two entries to the same one."""
    assert (plan.ROOT / module).is_file(), f"{module} is gone"
    cfg = plan.load_config()
    entries = [key for key in ENTRIES if key.module == module]
    found = ledger.resolve(entries, lambda m: plan.mutants(cfg, m), plan.ROOT)
    stale = [key.describe() for key in entries if key not in found]
    assert not stale, "stale ledger entries (update def/operator/nth/lines or drop):\n" + "\n".join(
        stale
    )
    assert len(set(found.values())) == len(entries), "two entries name one mutant"


def test_an_entry_must_name_its_mutant(tmp_path: Path) -> None:
    """The old form (module, before, after) excused every mutant with those lines: refused;
    so are two entries for one mutant."""
    entry = {
        "module": "reference_impl/edge/delivery.py", "before": "if state is None:",
        "after": "if not state is None:", "kind": "out-of-spec", "reason": "x" * 40,
    }  # fmt: skip
    path = tmp_path / "survivors.yaml"
    path.write_text(yaml.safe_dump([entry]), "utf-8")
    with pytest.raises(ledger.LedgerError, match="needs exactly"):
        ledger.load(path)
    full = entry | {"def": "_job", "operator": "AddNot", "nth": 0}
    path.write_text(yaml.safe_dump([full, full]), "utf-8")
    with pytest.raises(ledger.LedgerError, match="two ledger entries name one mutant"):
        ledger.load(path)
    path.write_text(yaml.safe_dump([full]), "utf-8")
    assert list(ledger.load(path)) == [
        ledger.MutantId(
            "reference_impl/edge/delivery.py", "_job", "AddNot", "if state is None:",
            "if not state is None:", 0,
        )
    ]  # fmt: skip


TWINS = """\
def first(state):
    if state is None:
        return 1
    return 2


def second(state):
    if state is None:
        return 3
    if state is None:
        return 4
    return 5
"""


def test_twins_are_told_apart_by_def_and_nth(tmp_path: Path) -> None:
    """The same line in several places makes several mutants with the same before/after: each
    gets its own MutantId (def, then nth in file order), so an entry excuses one of them."""
    (tmp_path / "twins.py").write_text(TWINS, "utf-8")
    cfg = plan.load_config()
    items = plan.mutants(cfg, "twins.py", root=tmp_path)
    ids = ledger.identify("twins.py", items, tmp_path, ledger.wanted_by(["if state is None:"]))
    twins = sorted(m for m in ids.values() if m.operator == "AddNot")
    assert [(m.definition, m.nth) for m in twins] == [("first", 0), ("second", 0), ("second", 1)]
    assert {(m.before, m.after) for m in twins} == {("if state is None:", "if not state is None:")}
    line_of = {job: w.mutations[0].start_pos[0] for job, w in ((w.job_id, w) for w in items)}
    by_id = {mid: job for job, mid in ids.items()}
    assert [line_of[by_id[m]] for m in twins] == [2, 8, 10]


DOTTED = """\
import binascii


def decode(text):
    try:
        return binascii.a2b_base64(text)
    except (binascii.Error, ValueError):
        return None
"""


def test_a_mutant_cosmic_ray_cannot_make_is_skipped(tmp_path: Path) -> None:
    """cosmic-ray's ExceptionReplacer offers the dotted `binascii.Error` of an except tuple but
    fails to make it (AttributeError: a PythonNode has no `value`; the run counts it under
    `harness`). Naming the line's other mutants must not fail on it: that one has no diff, its
    twin that replaces `ValueError` keeps its identity."""
    (tmp_path / "dotted.py").write_text(DOTTED, "utf-8")
    items = plan.mutants(plan.load_config(), "dotted.py", root=tmp_path)
    line = "except (binascii.Error, ValueError):"
    replacers = [w.mutations[0] for w in items]
    replacers = [s for s in replacers if s.operator_name == "core/ExceptionReplacer"]
    assert [s.occurrence for s in replacers] == [0, 1]
    assert ledger.mutant_diff(DOTTED, "core/ExceptionReplacer", 0) is None
    ids = ledger.identify("dotted.py", items, tmp_path, ledger.wanted_by([line]))
    made = sorted(m for m in ids.values() if m.operator == "ExceptionReplacer")
    assert made == [
        ledger.MutantId(
            "dotted.py", "decode", "ExceptionReplacer", line,
            "except (binascii.Error, CosmicRayTestingException):", 0,
        )
    ]  # fmt: skip
