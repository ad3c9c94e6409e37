"""Lint of the rule catalog: what the loader accepts is also consistent as a whole."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest

from conformance.model.catalog import (
    PACKAGE,
    Catalog,
    CatalogError,
    Rule,
    load_catalog,
    load_catalog_from,
)

# EDGE_CONFORMANCE_SPEC_DIR points at the spec files from a checkout elsewhere (a worktree)
SPEC_DIR = Path(
    os.environ.get("EDGE_CONFORMANCE_SPEC_DIR")
    or Path(__file__).resolve().parents[1].parent / "shared" / "spec"
)
DECISIONS = SPEC_DIR / "decisions.md"
SPEC_FILES = ("interface-spec.md", "dates.md", "decisions.md")
ID = re.compile(r"^(storage|logs|gateway)(\.[a-z0-9]+(-[a-z0-9]+)*)+$")

# Ids other parts of the project (tests, docs) rely on, with the fields they rely on.
PINNED: dict[str, dict[str, object]] = {
    "storage.create-bucket.location-auto": {"since": dt.date(2022, 5, 3)},
    "storage.create-bucket.location-other-refused": {
        "since": dt.date(2022, 5, 3),
        "decision": "LocationConstraint other than `auto`",
    },
    "storage.head-bucket.region-header": {"since": dt.date(2022, 10, 19)},
    "storage.get-bucket-location.auto": {"since": dt.date(2022, 5, 16)},
    "storage.put-object.round-trip": {"since": None},
    "storage.get-object.range-inclusive": {"since": dt.date(2022, 5, 6)},
    "storage.get-object.range-206": {"since": dt.date(2022, 5, 6)},
    "storage.delete-objects.key-limit": {
        "since": dt.date(2022, 4, 4),
        "limit": "delete-objects-max-keys",
    },
    "storage.auth.signature-mismatch": {},
    "logs.rulesets.list-envelope": {},
    "logs.rulesets.create-envelope": {},
    "logs.rulesets.put-replaces-rules": {},
    "logs.auth.missing-headers-refused": {},
    "gateway.network.sepolia-served": {},
    "gateway.network.sepolia-chain-id": {},
    "gateway.jsonrpc.id-echoed": {},
    "gateway.network.rinkeby-served": {"until": dt.date(2023, 1, 30)},
    "gateway.network.rinkeby-retired": {
        "since": dt.date(2023, 1, 30),
        "replaces": "gateway.network.rinkeby-served",
    },
}

# decisions.md entries no rule needs to name, with the reason.
UNREFERENCED_DECISIONS = {
    "Earlier behaviours that were defects": "a policy for the catalog itself, not a behaviour",
    "OPTIONS without Origin": "scopes a rule to the public entrypoint; nothing to check elsewhere",
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def rules(catalog: Catalog) -> list[Rule]:
    return list(catalog.rules.values())


def test_loads_with_enough_rules(catalog: Catalog) -> None:
    """The packaged catalog loads and is not a stub."""
    assert len(catalog.rules) >= 200
    assert catalog.hash.startswith("sha256:") and len(catalog.hash) == 71


def test_ids_well_formed(catalog: Catalog) -> None:
    """Ids are lowercase, dotted and start with their area."""
    bad = [r.id for r in rules(catalog) if not ID.match(r.id) or r.area != r.id.split(".")[0]]
    assert not bad, bad


def test_pinned_ids_exist(catalog: Catalog) -> None:
    """The ids other parts of the project are written against exist with the expected fields."""
    for rule_id, fields in PINNED.items():
        rule = catalog.get(rule_id)
        for name, value in fields.items():
            assert getattr(rule, name) == value, f"{rule_id}.{name}"


def test_dates_ordered(catalog: Catalog) -> None:
    """since comes before until wherever both are set."""
    bad = [r.id for r in rules(catalog) if r.since and r.until and r.since >= r.until]
    assert not bad, bad


def test_replaces_chains(catalog: Catalog) -> None:
    """A replaced rule ends (until) exactly when its replacement starts (since)."""
    problems = []
    for rule in rules(catalog):
        if rule.replaces is None:
            continue
        old = catalog.get(rule.replaces)
        if rule.since is None or old.until != rule.since:
            problems.append(f"{rule.id} (since {rule.since}) replaces {old.id} (until {old.until})")
        if old.area != rule.area:
            problems.append(f"{rule.id} replaces {old.id} of another area")
    assert not problems, problems


def test_rules_with_until_are_replaced_or_retired(catalog: Catalog) -> None:
    """Every dated-out rule is replaced by some newer rule, so the timeline has no holes."""
    replaced = {r.replaces for r in rules(catalog) if r.replaces}
    orphans = [r.id for r in rules(catalog) if r.until is not None and r.id not in replaced]
    assert not orphans, orphans


def test_limits_consistent(catalog: Catalog) -> None:
    """Every referenced limit exists and every limit is referenced."""
    used = {r.limit for r in rules(catalog) if r.limit}
    assert used <= set(catalog.limits)
    assert set(catalog.limits) - used == set(), "unused limits"


def test_limit_values(catalog: Catalog) -> None:
    """The dated limit of DeleteObjects follows the spec's dates."""
    key = "delete-objects-max-keys"
    assert catalog.limit_at(key, dt.date(2022, 4, 3)) is None
    assert catalog.limit_at(key, dt.date(2022, 4, 4)) == 128
    assert catalog.limit_at(key, dt.date(2022, 6, 30)) == 128
    assert catalog.limits_at(dt.date(2022, 7, 1))[key] == 1000


