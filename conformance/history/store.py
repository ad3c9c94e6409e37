"""The results store: open (and migrate) a database by URL, record runs, read them back.

One SQLAlchemy engine speaks to SQLite (a plain path or `sqlite:///...`, the default: nothing to
set up) or PostgreSQL (`postgresql://...`, psycopg 3), so no SQL is written per backend. The
schema is Alembic's, upgraded to head whenever a store is opened. A run is recorded in one
transaction: a killed recorder leaves nothing behind, and two recorders on two machines each
commit their own run (the run key is unique, so the same results file lands once).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from conformance.history.models import case_results, rule_results, runs
from conformance.results import QUIET

# Statuses of a case that passed cleanly: their evidence is not kept (it is in the run's report).
QUIET_STATUSES = QUIET
# pg_advisory_xact_lock key: two first openings of one PostgreSQL store migrate one at a time
MIGRATION_LOCK = 0x45435F48  # "EC_H"


class StoreError(Exception):
    """A store that cannot be opened or a run that cannot be recorded."""


def store_url(where: str | Path) -> sa.URL:
    """A SQLAlchemy URL from a plain file path or a database URL (PostgreSQL goes via psycopg)."""
    text = str(where)
    if "://" not in text:
        return sa.make_url(f"sqlite:///{Path(text).expanduser().resolve()}")
    url = sa.make_url(text)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    return url


def run_key(run: dict[str, Any]) -> str:
    """What identifies a run across files and machines: its id, target, date and start."""
    ident = [run.get("run_id"), run.get("target"), run.get("as_of"), run.get("started")]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()


@dataclass(frozen=True)
class Recorded:
    """Outcome of recording one results document."""

    run_pk: int
    created: bool  # False: this very run was already in the store


class Store:
    """An opened, migrated results store."""

    def __init__(self, where: str | Path) -> None:
        self.url = store_url(where)
        connect_args: dict[str, Any] = {}
        if self.url.get_backend_name() == "sqlite":
            if self.url.database and self.url.database != ":memory:":
                Path(self.url.database).parent.mkdir(parents=True, exist_ok=True)
            connect_args["timeout"] = 60  # wait for another recorder's write lock
        try:
            self.engine = sa.create_engine(self.url, connect_args=connect_args)
            self._migrate()
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot open store {self.url!r}: {exc}") from exc

    def _migrate(self) -> None:
        cfg = Config()
        cfg.set_main_option(
            "script_location", str(resources.files("conformance.history").joinpath("migrations"))
        )
        with self._migration_lock(), self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    @contextmanager
    def _migration_lock(self) -> Iterator[None]:
        """SQLite: a lock file beside the database, so two first openings do not race."""
        db = self.url.database
        if self.url.get_backend_name() != "sqlite" or not db or db == ":memory:":
            yield
            return
        from filelock import FileLock

        with FileLock(f"{db}.migrate.lock", timeout=120):
            yield

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def record(
        self, doc: dict[str, Any], night: str | None = None, target_version: str | None = None
    ) -> Recorded:
        """Record one results document in one transaction; a run already stored is not doubled.

        `night` (YYYY-MM-DD) is the night the run is plotted at: by default the date it started.
        """
        run = doc["run"]
        key = run_key(run)
        row = {
            "run_key": key,
            "run_id": run["run_id"],
            "target": run["target"],
            "night": night or str(run["started"])[:10],
            "as_of": run["as_of"],
            "suite_version": run.get("suite_version") or "",
            "catalog_hash": run.get("catalog_hash") or "",
            "git_sha": run.get("git_sha"),
            "target_version": target_version or run.get("target_version"),
            "started": run["started"],
            "finished": run["finished"],
            "flags": run.get("flags") or {},
            "summary": doc.get("summary") or {},
            "recorded_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        try:
            with self.engine.begin() as conn:
                # the insert comes first: it takes the write lock (SQLite) before any read
                pk = conn.execute(sa.insert(runs).values(row).returning(runs.c.id)).scalar_one()
                _insert_rows(conn, pk, doc)
        except sa.exc.IntegrityError as exc:
            with self.engine.connect() as conn:
                found = conn.execute(sa.select(runs.c.id).where(runs.c.run_key == key)).scalar()
            if found is None:  # not a double: e.g. one rule twice in the file
                raise StoreError(f"run {run['run_id']} not recorded: {exc.orig}") from exc
            return Recorded(found, created=False)
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"run {run['run_id']} not recorded: {exc}") from exc
        return Recorded(pk, created=True)

    def run_rows(self, target: str | None = None, as_of: str | None = None) -> list[dict[str, Any]]:
        """Runs, oldest night first (then start time), optionally of one target and as-of date.

        `as_of="current"` keeps the runs that judged the rules in force on their own night.
        """
        query = sa.select(runs).order_by(runs.c.night, runs.c.started, runs.c.id)
        if target is not None:
            query = query.where(runs.c.target == target)
        if as_of == "current":
            query = query.where(runs.c.as_of == runs.c.night)
        elif as_of is not None:
            query = query.where(runs.c.as_of == as_of)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def targets(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(sa.select(runs.c.target).distinct().order_by(runs.c.target)).scalars()
            )

    def rule_rows(self, run_pks: list[int]) -> dict[int, dict[str, dict[str, Any]]]:
        """Rule verdicts of the given runs: run pk -> rule id -> row."""
        out: dict[int, dict[str, dict[str, Any]]] = {pk: {} for pk in run_pks}
        if not run_pks:
            return out
        with self.engine.connect() as conn:
            for r in conn.execute(sa.select(rule_results).where(rule_results.c.run.in_(run_pks))):
                out[r.run][r.rule_id] = dict(r._mapping)
        return out

    def case_rows(self, run_pk: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            query = sa.select(case_results).where(case_results.c.run == run_pk)
            return [dict(r._mapping) for r in conn.execute(query.order_by(case_results.c.id))]


def _insert_rows(conn: sa.Connection, pk: int, doc: dict[str, Any]) -> None:
    """Rule verdicts and case outcomes of one run (inside the run's transaction)."""
    rules = [
        {
            "run": pk, "rule_id": r["id"], "area": r.get("area", ""), "level": r.get("level", ""),
            "title": r.get("title", ""), "status": r["status"], "message": r.get("reason"),
            "cases": int(r.get("cases") or 0),
        }
        for r in doc.get("rules", [])
    ]  # fmt: skip
    if rules:
        conn.execute(sa.insert(rule_results), rules)
    cases = [
        {
            "run": pk, "rule_id": c["rule_id"], "nodeid": c["nodeid"], "case": c.get("case", ""),
            "status": c["status"], "message": c.get("message"),
            "duration": float(c.get("duration") or 0.0),
            "evidence": None if c["status"] in QUIET_STATUSES else c.get("evidence"),
            "attempts": c.get("attempts"),
        }
        for c in doc.get("cases", [])
    ]  # fmt: skip
    if cases:
        conn.execute(sa.insert(case_results), cases)
