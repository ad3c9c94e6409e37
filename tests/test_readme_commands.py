"""The README's two commands are the ones CI runs, character for character."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    quick_start = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1]
    quick_start = quick_start.split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", quick_start, re.S)]


def test_readme_shows_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2, commands
    assert all("\n" not in command for command in commands)


def test_ci_runs_both_literally() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    first, second = readme_commands()
    # the first runs inside the clean copy: `(cd "$clean" && <command>)`
    assert f'(cd "$clean" && {first})' in ci
    assert f"\n{second}\n" in ci


def test_first_command_installs_without_extras() -> None:
    """A plain `pip install .`: whatever the suite imports must be a runtime dependency."""
    first, _ = readme_commands()
    assert "pip install . " in first + " " and "[" not in first
