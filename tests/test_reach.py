"""A file that cannot import the package the generated modules go into.

A rewrite imports ``pkg.error_codes`` (or ``pkg.warning_model``). A handler beside the
package that imports nothing from it (an example deployed from its own directory, a
script run as ``python examples/x.py``) would fail with ``ModuleNotFoundError`` where it
runs, while the project's own tests, which never run it, still pass
(awslabs-lambda-tool-mcp-server's sample functions). Its error dicts are noted and left
alone, its warnings groups skipped whole (core/reach.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import diff_project, new_text, write_package_project

from unsentinel.core.model import Action, Site
from unsentinel.core.result import RunResult

TOOL = """
def lookup(key):
    if not key:
        return {"error": "key is required"}
    return {"value": key}
"""

HANDLER = """
def handler(event, context):
    order = event.get("order")
    if not order:
        return {"error": "Missing order parameter"}
    return {"order": order}
"""


def _app_sites(result: RunResult, action: Action) -> list[Site]:
    """The sites of the handler file ``app.py`` that got ``action``."""
    return [
        site
        for file in result.results
        if file.path.endswith("app.py")
        for site in file.sites
        if site.action is action
    ]


def _run(
    tmp_path: Path, handler: str, place: str = "examples/order-lookup/app.py"
) -> tuple[str | None, str | None, list[str]]:
    root = write_package_project(tmp_path, {"pkg/tools.py": TOOL, place: handler})
    result = diff_project(root)
    notes = [reason for site in _app_sites(result, Action.NOTE) for reason in site.reasons]
    return new_text(result, "pkg/tools.py"), new_text(result, "app.py"), notes


def test_a_self_contained_file_beside_the_package_is_noted_and_left_alone(
    tmp_path: Path,
) -> None:
    tool, handler, notes = _run(tmp_path, HANDLER)
    assert tool is not None and "from pkg import error_codes" in tool
    assert handler is None
    (note,) = notes
    assert "outside the package pkg and imports nothing from it" in note
    assert "pkg.error_codes" in note


def test_a_module_beside_the_package_at_the_root_migrates(tmp_path: Path) -> None:
    """``app.py`` at the project's root finds ``pkg`` from its own directory."""
    _tool, handler, notes = _run(tmp_path, HANDLER, place="app.py")
    assert handler is not None and "error_codes.VALIDATION_MISSING_PARAM" in handler
    assert notes == []


@pytest.mark.parametrize(
    "import_line",
    [
        pytest.param("from pkg.tools import lookup\n", id="from the package's module"),
        pytest.param("import pkg\n", id="the package itself"),
    ],
)
def test_a_file_that_imports_the_package_migrates(tmp_path: Path, import_line: str) -> None:
    _tool, handler, notes = _run(tmp_path, import_line + HANDLER)
    assert handler is not None and "error_codes.VALIDATION_MISSING_PARAM" in handler
    assert notes == []


SENTINEL_TOOL = """
def check(order):
    warnings = []
    if not order:
        warnings.append("BLOCK: order is empty")
    return warnings
"""

SENTINEL_HANDLER = """
def handler(event, context):
    warnings = []
    if not event.get("rows"):
        warnings.append("BLOCK: no rows to report")
    blocking = [w for w in warnings if w.startswith("BLOCK:")]
    return {"warnings": warnings, "blocked": bool(blocking)}
"""


def test_a_self_contained_files_warnings_group_is_skipped_whole(tmp_path: Path) -> None:
    """The warnings feature imports its ``Warning`` model the same way: the handler's
    producer and the consumer it meets (``w.startswith``) stay strings, each reported
    ``skip`` with the reason; the package's own list still migrates."""
    root = write_package_project(
        tmp_path, {"pkg/orders.py": SENTINEL_TOOL, "examples/report-job/app.py": SENTINEL_HANDLER}
    )
    result = diff_project(root)
    assert new_text(result, "app.py") is None
    assert "Warning(" in (new_text(result, "pkg/orders.py") or "")
    skipped = _app_sites(result, Action.SKIP)
    assert len(skipped) == 2
    assert all("outside the package pkg" in site.reasons[0] for site in skipped)
