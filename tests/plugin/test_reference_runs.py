"""End-to-end with the real reference: cleanup of exactly the run's buckets, one server per run.

These start the reference as a subprocess; the cleanup test needs its S3 surface to answer
ListBuckets and is skipped, saying so, while that surface is still a placeholder.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fake_catalog import conftest_source

from conformance import launcher

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ReferenceProcess]:
    run_dir = tmp_path_factory.mktemp("ref")
    ref = launcher.launch(run_dir, dt.date.today(), {})
    yield ref
    launcher.stop(run_dir, ref)


@pytest.fixture(scope="module")
def reference_s3(reference: launcher.ReferenceProcess) -> dict[str, str]:
    s3_client = pytest.importorskip("conformance.clients.s3")
    surface = reference.surfaces["s3"]
    problem = s3_client.preflight(surface)
    if problem is not None:
        pytest.skip(f"reference S3 surface not usable yet (placeholder?): {problem}")
    return surface


CLEANUP_TESTS = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_leaves_buckets_and_fails(s3, bucket, names, run_prefix, tmp_path_factory):
    (tmp_path_factory.getbasetemp().parent / "prefix.txt").write_text(run_prefix)
    s3.boto.put_object(Bucket=bucket, Key="k", Body=b"data")
    extra = names.bucket()
    s3.boto.create_bucket(Bucket=extra)
    s3.boto.put_object(Bucket=extra, Key="k2", Body=b"data")
    assert False, "fails on purpose"
"""


def test_cleanup_removes_run_buckets_after_failure_and_nothing_else(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, reference_s3: dict[str, str]
) -> None:
    from conformance.clients.s3 import S3Client

    admin = S3Client.from_surface(reference_s3, "ec-")
    foreign = ["foreign-keep-me", "ec-00000000-main-1keep"]
    for name in foreign:
        admin.boto.create_bucket(Bucket=name)
    monkeypatch.setenv("EXT_KEY_ID", reference_s3["access_key_id"])
    monkeypatch.setenv("EXT_SECRET", reference_s3["secret_access_key"])
    pytester.makefile(
        ".toml",
        conformance=f'[targets.ext.s3]\nendpoint = "{reference_s3["endpoint"]}"\n'
        'access_key_id_env = "EXT_KEY_ID"\nsecret_access_key_env = "EXT_SECRET"\n',
    )
    pytester.makeconftest(conftest_source())
    pytester.makepyfile(CLEANUP_TESTS)
    result = pytester.runpytest("--target", "ext")
    result.assert_outcomes(failed=1)
    prefix = (pytester.path.parent / "prefix.txt").read_text()
    left = admin.list_bucket_names()
    assert not [name for name in left if name.startswith(prefix)], left
    assert set(foreign) <= set(left)


XDIST_TESTS = """
import os, time
import pytest

@pytest.mark.rule("storage.put.ok")
@pytest.mark.parametrize("n", range(6))
def test_sees_the_reference(target, n):
    time.sleep(0.3)
    out = os.path.join(os.environ["SEEN_DIR"], f"seen-{n}.json")
    open(out, "w").write(
    '{"worker": "%s", "endpoint": "%s"}' % (
        os.environ["PYTEST_XDIST_WORKER"], target.surface("s3")["endpoint"]))
"""


def _port_open(url: str) -> bool:
    parts = urlsplit(url)
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex((parts.hostname or "", parts.port or 80)) == 0


def test_one_reference_server_under_two_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEEN_DIR", str(tmp_path))
    pytester.makeconftest(conftest_source())
    pytester.makepyfile(XDIST_TESTS)
    out = pytester.path / "results.json"
    result = pytester.runpytest_subprocess("-n", "2", "--results", str(out), timeout=180)
    result.assert_outcomes(passed=6)
    seen = [json.loads(p.read_text()) for p in tmp_path.glob("seen-*.json")]
    assert len(seen) == 6
    assert len({s["worker"] for s in seen}) == 2
    (endpoint,) = {s["endpoint"] for s in seen}
    assert not _port_open(endpoint), "the reference still runs after the session"
    doc = json.loads(out.read_text())
    assert [c["status"] for c in doc["cases"]] == ["PASS"] * 6


def test_reference_ready_file_shape(reference: launcher.ReferenceProcess) -> None:
    assert {"s3", "rules_api", "mgmt", "gateway", "public"} <= set(reference.surfaces)
    assert launcher.alive(reference.pid)
