"""The deviation registry, its data file and its use by the reference stay one and the same.

mypy checks that every `profile.deviations.<name>` read is declared; these tests check the rest
of the relation: every declared deviation has a doc and is read somewhere (a deviation nobody
reads would let a break-check pass for the wrong reason), the old untyped reads are gone, and
the override spellings project tests use map onto the registry or are refused by name.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from reference_impl import deviations
from reference_impl.profile import Profile, ProfileError, load_field_specs

SOURCE = Path(deviations.__file__).parent
READ = re.compile(r"\.deviations\.([a-z0-9_]+)")
DAY = dt.date(2026, 1, 1)


def _sources() -> dict[Path, str]:
    return {
        p: p.read_text("utf-8") for p in sorted(SOURCE.rglob("*.py")) if p.name != "deviations.py"
    }


def test_registry_and_data_file_name_the_same_deviations() -> None:
    """deviations.yaml has one documented entry per `Deviations` field, in the same order."""
    assert list(deviations.entries()) == deviations.field_names()
    undocumented = [name for name, body in deviations.entries().items() if not body.get("doc")]
    assert not undocumented, f"deviations without a doc: {undocumented}"
    breaks = [body["break"] for body in deviations.entries().values() if "break" in body]
    assert len(breaks) == len(set(breaks)), "a rule-break name is used twice"


def test_every_declared_deviation_is_read_and_every_read_is_declared() -> None:
    """The reference reads each deviation at least once and reads no undeclared one."""
    read = {name for text in _sources().values() for name in READ.findall(text)}
    declared = set(deviations.field_names())
    assert not declared - read, f"declared but never read: {sorted(declared - read)}"
    assert not read - declared, f"read but not declared: {sorted(read - declared)}"


def test_no_deviation_is_read_through_the_untyped_profile() -> None:
    """No handler reads a `deviate_*` profile attribute, and no dated field takes the prefix."""
    untyped = [
        f"{path.relative_to(SOURCE)}: {match}"
        for path, text in _sources().items()
        for match in re.findall(r"\.deviate_\w+|getattr\([^)]*deviate_", text)
    ]
    assert not untyped, f"untyped deviation reads: {untyped}"
    assert not [name for name in load_field_specs() if deviations.is_deviation_key(name)]


def test_field_override_and_break_list_map_onto_the_registry() -> None:
    """`deviate_<field>=value` and `deviate_breaks=[names]` set typed fields; the rest stay off."""
    profile = Profile(
        DAY,
        {
            "deviate_bindings_truncate_body": "true",
            "deviate_error_code": "-32000",
            "deviate_mgmt_location": "wnam",
            "deviate_refused_methods": '["eth_feeHistory"]',
            "deviate_breaks": '["host-ignored", "416-without-content-range"]',
        },
    )
    got = profile.deviations
    assert got.bindings_truncate_body is True
    assert got.error_code == -32000
    assert got.mgmt_location == "wnam"
    assert got.refused_methods == ["eth_feeHistory"]
    assert got.host_ignored and got.status_416_without_content_range
    assert not got.one_account and got.bucket_location is None
    assert Profile(DAY).deviations == deviations.Deviations()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"deviate_no_such_thing": "true"}, "unknown deviation 'deviate_no_such_thing'"),
        ({"deviate_host_ignored": "true"}, "unknown deviation"),  # a break is spelt in the list
        ({"deviate_breaks": '["no-such-break"]'}, "unknown rule break"),
        ({"deviate_breaks": "host-ignored"}, "takes a list"),
        ({"deviate_drop_id": "1"}, "takes"),
        ({"deviate_error_code": "abc"}, "takes"),
    ],
)
def test_unknown_or_mistyped_deviations_are_refused(
    overrides: dict[str, str], message: str
) -> None:
    """A misspelt deviation fails loudly and names the known ones, as unknown fields do."""
    with pytest.raises(ProfileError, match=re.escape(message)) as caught:
        Profile(DAY, overrides)
    if "unknown" in message and "break" not in message:
        assert "deviate_bindings_truncate_body" in str(caught.value)
