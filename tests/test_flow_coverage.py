"""Coverage of connected groups: shapes of real code that used to block a whole group.

Measured on the labelled packages (``benchmarks/inference.py``), most skipped sites were
held back by one value the flow could not follow. Each case here is one such shape, small
and run through the whole tool the way ``unsentinel diff`` runs it: the group migrates
whole -- and, for precision, the same shape with a real string (or an unknown value) in it
is still skipped whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import appends_a_warning, diff_project, new_text

from unsentinel.core.model import Action, Site
from unsentinel.core.runner import RunResult


@pytest.fixture(autouse=True)
def _inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the project's root, so sites show paths as a user sees them."""
    monkeypatch.chdir(tmp_path)


def _producers(result: RunResult, name: str = "") -> list[Site]:
    return [
        site
        for file in result.results
        if file.path.replace("\\", "/").endswith(name)
        for site in file.sites
        if site.rule in ("UNS101", "UNS102")
    ]


# -- ``warnings or []``: an optional list with an empty default ------------------------------

OPTIONAL_DEFAULT = """
    def response(order_id: int, warnings: list[str] | None = None) -> dict:
        return {"id": order_id, "warnings": warnings or []}

    def check(order) -> dict:
        warnings: list[str] = []
        if not order.lines:
            warnings.append("Order has no lines")
        return response(order.id, warnings)
"""


def test_an_optional_list_with_an_empty_default_migrates_with_its_group(tmp_path: Path) -> None:
    result = diff_project(tmp_path, {"app.py": OPTIONAL_DEFAULT})
    text = new_text(result, "app.py")
    assert text is not None
    assert appends_a_warning(text, "warnings")
    assert 'message="Order has no lines"' in text
    assert "warnings: list[Warning] | None = None" in text  # the helper's parameter too
    assert Action.SKIP not in {s.action for s in _producers(result)}


def test_a_default_of_unknown_type_still_blocks_the_group(tmp_path: Path) -> None:
    """``warnings or notes`` with ``notes`` of unknown type: a string may flow in."""
    source = OPTIONAL_DEFAULT.replace("warnings or []", "warnings or notes").replace(
        "warnings: list[str] | None = None)", "warnings: list[str] | None = None, notes=())"
    )
    result = diff_project(tmp_path, {"app.py": source})
    assert new_text(result, "app.py") is None
    producers = _producers(result)
    assert producers and {s.action for s in producers} == {Action.SKIP}
    assert any("`notes` added to a warnings list" in r for s in producers for r in s.reasons)


def test_a_default_list_of_strings_migrates_with_the_list(tmp_path: Path) -> None:
    """``warnings=warnings or ["All fields are indexed"]``: the default is warnings too."""
    source = """
        from dataclasses import dataclass, field


        @dataclass
        class Result:
            warnings: list[str] = field(default_factory=list)


        def recommend(fields) -> Result:
            warnings: list[str] = []
            if not fields:
                warnings.append("No fields to index")
            return Result(warnings=warnings or ["All fields are already indexed"])
    """
    result = diff_project(tmp_path, {"app.py": source})
    text = new_text(result, "app.py")
    assert text is not None
    assert 'message="No fields to index"' in text
    assert 'message="All fields are already indexed"' in text
    assert Action.SKIP not in {s.action for s in _producers(result)}


# -- ``is None`` on an optional input: info, and the tests' literals agree -----------------

SHIP = """
    from pydantic import BaseModel


    class ShipRequest(BaseModel):
        order_id: int
        ship_by: str | None = None


    def plan_shipment(request: ShipRequest) -> list[str]:
        warnings: list[str] = []
        if request.ship_by is None:
            warnings.append("No ship-by date given; the shipment has no deadline")
        return warnings
"""
SHIP_TEST = """
    from app.ship import ShipRequest, plan_shipment


    def test_no_deadline():
        warnings = plan_shipment(ShipRequest(order_id=1))
        assert warnings == ["No ship-by date given; the shipment has no deadline"]
"""


def test_a_missing_optional_input_is_info_and_the_test_literal_says_so(tmp_path: Path) -> None:
    files = {"app/__init__.py": "", "app/ship.py": SHIP, "tests/test_ship.py": SHIP_TEST}
    result = diff_project(tmp_path, files)
    [producer] = _producers(result, "app/ship.py")
    assert producer.severity is not None and producer.severity.value == "info"
    assert producer.severity.reason.startswith("guard:")
    test_text = new_text(result, "tests/test_ship.py")
    assert test_text is not None
    # split as ruff splits it: the line no longer fits
    expected = '("info", "No ship-by date given; the shipment has no deadline")'
    assert f"== [\n        {expected}\n    ]\n" in test_text


def test_a_required_value_tested_with_not_is_no_absence(tmp_path: Path) -> None:
    """``if not request.ship_by:`` as often refuses an empty required value: not info."""
    source = SHIP.replace("if request.ship_by is None:", "if not request.ship_by:")
    files = {"app/__init__.py": "", "app/ship.py": source, "tests/test_ship.py": SHIP_TEST}
    result = diff_project(tmp_path, files)
    [producer] = _producers(result, "app/ship.py")
    assert producer.severity is not None and producer.severity.value == "advisory"
    test_text = new_text(result, "tests/test_ship.py")
    assert test_text is not None
    # split as ruff splits it: the line no longer fits
    expected = '("advisory", "No ship-by date given; the shipment has no deadline")'
    assert f"== [\n        {expected}\n    ]\n" in test_text


