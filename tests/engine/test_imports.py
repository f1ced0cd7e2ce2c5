"""What the installed packages may import: never `tests` (a wheel has no tests/, so `paddock
bench` and `paddock demo` must run without it), and the bot's run time never the tools."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "rules", "renderer", "store", "web", "paddock_tools")
RUNTIME = ("bot", "rules", "renderer", "store", "web")  # what `paddock run` loads
TOOLS = "paddock_tools"


def modules(*packages: str) -> Iterator[Path]:
    for package in packages:
        yield from sorted((ROOT / package).rglob("*.py"))


def imported(tree: ast.AST) -> Iterator[tuple[ast.stmt, str]]:
    """Every absolute import in a module, with the statement that makes it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node, node.module


def top_level(name: str) -> str:
    return name.split(".")[0]


def test_no_package_imports_tests() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
        for path in modules(*PACKAGES)
        for node, name in imported(ast.parse(path.read_text("utf-8"), str(path)))
        if top_level(name) == "tests"
    ]
    assert found == []
    assert all((ROOT / p).is_dir() for p in PACKAGES)


def test_the_bot_imports_the_tools_only_inside_cli_subcommands() -> None:
    """`paddock run` never loads the bench, the demo or the fake Discord: bot/cli.py imports
    them inside the subcommands that use them, and no other runtime module at all."""
    found = []
    for path in modules(*RUNTIME):
        tree = ast.parse(path.read_text("utf-8"), str(path))
        in_functions = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for inner in ast.walk(node)
        }
        for node, name in imported(tree):
            if top_level(name) != TOOLS:
                continue
            if path != ROOT / "bot" / "cli.py" or id(node) not in in_functions:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert found == []


def test_the_cli_loads_no_tool_until_a_tool_command_runs() -> None:
    code = (
        "import sys; from bot.cli import build_parser; build_parser();"
        f" print(sorted(m for m in sys.modules if m.split('.')[0] in ('tests', {TOOLS!r})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