def test_non_black_box_have_reasons(catalog: Catalog) -> None:
    """A rule that cannot be checked from outside says why."""
    bad = [r.id for r in rules(catalog) if r.testability != "black-box" and not r.reason]
    assert not bad, bad


def test_levels_follow_decisions(catalog: Catalog) -> None:
    """A rule that rests on a decision is SHOULD."""
    bad = [r.id for r in rules(catalog) if r.decision and r.level != "SHOULD"]
    assert not bad, bad


def _decision_headings() -> set[str]:
    if not DECISIONS.is_file():
        pytest.skip(f"{DECISIONS} is absent in this checkout")
    text = DECISIONS.read_text(encoding="utf-8")
    return set(re.findall(r"^- \*\*(.+?)\*\*", text, flags=re.MULTILINE))


def test_decisions_exist(catalog: Catalog) -> None:
    """Every decision a rule names is an entry of decisions.md."""
    headings = _decision_headings()
    unknown = sorted({r.decision for r in rules(catalog) if r.decision} - headings)
    assert not unknown, unknown


def test_decisions_used(catalog: Catalog) -> None:
    """Every entry of decisions.md is named by a rule, or listed here with a reason."""
    used = {r.decision for r in rules(catalog) if r.decision}
    unused = sorted(_decision_headings() - used - set(UNREFERENCED_DECISIONS))
    assert not unused, unused


def _revised_decisions() -> set[str]:
    """Headings of decisions.md entries revised to follow the provider's public facts."""
    if not DECISIONS.is_file():
        pytest.skip(f"{DECISIONS} is absent in this checkout")
    text = DECISIONS.read_text(encoding="utf-8")
    entries = re.split(r"^- (?=\*\*)", text, flags=re.MULTILINE)
    return {
        match.group(1)
        for entry in entries
        if "*revised*" in entry and (match := re.match(r"\*\*(.+?)\*\*", entry))
    }


def _spec_text() -> str:
    if not DECISIONS.is_file():
        pytest.skip(f"{SPEC_DIR} is absent in this checkout")
    return "\n".join((SPEC_DIR / name).read_text(encoding="utf-8") for name in SPEC_FILES)


def test_revised_decision_is_found() -> None:
    """The revised-entry parser finds the entries the 2026-11-25 revision marked."""
    revised = _revised_decisions()
    assert {"Auth errors", "40 fields", "Placeholder operations"} <= revised, revised


def test_sources_where_the_spec_is_silent(catalog: Catalog) -> None:
    """A rule not literally in the spec's files names its public source.

    That is a rule resting on a revised decision (which follows the provider's docs), a rule with
    a date (since, until, compat date) none of the spec's files mentions, and a rule whose
    `spec.source` is absent while its `source` says the claim comes from elsewhere.
    """
    revised = _revised_decisions()
    text = _spec_text()
    missing = []
    for rule in rules(catalog):
        if rule.source is not None:
            continue
        dates = [rule.since, rule.until, (rule.compat or {}).get("date")]
        unknown = [d.isoformat() for d in dates if d is not None and d.isoformat() not in text]
        if rule.decision in revised or unknown:
            missing.append(f"{rule.id} (decision {rule.decision!r}, dates {unknown})")
    assert not missing, missing


