"""The results store on SQLite and on a real PostgreSQL server: record, read back, refuse
doubles, survive a killed recorder, take two recorders at once, migrate on open."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from history_helpers import night_doc

from conformance.history.store import Store, StoreError, store_url


def test_plain_path_is_sqlite_and_postgres_goes_through_psycopg(tmp_path: Path) -> None:
    assert store_url(tmp_path / "h.db").render_as_string() == f"sqlite:///{tmp_path / 'h.db'}"
    assert store_url("postgresql://u@h/db").drivername == "postgresql+psycopg"


def test_run_round_trips_with_every_rule_and_case(store_url: str) -> None:
    doc = night_doc("edge", "2026-11-03", {"gateway.jsonrpc.id-echo": "FAIL"})
    doc["run"]["target_version"] = "edge 4.2"
    with Store(store_url) as store:
        done = store.record(doc)
        assert done.created
        (run,) = store.run_rows("edge")
        assert run["night"] == "2026-11-03" and run["target_version"] == "edge 4.2"
        assert run["catalog_hash"] == doc["run"]["catalog_hash"]
        assert run["started"] == "2026-11-03T02:00:00Z" and run["summary"] == doc["summary"]
        rules = store.rule_rows([done.run_pk])[done.run_pk]
        assert len(rules) == len(doc["rules"])
        assert rules["gateway.jsonrpc.id-echo"]["status"] == "FAIL"
        assert rules["gateway.jsonrpc.id-echo"]["message"] == "fail on 2026-11-03"
        cases = store.case_rows(done.run_pk)
        assert len(cases) == len(doc["cases"])
        failed = [c for c in cases if c["status"] == "FAIL"]
        assert failed and all(c["evidence"] is not None for c in failed)
        assert all(c["evidence"] is None for c in cases if c["status"] == "PASS")


def test_flaky_case_keeps_every_attempt(store_url: str) -> None:
    doc = night_doc("edge", "2026-11-04", {"gateway.jsonrpc.id-echo": "FLAKY"})
    case = next(c for c in doc["cases"] if c["rule_id"] == "gateway.jsonrpc.id-echo")
    case["attempts"] = [
        {"status": "FAIL", "message": "id missing", "evidence": case["evidence"]},
        {"status": "PASS", "message": None, "evidence": case["evidence"]},
    ]
    with Store(store_url) as store:
        pk = store.record(doc).run_pk
        (row,) = [c for c in store.case_rows(pk) if c["rule_id"] == "gateway.jsonrpc.id-echo"]
    assert row["status"] == "FLAKY" and row["attempts"] == case["attempts"]


def test_same_results_twice_is_one_run(store_url: str) -> None:
    doc = night_doc("edge", "2026-11-05")
    with Store(store_url) as store:
        first, again = store.record(doc), store.record(doc)
        assert first.created and not again.created and again.run_pk == first.run_pk
        assert len(store.run_rows()) == 1
        assert len(store.rule_rows([first.run_pk])[first.run_pk]) == len(doc["rules"])


def test_reopening_a_store_keeps_its_runs_and_schema_head(store_url: str) -> None:
    with Store(store_url) as store:
        store.record(night_doc("edge", "2026-11-06"))
    with Store(store_url) as store:
        assert [r["night"] for r in store.run_rows()] == ["2026-11-06"]
        with store.engine.connect() as conn:
            version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    assert version == "0001"


RECORDER = textwrap.dedent(
    """
    import json, sys, time
    from conformance.history import store as mod
    real = mod._insert_rows
    def slow(conn, pk, doc):
        real(conn, pk, doc)  # every row written, the transaction not committed yet
        print("inserted", flush=True)
        time.sleep(float(sys.argv[3]))
    mod._insert_rows = slow
    doc = json.load(open(sys.argv[2]))
    mod.Store(sys.argv[1]).record(doc)
    print("committed", flush=True)
    """
)


def _recorder(url: str, doc_path: Path, pause: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", RECORDER, url, str(doc_path), str(pause)],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def test_killed_recording_leaves_no_partial_run(store_url: str, tmp_path: Path) -> None:
    Store(store_url).close()  # migrated before the recorder starts
    path = tmp_path / "r.json"
    path.write_text(json.dumps(night_doc("edge", "2026-11-07")))
    proc = _recorder(store_url, path, pause=60)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "inserted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with Store(store_url) as store:
        assert store.run_rows() == []
        with store.engine.connect() as conn:
            for table in ("rule_results", "case_results"):
                count = conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar()
                assert count == 0, table
        assert store.record(json.loads(path.read_text())).created  # and it can be recorded later


def test_two_recorders_at_once_both_land(store_url: str, tmp_path: Path) -> None:
    Store(store_url).close()
    procs = []
    for night in ("2026-11-08", "2026-11-09"):
        path = tmp_path / f"{night}.json"
        path.write_text(json.dumps(night_doc(f"machine-{night}", night)))
        procs.append(_recorder(store_url, path, pause=1.0))
    deadline = time.monotonic() + 120
    for proc in procs:
        out, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        assert proc.returncode == 0 and out.split() == ["inserted", "committed"]
    with Store(store_url) as store:
        assert sorted(r["night"] for r in store.run_rows()) == ["2026-11-08", "2026-11-09"]


def test_first_openings_in_parallel_migrate_once(store_url: str) -> None:
    code = "import sys; from conformance.history.store import Store; Store(sys.argv[1]).close()"
    procs = [subprocess.Popen([sys.executable, "-c", code, store_url]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    with Store(store_url) as store:
        assert store.run_rows() == []


def test_a_file_the_store_cannot_hold_is_refused_whole(store_url: str) -> None:
    doc = night_doc("edge", "2026-11-11")
    doc["rules"].append(dict(doc["rules"][0]))  # one rule twice: not one run's verdicts
    with Store(store_url) as store:
        with pytest.raises(StoreError, match="not recorded"):
            store.record(doc)
        assert store.run_rows() == []
