# ruff: noqa: E501  -- the statements are long on purpose: each must not fit on its line

"""A statement a rewrite pushed past the line length is split as ruff splits it, or not at all.

ruff itself is the oracle: each statement is formatted by ``ruff format`` at the same line
length and indentation, and :func:`split_statement` must give the very same lines where it
splits. The shapes it splits are the reader rewrites' (``x in [w.message for w in ...]``,
``any(... for w in ...)``, a list of tuples compared, an error key read compared with a
string); a shape it does not know is left on its line, never laid out differently.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from projects import LOOKUP, diff_project, new_text

from unsentinel.core.edits import EditApplier
from unsentinel.core.relayout import relayout_statement
from unsentinel.core.statement_split import split_statement

SPLIT = [
    'assert "quantity is fine, nothing else to say about it" not in [w.message for w in result.warnings]',
    'assert any("quantity -1 is negative and more words" in warning.message for warning in result.warnings)',
    'assert [(w.severity, w.message) for w in run(1).warnings] == [("advisory", "quantity is fine, nothing")]',
    'assert [(w.severity, w.message) for w in run(1).warnings] == [("advisory", "quantity is fine"), ("info", "x")]',
    'blocking = [w for w in result.warnings if w.severity == "blocking" and w.code == warning_codes.QUANTITY]',
    'text = "; ".join(w.message for w in result.warnings if w.severity == "blocking" and len(w) > 3)',
    'assert response["error"]["message"] == "quantity is fine, nothing else to say about it at all"',
    'self.assertEqual(response["error"]["message"], "quantity is fine, nothing else to say about it")',
    'return {"text": ", ".join(w.message for w in warnings), "count": len(warnings), "more": 1}',
    'messages = [warning.message for warning in response.warnings if warning.severity == "blocking"]',
    'assert result["error"]["code"] == "NOT_FOUND" and result["error"]["message"] == "missing thing here"',
    'return "; ".join(f"{w.field_path}: {w.message}" for w in result.warnings if w.severity != "info")',
    'assert "quantity is fine, nothing else to say about it" in [w.message for w in result.warnings], result',
    'assert not [w for w in result.warnings if w.severity == "blocking" and w.code == warning_codes.QUANT]',
    'assert all(w.severity == "info" for w in result.warnings), [w.message for w in result.warnings if w]',
    'logger.warning("Request finished with warnings: %s", "; ".join(w.message for w in response.warnings))',
    'assert response.json()["error"]["message"] == "quantity is fine, nothing else to say about it at all"',
    "assert {w.code for w in result.warnings} == {warning_codes.QUANTITY_NEGATIVE, warning_codes.SKU_UNKNOWN}",
    'assert "quantity is fine, nothing else to say about it" not in result["warnings"][0].message, result',
    'result: dict[str, Any] = {"message": f"Applied {len(applied)} effects to {shape_index}", "applied": 1}',
    'result: dict[str, Any] = {"message": f"Applied {len(applied)} effects to shape {shape_index} on slide"}',
]
LEFT = [
    "foo(x).bar([w.message for w in very_long_name_of_the_result_warnings_list_here_and_more_and_more])",
    'assert len([w for w in result.warnings if w.severity == "blocking" and w.code == warning_codes.Q]) == 1',
    'text = "\\n".join(f"- {w.message}" for w in result.warnings) if result.warnings else "none at all"',
]
# (indentation, line length): a method's body at 88, a nested block at 99, a narrow 79.
LAYOUTS = [("    ", 88), ("        ", 99), ("    ", 79)]


def _ruff(source: str, line_length: int) -> str:
    command = [sys.executable, "-m", "ruff", "format", "--line-length", str(line_length), "-"]
    done = subprocess.run(command, input=source, capture_output=True, text=True, check=True)
    return done.stdout


def _in_function(statement: str, indent: str) -> str:
    """``statement`` in a function body at ``indent`` (a nested block where it is deeper)."""
    if indent == "    ":
        return f"def f():\n    {statement}\n"
    return f"def f():\n    if x:\n{indent}{statement}\n"


def _split(statement: str, indent: str, line_length: int) -> str | None:
    """The whole function as :func:`split_statement` lays the statement out, or None."""
    module = cst.parse_module(_in_function(statement, indent))
    node = cst.parse_statement(statement + "\n")
    assert isinstance(node, cst.SimpleStatementLine)
    laid = split_statement(node.body[0], column=len(indent), unit="    ", limit=line_length)
    if laid is None:
        return None
    assert module.code  # the source parses
    return _in_function(laid.replace("\n", "\n" + indent), indent)


@pytest.mark.parametrize(("indent", "line_length"), LAYOUTS)
@pytest.mark.parametrize("statement", SPLIT + LEFT)
def test_a_split_is_the_formatters_or_none(statement: str, indent: str, line_length: int) -> None:
    laid = _split(statement, indent, line_length)
    if laid is not None:
        assert laid == _ruff(_in_function(statement, indent), line_length)


@pytest.mark.parametrize("statement", SPLIT)
def test_the_reader_shapes_are_split(statement: str) -> None:
    """At 88 in a method's body, every shape a reader rewrite leaves too long is split."""
    assert _split(statement, "    ", 88) is not None


