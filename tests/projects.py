"""Scratch projects for end-to-end tests: write dedented files, run ``diff`` through the
library, read what it would change."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from unsentinel.core.model import Mode
from unsentinel.core.runner import RunResult
from unsentinel.registry import load_config, run


def planned_field_paths(root: Path, source: str) -> dict[str, object]:
    """``source`` as ``m.py`` of a project whose warnings list is ``warnings``, planned:
    the first word of each producer's message -> the field path the plan infers for it."""
    from unsentinel.output.plan import plan_document

    (root / "pyproject.toml").write_text('[tool.unsentinel]\nwarning-list-names = ["warnings"]\n')
    (root / "m.py").write_text(source)
    result = run([root], load_config((root,)), Mode.PLAN)
    lines = source.splitlines()
    found: dict[str, object] = {}
    for site in plan_document(result.results)["sites"]:
        if site["kind"] == "producer":
            text = lines[int(str(site["line"])) - 1].split('"', 1)[1]
            found[text.split(" ")[0]] = site["field_path"]
    return found


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: source}`` under ``root``, each source dedented and without
    its leading blank line, so tests can write modules as indented triple-quoted strings."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return root


def diff_project(root: Path, files: dict[str, str] | None = None) -> RunResult:
    """``unsentinel diff`` over ``root`` (after writing ``files`` there), in one process."""
    if files:
        write_project(root, files)
    return run([root], load_config((root,)), Mode.DIFF, jobs=1)


def new_text(result: RunResult, name: str) -> str | None:
    """The rewritten text of the file whose path ends with ``name``, or None when the run
    leaves it as it is; the file must be in the run and must not have failed."""
    for file in result.results:
        if file.path.replace("\\", "/").endswith(name):
            assert file.error is None, file.error
            return file.new_text
    raise AssertionError(f"{name} not in the run")


def changed_names(result: RunResult) -> list[str]:
    """The base names of the files the run changes, sorted."""
    return sorted(Path(r.path).name for r in result.results if r.changed)


def write_package_project(root: Path, files: dict[str, str]) -> Path:
    """:func:`write_project`, with ``pkg`` and ``tests`` made packages (``__init__.py``), so
    the project's own tests import ``pkg.<module>`` as a user's suite does."""
    write_project(root, files)
    for package in ("pkg", "tests"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


def apply_and_run_tests(root: Path, result: RunResult) -> None:
    """Write what ``diff`` would, then run the project's tests: they must still pass."""
    for changed in result.all_results:
        if changed.new_source is not None:
            Path(changed.path).write_bytes(changed.new_source)  # absolute, or from the cwd
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]


def appends_a_warning(text: str, target: str = "warnings") -> bool:
    """Does ``text`` append a ``Warning(...)`` to ``target``, however the call is laid out
    (``target.append(Warning(`` or, split as ruff does, ``target.append(`` / ``Warning(``)?"""
    return re.search(rf"(?<![\w.]){re.escape(target)}\.append\(\s*Warning\(", text) is not None


# A function whose failure is an error dict (``{"stack_name": ..., "error": str(e)}``): the
# producer the error-reader tests read from.
LOOKUP = """
def fetch(name: str) -> str:
    return name.upper()


def lookup(name: str) -> dict:
    try:
        return {"stack_name": name, "status": fetch(name)}
    except OSError as e:
        return {"stack_name": name, "error": str(e)}
"""


# A helper whose sentinel warnings a caller in another module tests by their prefix: the
# cross-file pair the check cache tests edit.
HELPERS = """\
def resolve(order: str) -> list[str]:
    warnings: list[str] = []
    if not order:
        warnings.append("BLOCK: the order is locked.")
    return warnings
"""
CALLER = """\
from helpers import resolve


def cancel(order: str) -> bool:
    found = resolve(order)
    return any(w.startswith("BLOCK: ") for w in found)
"""


def mypy_errors(root: Path, package: str) -> set[str]:
    """What mypy reports on ``package`` under ``root``, each line without its numbers."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            package,
            "--ignore-missing-imports",
            "--no-error-summary",
            "--no-incremental",
            "--cache-dir",
            "/dev/null",
            "--hide-error-context",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return {unnumbered(line) for line in result.stdout.splitlines() if ": error:" in line}


def unnumbered(line: str) -> str:
    """``path:12:5: message`` -> ``path: message``: lines move when code is rewritten."""
    return re.sub(r":\d+(:\d+)?:", ":", line)
