"""The `conformance` command line: argument parsing, the pytest argv, exit codes, commands."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from conformance import cli_run
from conformance.cli import build_parser, main, run_options, split_passthrough
from conformance.cli_run import RunOptions, build_pytest_argv, default_run_id, run_exit_code

RESULTS = Path(__file__).resolve().parents[1] / "fixtures" / "results"


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    return doc


def parse_run(argv: list[str]) -> RunOptions:
    ours, passthrough = split_passthrough(argv)
    return run_options(build_parser().parse_args(ours), passthrough)


def test_run_builds_the_pytest_argv(tmp_path: Path) -> None:
    """Every run option maps to the plugin option of the same name; `--` args go last."""
    opts = parse_run([
        "run", "--target", "staging", "--targets-file", "t.toml", "--as-of", "2022-05-01",
        "--rule", "storage.delete", "--rule", "storage.get", "--area", "storage",
        "--reference-profile", "a=1", "-n", "2", "--", "-x", "-k", "limit",
    ])  # fmt: skip
    argv = build_pytest_argv(opts, tmp_path / "r1", "r1", python="PY")
    assert argv == [
        "PY", "-m", "pytest", "--pyargs", "conformance.suite", "-p", "no:cacheprovider",
        "-n", "2", "--target", "staging", "--run-id", "r1",
        "--results", str(tmp_path / "r1" / "results.json"),
        "--junitxml", str(tmp_path / "r1" / "junit.xml"), "-o", "junit_family=xunit2",
        "--continue-on-collection-errors",
        "--timeout", "300", "--targets-file", "t.toml", "--as-of", "2022-05-01",
        "--rule", "storage.delete", "--rule", "storage.get", "--area", "storage",
        "--reference-profile", "a=1", "-x", "-k", "limit",
    ]  # fmt: skip


def test_run_passes_bindings_compatibility() -> None:
    """--compat-date and --compat-flag reach the plugin unchanged."""
    opts = parse_run(
        ["run", "--compat-date", "2022-07-01", "--compat-flag", "r2_list_honor_include"]
    )
    argv = build_pytest_argv(opts, Path("d"), "x")
    assert argv[argv.index("--compat-date") + 1] == "2022-07-01"
    assert argv[argv.index("--compat-flag") + 1] == "r2_list_honor_include"


def test_run_defaults() -> None:
    """Without options: the reference, today's rules, -n auto, ./reports."""
    opts = parse_run(["run"])
    assert (opts.target, opts.as_of, opts.workers) == ("reference", None, "auto")
    assert opts.report_dir == Path("reports") and opts.pytest_args == []
    argv = build_pytest_argv(opts, Path("d"), "x")
    assert "--as-of" not in argv and "--targets-file" not in argv
    assert argv[argv.index("-n") + 1] == "auto"


def test_default_run_id_is_time_and_safe_target() -> None:
    """Run ids sort by time and are safe file names."""
    when = dt.datetime(2024, 11, 21, 10, 30, 5, tzinfo=dt.UTC)
    assert default_run_id("reference", when) == "20241121T103005Z-reference"
    assert default_run_id("my target/../x", when) == "20241121T103005Z-my-target-..-x"
    assert cli_run.safe_name("///") == "run"


def test_passthrough_only_for_run(capsys: pytest.CaptureFixture[str]) -> None:
    """`--` arguments are refused by other commands."""
    with pytest.raises(SystemExit):
        main(["diff", "a", "b", "--", "-x"])
    assert "only for `conformance run`" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "rc", "expected", "says"),
    [
        ("all-pass", 0, 0, None),
        ("mixed", 1, 1, "failing cases: 1 ERROR, 3 FAIL"),
        (None, 1, 1, "without writing results.json"),
        (None, 3, 3, "internal error"),
        (None, 0, 1, "without writing results.json"),
        ("all-pass", 5, 5, "no tests collected"),
        ("all-pass", 2, 2, "interrupted"),
    ],
)
def test_run_exit_code(name: str | None, rc: int, expected: int, says: str | None) -> None:
    """Non-zero on FAIL/ERROR/XPASS, missing results, no tests, or any pytest failure."""
    code, lines = run_exit_code(load(name) if name else None, rc)
    assert code == expected
    if says:
        assert says in " ".join(lines)
    else:
        assert lines == []


def test_xpass_alone_fails_the_run() -> None:
    """An unexpected pass is reported as a failure of the run."""
    doc = load("all-pass")
    doc["cases"][0]["status"] = "XPASS"
    assert run_exit_code(doc, 0)[0] == 1


def fake_pytest(results: str | None, rc: int) -> Any:
    """Stands for the pytest child: copies a sample results file where it was asked to."""

    def call(argv: list[str]) -> int:
        if results:
            shutil.copy(RESULTS / f"{results}.json", argv[argv.index("--results") + 1])
        return rc

    return call


