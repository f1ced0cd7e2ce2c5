"""PADDOCK_OPS_PORT and PADDOCK_OPS_HOST: read, refused in one line when bad; a port the ops
server cannot listen on stops `paddock run` in one line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ops import OpsUnavailable
from bot.settings import MissingSetting, load_settings


def test_the_ops_settings_are_read_and_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PADDOCK_OPS_PORT", raising=False)
    monkeypatch.delenv("PADDOCK_OPS_HOST", raising=False)
    off = load_settings(_env_file=None)
    assert off.ops_port is None and off.ops_host == "127.0.0.1"
    monkeypatch.setenv("PADDOCK_OPS_PORT", "")  # left empty in .env: off
    assert load_settings(_env_file=None).ops_port is None
    monkeypatch.setenv("PADDOCK_OPS_PORT", "9464")
    monkeypatch.setenv("PADDOCK_OPS_HOST", "0.0.0.0")
    on = load_settings(_env_file=None)
    assert (on.ops_port, on.ops_host) == (9464, "0.0.0.0")


def test_a_bad_ops_port_is_refused_in_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PADDOCK_OPS_PORT", "70000")
    with pytest.raises(MissingSetting) as refused:
        load_settings(_env_file=None)
    (line,) = str(refused.value.code).splitlines()
    assert line.startswith("paddock: PADDOCK_OPS_PORT: ")


def test_paddock_run_stops_in_one_line_when_the_ops_port_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Bot:
        def run(self, token: str, **options: Any) -> None:
            raise OpsUnavailable("PADDOCK_OPS_PORT: cannot listen on 127.0.0.1:9464: in use")

    monkeypatch.setenv("PADDOCK_TOKEN", "fake-token")
    monkeypatch.setattr(cli, "setup_logging", lambda *a: None)  # pytest keeps its handlers
    monkeypatch.setattr("bot.client.create_bot", lambda settings: Bot())
    args = argparse.Namespace(db=str(tmp_path / "run.db"), db_url=None)
    assert cli.cmd_run(args) == 2
    err = capsys.readouterr().err
    assert err == "paddock: PADDOCK_OPS_PORT: cannot listen on 127.0.0.1:9464: in use\n"
