"""`--rerun N`: rerun a failed or errored case up to N times, through pytest-rerunfailures.

pytest-rerunfailures runs each attempt with pytest's own runtestprotocol and logs the failing
phase of every attempt but the last with `outcome == "rerun"`, then the attempt's teardown,
then the next attempt's reports. The recorder's makereport wrapper runs for every attempt, so
each attempt's report carries its own evidence; case_records.py folds the attempts of one test into
one case record: FLAKY when a later attempt passed, the last attempt's verdict otherwise, and
every attempt in `attempts`.
"""

from __future__ import annotations

import pytest

RERUN_OUTCOME = "rerun"


def configure(config: pytest.Config) -> None:
    """Hand `--rerun N` to pytest-rerunfailures (its own --reruns wins when also given)."""
    count = int(config.getoption("rerun", 0) or 0)
    if count < 0:
        raise pytest.UsageError(f"--rerun: expected a count >= 0, got {count}")
    if count and getattr(config.option, "reruns", None) is None:
        if not config.pluginmanager.hasplugin("rerunfailures"):
            raise pytest.UsageError("--rerun needs pytest-rerunfailures (pip install it)")
        config.option.reruns = count


def is_rerun(report: pytest.TestReport) -> bool:
    """A phase report of an attempt that failed and was run again."""
    return str(report.outcome) == RERUN_OUTCOME
