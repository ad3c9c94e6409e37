"""Which mutants to make and which part of the suite judges each (selection.yaml).

Mutants come from cosmic-ray's operators, limited to the ones an implementer's slip looks like;
job ids are derived from (module, operator, occurrence) so a session can be resumed and a fixed
seed draws the same sample on every machine.
"""

from __future__ import annotations

import fnmatch
import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cosmic_ray.plugins
import yaml
from cosmic_ray.ast import ast_nodes, get_ast_from_path
from cosmic_ray.ast.ast_query import ASTQuery
from cosmic_ray.work_item import MutationSpec, WorkItem

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


@dataclass(frozen=True)
class Selection:
    """The suite subset one module's mutants are run against."""

    areas: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    as_of: tuple[str, ...] = ("today",)
    moto: bool = False  # launch the reference with a loopback moto server as migration source

    def args(self) -> list[str]:
        out: list[str] = ["--moto"] if self.moto else []
        for area in self.areas:
            out += ["--area", area]
        for rule in self.rules:
            out += ["--rule", rule]
        for day in self.as_of:
            out += ["--as-of", day]
        return out


@dataclass
class Config:
    entries: list[tuple[str, Selection]] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    skip: list[tuple[str, set[str]]] = field(default_factory=list)
    areas: list[tuple[str, str]] = field(default_factory=list)  # module glob -> area name
    not_mutated: list[tuple[str, str]] = field(default_factory=list)  # module glob -> reason

    def area_of(self, module: str) -> str:
        """The area a module's scores count under: the first `areas` glob it matches, else the
        reference's package it sits in (`reference_impl/s3/x.py` -> `s3`; `core` for the modules
        directly under reference_impl/)."""
        for glob, name in self.areas:
            if fnmatch.fnmatch(module, glob):
                return name
        parts = Path(module).parts
        return parts[1] if len(parts) > 2 else "core"

    def skipped(self, module: str, definition: str | None) -> bool:
        return any(fnmatch.fnmatch(module, g) and definition in d for g, d in self.skip)

    def selection(self, module: str) -> Selection | None:
        for glob, sel in self.entries:
            if fnmatch.fnmatch(module, glob):
                return sel
        return None


def load_config(path: Path = HERE / "selection.yaml") -> Config:
    """A selection file; operators, skips and areas not in it come from selection.yaml."""
    base: dict[str, Any] = yaml.safe_load((HERE / "selection.yaml").read_text("utf-8"))
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    cfg = Config(operators=list(data.get("operators", base["operators"])))
    skips = data.get("skip", base.get("skip", []))
    cfg.skip = [(item["glob"], set(item["defs"])) for item in skips]
    areas = data.get("areas", base.get("areas", []))
    cfg.areas = [(item["glob"], str(item["area"])) for item in areas]
    left_out = data.get("not_mutated", base.get("not_mutated", []))
    cfg.not_mutated = [(item["glob"], str(item["reason"])) for item in left_out]
    for item in data["modules"]:
        sel = Selection(
            areas=tuple(item.get("area", ())),
            rules=tuple(item.get("rule", ())),
            as_of=tuple(str(d) for d in item.get("as_of", ["today"])),
            moto=bool(item.get("moto", False)),
        )
        cfg.entries.append((item["glob"], sel))
    return cfg


def modules(cfg: Config, patterns: list[str]) -> list[str]:
    """Reference modules (repo-relative) that a selection covers and match `patterns`."""
    found = []
    for path in sorted((ROOT / "reference_impl").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if cfg.selection(rel) is None:
            continue
        if patterns and not any(fnmatch.fnmatch(rel, p) or p in rel for p in patterns):
            continue
        found.append(rel)
    return found


def job_id(module: str, operator: str, occurrence: int) -> str:
    return hashlib.sha1(f"{module}|{operator}|{occurrence}".encode()).hexdigest()[:16]


def mutants(cfg: Config, module: str, root: Path = ROOT) -> list[WorkItem]:
    """Every allowed mutant of one module (`module` relative to `root`, the repo root)."""
    tree = get_ast_from_path(root / module)
    nodes = list(ast_nodes(tree))
    items = []
    for short in cfg.operators:
        name = f"core/{short}"
        operator = cosmic_ray.plugins.get_operator(name)()
        positions = [(n, s, e) for n in nodes for s, e in operator.mutation_positions(n)]
        for occurrence, (node, start, end) in enumerate(positions):
            definition = ASTQuery(node).get_definition_name()
            if cfg.skipped(module, definition):
                continue
            spec = MutationSpec(
                module_path=module,
                operator_name=name,
                operator_args={},
                occurrence=occurrence,
                start_pos=start,
                end_pos=end,
                definition_name=definition,
            )
            items.append(WorkItem.single(job_id(module, name, occurrence), spec))
    return items


def sample(items: list[WorkItem], count: int | None, seed: int) -> list[WorkItem]:
    """A fixed-seed sample of `count` items (all of them when count is None)."""
    if count is None or count >= len(items):
        return items
    chosen = random.Random(seed).sample(items, count)
    return sorted(chosen, key=lambda w: (w.mutations[0].start_pos, w.job_id))
