"""allure labels from the catalog, when allure-pytest writes results (`--alluredir`).

The labels are markers in allure-pytest's own format, added at collection, so that allure's
plugin picks them up wherever the test runs (xdist workers included) and this plugin never
imports allure: epic = area, feature = operation, story = rule id, tags = the dates of the
rule, and a link to the spec section that states it.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.plugin.collection import RULES_KEY
from conformance.report import spec_links

ALLUREDIR_DEST = "allure_report_dir"  # allure-pytest's dest for --alluredir


def active(config: pytest.Config) -> bool:
    return bool(config.getoption(ALLUREDIR_DEST, None))


def labels(rule: Any) -> list[tuple[str, str]]:
    """(label type, value) pairs of one rule."""
    found = [("epic", str(rule.area)), ("story", str(rule.id))]
    if rule.operation:
        found.append(("feature", str(rule.operation)))
    found.append(("tag", str(rule.level)))
    for name in ("since", "until"):
        value = getattr(rule, name)
        if value is not None:
            found.append(("tag", f"{name}:{value.isoformat()}"))
    return found


def link(rule: Any, base: str | None) -> tuple[str, str] | None:
    """(url, name) of the rule's spec section; relative to the spec folder without a base."""
    spec = rule.spec if isinstance(rule.spec, dict) else {}
    if not spec.get("section"):
        return None
    url = spec_links.spec_href(base or ".", spec)
    assert url is not None
    return (url.removeprefix("./") if base is None else url), spec_links.spec_text(spec)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not active(config):
        return
    base = spec_links.default_spec_base()
    for item in items:
        for rule in item.stash.get(RULES_KEY, ()):
            for label_type, value in labels(rule):
                item.add_marker(pytest.mark.allure_label(value, label_type=label_type))
            found = link(rule, base)
            if found is not None:
                url, name = found
                item.add_marker(pytest.mark.allure_link(url, link_type="link", name=name))
