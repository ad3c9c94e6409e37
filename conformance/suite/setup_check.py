"""Setup that did not do what a test assumes is the suite's ERROR, never the rule's FAIL.

A test builds a situation (an object written, a condition that failed, a block with a
transaction) and then checks the rule in it. When the situation could not be built, the rule was
not checked at all: `require` raises SetupFailed, which is not an AssertionError, so the case is
recorded as ERROR with the message saying which step did not hold.

`not_checked` is for the other case: nothing broke, but the rule could not be checked here and
now (a midnight window too close, a state the target is already in and cannot leave). That is
NOT-CHECKED: never a pass, and unlike N/A ("the rule does not apply") it blocks the verdict.
"""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from conformance.results import NOT_CHECKED_PREFIX


class SetupFailed(Exception):
    """A precondition of the test did not hold; the rule under test was not checked."""


def require(condition: object, message: str) -> None:
    """ERROR (SetupFailed) with `message` unless `condition` holds."""
    if not condition:
        raise SetupFailed(f"setup did not hold, the rule was not checked: {message}")


def not_checked(reason: str) -> NoReturn:
    """Stop the test: its rules apply but could not be checked here (recorded NOT-CHECKED)."""
    pytest.skip(NOT_CHECKED_PREFIX + reason)


def require_refused(reply: Any, step: str) -> Any:
    """ERROR unless `reply` (a WireReply) is a refusal (4xx): the step was meant to fail."""
    require(400 <= reply.status < 500, f"{step} was not refused: {reply.describe()}")
    return reply


def require_ok(reply: Any, step: str) -> Any:
    """ERROR unless `reply` (a WireReply) succeeded: the step builds what the test checks."""
    require(200 <= reply.status < 300, f"{step} did not succeed: {reply.describe()}")
    return reply
