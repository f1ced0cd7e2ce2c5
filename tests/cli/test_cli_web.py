"""`paddock web`: the league site alone, on the bot's database opened read-only, until
SIGTERM; a database it cannot read is one line."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.helpers import ROOT
from tests.web.web_helpers import filled


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDOCK_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def test_paddock_web_serves_a_public_league_read_only_until_stopped(tmp_path: Path) -> None:
    data = asyncio.run(filled(tmp_path))
    before = data.path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "web", "--db", str(data.path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=_env(PADDOCK_WEB_BASE_URL="https://cup.example"),
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 30
        address = None
        while address is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            found = re.search(r"league site on http://(\S+) \(links: https://cup\.example\)", line)
            address = found.group(1) if found else None
        assert address is not None, "no start-up line"
        url = f"http://{address}/l/{data.league.web_token}"
        with urllib.request.urlopen(url, timeout=10) as page:
            html = page.read().decode()
        assert "<h1>Sunday Cup</h1>" in html
        assert f'content="https://cup.example/l/{data.league.web_token}/standings.png"' in html
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert str(data.league.web_token) not in err  # its access log line too
        assert "GET /l/… 200" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert data.path.read_bytes() == before  # read-only: not a byte changed


def _web(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`paddock web ARGS` run to its end in `tmp_path`."""
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "web", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=60,
    )


def test_paddock_web_on_a_missing_database_is_one_line(tmp_path: Path) -> None:
    proc = _web(tmp_path, "--db", str(tmp_path / "none.db"), "--port", "0")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "none.db" in lines[0] and "no database file" in lines[0]
    assert not (tmp_path / "none.db").exists()


def test_paddock_web_nice_out_of_range_is_one_line(tmp_path: Path) -> None:
    proc = _web(tmp_path, "--db", str(tmp_path / "x.db"), "--nice", "25")
    assert (proc.returncode, proc.stderr) == (2, "web: --nice takes 0 to 19\n")
    assert not (tmp_path / "x.db").exists()
