"""The layers of docs/architecture.md hold in the code: rules import no other layer, the
renderer and the store only the rules, the league site (web/) the layers below the bot and
the bot's pure league helpers only, the bot the site only to start it, and bot/ has no
import circle when it loads (imports under `if TYPE_CHECKING:` are for the type checker only
and do not count)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "renderer", "store", "bot", "web")
# What each layer may import from the project (it may always import itself): packages, or
# single modules of one.
ALLOWED = {
    "rules": set(),
    "renderer": {"rules"},
    "store": {"rules"},
    # The site reads leagues as the bot's league commands do, through the helpers that hold
    # no Discord state (and import no discord: test below).
    "web": {"rules", "renderer", "store", "bot.league_tables", "bot.league_careers"},
}
# The bot module that may import the site: the command line (`paddock web`, which `paddock
# run` with PADDOCK_WEB_PORT starts as its child: bot/site_child.py imports no site module).
STARTS_THE_SITE = {"bot.cli"}


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, *, load_time_only: bool) -> set[str]:
    """Absolute names of the project modules `module` imports. With `load_time_only`, only
    those run when it is imported: module level, outside `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(nodes: list[ast.stmt] | list[ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                if not load_time_only:
                    visit(node.body)
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")
                    base = base[: len(base) - node.level + (1 if is_package else 0)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                found.add(prefix)
                found.update(f"{prefix}.{alias.name}" for alias in node.names)
            if load_time_only and isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            ):
                continue
            visit(list(ast.iter_child_nodes(node)))

    visit(tree.body)
    return {name for name in found if name.split(".")[0] in (*PACKAGES, "tests", "paddock_tools")}


def _allowed(layer: str, name: str) -> bool:
    top = name.split(".")[0]
    return (
        top == layer
        or top in ALLOWED[layer]
        or any(name == m or name.startswith(m + ".") for m in ALLOWED[layer])
    )


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = []
    for module, path in _modules(layer).items():
        for name in _imports(module, path, load_time_only=False):
            if not _allowed(layer, name):
                wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_the_bot_imports_the_site_only_to_start_it() -> None:
    wrong = [
        f"{module} imports {name}"
        for module, path in _modules("bot").items()
        for name in _imports(module, path, load_time_only=False)
        if name.split(".")[0] == "web" and module not in STARTS_THE_SITE
    ]
    assert not wrong, "\n".join(wrong)


def test_the_site_loads_no_bot_module_beyond_its_helpers() -> None:
    """The bot helpers the site imports hold no Discord state: loading the site loads no
    other bot module (no client, cog, table or component) through them."""
    code = (
        "import sys, web.app, web.server;"
        " print(sorted(m for m in sys.modules if m.split('.')[0] == 'bot'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(["bot", *sorted(ALLOWED["web"] - set(PACKAGES))])


def test_the_layers_below_the_bot_load_no_discord_library() -> None:
    """The rules, the renderer, the store and the site run without discord.py: nothing of
    Discord below the bot's adapter."""
    code = (
        "import sys, rules.base, renderer, store, store.errors, web.app, web.server;"
        " rules.base.games();"
        " print(sorted(m for m in sys.modules if m.split('.')[0] == 'discord'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
