"""Warnings returned inside a dict: the list itself goes back to the callers.

``return {"warnings": warnings}`` (or ``response["warnings"] = warnings`` ... ``return
response``) hands the callers ``Warning`` objects once the producer migrates, while every
reader of a key (``result["warnings"]``) reads dumped dicts, ``w["message"]``. Where some
file reads the key, the group stays as it is, with the reason; where nothing reads it (the
dict goes to a serializer), it migrates. Each case is also applied, and the project's own
tests must still pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import (
    apply_and_run_tests,
    changed_names,
    diff_project,
    mypy_errors,
    new_text,
    write_package_project,
)

from unsentinel.core.runner import RunResult


def _held_reasons(result: RunResult) -> set[str]:
    """Why sites were held for a returned dict, without the ``connected to path:line``."""
    return {
        reason.partition(": ")[2]
        for file in result.results
        for site in file.sites
        for reason in site.reasons
        if "returned in a dict" in reason
    }


RETURNED_LITERAL = """
def list_changes(count: int, limit: int) -> dict:
    warnings: list[str] = []
    if count > limit:
        warnings.append(f"{count} records found, returning the first {limit}")
    return {"success": True, "count": count, "warnings": warnings}
"""

STORED_UNDER_A_KEY = """
def list_changes(count: int, limit: int) -> dict:
    cost_warnings: list[str] = []
    if count > limit:
        cost_warnings.append(f"{count} records found, returning the first {limit}")
    response = {"success": True, "count": count}
    if cost_warnings:
        response["cost_warnings"] = cost_warnings
    return response
"""

GROWN_UNDER_A_KEY = """
def list_changes(count: int, limit: int) -> dict:
    response = {"success": True, "count": count, "warnings": []}
    if count > limit:
        response["warnings"].append(f"{count} records found, returning the first {limit}")
    return response
"""

EXTENDED_UNDER_A_KEY = """
def list_changes(count: int, limit: int) -> dict:
    response = {"success": True, "count": count, "warnings": []}
    if count > limit:
        response["warnings"] += [f"{count} records found, returning the first {limit}"]
    return response
"""


def _reader(key: str, how: str) -> str:
    read = {"item": f'result["{key}"]', "get": f'result.get("{key}", [])'}[how]
    return f"""
from pkg.tools import list_changes


def test_many():
    result = list_changes(100, 20)
    assert any("100 records found" in w for w in {read})
"""


@pytest.mark.parametrize(
    ("producer", "key"),
    [
        (RETURNED_LITERAL, "warnings"),
        (STORED_UNDER_A_KEY, "cost_warnings"),
        (GROWN_UNDER_A_KEY, "warnings"),
        (EXTENDED_UNDER_A_KEY, "warnings"),
    ],
    ids=["returned-literal", "stored-under-a-key", "grown-under-a-key", "extended-under-a-key"],
)
@pytest.mark.parametrize("how", ["item", "get"])
def test_a_returned_dict_whose_key_is_read_holds_its_warnings(
    tmp_path: Path, producer: str, key: str, how: str
) -> None:
    """The test reads the key as the old strings; after a migration its rewrite would read
    ``w["message"]`` off a ``Warning`` object. Held, with the key named."""
    root = write_package_project(
        tmp_path, {"pkg/tools.py": producer, "tests/test_tools.py": _reader(key, how)}
    )
    result = diff_project(root)
    assert changed_names(result) == []
    assert _held_reasons(result) == {
        f'Warning objects would be returned in a dict under "{key}", '
        "whose readers read dumped dicts"
    }
    apply_and_run_tests(root, result)


def test_a_returned_dict_whose_key_nobody_reads_migrates(tmp_path: Path) -> None:
    """Nothing reads ``"warnings"`` back: the dict goes to whoever serializes it, and the
    objects are the structured warnings the migration is for."""
    root = write_package_project(tmp_path, {"pkg/tools.py": RETURNED_LITERAL})
    result = diff_project(root)
    assert changed_names(result) == ["tools.py"]
    assert _held_reasons(result) == set()


RELAYED = """
import json
from dataclasses import dataclass, field


