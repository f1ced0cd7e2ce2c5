"""The `paddock` command line and the README's promises about it."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import discord

from bot.cli import RedactSecrets, main
from bot.client import INVITE_SCOPES, REQUIRED_PERMISSIONS

ROOT = Path(__file__).resolve().parent.parent


def paddock(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT):
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def test_run_without_a_token_names_the_setting_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDOCK_")}
    env["PYTHONPATH"] = str(ROOT)
    proc = paddock("run", env=env, cwd=tmp_path)  # no .env in tmp_path
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "PADDOCK_TOKEN" in lines[0]
    assert "Traceback" not in proc.stderr


def test_the_token_is_redacted_from_log_lines() -> None:
    secret = "MTIzNDU2Nzg5.fake.token-value"
    record = logging.LogRecord(
        "x", logging.ERROR, __file__, 1, "login with %s failed", (secret,), None
    )
    RedactSecrets(secret).filter(record)
    assert secret not in record.getMessage() and "[token]" in record.getMessage()


def test_migrate_twice_then_verify_an_empty_database(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "cli.db")
    assert main(["migrate", "--db", db]) == 0
    assert "applied 0001_initial" in capsys.readouterr().out
    assert main(["migrate", "--db", db]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["verify", "--db", db]) == 0
    assert main(["verify", "--db", str(tmp_path / "missing.db")]) == 2


def test_simulate_refuses_an_unknown_game(capsys) -> None:
    assert main(["simulate", "no-such-game", "--seed", "1", "--json"]) == 2
    assert "unknown game 'no-such-game'" in capsys.readouterr().err


def test_readme_invite_matches_the_code() -> None:
    readme = (ROOT / "README.md").read_text()
    url = re.search(r"https://discord.com/oauth2/authorize\?\S+", readme).group(0)
    assert f"permissions={REQUIRED_PERMISSIONS.value}" in url
    assert "scope=" + "+".join(INVITE_SCOPES) in url
    for name, value in REQUIRED_PERMISSIONS:
        if value:
            label = name.replace("_", " ").title().replace("Channel", "Channels")
            assert label.split()[0] in readme, label
    assert discord.Permissions(REQUIRED_PERMISSIONS.value).attach_files


def test_readme_settings_exist_in_env_example_and_settings() -> None:
    from bot.settings import Settings

    readme = (ROOT / "README.md").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in re.findall(r"PADDOCK_[A-Z_]+", readme):
        assert name in example, name
        assert name.removeprefix("PADDOCK_").lower() in Settings.model_fields, name
    assert "make demo" in readme and "make test" in readme


def test_ci_runs_make_test() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_bench_quick_prints_one_json_object_in_the_agreed_shape() -> None:
    proc = paddock("bench", "--quick", "--json", env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["calibration_ms"] > 0
    league = result["games"]["league"]
    assert league["move_ms"]["p50"] > 0 and league["move_ms"]["p99"] >= league["move_ms"]["p50"]
    assert league["render_ms"]["standings"]["p99"] > 0
    assert league["png_bytes"]["standings"] > 1000
    assert result["concurrency"]["games"] >= 1 and result["concurrency"]["max_ms"] > 0
    assert set(result["rss_mb"]) == {"1", "10", "200"}


def test_simulate_one_race_prints_its_json_summary(capsys) -> None:
    assert main(["simulate", "rf90", "--seed", "3", "--players", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "rf90" and result["seed"] == 3 and result["players"] == 1
    assert len(result["classification"]) == 8  # one seat and seven robots


def test_simulate_races_is_refused_for_a_game_without_it(capsys) -> None:
    assert main(["simulate", "pitformula", "--races", "2"]) == 2
    assert "--races is not available for pitformula" in capsys.readouterr().err
