"""A loop over migrated warnings whose variable the function also binds to text elsewhere.

``for warning in blocks: ...`` then ``for warning in regular_warnings: ...``: both bound
``warning`` to a ``str``. Once ``regular_warnings`` holds ``Warning`` objects, a type
checker gives the name its first binding's type and rejects the second (katana-mcp-server's
UI builders, found by the ecosystem check's ``types`` invariant). The migrated loop takes a
name of its own from what it iterates, where nothing reads the old name outside the loops.
"""

from __future__ import annotations

from pathlib import Path

from projects import (
    apply_and_run_tests,
    diff_project,
    mypy_errors,
    new_text,
    write_package_project,
)

REPORT = """
from dataclasses import dataclass, field


@dataclass
class Report:
    warnings: list[str] = field(default_factory=list)


def check(n: int) -> Report:
    report = Report()
    if n < 0:
        report.warnings.append(f"BLOCK: n {n} is negative")
    if n > 100:
        report.warnings.append(f"n {n} is large")
    return report

"""

RENDER = (
    REPORT
    + """
def render(n: int) -> list[str]:
    report = check(n)
    blocks = [w.removeprefix("BLOCK:").strip() for w in report.warnings if w.startswith("BLOCK:")]
    regular_warnings = [w for w in report.warnings if not w.startswith("BLOCK:")]
    lines = []
    for warning in blocks:
        lines.append(f"! {warning}")
    for warning in regular_warnings:
        lines.append(f"- {warning}")
    return lines
"""
)

TESTS = """
from pkg.render import render


def test_render():
    assert render(-1) == ["! n -1 is negative"]
    assert render(101) == ["- n 101 is large"]
"""


def test_a_loop_sharing_its_variable_with_a_loop_over_text_gets_its_own(tmp_path: Path) -> None:
    root = write_package_project(tmp_path, {"pkg/render.py": RENDER, "tests/test_render.py": TESTS})
    assert mypy_errors(root, "pkg") == set()
    result = diff_project(root)
    text = new_text(result, "render.py")
    assert text is not None
    assert '    for warning in blocks:\n        lines.append(f"! {warning}")\n' in text
    assert (
        "    for regular_warning in regular_warnings:\n"
        '        lines.append(f"- {regular_warning.message}")\n'
    ) in text
    apply_and_run_tests(root, result)
    assert mypy_errors(root, "pkg") == set()
    assert new_text(diff_project(root), "render.py") is None  # a second run changes nothing


def test_a_loop_variable_read_after_the_loops_keeps_its_name(tmp_path: Path) -> None:
    """``return warning`` after the loops reads what the last loop left in it: renaming
    that loop's variable would change what it returns."""
    source = RENDER.replace("    return lines\n", "    print(warning)\n    return lines\n")
    root = write_package_project(tmp_path, {"pkg/render.py": source})
    text = new_text(diff_project(root), "render.py")
    assert text is not None
    assert "regular_warning " not in text


SPLIT = (
    REPORT
    + """
def split(warnings: list[str]) -> tuple[list[str], list[str]]:
    blocks: list[str] = []
    regulars: list[str] = []
    for w in warnings:
        if w.startswith("BLOCK:"):
            blocks.append(w.removeprefix("BLOCK:").strip())
        else:
            regulars.append(w)
    return blocks, regulars


def render(n: int) -> list[str]:
    lines = []
    blocks, regulars = split(check(n).warnings)
    for warning in blocks:
        lines.append(f"! {warning}")
    for warning in regulars:
        lines.append(f"- {warning}")
    return lines
"""
)


def test_a_list_slot_unpacked_by_a_caller_holds_the_warnings(tmp_path: Path) -> None:
    """``return blocks, regulars``, ``regulars`` the warnings themselves: the caller's
    ``regulars`` holds ``Warning`` objects, and its reads go through ``.message`` (before,
    ``f"- {warning}"`` rendered the object's repr, and mypy rejected the loop)."""
    root = write_package_project(tmp_path, {"pkg/render.py": SPLIT, "tests/test_render.py": TESTS})
    assert mypy_errors(root, "pkg") == set()
    result = diff_project(root)
    text = new_text(result, "render.py")
    assert text is not None
    assert "-> tuple[list[str], list[Warning]]:" in text
    assert '    for regular in regulars:\n        lines.append(f"- {regular.message}")\n' in text
    apply_and_run_tests(root, result)
    assert mypy_errors(root, "pkg") == set()
