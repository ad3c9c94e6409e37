"""Tables of the results store (SQLAlchemy Core): one row per run, per rule verdict, per case.

Timestamps and dates are kept as ISO-8601 text exactly as results.json has them: they sort
correctly as text and read back identically on SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # digest of (run_id, target, as_of, started): re-adding one results file finds its run
    sa.Column("run_key", sa.String(64), nullable=False, unique=True),
    sa.Column("run_id", sa.String(200), nullable=False),
    sa.Column("target", sa.String(200), nullable=False, index=True),
    sa.Column("night", sa.String(10), nullable=False),
    sa.Column("as_of", sa.String(10), nullable=False),
    sa.Column("suite_version", sa.String(100), nullable=False),
    sa.Column("catalog_hash", sa.String(100), nullable=False),
    sa.Column("git_sha", sa.String(100), nullable=True),
    sa.Column("target_version", sa.String(200), nullable=True),
    sa.Column("started", sa.String(40), nullable=False),
    sa.Column("finished", sa.String(40), nullable=False),
    sa.Column("flags", sa.JSON, nullable=False),
    sa.Column("summary", sa.JSON, nullable=False),
    sa.Column("recorded_at", sa.String(40), nullable=False),
)

rule_results = sa.Table(
    "rule_results",
    metadata,
    sa.Column("run", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rule_id", sa.String(200), primary_key=True),
    sa.Column("area", sa.String(100), nullable=False),
    sa.Column("level", sa.String(10), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("cases", sa.Integer, nullable=False),
)

case_results = sa.Table(
    "case_results",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("rule_id", sa.String(200), nullable=False),
    sa.Column("nodeid", sa.Text, nullable=False),
    sa.Column("case", sa.Text, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("duration", sa.Float, nullable=False),
    # evidence of a case that did not pass; a FLAKY case keeps every attempt here
    sa.Column("evidence", sa.JSON, nullable=True),
    sa.Column("attempts", sa.JSON, nullable=True),
    sa.Index("ix_case_results_run", "run"),
)
