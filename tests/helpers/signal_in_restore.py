"""Test-only pytest plugin: the run sends itself SIGHUP from inside the zone's restore.

That is the moment a user's Ctrl-C or a cancelled CI job lands in when it comes at the very
end of a run; polling from outside hits it only by luck (issue 22's flake), so this plugin
puts the signal there every time. Loaded with `-p signal_in_restore` (tests/helpers on the
path).
"""

from __future__ import annotations

import functools
import os
import signal
from typing import Any

from conformance.safety import journal

_restore = journal.restore


@functools.wraps(_restore)
def _restore_after_a_signal(*args: Any, **kwargs: Any) -> Any:
    os.kill(os.getpid(), signal.SIGHUP)
    return _restore(*args, **kwargs)


journal.restore = _restore_after_a_signal
