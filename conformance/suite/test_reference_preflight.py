"""Reference-only: the bundled reference answers the pre-flight call of each surface it serves.

Against another target a refused pre-flight stops the run with one configuration message and
judges no rule (conformance/plugin/preflight.py): a broken surface cannot be told from a wrong
base URL, zone, account or key. The reference is configured by the suite itself, so there the
same refusal is the reference's defect, and a rule says so. These cases are collected before
every other test (conformance/plugin/collection.py): the first test that uses a surface would
otherwise stop the session on its pre-flight before they run.
"""

from __future__ import annotations

import pytest

from conformance.model.targets import REFERENCE, Target
from conformance.plugin import preflight
from conformance.plugin.applicability import NA_PREFIX
from conformance.suite.setup_check import not_checked

# no HTTP answer at all (a timeout, a refused connection): a machine too loaded to answer in
# time looks the same, so it is not a verdict on the reference
UNREACHABLE = ": unreachable ("
# ...unless the reference took the connection and closed it without any answer: a loaded
# machine answers late, it does not hang up (the words of http.client and of botocore)
CLOSED_UNANSWERED = (
    "RemoteDisconnected",
    "Connection was closed before we received a valid response",
)

SURFACES = [
    pytest.param(name, marks=pytest.mark.rule(rule_id), id=name)
    for name, rule_id in (
        ("rules_api", "logs.auth.reference-answers-preflight"),
        ("mgmt", "storage.mgmt.reference-answers-preflight"),
        ("s3", "storage.auth.reference-answers-preflight"),
    )
]


@pytest.mark.parametrize("surface_name", SURFACES)
def test_reference_answers_the_preflight(target: Target, surface_name: str) -> None:
    """The pre-flight's own call (a plain list with the configured credentials) gets a 2xx."""
    if target.name != REFERENCE:
        pytest.skip(f"{NA_PREFIX}reference-only rule on target {target.name!r}")
    if not target.offers(surface_name):
        pytest.skip(f"{NA_PREFIX}surface {surface_name} not offered by target {target.name}")
    problem = preflight.probe(surface_name, target.surface(surface_name))
    hung_up = problem is not None and any(words in problem for words in CLOSED_UNANSWERED)
    if problem is not None and UNREACHABLE in problem and not hung_up:
        not_checked(f"no answer to the pre-flight: {problem}")
    assert problem is None, f"the reference refused its own configuration: {problem}"
