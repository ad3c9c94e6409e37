"""Fixtures of the results-store tests: a store URL per backend (SQLite file; PostgreSQL server
started here from the Debian package's binaries, in a temporary directory, for the session)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_pg_user(argv: list[str]) -> list[str]:
    """The server refuses to run as root: hand it to the `postgres` account then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return argv


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """URL of the maintenance database of a throwaway PostgreSQL server (trust auth, loopback).

    Its directory is outside pytest's (mode 0700, root's): the `postgres` account must enter it.
    """
    if not PG_BIN:
        pytest.skip("PostgreSQL binaries absent (Debian package postgresql; .ci/run installs it)")
    pytest.importorskip("psycopg", reason="psycopg not installed (extra [postgres])")
    bin_dir = Path(PG_BIN[-1])
    root = Path(tempfile.mkdtemp(prefix="ec-history-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    os.chmod(root, 0o755)
    run = {"check": True, "capture_output": True, "timeout": 120}
    subprocess.run(
        _as_pg_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]),
        **run,
    )
    port = _free_port()
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
    ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w"]
    subprocess.run(_as_pg_user([*ctl, "-o", opts, "start"]), **run)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_pg_user([*ctl, "-m", "fast", "stop"]), check=False, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _fresh_pg_database(server: str) -> str:
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    return _fresh_pg_database(request.getfixturevalue("postgres_server"))
