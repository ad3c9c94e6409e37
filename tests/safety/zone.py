"""A zone that already belongs to a user: a reference started by the test (not by the suite),
seeded with the user's custom field rules, an enabled log push job and non-prefixed buckets,
and a targets file naming it, so that the suite treats it as a live account.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from helpers.reference_process import launch_reference, stop_process

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient

TARGET = "user"
USER_RULES = [
    {
        "action": "log_custom_field",
        "expression": "true",
        "description": "user rule one",
        "enabled": True,
        "action_parameters": {"request_fields": [{"name": "x-user-a"}]},
    },
    {
        "action": "log_custom_field",
        "expression": "true",
        "description": "user rule two (off)",
        "enabled": False,
        "action_parameters": {"cookie_fields": [{"name": "user_session"}]},
    },
    {
        "action": "log_custom_field",
        "expression": "true",
        "description": "user rule three",
        "ref": "user-ref-3",
        "action_parameters": {"response_fields": [{"name": "x-user-c"}]},
    },
]
RULE_KEYS = ("id", "ref", "action", "expression", "description", "action_parameters", "enabled")
RUN_TIMEOUT = 120.0


@dataclass
class LiveZone:
    process: subprocess.Popen[bytes]
    ready: dict[str, Any]
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def targets_file(self) -> Path:
        return self.home / "targets.toml"

    @property
    def state_dir(self) -> Path:
        return Path(self.env["CONFORMANCE_STATE_DIR"])

    def rules(self) -> RulesApiClient:
        return RulesApiClient.from_surface(self.ready["surfaces"]["rules_api"])

    def boto(self) -> Any:
        s3 = self.ready["surfaces"]["s3"]
        return boto3.client(
            "s3", endpoint_url=s3["endpoint"], region_name="auto",
            aws_access_key_id=s3["access_key_id"], aws_secret_access_key=s3["secret_access_key"],
        )  # fmt: skip

    def stop(self) -> None:
        stop_process(self.process)

    # -- the suite ---------------------------------------------------------------------------
    def suite_argv(self, *args: str, workers: str = "0") -> list[str]:
        return [
            sys.executable, "-m", "pytest", "--pyargs", "conformance.suite",
            "-p", "no:cacheprovider", "-p", "no:randomly", "-q", "-n", workers,
            "--target", TARGET, "--targets-file", str(self.targets_file), "--timeout", "60",
            *args,
        ]  # fmt: skip

    def start(self, argv: list[str], state_dir: Path | None = None) -> subprocess.Popen[str]:
        """The run, with the signals a terminal sends at their defaults: a test process started
        under `nohup` or a script's `cmd &` ignores SIGHUP or SIGINT, the run would inherit
        that, and the tests that signal it would see it go on (the suite keeps an ignored
        signal ignored, as it should)."""
        env = dict(self.env)
        if state_dir is not None:
            env["CONFORMANCE_STATE_DIR"] = str(state_dir)
        return subprocess.Popen(
            [sys.executable, "-c", DEFAULT_SIGNALS_THEN_EXEC, *argv], cwd=self.home, env=env,
            text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def conformance(self, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "conformance.cli", *args]
        return subprocess.run(
            argv, cwd=self.home, env=self.env, text=True, capture_output=True,
            timeout=RUN_TIMEOUT, check=False,
        )  # fmt: skip

    def recover(self) -> subprocess.CompletedProcess[str]:
        return self.conformance("recover", "--target", TARGET, "--targets-file",
                                str(self.targets_file))  # fmt: skip

    # -- what the user has -------------------------------------------------------------------
    def user_state(self) -> dict[str, Any]:
        """Everything of the user's that the suite may affect, as the API shows it."""
        client = self.rules()
        listed = client.list_rulesets().assert_envelope_ok(200)
        entry = client.find_zone_ruleset()
        full = client.get_ruleset(str(entry["id"])).assert_envelope_ok(200) if entry else None
        rules = [{k: r.get(k) for k in RULE_KEYS} for r in (full or {}).get("rules", [])]
        jobs = client.list_jobs().assert_envelope_ok(200)
        s3 = self.boto()
        buckets = sorted(b["Name"] for b in s3.list_buckets()["Buckets"])
        objects = {  # log files the user's job delivers are traffic, not configuration
            b: sorted(
                o["Key"]
                for o in s3.list_objects_v2(Bucket=b).get("Contents", [])
                if not o["Key"].endswith(".log.gz")
            )
            for b in buckets
            if not b.startswith("ec-")
        }
        return {
            "entry_point": None if full is None else {
                "id": full["id"], "description": full.get("description"), "rules": rules,
            },
            "rulesets": sorted(str(r.get("name")) for r in listed),
            "jobs": sorted((j["id"], j["name"], j.get("enabled")) for j in jobs),
            "buckets": buckets,
            "objects": objects,
        }  # fmt: skip

    def suite_leftovers(self) -> list[str]:
        """Names of `ec-` resources on the target (buckets, jobs, rulesets)."""
        state = self.user_state()
        names = [b for b in state["buckets"] if b.startswith("ec-")]
        names += [j[1] for j in state["jobs"] if str(j[1]).startswith("ec-")]
        return names + [r for r in state["rulesets"] if r.startswith("ec-")]

    def entry_rules(self) -> list[str]:
        """Descriptions of the entry point's rules now (cheap poll while a run changes them)."""
        client = self.rules()
        entry = client.find_zone_ruleset()
        if entry is None:
            return []
        full = client.get_ruleset(str(entry["id"])).assert_envelope_ok(200)
        return [str(r.get("description")) for r in full.get("rules", [])]


