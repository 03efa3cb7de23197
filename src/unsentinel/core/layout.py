"""Lay out a generated call so the diff reads like code a person wrote.

The call stays on one line when that line fits the project's line length; otherwise each
keyword argument gets its own line, indented one level past the statement, with a
trailing comma (black's "magic trailing comma" shape). Multi-line argument values keep
their shape: continuation lines move by as many columns as the value's start moved.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def call_code(
    name: str,
    arguments: Sequence[tuple[str, str]],
    *,
    line_text: str,
    column: int,
    indent_unit: str,
    suffix_length: int,
    block_indent: int,
    line_length: int,
) -> str:
    """Source for ``name(k=v, ...)`` -- or, with ``name=""``, the dict ``{"k": v, ...}`` --
    replacing an expression at 0-based ``column`` of ``line_text``; ``suffix_length``
    characters follow the expression on its last line; ``line_length`` is the project's."""
    opener, closer = (f"{name}(", ")") if name else ("{", "}")
    items = [f"{k}={v}" if name else f'"{k}": {v}' for k, v in arguments]
    one_line = opener + ", ".join(items) + closer
    if "\n" not in one_line and column + len(one_line) + suffix_length <= line_length:
        return one_line
    # LibCST re-adds the enclosing block's indentation to continuation lines inside
    # brackets, so everything below is written relative to that block.
    base = line_text[: len(line_text) - len(line_text.lstrip())][block_indent:]
    inner = base + indent_unit
    lines = [opener]
    for key, value in arguments:
        label = f"{key}=" if name else f'"{key}": '
        new_column = block_indent + len(inner) + len(label)
        lines.append(f"{inner}{label}{_shift(value, new_column - column)},")
    lines.append(f"{base}{closer}")
    return "\n".join(lines)


def _shift(value: str, delta: int) -> str:
    """Move continuation lines of a multi-line value by ``delta`` columns."""
    if "\n" not in value or delta == 0 or '"""' in value or "'''" in value:
        return value
    first, *rest = value.split("\n")
    shifted = []
    for line in rest:
        if delta > 0:
            shifted.append(" " * delta + line if line.strip() else line)
        else:
            blank = len(line) - len(line.lstrip(" "))
            shifted.append(line[min(blank, -delta) :])
    return "\n".join([first, *shifted])


def expression_code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
