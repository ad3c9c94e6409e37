"""A mutant under which the reference cannot start is no implementation: say so only when a
second, direct start exits too.

A suite judges a target by asking it questions; a reference that exits before it is ready (a
profile loader that loads nothing, a dataclass decorator removed, a lifespan scope read as a
request) answers none, under any suite. No implementer ships such a server, much as none
ships code that does not compile (validity.py), so the score leaves such a mutant out
(report.py's `stillborn` column) instead of counting it as a blind spot of the suite.

A start failure is called stillborn only on evidence: the suite's run reported that the
reference *exited* before it was ready (a reference that was merely slow, or did not answer,
stays a start failure), and a second start, made here with the same behaviour date and
profile, exits again before it is ready. A reference that comes up the second time keeps the
mutant a start failure, counted as not killed.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.mutation.plan import ROOT

EXITED = "reference implementation exited with code"  # conformance/launcher.py's words
PROBE_SECONDS = 60.0
PROFILE_FLAG = "--reference-profile"


def exited_at_start(messages: Sequence[str]) -> bool:
    """Did the run's start failure say that the reference exited (not that it was slow)?"""
    return any(EXITED in message for message in messages)


def profile_args(selection: Sequence[str]) -> list[str]:
    """The reference's `--profile` arguments for the selection's `--reference-profile` ones."""
    out: list[str] = []
    for flag, value in itertools.pairwise(selection):
        if flag == PROFILE_FLAG:
            out += ["--profile", value]
    return out


def probe(day: str, selection: Sequence[str], env: dict[str, str]) -> str | None:
    """Start the (mutated) reference once more; the reason it is stillborn (its exit code and
    the last line of its stderr), or None when it became ready or was still starting."""
    with tempfile.TemporaryDirectory(prefix="ec-stillborn-") as tmp:
        ready, log = Path(tmp) / "ready.json", Path(tmp) / "stderr.txt"
        command = [
            sys.executable, "-m", "reference_impl", "--data-dir", f"{tmp}/data", "--port", "0",
            "--ready-file", str(ready), "--behaviour-date", day, "--quiet",
            *profile_args(selection),
        ]  # fmt: skip
        with log.open("wb") as err:
            proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err,
                start_new_session=True,
            )  # fmt: skip
            try:
                code = _wait(proc, ready)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        if code is None:
            return None
        last = _last_line(log)
        return f"a second start at {day} exited with code {code} before it was ready: {last}"


def _wait(proc: subprocess.Popen[bytes], ready: Path) -> int | None:
    deadline = time.monotonic() + PROBE_SECONDS
    while time.monotonic() < deadline:
        if ready.is_file():
            return None
        if (code := proc.poll()) is not None:
            return code
        time.sleep(0.05)
    return None


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(stderr empty)"
