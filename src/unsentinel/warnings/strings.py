"""String expressions as messages: find a leading marker, strip it, read the template.

A "string expression" is anything that builds a ``str`` from literal pieces: a literal,
an f-string, implicit concatenation, ``+`` chains, and names bound to such values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from unsentinel.core.model import Severity
from unsentinel.core.syntax import string_value

STRINGISH = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


@dataclass(frozen=True)
class Marker:
    text: str  # what was found: the literal marker or the constant's name
    severity: Severity


@dataclass(frozen=True)
class RuntimePrefix:
    """``prefix = BLOCK_WARNING_PREFIX if cond else ""``: severity decided at run time."""

    name: str
    test: cst.BaseExpression
    when_true: Severity
    when_false: Severity


@dataclass(frozen=True)
class Stripped:
    message: cst.BaseExpression
    marker: Marker | None = None
    runtime: RuntimePrefix | None = None


MarkerLookup = Callable[[str], "Marker | None"]


def is_stringish(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, STRINGISH):
        return not _is_bytes(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return is_stringish(expr.left) or is_stringish(expr.right)
    return False


def _is_bytes(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.SimpleString):
        return "b" in expr.prefix.lower()
    if isinstance(expr, cst.ConcatenatedString):
        return _is_bytes(expr.left)
    return False


def text_marker(text: str, markers: Mapping[str, Severity]) -> Marker | None:
    for marker, severity in sorted(markers.items(), key=lambda item: -len(item[0])):
        bare = marker.rstrip()
        if bare and text.startswith(bare):
            return Marker(bare, severity)
    return None


def strip_marker(
    expr: cst.BaseExpression,
    markers: Mapping[str, Severity],
    constant: MarkerLookup,
    runtime: Callable[[str], RuntimePrefix | None],
) -> Stripped | None:
    """The message without its leading marker, or None when there is no marker."""
    if isinstance(expr, cst.SimpleString):
        value = string_value(expr)
        marker = text_marker(value, markers) if isinstance(value, str) else None
        if marker is None:
            return None
        return Stripped(_drop_simple(expr, len(marker.text)), marker)
    if isinstance(expr, cst.FormattedString):
        return _strip_fstring(expr, markers, constant, runtime)
    is_concatenation = isinstance(expr, cst.ConcatenatedString) or (
        isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add)
    )
    if not is_concatenation:
        return None
    assert isinstance(expr, (cst.ConcatenatedString, cst.BinaryOperation))
    name = _name_of(expr.left) if isinstance(expr, cst.BinaryOperation) else None
    found = constant(name) if name is not None else None
    if found is not None:  # ``PREFIX + "..."``
        return Stripped(lstrip(expr.right), found)
    left = strip_marker(expr.left, markers, constant, runtime)
    if left is None:
        return None
    if _is_empty(left.message):
        return Stripped(lstrip(expr.right), left.marker, left.runtime)
    return Stripped(expr.with_changes(left=left.message), left.marker, left.runtime)


def _strip_fstring(
    expr: cst.FormattedString,
    markers: Mapping[str, Severity],
    constant: MarkerLookup,
    runtime: Callable[[str], RuntimePrefix | None],
) -> Stripped | None:
    if not expr.parts:
        return None
    first, rest = expr.parts[0], list(expr.parts[1:])
    if isinstance(first, cst.FormattedStringText):
        marker = text_marker(first.value, markers)
        if marker is None:
            return None
        remainder = first.value[len(marker.text) :].lstrip(" ")
        parts = ([first.with_changes(value=remainder)] if remainder else []) + rest
        return Stripped(_fstring(expr, parts), marker)
    name = _name_of(first.expression) if isinstance(first, cst.FormattedStringExpression) else None
    if name is None:
        return None
    found = constant(name)
    prefix = None if found is not None else runtime(name)
    if found is None and prefix is None:
        return None
    if rest and isinstance(rest[0], cst.FormattedStringText):
        remainder = rest[0].value.lstrip(" ")
        rest = ([rest[0].with_changes(value=remainder)] if remainder else []) + rest[1:]
    return Stripped(_fstring(expr, rest), found, prefix)


def _fstring(
    expr: cst.FormattedString, parts: list[cst.BaseFormattedStringContent]
) -> cst.BaseExpression:
    """An f-string with ``parts``, simplified: ``f"{x}"`` -> ``x``, no placeholders -> literal."""
    if len(parts) == 1 and isinstance(parts[0], cst.FormattedStringExpression):
        only = parts[0]
        if (
            only.conversion is None
            and only.format_spec is None
            and isinstance(only.expression, (cst.Name, cst.Attribute))
        ):
            return only.expression
    if all(isinstance(p, cst.FormattedStringText) for p in parts) and "{" not in "".join(
        p.value for p in parts if isinstance(p, cst.FormattedStringText)
    ):
        # No placeholders left: a plain literal reads better than an f-string.
        quote = expr.end
        letters = expr.start[: -len(quote)].replace("f", "").replace("F", "")
        body = "".join(p.value for p in parts if isinstance(p, cst.FormattedStringText))
        return cst.SimpleString(f"{letters}{quote}{body}{quote}", lpar=expr.lpar, rpar=expr.rpar)
    return expr.with_changes(parts=parts)


def _drop_simple(expr: cst.SimpleString, count: int) -> cst.SimpleString:
    prefix, quote = expr.prefix, expr.quote
    body = expr.value[len(prefix) + len(quote) : -len(quote)]
    return expr.with_changes(value=f"{prefix}{quote}{body[count:].lstrip(' ')}{quote}")


def lstrip(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Remove leading blanks from a string expression's first literal text."""
    if isinstance(expr, cst.SimpleString):
        return _drop_simple(expr, 0)
    if isinstance(expr, cst.FormattedString) and expr.parts:
        first = expr.parts[0]
        if isinstance(first, cst.FormattedStringText):
            remainder = first.value.lstrip(" ")
            parts = ([first.with_changes(value=remainder)] if remainder else []) + list(
                expr.parts[1:]
            )
            return _fstring(expr, parts)
        return expr
    if isinstance(expr, cst.ConcatenatedString):
        left = lstrip(expr.left)
        return lstrip(expr.right) if _is_empty(left) else expr.with_changes(left=left)
    if isinstance(expr, cst.BinaryOperation):
        left = lstrip(expr.left)
        return lstrip(expr.right) if _is_empty(left) else expr.with_changes(left=left)
    return expr


