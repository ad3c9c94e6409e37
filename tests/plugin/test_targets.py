"""Targets files: secrets from the environment only, clear errors for everything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.model.targets import TargetError, load_target, read_targets_file

STAGING = """
[targets.staging.s3]
endpoint = "https://acct.storage.example.com"
access_key_id_env = "STAGING_KEY_ID"
secret_access_key_env = "STAGING_SECRET"
[targets.staging.s3.second_account]
account_id = "other"
access_key_id_env = "OTHER_KEY_ID"
secret_access_key_env = "OTHER_SECRET"
[targets.staging.gateway]
url = "https://gateway.example.com"
"""
ENV = {"STAGING_KEY_ID": "AK", "STAGING_SECRET": "SK", "OTHER_KEY_ID": "AK2", "OTHER_SECRET": "SK2"}


@pytest.fixture
def targets_file(tmp_path: Path) -> Path:
    path = tmp_path / "conformance.toml"
    path.write_text(STAGING)
    return path


def test_env_secrets_are_resolved_and_defaults_filled(targets_file: Path) -> None:
    target = load_target("staging", targets_file, ENV)
    s3 = target.surface("s3")
    assert (s3["access_key_id"], s3["secret_access_key"]) == ("AK", "SK")
    assert s3["second_account"] == {"account_id": "other", "access_key_id": "AK2",
                                    "secret_access_key": "SK2"}  # fmt: skip
    assert (s3["region"], s3["vendor_prefix"], s3["ext_prefix"]) == ("auto", "x-amz-", "cf-")
    assert target.surface("gateway")["networks"] == ["sepolia", "rinkeby"]
    assert not target.offers("rules_api")


def test_missing_env_var_is_named(targets_file: Path) -> None:
    with pytest.raises(TargetError, match=r"targets.staging.s3.secret_access_key_env: .*"
                       r"'STAGING_SECRET' is not set"):  # fmt: skip
        load_target("staging", targets_file, {"STAGING_KEY_ID": "AK"})


def test_inline_secret_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(STAGING.replace('secret_access_key_env = "STAGING_SECRET"',
                                    'secret_access_key = "hunter2"'))  # fmt: skip
    with pytest.raises(TargetError, match=r"secrets may not be written in a targets file; "
                       r"use secret_access_key_env"):  # fmt: skip
        load_target("staging", path, ENV)


def test_unknown_target_lists_known_ones(targets_file: Path) -> None:
    with pytest.raises(TargetError, match=r"unknown target 'prod'.*known targets: "
                       r"reference, staging"):  # fmt: skip
        load_target("prod", targets_file, ENV)


def test_reference_cannot_be_redefined(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[targets.reference.gateway]\nurl = "http://x"\n')
    with pytest.raises(TargetError, match="'reference' is built in"):
        read_targets_file(path)


def test_unknown_target_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makefile(".toml", conformance=STAGING)
    suite.makepyfile("def test_x():\n    pass\n")
    result = suite.runpytest("--target", "prod")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--target: unknown target 'prod'*known targets: reference, staging*"]
    )


def test_missing_secret_env_is_a_usage_error(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    targets = suite.path / "elsewhere.toml"
    targets.write_text(STAGING)
    suite.makepyfile("def test_x():\n    pass\n")
    result = suite.runpytest("--target", "staging", "--targets-file", str(targets))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*environment variable 'STAGING_KEY_ID' is not set*"])