def test_sources_are_dated_public_pages(catalog: Catalog) -> None:
    """A source is a docs page or changelog entry with a date no later than today."""
    today = dt.date.today()
    bad = []
    for rule in rules(catalog):
        if rule.source is None:
            continue
        day = dt.date.fromisoformat(str(rule.source["date"]))
        if day > today or rule.source["kind"] not in ("docs", "changelog"):
            bad.append(rule.id)
    assert not bad, bad


def test_in_force_is_half_open(catalog: Catalog) -> None:
    """A rule is in force from its since and no longer on its until."""
    served = catalog.get("gateway.network.rinkeby-served")
    retired = catalog.get("gateway.network.rinkeby-retired")
    day = dt.date(2023, 1, 30)
    assert served.in_force(day - dt.timedelta(days=1)) and not served.in_force(day)
    assert retired.in_force(day) and not retired.in_force(day - dt.timedelta(days=1))


def test_unknown_id_suggests(catalog: Catalog) -> None:
    """A typo in an id names the close matches."""
    with pytest.raises(KeyError, match=r"storage\.get-object\.range-206"):
        catalog.get("storage.get-object.range-260")


def test_select_filters(catalog: Catalog) -> None:
    """select() filters by area, surface, prefix and date."""
    gateway = catalog.select(area="gateway")
    assert gateway and all(r.area == "gateway" for r in gateway)
    rinkeby = catalog.select(prefixes=["gateway.network.rinkeby"], as_of=dt.date(2024, 1, 1))
    assert "gateway.network.rinkeby-served" not in {r.id for r in rinkeby}
    assert all(r.surface == "public" for r in catalog.select(surface="public"))


def _copy(tmp_path: Path) -> Path:
    root = Path(str(resources.files(PACKAGE)))
    dest = tmp_path / "catalog"
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return dest


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("id: storage.put-object.post-accepted\n", "id: storage.put-object.round-trip\n", "dup"),
        ("  until: 2022-07-01\n", "  until: 2022-01-01\n", "not before until"),
        ("  limit: max-parts\n", "  limit: max-partz\n", "unknown limit"),
        ("  replaces: storage.delete-objects.limit-128\n", "  replaces: nope.x\n", "replaces"),
        ("  level: MUST\n", "  level: MUSTN'T\n", "level"),
        ("reason: an internal failure", "reason: null\n  x: an internal", "reason|Additional"),
    ],
)
def test_loader_rejects(tmp_path: Path, old: str, new: str, message: str) -> None:
    """The loader names the file and rule of each kind of problem."""
    root = _copy(tmp_path)
    for path in (root / "rules").glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        if old in text:
            path.write_text(text.replace(old, new, 1), encoding="utf-8")
            break
    else:
        pytest.fail(f"fixture text {old!r} not found")
    with pytest.raises(CatalogError, match=message) as info:
        load_catalog_from(root)
    assert "rules/" in str(info.value)


def test_loader_requires_reason(tmp_path: Path) -> None:
    """A non-black-box rule without a reason is refused."""
    root = _copy(tmp_path)
    path = root / "rules" / "gateway.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        "reason: an internal failure cannot be provoked from outside", "reason: null"
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match="needs a reason"):
        load_catalog_from(root)


def test_rules_command_lists_ids(capsys: pytest.CaptureFixture[str]) -> None:
    """`conformance rules --format ids` prints one in-force id a line and exits 0."""
    from conformance.rules_cmd import run_rules

    assert run_rules(["--area", "gateway", "--as-of", "2024-01-01", "--format", "ids"]) == 0
    ids = capsys.readouterr().out.split()
    assert "gateway.network.sepolia-served" in ids
    assert "gateway.network.rinkeby-served" not in ids
    assert run_rules(["--as-of", "not-a-date"]) == 2


def test_uncovered_are_black_box_without_tests(capsys: pytest.CaptureFixture[str]) -> None:
    """`--uncovered` lists exactly the black-box rules that no suite test names."""
    from conformance.coverage import covered_rule_ids
    from conformance.rules_cmd import run_rules

    assert run_rules(["--uncovered", "--format", "ids"]) == 0
    listed = set(capsys.readouterr().out.split())
    covered = covered_rule_ids()
    expected = {r.id for r in load_catalog().rules.values() if r.testability == "black-box"} - set(
        covered
    )
    assert listed == expected
    unknown = set(covered) - set(load_catalog().rules)
    assert not unknown, f"suite names rules the catalog lacks: {sorted(unknown)}"
