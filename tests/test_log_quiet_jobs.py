"""Which of a quiet job's entries (a disabled job's, another dataset's) are the round's lines.

A line fed to the firewall_events job holds only the fields that job selects. ClientRequestPath
is one, but the spec never names it: a target without it, feeding the round's http_requests
lines to every job, writes `{"RayID": ...}` there. The round's RayIDs, read from the enabled
jobs' entries, still name those lines.
"""

from __future__ import annotations

from conformance.suite.logs.log_delivery import Delivered

PATH = "/ec-logs/m1/all"
ROUND = {"RayID": "ray-1", "ClientRequestURI": PATH + "?q=1", "EdgeResponseStatus": 200}


def _delivered(quiet: list[dict[str, object]] | None) -> Delivered:
    return Delivered({"fields": [ROUND]}, {"all": PATH}, {"firewall": quiet})


def test_line_naming_a_round_path_is_the_rounds() -> None:
    line = {"ClientRequestPath": PATH, "RayID": "ray-1"}
    assert _delivered([line]).quiet_entries_of_round("firewall") == [line]


def test_line_with_a_rounds_ray_id_alone_is_the_rounds() -> None:
    """A round's line reduced to RayID by the job's fields= is still the round's."""
    line = {"RayID": "ray-1"}
    assert _delivered([line]).quiet_entries_of_round("firewall") == [line]


def test_other_traffic_is_not_the_rounds() -> None:
    lines = [{"RayID": "ray-2"}, {"ClientRequestPath": "/elsewhere", "RayID": "ray-3"}]
    assert _delivered(lines).quiet_entries_of_round("firewall") == []


def test_job_not_created_is_none() -> None:
    assert _delivered(None).quiet_entries_of_round("firewall") is None
