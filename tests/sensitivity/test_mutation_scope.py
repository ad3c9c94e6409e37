"""The full run's scope is stated, not implied: every module of reference_impl/ is mutated
(a `modules` glob of bench/mutation/selection.yaml matches it) or listed under `not_mutated`
with its reason, never both. Until 2026-11-29 a module no glob matched was silently left out:
the 22 modules directly under reference_impl/ but profile.py (numbers, JSON bodies, the Host
check, ...), which a mutant set made outside the project does mutate."""

from __future__ import annotations

import fnmatch

from bench.mutation import plan


def _reference_modules() -> list[str]:
    root = plan.ROOT / "reference_impl"
    return sorted(
        p.relative_to(plan.ROOT).as_posix()
        for p in root.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def test_every_module_is_mutated_or_left_out_with_a_reason() -> None:
    cfg = plan.load_config()
    unstated, both = [], []
    for module in _reference_modules():
        listed = [g for g, _ in cfg.not_mutated if fnmatch.fnmatch(module, g)]
        mutated = cfg.selection(module) is not None
        if mutated and listed:
            both.append(module)
        elif not mutated and not listed:
            unstated.append(module)
    assert not unstated, f"neither mutated nor listed under not_mutated: {unstated}"
    assert not both, f"mutated and also listed under not_mutated: {both}"


def test_each_left_out_glob_names_a_module_and_gives_a_reason() -> None:
    cfg = plan.load_config()
    modules = _reference_modules()
    for glob, reason in cfg.not_mutated:
        matched = any(fnmatch.fnmatch(m, glob) for m in modules)
        assert matched, f"not_mutated: {glob} matches nothing"
        assert len(reason.split()) >= 5, f"not_mutated: {glob} needs a reason"