@pytest.mark.parametrize("statement", LEFT)
def test_a_shape_it_does_not_know_stays_on_its_line(statement: str) -> None:
    assert _split(statement, "    ", 88) is None


def test_a_line_that_still_fits_or_was_long_before_is_not_split() -> None:
    short = cst.parse_statement("assert x in [w.message for w in ws]\n")
    assert isinstance(short, cst.SimpleStatementLine)
    assert split_statement(short.body[0], column=4, unit="    ", limit=88) is None
    assert split_statement(short.body[0], column=4, unit="\t", limit=10) is None  # tabs


CONSUMERS = {
    "svc.py": textwrap.dedent(
        """\
        BLOCK_WARNING_PREFIX = "BLOCK: "


        def run(qty: int, warnings: list[str]) -> list[str]:
            if qty < 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX}quantity {qty} is negative")
            else:
                warnings.append("quantity is fine, nothing else to say about it")
            return warnings
        """
    ),
    "test_svc.py": textwrap.dedent(
        """\
        from svc import run


        def test_fine():
            assert "quantity is fine, nothing else to say about it" in run(1, [])
            assert run(1, []) == ["quantity is fine, nothing else to say about it"]
            assert "quantity is fine, nothing else to say about it" in run(1, []), "written too long"
        """
    ),
}


def test_a_reader_rewrite_that_no_longer_fits_is_split_in_the_output(tmp_path: Path) -> None:
    """End to end: the reader rewrites of a test are split as ruff splits them; a line its
    author wrote past the limit is rewritten but not split (the project's formatter does
    not hold it to the limit, or the author would have split it)."""
    new = new_text(diff_project(tmp_path, CONSUMERS), "test_svc.py")
    assert new == textwrap.dedent(
        """\
        from svc import run


        def test_fine():
            assert "quantity is fine, nothing else to say about it" in [
                w.message for w in run(1, [])
            ]
            assert [(w.severity, w.message) for w in run(1, [])] == [
                ("advisory", "quantity is fine, nothing else to say about it")
            ]
            assert "quantity is fine, nothing else to say about it" in [w.message for w in run(1, [])], "written too long"
        """
    )


# (one-line statement, edit as (old, new) in its text): the formatter lays the statement out
# over lines; the edit makes one of those lines too long, or the whole short enough to join.
RELAYOUT = [
    (
        'assert content["success"] is False and content["error"] == "update_version requires at least one field"',
        ('content["error"]', 'content["error"]["message"]'),
    ),
    (
        "result += f\"\\n🔍 MEMORY USAGE ROOT CAUSE ANALYSIS:\\n{telemetry_data['error']} and more\\n\"",
        ("['error']", "['error']['message']"),
    ),
    (
        "assert not blocked and any(w.startswith(BLOCK_WARNING_PREFIX) for w in result.warnings) and z",
        ("w.startswith(BLOCK_WARNING_PREFIX)", 'w.severity == "blocking"'),
    ),
    (
        'self.assertEqual(response["error"], "quantity is fine, nothing else to say about it, really")',
        ('response["error"]', 'response["error"]["message"]'),
    ),
    (
        'return response["status"] == "error" and response["error"] == "not found, nothing to do at all"',
        ('response["error"]', 'response["error"]["message"]'),
    ),
]


def _relayout(original: str, updated: str, indent: str, line_length: int) -> str:
    """The function as the edit applier leaves it: ``updated`` laid out again, or as it is."""
    old = cst.parse_statement(original + "\n")
    new = cst.parse_statement(updated + "\n")
    assert isinstance(old, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine)
    laid = relayout_statement(
        old.body[0], new.body[0], column=len(indent), unit="    ", limit=line_length
    )
    return _in_function((laid or updated).replace("\n", "\n" + indent), indent)


def _formatted_statement(statement: str, indent: str, line_length: int) -> str:
    """ruff's lines for ``statement``, dedented to the statement's own column."""
    body = _ruff(_in_function(statement, indent), line_length).split("\n")
    first = next(
        i
        for i, line in enumerate(body)
        if line.startswith(indent)
        and line.strip()
        and not line.strip().startswith(("def ", "if x:"))
    )
    lines = [line[len(indent) :] for line in body[first:] if line]
    return "\n".join(lines)


