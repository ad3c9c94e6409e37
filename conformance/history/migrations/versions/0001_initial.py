"""Initial results store: runs, rule_results, case_results.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_key", sa.String(64), nullable=False, unique=True),
        sa.Column("run_id", sa.String(200), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
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
    op.create_index("ix_runs_target", "runs", ["target"])
    op.create_table(
        "rule_results",
        sa.Column(
            "run", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("rule_id", sa.String(200), primary_key=True),
        sa.Column("area", sa.String(100), nullable=False),
        sa.Column("level", sa.String(10), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("cases", sa.Integer, nullable=False),
    )
    op.create_table(
        "case_results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rule_id", sa.String(200), nullable=False),
        sa.Column("nodeid", sa.Text, nullable=False),
        sa.Column("case", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("duration", sa.Float, nullable=False),
        sa.Column("evidence", sa.JSON, nullable=True),
        sa.Column("attempts", sa.JSON, nullable=True),
    )
    op.create_index("ix_case_results_run", "case_results", ["run"])


def downgrade() -> None:
    op.drop_table("case_results")
    op.drop_table("rule_results")
    op.drop_table("runs")
