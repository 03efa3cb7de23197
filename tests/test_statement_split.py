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
from projects import diff_project, new_text

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