@pytest.mark.parametrize(("indent", "line_length"), LAYOUTS)
@pytest.mark.parametrize(("statement", "edit"), RELAYOUT)
def test_a_statement_the_formatter_laid_out_is_laid_out_again(
    statement: str, edit: tuple[str, str], indent: str, line_length: int
) -> None:
    """The formatter's layout of the statement, edited in place, comes out as the formatter
    lays the edited statement out."""
    original = _formatted_statement(statement, indent, line_length)
    updated = original.replace(*edit)
    assert updated != original
    expected = _ruff(_in_function(updated.replace("\n", "\n" + indent), indent), line_length)
    assert _relayout(original, updated, indent, line_length) == expected


def test_the_real_shapes_are_laid_out_again() -> None:
    """At 88 in a method's body: the chain whose comparison no longer fits splits before
    ``==`` (mcp-atlassian's test), the string that no longer fits inside its parentheses
    loses them (awslabs-cloudwatch-applicationsignals' server), the chain that now fits
    joins."""
    for statement, edit in RELAYOUT[:3]:
        original = _formatted_statement(statement, "    ", 88)
        assert "\n" in original
        old = cst.parse_statement(original + "\n")
        new = cst.parse_statement(original.replace(*edit) + "\n")
        assert isinstance(old, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine)
        assert relayout_statement(old.body[0], new.body[0], column=4, unit="    ", limit=88)


def test_an_authors_own_layout_is_kept() -> None:
    """Lines the formatter would not have made (a break after ``and``, a comment) are the
    author's: the statement keeps them whatever the edit did."""
    for original in (
        'assert (content["success"] is False and\n        content["error"] == "x")',
        'assert (\n    content["success"] is False  # the flag\n    and content["error"] == "x"\n)',
    ):
        old = cst.parse_statement(original + "\n")
        new = cst.parse_statement(original.replace('["error"]', '["error"]["message"]') + "\n")
        assert isinstance(old, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine)
        assert relayout_statement(old.body[0], new.body[0], column=4, unit="    ", limit=30) is None


LOOKUP_AND_TEST = {
    "app.py": textwrap.dedent(LOOKUP),
    "test_app.py": textwrap.dedent(
        """\
        from app import lookup


        def test_lookup_reports_its_failure():
            result = lookup("missing")
            report = ""
            if "error" in result:
                report += (
                    f"\\n🔍 LOOKUP FAILED, HERE IS THE ROOT CAUSE ANALYSIS:\\n{result['error']}\\n"
                )
            assert (
                result["status"] is None
                and result["error"] == "the stack named missing does not exist in here"
            )
        """
    ),
}


def test_a_statement_the_formatter_laid_out_is_laid_out_again_in_the_output(
    tmp_path: Path,
) -> None:
    """End to end, the two real shapes: the string whose reader rewrite no longer fits
    inside its parentheses loses them (the inserted ``['message']`` takes the f-string's
    other quote first, or the statement would not parse on Python 3.11), the chain splits
    its comparison before ``==``; and ruff agrees with the output."""
    new = new_text(diff_project(tmp_path, LOOKUP_AND_TEST), "test_app.py")
    assert new is not None
    assert (
        '        report += f"\\n🔍 LOOKUP FAILED, HERE IS THE ROOT CAUSE ANALYSIS:\\n'
        "{result['error']['message']}\\n\"\n" in new
    )
    assert (
        '        and result["error"]["message"]\n'
        '        == "the stack named missing does not exist in here"\n' in new
    )
    assert _ruff(new, 88) == new


# A ``def`` line that fits until its annotations' ``list[str]`` become ``list[Warning]``
# (at 88 in a method's body): its parameters go on one line of their own, or one per line
# where they no longer fit there together.
SIGNATURES = [
    "def collect(items: list[str], strict: bool = False, depth: int = 3) -> list[str]:",
    "def collect_warning(self, items: list[str], strict: bool = False, d=3) -> list[str]:",
    "def check_all(self, items, *, strict: bool = False, depth=3, **opts) -> list[str]:",
    "def check_all(items, /, warnings: list[str], *args, strict=False, **o) -> list[str]:",
    "async def gather_warnings(self, items, strict: bool = False, depth=3) -> list[str]:",
    "def f(a: list[str], b: list[str], c: list[str], d: list[str], e: list[str], g=1):",
]


def _annotation_edited(source: str, line_length: int) -> str:
    """``source`` through the edit applier with every annotation ``list[str]`` rewritten
    to ``list[Warning]``, as the annotation rule rewrites it."""
    module = cst.parse_module(source)
    edits: dict[cst.CSTNode, object] = {}

    class _Find(cst.CSTVisitor):
        def visit_Annotation(self, node: cst.Annotation) -> None:
            if cst.Module(body=[]).code_for_node(node.annotation) == "list[str]":
                edits[node.annotation] = lambda _: cst.parse_expression("list[Warning]")

    module.visit(_Find())
    return module.visit(EditApplier(edits, line_length=line_length)).code


