"""The layers of docs/architecture.md hold in the code: rules import no other layer, the
renderer and the store only the rules, and bot/ has no import circle when it loads (imports
under `if TYPE_CHECKING:` are for the type checker only and do not count)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "renderer", "store", "bot")
# What each layer may import from the project (it may always import itself).
ALLOWED = {
    "rules": set(),
    "renderer": {"rules"},
    "store": {"rules"},
}


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


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = []
    for module, path in _modules(layer).items():
        for name in _imports(module, path, load_time_only=False):
            top = name.split(".")[0]
            if top != layer and top not in ALLOWED[layer]:
                wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_bot_has_no_import_circle_when_it_loads() -> None:
    modules = _modules("bot")
    graph = {
        module: {
            name
            for name in _imports(module, path, load_time_only=True)
            if name in modules and name != module
        }
        for module, path in modules.items()
    }
    circles = []
    for start in graph:
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start and len(path) > 1:
                    circles.append(" -> ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert not circles, "\n".join(sorted(set(circles)))