# Run as `python -c <this> <argv...>`: the signals back at their defaults, then exec the run.
DEFAULT_SIGNALS_THEN_EXEC = (
    "import os, signal, sys\n"
    "for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):\n"
    "    signal.signal(signum, signal.SIG_DFL)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def start_zone(home: Path, *reference_args: str, seed: bool = True) -> LiveZone:
    """A reference with the user's state and a targets file naming it `user`."""
    process, ready = launch_reference(home / "data", *reference_args)
    zone = LiveZone(process, ready, home)
    surfaces = ready["surfaces"]
    s3, api = surfaces["s3"], surfaces["rules_api"]
    zone.targets_file.write_text(
        f"""[targets.{TARGET}.s3]
endpoint = "{s3["endpoint"]}"
access_key_id = "{s3["access_key_id"]}"
secret_access_key_env = "USER_S3_SECRET"
account_id = "{s3["account_id"]}"
[targets.{TARGET}.rules_api]
base_url = "{api["base_url"]}"
email = "{api["email"]}"
api_key_env = "USER_API_KEY"
zone_id = "{api["zone_id"]}"
[targets.{TARGET}.edge]
url = "{surfaces["edge"]["url"]}"
""",
        encoding="utf-8",
    )
    zone.env = {
        **os.environ,
        "USER_S3_SECRET": s3["secret_access_key"],
        "USER_API_KEY": api["api_key"],
        "CONFORMANCE_STATE_DIR": str(home / "state"),
        "CONFORMANCE_LOG_WAIT": "20",
        # a run paused (SIGSTOP) mid-call on a busy machine still gets its answer (issue 22)
        "CONFORMANCE_API_TIMEOUT": "180",
    }
    if seed:
        seed_user_state(zone)
    return zone


def seed_user_state(zone: LiveZone) -> None:
    """The user's own buckets, custom field rules and an enabled job delivering to a bucket."""
    s3 = zone.boto()
    s3.create_bucket(Bucket="user-data")
    s3.put_object(Bucket="user-data", Key="keep/me.txt", Body=b"the user's object")
    s3.create_bucket(Bucket="user-logs")
    client = zone.rules()
    body = {"name": "user fields", "kind": "zone", "phase": LOG_PHASE,
            "description": "the user's ruleset", "rules": USER_RULES}  # fmt: skip
    client.create_ruleset(body).assert_envelope_ok(200)
    surface = zone.ready["surfaces"]["s3"]
    dest = (
        f"r2://user-logs/http?account-id={surface['account_id']}"
        f"&access-key-id={surface['access_key_id']}"
        f"&secret-access-key={surface['secret_access_key']}"
    )
    challenge = client.request_ownership(dest).assert_envelope_ok()
    token = s3.get_object(Bucket="user-logs", Key=challenge["filename"])["Body"].read()
    job = {"name": "user-job", "destination_conf": dest, "dataset": "http_requests",
           "logpull_options": "fields=RayID,RequestHeaders&timestamps=rfc3339",
           "ownership_challenge": token.decode().strip(), "enabled": True}  # fmt: skip
    client.create_job(job).assert_envelope_ok()


def wait_until(check: Callable[[], bool], process: subprocess.Popen[str], timeout: float) -> None:
    """Poll `check` until true; fails when the run ended first or the time is up."""
    deadline = time.monotonic() + timeout
    while not check():
        if process.poll() is not None:
            out = process.stdout.read() if process.stdout else ""
            raise AssertionError(f"the run ended ({process.returncode}) first:\n{out[-3000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("the awaited point of the run never came")
        time.sleep(0.05)


def finish(process: subprocess.Popen[str], timeout: float = RUN_TIMEOUT) -> tuple[int, str]:
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        raise AssertionError(f"the run did not end:\n{out[-3000:]}") from None
    return process.returncode, out


def journal_files(zone: LiveZone) -> list[Path]:
    folder = zone.state_dir / "journal"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