def test_a_test_literal_takes_the_severity_the_code_structure_gave_its_producer(
    tmp_path: Path,
) -> None:
    """The words say nothing (advisory); the producer raises on its list (blocking)."""
    source = """
        def check(rows: list[str], strict: bool = False) -> list[str]:
            warnings: list[str] = []
            if not rows:
                warnings.append("Nothing to import")
            if strict and warnings:
                raise ValueError(warnings)
            return warnings
    """
    test = """
        from app.check import check


        def test_nothing_to_import():
            warnings = check([])
            assert warnings == ["Nothing to import"]
    """
    files = {"app/__init__.py": "", "app/check.py": source, "tests/test_check.py": test}
    result = diff_project(tmp_path, files)
    test_text = new_text(result, "tests/test_check.py")
    assert test_text is not None
    # split as ruff splits it: the line no longer fits
    assert '== [\n        ("blocking", "Nothing to import")\n    ]\n' in test_text


def test_test_data_with_a_producers_message_takes_its_severity(tmp_path: Path) -> None:
    test = """
        def test_render():
            warnings: list[str] = []
            warnings.append("No ship-by date given; the shipment has no deadline")
            assert len(warnings) == 1
    """
    files = {"app/__init__.py": "", "app/ship.py": SHIP, "tests/test_render.py": test}
    result = diff_project(tmp_path, files)
    [data] = _producers(result, "tests/test_render.py")
    assert data.severity is not None and data.severity.value == "info"
    assert data.severity.reason.startswith("producer:")


# -- nested unpacking of ``asyncio.gather`` ------------------------------------------------

GATHER = """
    import asyncio


    async def check_stock(order) -> tuple[int, str | None]:
        if not order.lines:
            return 0, "Order has no lines"
        return len(order.lines), None


    async def check_credit(order) -> str | None:
        return "Customer is over the credit limit" if order.over_limit else None


    async def review(order) -> list[str]:
        warnings: list[str] = []
        (count, stock_note), credit_note = await asyncio.gather(
            check_stock(order), check_credit(order)
        )
        if stock_note:
            warnings.append(stock_note)
        if credit_note:
            warnings.append(credit_note)
        return warnings
"""


def test_names_unpacked_from_a_nested_gather_migrate_with_their_helpers(tmp_path: Path) -> None:
    result = diff_project(tmp_path, {"app.py": GATHER})
    text = new_text(result, "app.py")
    assert text is not None
    assert "return 0, Warning(" in text
    assert 'message="Customer is over the credit limit"' in text
    assert "warnings: list[Warning] = []" in text
    assert Action.SKIP not in {s.action for s in _producers(result)}


def test_a_nested_gather_slot_holding_a_real_string_still_blocks(tmp_path: Path) -> None:
    """The slot unpacked next to the note is appended too: it is a count, not a warning."""
    source = GATHER.replace("warnings.append(stock_note)", "warnings.append(count)")
    result = diff_project(tmp_path, {"app.py": source})
    assert new_text(result, "app.py") is None
    assert {s.action for s in _producers(result)} == {Action.SKIP}


# -- lists returned in tuple slots: ``errors, warnings = check(order)`` ------------------------

SLOT_CHECKS = """
    def check(order):
        errors = []
        warnings = []
        if not order.lines:
            errors.append("Order has no lines")
        if order.note is None:
            warnings.append("No note given")
        return errors, warnings
"""

SLOT_REPORT = """
    from app.checks import check

    def report(order) -> str:
        errors, warnings = check(order)
        return "; ".join(w for w in warnings if w.startswith("No"))
"""


def test_a_list_unpacked_from_a_tuple_slot_migrates_with_the_helpers_list(tmp_path: Path) -> None:
    files = {"app/__init__.py": "", "app/checks.py": SLOT_CHECKS, "app/report.py": SLOT_REPORT}
    result = diff_project(tmp_path, files)
    checks, report = new_text(result, "app/checks.py"), new_text(result, "app/report.py")
    assert checks is not None and report is not None
    assert appends_a_warning(checks, "warnings")
    assert "w.message for w in warnings" in report


def test_a_blocked_list_in_a_tuple_slot_holds_back_the_callers_readers(tmp_path: Path) -> None:
    """The caller's ``warnings`` is the helper's list: one unknown value there keeps the
    caller's read as it is (before, the read was rewritten on its own)."""
    checks = SLOT_CHECKS.replace('warnings.append("No note given")', "warnings.append(order.memo)")
    files = {"app/__init__.py": "", "app/checks.py": checks, "app/report.py": SLOT_REPORT}
    result = diff_project(tmp_path, files)
    assert new_text(result, "app/report.py") is None
    reads = [s for f in result.results for s in f.sites if s.rule == "UNS201"]
    assert reads and {s.action for s in reads} == {Action.SKIP}
    assert all("app/checks.py:7: value of unknown type" in s.reasons[0] for s in reads)


# -- a closure appending to its enclosing function's list ------------------------------------

CLOSURE = """
    def capture():
        captured_warnings = []

        def sink(message):
            captured_warnings.append(message.record["message"])

        return captured_warnings, sink

    def test_capture():
        captured_warnings, sink = capture()
        found = [m for m in captured_warnings if m == "x"]
        assert not found
"""


def test_a_closure_appends_to_the_enclosing_functions_list(tmp_path: Path) -> None:
    """``sink`` binds no ``captured_warnings`` of its own: the unknown value it appends is in
    ``capture``'s list, hence in the test's, whose comparison stays as it is."""
    result = diff_project(tmp_path, {"test_capture.py": CLOSURE})
    assert new_text(result, "test_capture.py") is None
    reads = [s for f in result.results for s in f.sites if s.rule == "UNS201"]
    assert reads and {s.action for s in reads} == {Action.SKIP}