@pytest.mark.parametrize(("indent", "line_length"), LAYOUTS)
@pytest.mark.parametrize("signature", SIGNATURES)
def test_a_signature_pushed_past_the_limit_is_split_as_ruff_splits_it(
    signature: str, indent: str, line_length: int
) -> None:
    source = _in_function(signature, indent) + indent + "    return []\n"
    edited = _annotation_edited(source, line_length)
    assert "list[Warning]" in edited
    if _ruff(source, line_length) == source:  # a def line that fitted before the edit
        assert _ruff(edited, line_length) == edited


def test_the_signatures_are_split_at_88() -> None:
    for signature in SIGNATURES:
        source = _in_function(signature + " return []", "    ").replace(
            ": return", ":\n        return"
        )
        assert _ruff(source, 88) == source
        assert "(\n" in _annotation_edited(source, 88)


PUSHED_SIGNATURE = {
    "svc.py": textwrap.dedent(
        """\
        BLOCK_WARNING_PREFIX = "BLOCK: "


        def check_the_order(order_id: int, quantity: int, strict: bool = False) -> list[str]:
            warnings: list[str] = []
            if quantity < 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX}quantity {quantity} is negative")
            return warnings
        """
    )
}


def test_a_signature_the_annotation_rule_pushed_past_the_limit_is_split(tmp_path: Path) -> None:
    new = new_text(diff_project(tmp_path, PUSHED_SIGNATURE), "svc.py")
    assert new is not None
    assert (
        "def check_the_order(\n    order_id: int, quantity: int, strict: bool = False\n"
        ") -> list[Warning]:\n" in new
    )
    assert _ruff(new, 88) == new


HELD_IN_A_CALL = {
    "svc.py": textwrap.dedent(
        """\
        from dataclasses import dataclass


        @dataclass
        class Summary:
            count: int = 0
            warnings: list[str] | None = None


        def summarize(queries: list[str]) -> Summary:
            if not queries:
                return Summary(count=0, warnings=["No queries were given, nothing to summarize."])
            if len(queries) > 100:
                return Summary(warnings=["Too many queries were given, none was summarized."])
            return Summary(count=len(queries), warnings=[])


        def as_dict(queries: list[str]) -> dict:
            if not queries:
                return {"count": 0, "warnings": ["No queries were given, nothing to summarize."]}
            if len(queries) > 100:
                return dict(result=Summary(warnings=["Too many queries, none was summarized."]))
            if len(queries) > 50:
                return {"warnings": ["Many queries were given, only fifty were summarized."]}
            return {"count": len(queries), "warnings": []}
        """
    ),
    "test_svc.py": "from svc import summarize\n\n\ndef test_it():\n    assert summarize([]).warnings\n",
}


def test_a_call_or_dict_holding_a_split_list_is_split_first(tmp_path: Path) -> None:
    """``Summary(count=0, warnings=[Warning(...)])`` on one line: ruff splits the outermost
    bracket first (the call, the dict, a call around that), then the list on its own line;
    splitting only the list left ``Summary(count=0, warnings=[`` hugging. The empty ``[]``
    of the last line stays as it is (a freed split list's ``id`` once made it look split)."""
    new = new_text(diff_project(tmp_path, HELD_IN_A_CALL), "svc.py")
    assert new is not None
    assert "        return Summary(\n            count=0,\n            warnings=[\n" in new
    assert "        return Summary(\n            warnings=[\n" in new
    assert '        return {\n            "count": 0,\n            "warnings": [\n' in new
    assert "        return dict(\n            result=Summary(\n                warnings=[\n" in new
    assert '        return {\n            "warnings": [\n' in new
    assert '    return {"count": len(queries), "warnings": []}\n' in new
    assert _ruff(new, 88) == new


ANNOTATED_DICT = {
    "svc.py": textwrap.dedent(
        """\
        from typing import Any


        def summarize(applied: list[str], warnings: list[str], shape: int) -> dict[str, Any]:
            result = {"message": f"Applied {len(applied)} effects", "applied": applied}
            result["warnings"] = warnings
            return result
        """
    )
}


def test_a_dict_local_the_annotation_rule_pushed_past_the_limit_is_split(tmp_path: Path) -> None:
    """``result: dict[str, Any] = {...}`` no longer fits: the display splits as ruff's."""
    new = new_text(diff_project(tmp_path, ANNOTATED_DICT), "svc.py")
    assert new is not None
    assert "    result: dict[str, Any] = {\n" in new
    assert _ruff(new, 88) == new
