"""The `paddock` command line and the README's promises about it."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest

from bot.cli import RedactSecrets, main
from bot.client import INVITE_SCOPES, REQUIRED_PERMISSIONS
from rules.base import games
from store.migrate import MIGRATIONS_DIR
from tests.helpers import ROOT


def paddock(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 60):
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
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
    # two to three minutes when the machine is idle (the site_load pairs of both modes); CI
    # machines are shared, and this test runs beside the others
    proc = paddock(
        "bench", "--quick", "--json", env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900
    )
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
    rf90 = result["games"]["rf90"]
    for figure in ("press_ms", "press_to_picture_ms", "cockpit_ms"):
        assert 0 < rf90[figure]["p50"] <= rf90[figure]["p99"]
    assert result["concurrency"]["rss_mb"] > 0
    assert rf90["replay_frames"] > 2 and 0 < rf90["replay_bytes"] < 10 * 1024 * 1024
    mixed = result["mixed"]  # issue 11's load, in small: 20 games of the three, 15 s
    assert sum(mixed["games"].values()) == 20 and mixed["interactions"] > 0
    assert mixed["answer_p99_ms"] > 0 and mixed["done_p99_ms"] > 0
    assert mixed["late_answers"] >= 0
    assert set(mixed["rss_mb"]) == {
        "start",
        "end",
        "max",
        "slope_mb_per_min_second_half",
        "by_minute",
    }
    assert isinstance(mixed["rss_mb"]["slope_mb_per_min_second_half"], float)
    burst = result["burst"]  # issue 30's race night, in small: 20 games opened at once
    assert sum(burst["games"].values()) == 20 and burst["burst"]["interactions"] >= 20
    assert burst["burst"]["answer_max_ms"] > 0 and burst["late_answers"] >= 0
    assert "skipped" in result["two_processes"]  # on PostgreSQL only
    site = result["site"]  # issue 26's pages, in small: 20 leagues, 100 races
    assert (site["leagues"], site["races"]) == (20, 100)
    assert all(p["statuses"] == {"200": p["requests"]} for p in site["pages"].values())
    assert all(0 < p["p50"] <= p["p99"] for p in site["pages"].values())
    # one pair each, with and without the site's visitors: the site beside the bot, in it
    for mode, served_by in (("own_process", "own_process"), ("in_bot", "bot_child")):
        pair = result["site_load"][mode]["pairs"][0]
        assert pair["with"]["site"]["requests"] > 0 and pair["without"]["site"]["requests"] == 0
        assert pair["with"]["site"]["served_by"] == served_by
        assert pair["answer_p99_difference_ms"] is not None
    assert "bench: RF90 replay" in proc.stderr  # progress, while stdout is the JSON alone
    assert "bench: mixed: 20 games" in proc.stderr  # the fresh process's progress too


def test_simulate_one_race_prints_its_json_summary(capsys) -> None:
    assert main(["simulate", "rf90", "--seed", "3", "--players", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "rf90" and result["seed"] == 3 and result["players"] == 1
    assert len(result["classification"]) == 8  # one seat and seven robots


def test_simulate_races_is_refused_for_a_game_without_it(capsys) -> None:
    assert main(["simulate", "pitformula", "--races", "2"]) == 2
    assert "--races is not available for pitformula" in capsys.readouterr().err


def test_the_token_is_redacted_from_tracebacks_and_stacks() -> None:
    secret = "MTIzNDU2Nzg5.fake.token-value"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactSecrets(secret))
    log = logging.getLogger("test.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        try:
            raise RuntimeError(f"login with {secret} refused")
        except RuntimeError:
            log.exception("login failed")
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "stack", (), None)
        record.stack_info = f'Stack (most recent call last):\n  token = "{secret}"'
        log.handle(record)
    finally:
        log.removeHandler(handler)
    text = out.getvalue()
    assert "Traceback" in text and "RuntimeError: login with [token] refused" in text
    assert 'token = "[token]"' in text
    assert secret not in text


def _paddock_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDOCK_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _finish(proc: subprocess.Popen[str], seconds: float = 30) -> tuple[int, str, str]:
    """Wait for a `paddock` process; a hang fails the test instead of blocking the suite."""
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{proc.args} hung for {seconds} s")
    return proc.returncode, out, err


def _start(*args: str, env: dict[str, str], cwd: Path, pre: tuple[str, ...] = ()):  # noqa: ANN202
    return subprocess.Popen(
        [*pre, sys.executable, "-m", "bot.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
    )


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_store_commands_on_a_file_that_is_not_a_database_say_so_in_one_line(
    tmp_path: Path,
) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(b"not a database, just notes\n" * 100)
    env = _paddock_env(PADDOCK_TOKEN="fake-token")  # `run` checks the store before Discord
    procs = [
        _start(command, "--db", str(db), env=env, cwd=tmp_path)
        for command in ("verify", "migrate", "run")
    ]
    for proc in procs:
        code, _, err = _finish(proc)
        assert code == 2, err
        assert _one_line(err) == f"paddock: {db}: not a SQLite database"
    assert db.read_bytes() == b"not a database, just notes\n" * 100


def test_migrate_gives_up_on_a_locked_database_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "locked.db"
    assert main(["migrate", "--db", str(db)]) == 0
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing, beyond the busy timeout
    try:
        started = time.monotonic()
        code, _, err = _finish(_start("migrate", "--db", str(db), env=_paddock_env(), cwd=ROOT))
        waited = time.monotonic() - started
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert code == 2
    assert _one_line(err) == (
        f"paddock: {db}: the database is locked by another process (gave up after 5 s)"
    )
    assert 5 <= waited < 20


def _drop_root_privilege() -> tuple[str, ...]:
    """Root writes to a chmod 444 file anyway: run the child without the capability that
    lets it (setpriv, util-linux), or skip."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and setpriv is missing: cannot make a file read-only")
    pre = (setpriv, "--bounding-set", "-dac_override,-dac_read_search")
    probe = subprocess.run([*pre, "true"], capture_output=True, timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"running as root and setpriv cannot drop a capability: {probe.stderr!r}")
    return pre


