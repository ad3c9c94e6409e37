"""Known failures of a target: `expectations/<target>.yaml`, read by the plugin, written by
`conformance expectations update`.

A target's known failures live in data, next to a link to where they are tracked, so that test
code never names an implementation and a fixed bug shows up as an unexpected pass (XPASS).
```yaml
storage.delete-objects.key-limit:
  status: FAIL            # FAIL (default) or ERROR
  link: https://tracker.example/123
  reason: refuses 1000 keys with 400 instead of accepting them
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance import yaml_data
from conformance.results import FAIL, FIXED, STILL_FAILING, XFAIL, Status

EXPECTABLE = (Status.FAIL.value, Status.ERROR.value)  # the statuses an entry may expect
KEYS = frozenset({"status", "link", "reason"})


class ExpectationsError(ValueError):
    """An expectations file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class Expectation:
    rule_id: str
    status: str = FAIL.value
    link: str | None = None
    reason: str | None = None

    def describe(self) -> str:
        """The xfail reason, which becomes the case message: why, and where it is tracked."""
        text = f"expected {self.status}"
        if self.reason:
            text += f": {self.reason}"
        return f"{text} ({self.link})" if self.link else text

    def as_yaml(self) -> dict[str, Any]:
        return {"status": self.status, "link": self.link, "reason": self.reason}


def default_path(target: str, directory: Path | None = None) -> Path:
    return (directory or Path.cwd()) / "expectations" / f"{target}.yaml"


def parse(data: Any, source: str) -> dict[str, Expectation]:
    """Entries of a loaded YAML document; every mistake is an error naming the entry."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ExpectationsError(f"{source}: expected a mapping of rule id -> entry")
    found: dict[str, Expectation] = {}
    for rule_id, entry in data.items():
        where = f"{source}: {rule_id!r}"
        body = {} if entry is None else entry
        if not isinstance(rule_id, str) or not isinstance(body, Mapping):
            raise ExpectationsError(f"{where}: expected `rule.id: {{status, link, reason}}`")
        unknown = set(body) - KEYS
        if unknown:
            raise ExpectationsError(f"{where}: unknown keys {sorted(unknown)}; allowed: "
                                    f"{sorted(KEYS)}")  # fmt: skip
        status = str(body.get("status") or FAIL).upper()
        if status not in EXPECTABLE:
            raise ExpectationsError(f"{where}: status {status!r}; expected FAIL or ERROR")
        link, reason = body.get("link"), body.get("reason")
        for name, value in (("link", link), ("reason", reason)):
            if value is not None and not isinstance(value, str):
                raise ExpectationsError(f"{where}: {name} must be a string")
        found[rule_id] = Expectation(rule_id, status, link, reason)
    return found


def load(path: Path) -> dict[str, Expectation]:
    try:
        data = yaml_data.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExpectationsError(f"{path}: cannot read ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise ExpectationsError(f"{path}: not valid YAML ({exc})") from exc
    return parse(data, str(path))


def dump(expectations: Mapping[str, Expectation], target: str) -> str:
    header = (
        f"# Known failures of target {target!r}: rule id -> status, link, reason.\n"
        "# Each becomes a strict xfail; a rule that starts passing fails the run (XPASS).\n"
        "# Written by `conformance expectations update`; links and reasons are kept.\n"
    )
    body = {rid: expectations[rid].as_yaml() for rid in sorted(expectations)}
    return header + (yaml.safe_dump(body, sort_keys=False, allow_unicode=True) if body else "{}\n")


@dataclass(frozen=True)
class Update:
    expectations: dict[str, Expectation]
    added: list[str]
    removed: list[str]
    kept: list[str]
    must_left_out: list[str] = field(default_factory=list)  # failing MUST rules not added
    # entries that read fixed in a run with problems (stopped by -x, interrupted): kept
    held: list[str] = field(default_factory=list)


def update(
    existing: Mapping[str, Expectation], doc: Mapping[str, Any], *, must: bool = False
) -> Update:
    """Expectations after a run: failing rules added or kept, fixed ones dropped (a rule is
    fixed when it PASSes or XPASSes with no case still XFAIL).

    A rule the run did not judge (N/A, UNTESTED, outside a --rule selection) keeps its entry:
    a partial run must not forget known failures elsewhere. A failing MUST rule with no entry
    is added only with `must`: an expectation turns its failure into exit status 0, which
    must be a deliberate choice (it is still NOT CERTIFIED); left out, it is in must_left_out.
    A run with problems (`run.problems`: stopped by -x/--maxfail, interrupted, a module that
    did not import) removes nothing: a known failure's test may not have run, and its rule read
    PASS on another test; such entries are kept and listed in `held`.
    """
    whole = not (doc.get("run") or {}).get("problems")
    statuses = {str(r["id"]): str(r["status"]) for r in doc.get("rules", [])}
    messages = {str(r["id"]): r.get("reason") for r in doc.get("rules", [])}
    levels = {str(r["id"]): str(r.get("level")) for r in doc.get("rules", [])}
    must_left_out: list[str] = []
    # an expectation marks every test of its rule: an XPASS rule with a case still XFAIL is
    # only partly fixed, and dropping its entry would turn that case into a FAIL next run
    still_failing = {str(c["rule_id"]) for c in doc.get("cases", []) if c.get("status") == XFAIL}
    result: dict[str, Expectation] = {}
    added, removed, kept, held = [], [], [], []
    for rule_id, status in statuses.items():
        if status not in STILL_FAILING:
            continue
        old = existing.get(rule_id)
        if old is not None:
            result[rule_id] = old
            kept.append(rule_id)
        elif levels.get(rule_id) == "MUST" and not must:
            must_left_out.append(rule_id)
        else:
            reason = messages.get(rule_id)
            result[rule_id] = Expectation(rule_id, status if status != XFAIL else FAIL.value,
                                          None, str(reason)[:200] if reason else None)  # fmt: skip
            added.append(rule_id)
    for rule_id, old in existing.items():
        if rule_id in result:
            continue
        fixed = statuses.get(rule_id) in FIXED and rule_id not in still_failing
        if fixed and whole:
            removed.append(rule_id)
            continue
        if fixed:
            held.append(rule_id)
        result[rule_id] = old
        kept.append(rule_id)
    return Update(
        result, sorted(added), sorted(removed), sorted(kept), sorted(must_left_out), sorted(held)
    )