def test_run_renders_and_summarises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After pytest: index.html beside results.json, one line per area, the verdict."""
    monkeypatch.setattr("conformance.cli_run.call_forwarding_signals", fake_pytest("mixed", 1))
    code = main(["run", "--report-dir", str(tmp_path), "--run-id", "nightly 1"])
    out = capsys.readouterr()
    assert code == 1
    index = tmp_path / "nightly-1" / "index.html"
    assert index.exists() and f"report: {index}" in out.out
    assert "storage    MUST 7/9 PASS  score 78%  coverage 75%" in out.out
    assert "verdict: NOT CERTIFIED at MUST level" in out.out
    assert "failing cases" in out.err


def test_run_no_html_writes_no_report_and_the_same_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--no-html (the mutation harness reads only results.json): no index.html (an earlier
    run's of the same id is removed, not left beside new results), same exit."""
    monkeypatch.setattr("conformance.cli_run.call_forwarding_signals", fake_pytest("mixed", 1))
    (tmp_path / "quiet").mkdir()
    (tmp_path / "quiet" / "index.html").write_text("an earlier run's report", "utf-8")
    code = main(["run", "--report-dir", str(tmp_path), "--run-id", "quiet", "--no-html"])
    out = capsys.readouterr()
    assert code == 1 and "verdict: NOT CERTIFIED at MUST level" in out.out
    assert (tmp_path / "quiet" / "results.json").exists()
    assert not (tmp_path / "quiet" / "index.html").exists() and "report:" not in out.out


def test_run_passes_against_all_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clean run exits 0; a baseline with a regression against it would not."""
    monkeypatch.setattr("conformance.cli_run.call_forwarding_signals", fake_pytest("all-pass", 0))
    assert main(["run", "--report-dir", str(tmp_path), "--run-id", "a"]) == 0
    assert "verdict: CERTIFIED" in capsys.readouterr().out
    monkeypatch.setattr("conformance.cli_run.call_forwarding_signals", fake_pytest("mixed", 0))
    code = main(
        [
            "run",
            "--report-dir",
            str(tmp_path),
            "--run-id",
            "b",
            "--baseline",
            str(RESULTS / "older.json"),
        ]
    )
    assert code == 1 and "REGRESSED" in capsys.readouterr().out


def test_run_without_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest failing before writing results: its code is passed on and said."""
    monkeypatch.setattr("conformance.cli_run.call_forwarding_signals", fake_pytest(None, 4))
    assert main(["run", "--report-dir", str(tmp_path), "--run-id", "c"]) == 4
    assert "code 4 (usage error) without writing results.json" in capsys.readouterr().err
    assert not (tmp_path / "c" / "index.html").exists()


def test_report_command_single_and_matrix(tmp_path: Path) -> None:
    """One file renders a report, several a matrix."""
    out = tmp_path / "one.html"
    assert main(["report", str(RESULTS / "mixed.json"), "-o", str(out)]) == 0
    assert "Not certified at MUST level" in out.read_text()
    matrix = tmp_path / "m.html"
    files = [str(RESULTS / f"{n}.json") for n in ("all-pass", "mixed")]
    assert main(["report", *files, "-o", str(matrix), "--label", "ref", "--label", "stg"]) == 0
    assert "<th>ref</th><th>stg</th>" in matrix.read_text()
    assert main(["report", *files, "--label", "only-one"]) == 2


def test_targets_lists_reference_and_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The built-in reference and each file target are listed with their surfaces."""
    toml = tmp_path / "t.toml"
    toml.write_text(
        '[targets.moto.s3]\nendpoint = "http://x"\n[targets.hh.gateway]\nurl = "http://y"\n'
    )
    assert main(["targets", "--targets-file", str(toml)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reference")
    assert "moto" in out and "s3" in out and "hh" in out and "gateway" in out
    assert main(["targets", "--targets-file", str(tmp_path / "none.toml")]) == 2
    toml.write_text("[targets.bad\n")
    assert main(["targets", "--targets-file", str(toml)]) == 2


def test_rules_delegates_all_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """`conformance rules ...` hands its argv, untouched, to rules_cmd.run_rules."""
    seen: list[list[str]] = []
    fake = types.ModuleType("conformance.rules_cmd")

    def run_rules(argv: list[str]) -> int:
        seen.append(argv)
        return 0

    fake.run_rules = run_rules  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "conformance.rules_cmd", fake)
    assert main(["rules", "--area", "storage", "--uncovered"]) == 0
    assert seen == [["--area", "storage", "--uncovered"]]


def test_serve_launches_the_reference(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`conformance serve` is the reference's own launcher with the given options."""
    import reference_impl.__main__ as ref

    seen: list[list[str]] = []

    def reference_main(argv: list[str]) -> int:
        seen.append(argv)
        return 0

    monkeypatch.setattr(ref, "main", reference_main)
    assert (
        main(
            [
                "serve",
                "--data-dir",
                str(tmp_path),
                "--port",
                "9000",
                "--behaviour-date",
                "2022-05-01",
                "--profile",
                "a=1",
            ]
        )
        == 0
    )
    assert seen == [
        [
            "--data-dir",
            str(tmp_path),
            "--port",
            "9000",
            "--host",
            "127.0.0.1",
            "--behaviour-date",
            "2022-05-01",
            "--profile",
            "a=1",
        ]
    ]


def test_closed_pipe_is_not_a_crash() -> None:
    """`conformance rules --format json | head -c 100` ends quietly when the reader leaves."""
    import subprocess

    script = "import sys; from conformance.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "rules", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(100).startswith(b"{")
    proc.stdout.close()  # the reader leaves after 100 bytes
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, stderr
    assert "Traceback" not in stderr, stderr
