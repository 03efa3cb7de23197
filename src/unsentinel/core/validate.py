"""What a file must pass, before LibCST and after the rewrite.

Before: Python's own parser judges nesting depth (LibCST's native parser would overflow its
stack) and words a syntax error in one line. After: the rewrite must parse for LibCST and,
as far as the running interpreter knows the grammar, for the project's lowest Python.
"""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst  # imported where a rewrite is validated: the engine loads it lazily


class RewriteError(Exception):
    """A rewrite produced code that does not parse; the file is left untouched."""


def python_parse(data: bytes) -> tuple[ast.Module | None, str | None]:
    """Python's own parse of ``data`` (None where it cannot), and why the file is too deeply
    nested to hand to LibCST (None when it is not).

    LibCST's native parser overflows its stack on deep nesting (thousands of parentheses,
    operators or attribute accesses): a segmentation fault that takes the whole run down.
    CPython's own parser refuses such code cleanly, so it judges first. Other syntax
    errors are left to LibCST, which knows grammar newer than the running Python.
    """
    try:
        return ast.parse(data), None
    except (RecursionError, MemoryError):
        return None, "too deeply nested to parse (Python's own parser gives up too)"
    except SyntaxError as exc:
        if exc.msg == "too many nested parentheses":
            return None, f"too deeply nested to parse: {exc.msg}"
    except ValueError:  # e.g. "source code string cannot contain null bytes"
        pass
    return None, None


def syntax_error(data: bytes, exc: cst.ParserSyntaxError) -> str:
    """One line: Python's own words where its grammar covers the file, else LibCST's first line
    (LibCST's message lists every token it would have accepted)."""
    try:
        ast.parse(data)
    except SyntaxError as error:
        if error.lineno is not None:
            return f"syntax error at {error.lineno}:{error.offset or 1}: {error.msg}"
    except (ValueError, RecursionError, MemoryError):
        pass
    first = exc.message.splitlines()[0] if exc.message else "invalid syntax"
    return f"syntax error at {exc.raw_line}:{exc.raw_column + 1}: {first}"


def validate_rewrite(
    original: str, new_code: str, display: str, target: tuple[int, int]
) -> cst.Module:
    """Refuse output that does not parse, for LibCST and for the project's lowest Python;
    return LibCST's parse of it, which the fixed-point check then reads as a second run would.

    ``ast`` judges with the target's grammar (``feature_version``), as far as the running
    interpreter knows it, and only where the original passes the same test: a file is
    never refused because the running Python is older than the project.
    """
    import libcst as cst

    try:
        reparsed = cst.parse_module(new_code)
    except cst.ParserSyntaxError as exc:
        raise RewriteError(f"rewrite of {display} does not parse: {exc.message}") from exc
    grammar = min(target, sys.version_info[:2])
    try:
        ast.parse(original, feature_version=grammar)
    except SyntaxError:
        return reparsed
    try:
        ast.parse(new_code, feature_version=grammar)
    except SyntaxError as exc:
        version = ".".join(map(str, grammar))
        raise RewriteError(
            f"rewrite of {display} is not valid Python {version}: {exc.msg}"
        ) from exc
    return reparsed
