"""Which catalog rules a break-check proves: read from the break-check modules' own case data.

A break-check runs the suite against a reference made to deviate and wants the listed rules
FAIL. The cases live as module-level data (lists, dicts, YAML beside the module) in the modules
named below; a rule counts as break-checked when its full id appears in that data. Baselines
(`assert_rules_hold`) read the same data, so they add nothing the cases do not already name.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

TESTS = Path(__file__).resolve().parent.parent

# Every module whose cases break the reference on purpose; a new break-check module joins here.
BREAK_CHECK_MODULES = (
    "sensitivity/test_rule_sensitivity.py",
    "sensitivity/test_storage_groups.py",
    "sensitivity/test_mgmt_sensitivity.py",
    "sensitivity/test_public_sensitivity.py",
    "sensitivity/test_bindings_sensitivity.py",
    "sensitivity/test_rule_breaks.py",
    "reference/test_edge_logs_sensitivity.py",
    "reference/test_s3_cors_listing_sensitivity.py",
    "reference/test_s3_multipart_sensitivity.py",
    "reference/test_sensitivity_auth_payloads.py",
)
# Case data the modules above read from YAML files.
BREAK_CHECK_DATA = ("sensitivity/deviations.yaml", "sensitivity/storage_groups.yaml")


def _load(relative: str) -> ModuleType:
    path = TESTS / relative
    name = "break_check_" + relative.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nested_values(value: Any) -> Iterator[Any]:
    """`value` and every value inside it, depth first: dict keys and items, list, tuple and set
    members, a pytest.param's values (the shapes the case data is written in)."""
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from nested_values(key)
            yield from nested_values(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from nested_values(item)
    elif hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param
        yield from nested_values(value.values)


def case_data() -> list[Any]:
    """All break-check case data: the modules' upper-case module-level values, then the YAML."""
    data: list[Any] = []
    for relative in BREAK_CHECK_MODULES:
        module = _load(relative)
        data += [v for k, v in vars(module).items() if k.isupper()]
    for relative in BREAK_CHECK_DATA:
        data.append(yaml.safe_load((TESTS / relative).read_text("utf-8")))
    return data


def break_checked_rules(known_ids: set[str]) -> set[str]:
    """The catalog ids that some break-check case lists."""
    return {v for v in nested_values(case_data()) if isinstance(v, str) and v in known_ids}