def _is_empty(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.SimpleString):
        return string_value(expr) in ("", b"")
    if isinstance(expr, cst.FormattedString):
        return not expr.parts
    return False


def _name_of(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def pieces(
    expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], cst.BaseExpression | None]
) -> list[str | cst.BaseExpression]:
    """Literal text and placeholder expressions, in order. ``resolve`` expands local names."""
    if isinstance(expr, cst.SimpleString):
        value = string_value(expr)
        return [value] if isinstance(value, str) else [expr]
    if isinstance(expr, cst.FormattedString):
        out: list[str | cst.BaseExpression] = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                out.append(part.value.replace("{{", "{").replace("}}", "}"))
            elif isinstance(part, cst.FormattedStringExpression):
                out.extend(_placeholder(part.expression, resolve))
        return out
    if isinstance(expr, cst.ConcatenatedString):
        return [*pieces(expr.left, resolve), *pieces(expr.right, resolve)]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return [*pieces(expr.left, resolve), *pieces(expr.right, resolve)]
    return _placeholder(expr, resolve)


def _placeholder(
    expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], cst.BaseExpression | None]
) -> list[str | cst.BaseExpression]:
    resolved = resolve(expr)
    if resolved is not None and is_stringish(resolved):
        return pieces(resolved, lambda _: None)
    return [expr]


def template_text(parts: list[str | cst.BaseExpression]) -> str:
    return "".join("{}" if not isinstance(p, str) else p for p in parts).strip()
