"""A `--rule`/`--area` run does not import the suite modules that name no selected rule
(conformance/plugin/prefilter.py); these tests keep that from ever dropping a selected test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.coverage import literal_rule_ids

GRAB = """
import json, sys, pytest
found = {}
class Grab:
    def pytest_collection_modifyitems(self, items):
        for item in items:
            ids = {a for m in item.iter_markers("rule") for a in m.args}
            found.setdefault(str(item.path), set()).update(ids)
code = pytest.main(["--pyargs", "conformance.suite", "--co", "-q", "-p", "no:cacheprovider",
                    *sys.argv[1:]], plugins=[Grab()])
print("GRAB" + json.dumps({k: sorted(v) for k, v in found.items()}))
"""


def _collected(tmp_path: Path, *args: str) -> dict[str, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", GRAB, *args], cwd=tmp_path, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    line = [x for x in proc.stdout.splitlines() if x.startswith("GRAB")]
    assert line, proc.stdout[-3000:] + proc.stderr[-2000:]
    found: dict[str, list[str]] = json.loads(line[-1][4:])
    return found


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    return _collected(tmp_path_factory.mktemp("whole"))


@pytest.mark.slow
def test_the_source_scan_names_every_rule_the_collection_finds(
    whole: dict[str, list[str]],
) -> None:
    """For each module of the shipped suite, the ids its source names include every rule its
    collected tests carry: the prefilter can only skip a module that holds no selected test."""
    collected = whole
    assert len(collected) > 100, sorted(collected)
    short = {
        path: sorted(set(ids) - (literal_rule_ids(Path(path)) or set()))
        for path, ids in collected.items()
        if literal_rule_ids(Path(path)) is not None
    }
    assert not {path: ids for path, ids in short.items() if ids}


@pytest.mark.slow
def test_a_rule_selection_collects_the_same_tests_of_its_rules(
    tmp_path: Path, whole: dict[str, list[str]]
) -> None:
    """`--rule storage.list-objects` imports fewer modules, yet every test that carries one of
    its rules in a whole collection is collected (and no other module)."""
    narrowed = _collected(tmp_path, "--rule", "storage.list-objects")
    wanted = {
        p for p, ids in whole.items() if any(i.startswith("storage.list-objects") for i in ids)
    }
    assert wanted and set(narrowed) == wanted, (sorted(wanted), sorted(narrowed))


def test_only_literal_marks_let_a_module_be_skipped(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text(
        "import pytest\n"
        "pytestmark = pytest.mark.rule('a.b')\n"
        "@pytest.mark.parametrize('v', [pytest.param(1, marks=pytest.mark.rule('c.d'))])\n"
        "def test_one(v): pass\n"
    )
    assert literal_rule_ids(module) == {"a.b", "c.d"}
    module.write_text("import pytest\nRULE = 'a.b'\n@pytest.mark.rule(RULE)\ndef test_x(): pass\n")
    assert literal_rule_ids(module) is None
    module.write_text("def test_x(:\n")
    assert literal_rule_ids(module) is None
