"""A mutated `except CosmicRayTestingException:` means "this handler catches nothing more", in
every process of a mutant's command, fresh or forked: never a NameError (a 500 the mutant did
not ask for, counted as a kill)."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.mutation import suite_cmd

MUTATED = """\
try:
    raise ValueError("the exception the handler no longer catches")
except CosmicRayTestingException:
    print("caught")
"""


def _run(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_fresh_interpreter_of_a_mutant_lets_the_exception_through() -> None:
    env = suite_cmd.with_testing_exception({k: v for k, v in os.environ.items()})
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(suite_cmd.TESTING_EXCEPTION_DIR)
    proc = _run(env, MUTATED)
    assert proc.returncode == 1 and "ValueError" in proc.stderr, proc.stderr
    assert "NameError" not in proc.stderr and "caught" not in proc.stdout


def test_without_it_the_handler_is_a_name_error() -> None:
    """What every ExceptionReplacer mutant did before: the check above can fail."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    assert "NameError" in _run(env, MUTATED).stderr


def test_the_fork_server_provides_it_to_its_forks() -> None:
    code = "from bench.mutation import forkrun\nforkrun.provide_testing_exception()\n" + MUTATED
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = _run(env, code)
    assert proc.returncode == 1 and "ValueError" in proc.stderr, proc.stderr
    assert "NameError" not in proc.stderr
