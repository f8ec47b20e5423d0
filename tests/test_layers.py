"""The import rules of docs/architecture.md, checked on the source itself."""

from __future__ import annotations

import ast

from pathlib import Path

import pytest


PACKAGE = Path(__file__).resolve().parents[1] / "poetry_cuda"
ROOT_MODULES = {
    "accelerators",
    "errors",
    "messages",
    "versions",
    "names",
    "schema",
    "files",
    "display",
    "records",
    "lazy",
    "urls",
    "web",
}
# What each folder may import from poetry_cuda, besides the root modules and itself.
ALLOWED = {
    "host": set(),
    "knowledge": {"host.profiles"},
    "request": {"knowledge.model", "knowledge.packaged"},
    # Planning is given the knowledge base (and this machine's detection) as arguments: it
    # imports the tables' types (model, base_images, rocm, xpu), never `knowledge.packaged`.
    "planning": {
        "request",
        "host.profiles",
        "knowledge.model",
        "knowledge.base_images",
        "knowledge.rocm",
        "knowledge.xpu",
    },
    "backends": {"request", "knowledge.model", "planning.plan", "planning.managed"},
    "locking": {"request", "host", "knowledge", "planning", "backends", "redist", "indexes"},
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
        "indexes",
        "wheelstore",
    },
    # An index's pages, fetched within limits and read: below every user of them.
    "indexes": {"request.settings"},
    "redist": {"knowledge.model", "knowledge.packaged"},
    # The store finds a locked file on its index's page as every reader of pages does:
    # `indexes.listing` is pure, below all of them.
    "wheelstore": {
        "indexes.listing",
        "request.settings",
        "request.user_mirrors",
        "knowledge.packaged",
        "redist.store",
        "locking.duplicates",
    },
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
            interface = relative.startswith("cli/") or relative == "lazy.py"
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


# The modules that import Poetry (the `poetry` package, not poetry-core's `poetry.core`) as
# they load. Only Poetry's own process loads them: the plugin, and the hooks it runs.
LOADS_POETRY = {
    "cli/plugin.py": "poetry_cuda.cli.plugin",
    "backends/poetry/mirror.py": "poetry_cuda.backends.poetry.mirror",
}
# What may import those modules: the plugin itself and its hooks.
INSIDE_POETRY = {"cli/plugin.py", "cli/hooks.py"}


def _is_poetry(module: str) -> bool:
    return module == "poetry" or (
        module.startswith("poetry.") and not module.startswith("poetry.core")
    )


def _loaded_imports(path: Path) -> list[str]:
    """The modules `path` imports as it loads: outside functions and `if TYPE_CHECKING:`."""
    found: list[str] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body + node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body + node.orelse + node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, ast.Import):
                found.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.append(node.module)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def test_poetry_is_loaded_only_inside_poetry() -> None:
    """The standalone script on a uv project runs without Poetry installed: no module it can
    load imports Poetry as it loads, and the modules that do are reached only from the plugin
    (the Poetry backend imports Poetry in the functions that run it)."""
    loads, reaches = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if any(_is_poetry(module) for module in _loaded_imports(path)):
            loads.append(relative)
        if relative not in INSIDE_POETRY:
            for module, _ in _imports(path):
                if module in LOADS_POETRY.values():
                    reaches.append(f"{relative}: {module}")
    assert sorted(loads) == sorted(LOADS_POETRY)
    assert reaches == []