def test_a_read_only_database_is_refused_in_one_line_but_can_be_verified(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ro.db"
    assert main(["migrate", "--db", str(db)]) == 0
    before = db.read_bytes()
    db.chmod(0o444)
    pre = _drop_root_privilege()
    env = _paddock_env(PADDOCK_TOKEN="fake-token")
    procs = {
        command: _start(command, "--db", str(db), env=env, cwd=tmp_path, pre=pre)
        for command in ("migrate", "run", "verify")
    }
    for command in ("migrate", "run"):
        code, _, err = _finish(procs[command])
        assert code == 2, err
        assert _one_line(err) == f"paddock: {db}: the database is read-only"
    code, out, err = _finish(procs["verify"])  # reading needs no writes
    assert code == 0, err
    assert "0 game(s) replayed" in out
    assert db.read_bytes() == before


# `paddock migrate` with the migrations taken from another folder.
_MIGRATE_FROM = (
    "import sys; from pathlib import Path; import store.migrate as m;"
    " m.MIGRATIONS_DIR = Path(sys.argv[1]); from bot.cli import main;"
    " sys.exit(main(['migrate', '--db', sys.argv[2]]))"
)


def test_a_failing_migration_is_one_line_and_keeps_the_previous_version(
    tmp_path: Path,
) -> None:
    mdir = tmp_path / "migrations"
    mdir.mkdir()
    for sql in sorted(MIGRATIONS_DIR.glob("*.sql"))[:2]:
        (mdir / sql.name).write_text(sql.read_text())
    db = tmp_path / "m.db"
    (mdir / "0003_broken.sql").write_text(
        "CREATE TABLE half_done (id INTEGER);\nINSERT INTO no_such_table VALUES (1);\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", _MIGRATE_FROM, str(mdir), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=_paddock_env(),
    )
    code, _, err = _finish(proc)
    assert code == 2
    assert _one_line(err) == (
        f"paddock: {db}: migration 0003_broken failed and was rolled back: "
        "no such table: no_such_table"
    )
    with sqlite3.connect(db) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert versions == [1, 2] and "half_done" not in names


def test_every_subcommand_help_says_what_it_does_and_its_defaults(capsys) -> None:
    for command in ("run", "web", "demo", "migrate", "simulate", "verify", "copy-db", "bench"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        description = text.split("\n\n")[1]  # after the usage: what the command does
        assert not description.lstrip().startswith(("options:", "positional")), command
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = capsys.readouterr().out
    # every registered game (a test's toy game too, once another test has registered it)
    known = ", ".join(sorted(games()))
    assert {"pitformula", "rf90", "waddington"} <= set(games())
    assert f"one of: {known}" in text and "barcelona, silverstone" in text
    assert "standard-score" in text and "(default: 1)" in text and "None" not in text


def test_bench_options_out_of_range_are_refused_in_one_line(capsys) -> None:
    assert main(["bench", "--only", "mixed", "--mixed-seconds", "1"]) == 2
    assert capsys.readouterr().err.strip() == "bench: --mixed-seconds takes 5 to 3600 seconds"
    assert main(["bench", "--only", "burst", "--burst", "1"]) == 2
    assert capsys.readouterr().err.strip() == "bench: --burst takes 4 to 1000 games"
