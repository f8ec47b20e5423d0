"""Static checks over poetry_cuda's own source, with `ast`.

- Subprocesses: no `shell=True` anywhere, no `os.system`/`os.popen`/`os.spawn*`; every call runs
  a program given as a variable (resolved to an absolute path or by `shutil.which`), never a bare
  name, and has a timeout. `run`'s hand-over to the user's command is the one allowed exception.
- cuda.lock and every other file are parsed as data: nothing calls eval/exec/compile or imports
  pickle, marshal, shelve or yaml.
"""

from __future__ import annotations

import ast

from pathlib import Path

import pytest


PACKAGE = Path(__file__).resolve().parents[2] / "poetry_cuda"
SOURCES = sorted(PACKAGE.rglob("*.py"))
SPAWNING = {"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"}
FORBIDDEN_OS = {"system", "popen", "startfile"} | {
    f"{stem}{suffix}"
    for stem in ("spawn", "exec")
    for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")
}

# Calls that hand over to a program without a time limit, by design, each with its reason.
ALLOWED = {
    # `run -- CMD`: the user's own command replaces poetry-cuda (POSIX) or runs as its child
    # (Windows) for as long as it likes; a timeout would kill the user's program.
    ("cli/commands/run.py", "os.execve"): "run hands the process over to the user's command",
    ("cli/commands/run.py", "subprocess.call"): "run waits for the user's command on Windows",
    # The one wrapper behind every probe; its limit is `communicate(timeout=...)`, checked below.
    ("host/run.py", "subprocess.Popen"): "probes' runner, bounded by communicate(timeout=)",
    # `sync`: the package manager's install runs as long as the download takes, in the
    # user's terminal, and Ctrl-C stops it as it stops a plain install.
    ("backends/base.py", "subprocess.call"): "sync runs the package manager's install",
    # `lock`'s uv part started ahead: its one wait is `wait(timeout=LOCK_TIMEOUT)`, and an
    # unused one is killed at exit (`UvAhead.stop`).
    ("backends/uv/runner.py", "subprocess.Popen"): "uv started ahead, bounded by wait(timeout=)",
}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def _calls() -> list[tuple[str, ast.Call]]:
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        relative = path.relative_to(PACKAGE).as_posix()
        found += [(relative, node) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return found


CALLS = _calls()


def _spawns() -> list[tuple[str, str, ast.Call]]:
    spawns = []
    for relative, call in CALLS:
        name = _name(call.func)
        module, _, function = name.rpartition(".")
        if (module == "subprocess" and function in SPAWNING) or (
            module == "os" and (function in FORBIDDEN_OS or function.startswith(("exec", "spawn")))
        ):
            spawns.append((relative, name, call))
    return spawns


def test_the_scan_sees_the_known_calls() -> None:
    names = {(relative, name) for relative, name, _ in _spawns()}
    assert set(ALLOWED) <= names
    assert ("backends/uv/runner.py", "subprocess.run") in names


def test_no_shell_anywhere() -> None:
    for relative, call in CALLS:
        for keyword in call.keywords:
            if keyword.arg == "shell":
                assert isinstance(keyword.value, ast.Constant), relative
                assert keyword.value.value is False, f"{relative}:{call.lineno}: shell=True"


@pytest.mark.parametrize("function", sorted(FORBIDDEN_OS - {"execve"}))
def test_no_shell_string_runners(function: str) -> None:
    used = [f"{r}:{c.lineno}" for r, name, c in _spawns() if name == f"os.{function}"]
    assert not used


def test_every_subprocess_has_a_timeout_or_a_reason() -> None:
    for relative, name, call in _spawns():
        where = f"{relative}:{call.lineno}: {name}"
        if (relative, name) in ALLOWED:
            continue
        assert any(k.arg == "timeout" for k in call.keywords), f"{where} has no timeout"


def test_every_program_is_a_resolved_path_not_a_bare_name() -> None:
    for relative, name, call in _spawns():
        where = f"{relative}:{call.lineno}: {name}"
        assert call.args, where
        argv = call.args[0]  # subprocess's argv, or os.exec*'s path
        program = argv.elts[0] if isinstance(argv, (ast.List, ast.Tuple)) else argv
        # A literal would be looked up on PATH by the OS: the program must be a variable that
        # the caller resolved (shutil.which, Path.absolute, a probe's candidate paths).
        assert not isinstance(program, ast.Constant), f"{where} runs a bare name"
        assert not isinstance(program, ast.JoinedStr), f"{where} builds its program from a string"


def test_the_probe_runner_bounds_every_wait() -> None:
    runner = next(p for p in SOURCES if p.relative_to(PACKAGE).as_posix() == "host/run.py")
    tree = ast.parse(runner.read_text(encoding="utf-8"))
    [run] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run"]
    timeout = next(a for a in run.args.kwonlyargs if a.arg == "timeout")
    # A required keyword: no probe can forget it.
    assert run.args.kw_defaults[run.args.kwonlyargs.index(timeout)] is None
    # Every started program is collected (`Running.collect`) with a required time limit,
    # which its one wait passes on.
    [running] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Running"]
    [collect] = [n for n in running.body if isinstance(n, ast.FunctionDef) and n.name == "collect"]
    assert [a.arg for a in collect.args.args] == ["self", "timeout"]
    assert not collect.args.defaults
    waits = [
        node
        for node in ast.walk(collect)
        if isinstance(node, ast.Call) and _name(node.func).endswith(".communicate")
    ]
    assert waits
    assert all(any(k.arg == "timeout" for k in wait.keywords) for wait in waits)


def test_every_probe_runner_call_passes_a_timeout() -> None:
    for relative, call in CALLS:
        if _name(call.func) == "run" and relative != "host/run.py":
            source = (PACKAGE / relative).read_text(encoding="utf-8")
            if "from poetry_cuda.host.run import run" in source:
                assert any(k.arg == "timeout" for k in call.keywords), f"{relative}:{call.lineno}"


EVALUATING = {"eval", "exec", "compile", "__import__"}
DESERIALIZING = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "yaml", "dill", "jsonpickle"}


def test_nothing_is_evaluated() -> None:
    for relative, call in CALLS:
        name = _name(call.func)
        builtin = name.removeprefix("builtins.")
        assert builtin not in EVALUATING, f"{relative}:{call.lineno}: {name}()"


def test_no_deserializer_that_runs_code_is_imported() -> None:
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] not in DESERIALIZING, f"{path.name}: import {module}"
