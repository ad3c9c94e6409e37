"""Rule markers at collection: unknown ids fail, --rule/--area select, bad options refused."""

from __future__ import annotations

import pytest

TWO_TESTS = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put():
    pass

@pytest.mark.rule("logs.create.ok")
def test_logs():
    pass
"""


def test_unknown_rule_id_is_a_collection_error_with_suggestion(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        import pytest

        @pytest.mark.rule("storage.put.okk")
        def test_typo():
            pass
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*unknown rule id 'storage.put.okk'; did you mean 'storage.put.ok'?*"]
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_suite_test_without_rule_is_a_collection_error(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.plugin import collection

    monkeypatch.setattr(collection, "SUITE_DIR", suite.path.resolve())
    suite.makepyfile("def test_nameless():\n    pass\n")
    result = suite.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*must name its rule(s)*"])


def test_test_outside_the_suite_needs_no_rule(suite: pytest.Pytester) -> None:
    suite.makepyfile("def test_plain():\n    pass\n")
    suite.runpytest().assert_outcomes(passed=1)


def test_rule_prefix_deselects_other_tests(suite: pytest.Pytester) -> None:
    suite.makepyfile(TWO_TESTS)
    result = suite.runpytest("--rule", "storage.put", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_put PASSED*"])


def test_area_deselects_other_tests(suite: pytest.Pytester) -> None:
    suite.makepyfile(TWO_TESTS)
    result = suite.runpytest("--area", "logs", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*test_logs PASSED*"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--area", "storag"], "*--area 'storag': unknown; areas: gateway, logs, storage*"),
        (["--rule", "nope."], "*--rule 'nope.': no rule id starts with it*"),
        (["--as-of", "2022-13-01"], "*--as-of: '2022-13-01' is not a date; expected YYYY-MM-DD*"),
    ],
)
def test_bad_selection_or_date_is_a_usage_error(
    suite: pytest.Pytester, args: list[str], message: str
) -> None:
    suite.makepyfile(TWO_TESTS)
    result = suite.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
