"""Project tests: pytester drives the plugin in throw-away pytest runs."""

import atexit
import os
import shutil
import tempfile

pytest_plugins = ["pytester"]


def pytest_configure() -> None:
    """Suite runs started by the project's tests keep their safety journals, locks and run
    registry (docs/safety.md) in a throw-away state directory, never the user's own."""
    if "CONFORMANCE_STATE_DIR" not in os.environ:
        folder = tempfile.mkdtemp(prefix="ec-test-state-")
        os.environ["CONFORMANCE_STATE_DIR"] = folder
        atexit.register(shutil.rmtree, folder, True)
