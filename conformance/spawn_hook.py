"""How the suite's launcher starts the bundled reference, when a harness outside the plugin asks.

`conformance.launcher.launch` starts the reference with `reference` when it is set, else
with its own `spawn` (a fresh `subprocess.Popen`). The mutation harness's fork server
(bench/mutation/forkrun.py) sets a fork of the pytest process here: bench must not import the
plugin (tests/test_suite_import_layers.py), so the seam sits below it. Nothing else sets it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

# (command, stderr log) -> a child with `subprocess.Popen`'s pid, poll, wait, terminate, kill
reference: Callable[[list[str], Path], Any] | None = None
