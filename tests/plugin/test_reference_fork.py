"""The break-check runs' forked reference (helpers/reference_fork.py) is the launcher's reference.

Run in a subprocess of its own: forking is for a single-threaded process, as the fork server is,
not for an xdist worker.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

SCRIPT = """
import datetime as dt, json, subprocess, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import reference_fork
from conformance import launcher

reference_fork.preload()
out = {}
run = Path(sys.argv[2])
for name in ("one", "two", "bad"):
    (run / name).mkdir()
template = reference_fork.install()
first = launcher.launch(run / "one", dt.date.today(), {"deviate_breaks": "[]"})
out["forked"] = type(first.process).__name__
out["pid_is_template"] = first.pid == template.pid
out["alive"] = launcher.alive(first.pid)
second = launcher.launch(run / "two", dt.date.today(), {})
out["second"] = type(second.process).__name__
out["stop"] = [launcher.stop(run / "one", first), launcher.stop(run / "two", second)]
out["codes"] = [first.process.poll(), second.process.poll()]
template.close()
unused = reference_fork.install()
unused.close()  # a template never used ends with the run
out["unused_gone"] = not launcher.alive(unused.pid)
bad = reference_fork.install()
try:
    launcher.launch(run / "bad", dt.date.today(), {"no_such_field": "1"})
except launcher.LaunchError as exc:
    out["bad"] = str(exc)
bad.close()
print(json.dumps(out))
"""


@pytest.mark.slow  # preload and three reference starts, one fresh
def test_first_launch_is_the_forked_template_and_behaves_as_a_popen(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(HELPERS), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["forked"] == "ForkedReference" and out["pid_is_template"] and out["alive"], out
    assert out["second"] == "Popen", out  # one template a run: a second launch is fresh
    assert out["stop"] == [None, None] and out["codes"] == [0, 0], out  # SIGTERM, clean exit
    assert out["unused_gone"], out
    # a refused profile: the forked reference exits 2 and its stderr reaches the run's log
    assert "exited with code 2" in out["bad"] and "no_such_field" in out["bad"], out