@dataclass
class Report:
    warnings: list[str] = field(default_factory=list)


def build(count: int) -> Report:
    warnings: list[str] = []
    if count > 20:
        warnings.append(f"{count} records found, returning the first 20")
    return Report(warnings=warnings)


def relay(text: str) -> dict:
    data = json.loads(text)
    return {"ok": True, "warnings": data["warnings"]}


def count_relayed(text: str) -> int:
    result = relay(text)
    return sum(1 for w in result["warnings"] if w["severity"] == "blocking")
"""


def test_dumped_dicts_returned_in_a_dict_are_no_hold(tmp_path: Path) -> None:
    """``{"warnings": data["warnings"]}`` relays what a dumped response held (dicts), as
    its reader (``count_relayed``) reads them: nothing is held for it, and the model's
    field of the same name migrates."""
    root = write_package_project(tmp_path, {"pkg/relay.py": RELAYED})
    result = diff_project(root)
    assert _held_reasons(result) == set()
    assert changed_names(result) == ["relay.py"]


EFFECTS = """
def apply_effects(effects: list[str]) -> dict:
    applied: list[str] = []
    warnings: list[str] = []
    for effect in effects:
        if effect in ("shadow", "glow"):
            applied.append(effect)
        else:
            warnings.append(f"Unknown effect type: {effect}")
    result = {"message": f"Applied {len(applied)} effects", "applied_effects": applied}
    if warnings:
        result["warnings"] = warnings
    return result
"""


def test_a_dict_display_that_takes_warnings_under_a_new_key_keeps_type_checking(
    tmp_path: Path,
) -> None:
    """A type checker infers the dict's value type from its display (mypy:
    ``Sequence[str]``), which took the list of strings and would not take ``Warning``
    objects: the local is annotated ``dict[str, Any]``, and mypy reports nothing new."""
    caller = """
from pkg.effects import apply_effects


def test_effects():
    assert apply_effects(["glow", "x"])["applied_effects"] == ["glow"]
"""
    root = write_package_project(
        tmp_path, {"pkg/effects.py": EFFECTS, "tests/test_effects.py": caller}
    )
    assert mypy_errors(root, "pkg") == set()
    result = diff_project(root)
    text = new_text(result, "effects.py")
    assert text is not None
    assert "    result: dict[str, Any] = {" in text
    assert "from typing import Any" in text
    apply_and_run_tests(root, result)
    assert mypy_errors(root, "pkg") == set()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ('    result = {"message": "none"}\n', "bound twice"),
        ("    result: dict\n", "already annotated"),
        ("    global result\n", "a global: an annotation would not compile"),
    ],
)
def test_a_dict_local_that_cannot_take_an_annotation_is_left_alone(
    tmp_path: Path, change: str, why: str
) -> None:
    source = EFFECTS.replace(
        "    for effect in effects:\n", change + "    for effect in effects:\n"
    )
    root = write_package_project(tmp_path, {"pkg/effects.py": source})
    text = new_text(diff_project(root), "effects.py")
    assert text is not None, why  # the producer still migrates
    assert "dict[str, Any]" not in text, why


def test_a_dict_whose_warnings_stay_strings_is_left_unannotated(tmp_path: Path) -> None:
    """A caller reads the key as text: the group is held, so the dict still takes strings."""
    reader = """
from pkg.effects import apply_effects


def test_unknown():
    assert any("Unknown" in w for w in apply_effects(["x"])["warnings"])
"""
    root = write_package_project(
        tmp_path, {"pkg/effects.py": EFFECTS, "tests/test_effects.py": reader}
    )
    assert new_text(diff_project(root), "effects.py") is None
