"""The import rules of docs/architecture.md, checked on the source itself."""

from __future__ import annotations

import ast

from pathlib import Path

import pytest


PACKAGE = Path(__file__).resolve().parents[1] / "poetry_cuda"
ROOT_MODULES = {"errors", "messages", "versions", "schema", "files", "display", "records"}
# What each folder may import from poetry_cuda, besides the root modules and itself.
ALLOWED = {
    "host": set(),
    "knowledge": {"host.profiles"},
    "request": {"knowledge.model", "knowledge.mirrors"},
    "planning": {"request", "host", "knowledge"},
    "backends": {"request", "planning.plan", "locking.managed"},
    "locking": {"request", "host", "knowledge", "planning", "backends", "redist"},
    "cudaenv": {"request", "host", "knowledge", "planning", "locking", "backends", "redist"},
    "doctor": {
        "request",
        "host",
        "knowledge",
        "planning",
        "locking",
        "backends",
        "cudaenv",
        "redist",
    },
    "redist": {"request.settings", "knowledge._loader"},
}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(poetry_cuda module, imported inside a function) for every import in `path`."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
            modules = names if node.module == "poetry_cuda" else [node.module]
            found += [(m, id(node) in inner) for m in modules]
        elif isinstance(node, ast.Import):
            found += [(a.name, id(node) in inner) for a in node.names]
    return found


def _sources(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_a_folder_imports_only_the_layers_below_it(folder: str) -> None:
    allowed = ALLOWED[folder] | ROOT_MODULES | {folder}
    wrong = []
    for path in _sources(folder):
        for module, _ in _imports(path):
            parts = module.split(".")
            if parts[0] != "poetry_cuda" or len(parts) < 2:
                continue
            if not any(".".join(parts[1 : 1 + n]) in allowed for n in (1, 2)):
                wrong.append(f"{path.relative_to(PACKAGE)}: {module}")
    assert wrong == []


def test_only_the_root_modules_sit_at_the_top() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == ROOT_MODULES | {"__init__"}


def test_every_folder_says_what_it_is_for() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        if init.parent != PACKAGE:
            assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_cleo_and_the_poetry_application_stay_at_the_interface() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for module, _ in _imports(path):
            top = module.split(".")[0]
            application = top == "cleo" or (top == "poetry" and not module.startswith("poetry."))
            application |= module.startswith(("poetry.console", "poetry.config", "poetry.plugins"))
            interface = relative.startswith("cli/") or relative == "backends/poetry.py"
            if application and not interface:
                wrong.append(f"{relative}: {module}")
    assert wrong == []


def test_imports_inside_functions_are_only_at_the_interface_edge() -> None:
    """Below cli/, a module imports what it uses at the top (the Poetry backend's own
    lock and settings are loaded only when a Poetry project is locked)."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("cli/"):
            continue
        for module, inside in _imports(path):
            if inside and module.startswith("poetry_cuda"):
                wrong.append(f"{relative}: {module}")
    assert wrong == []
