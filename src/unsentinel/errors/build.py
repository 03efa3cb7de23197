"""Reading an error message and building its replacement (helpers of UNS501).

:func:`read_message` turns a message expression into the evidence inference needs (its
template text, whether it is a ``_()`` msgid) and the placeholders that become ``details``.
:func:`error_detail_call` builds ``ErrorDetail(code=..., message=..., details=...).to_dict()``
and :func:`envelope` the spec's ``{"success": False, "error": ...}`` around it;
:func:`helper_call` builds ``error_response(error_codes.X, message, details)`` instead when
the repository configures a helper (``error-target = "helper"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import libcst as cst

from unsentinel.core.syntax import string_value
from unsentinel.errors.shapes import TRANSLATORS, call_name

_PARAM_SUBJECT = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*) (is required|are required|must be|must not|may only)\b"
)
_N = TypeVar("_N", bound=cst.CSTNode)
PARAM_CODES = frozenset({"VALIDATION_MISSING_PARAM", "VALIDATION_INVALID_TYPE"})


@dataclass(frozen=True)
class Message:
    text: str | None  # the template, placeholders as "{}"; None for str(e) and the like
    translated: bool
    placeholders: tuple[tuple[str, str], ...]  # (details key, variable name)


def read_message(node: cst.BaseExpression, exception_alias: str | None) -> Message:
    """Template text and placeholder variables of a message expression."""
    names: list[str] = []
    translated = False
    text: str | None = None
    if isinstance(node, cst.Call) and call_name(node) in {"str", "repr"}:
        return Message(None, False, ())
    if isinstance(node, cst.Call) and call_name(node) in TRANSLATORS and node.args:
        translated = True
        node = node.args[0].value
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        text = _literal(node.left)
        names.extend(_names(node.right))
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left = _literal(node.left)
        text = None if left is None else left + "{}"
    elif isinstance(node, cst.FormattedString):
        text, found = _fstring(node)
        names.extend(found)
    else:
        text = _literal(node)
    if text is not None:
        text = re.sub(r"%(\(\w+\))?[-#0 +]*\d*(\.\d+)?[sdrifgxoe]", "{}", text)
    placeholders = tuple((_detail_key(n), n) for n in dict.fromkeys(names) if n != exception_alias)
    return Message(text, translated, placeholders)


def param_name(message: Message, code: str) -> str | None:
    """``"title is required"`` -> ``title``, for the codes whose details name a parameter."""
    if code not in PARAM_CODES or not message.text:
        return None
    match = _PARAM_SUBJECT.match(message.text)
    return match.group("name") if match else None


def _literal(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.FormattedString):
        return _fstring(node)[0]
    return None


def _fstring(node: cst.FormattedString) -> tuple[str, list[str]]:
    text: list[str] = []
    names: list[str] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            text.append(part.value)
        elif isinstance(part, cst.FormattedStringExpression):
            text.append("{}")
            if isinstance(part.expression, cst.Name):
                names.append(part.expression.value)
    return "".join(text), names


def _names(node: cst.BaseExpression) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Tuple):
        return [e.value.value for e in node.elements if isinstance(e.value, cst.Name)]
    return []


def _detail_key(name: str) -> str:
    return name.lower() if name.isupper() else name


# -- building -----------------------------------------------------------------------------

_NO_SPACE = cst.SimpleWhitespace("")


def string(value: str, quote: str = '"') -> cst.SimpleString:
    escaped = value.replace("\\", "\\\\").replace(quote, "\\" + quote)
    return cst.SimpleString(quote + escaped + quote)


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE),
    )


def details_dict(
    entries: Sequence[tuple[str, cst.BaseExpression]],
    spreads: Sequence[cst.BaseExpression],
    keys: Mapping[str, cst.BaseExpression] | None = None,
) -> cst.Dict | None:
    """``{**spread, "key": value, ...}``; a key the old dict had keeps its own literal
    (``keys``: its quotes are the project's, not ours)."""
    keys = keys or {}
    elements: list[cst.BaseDictElement] = [cst.StarredDictElement(value=s) for s in spreads]
    elements.extend(cst.DictElement(keys.get(key) or string(key), value) for key, value in entries)
    return cst.Dict(elements) if elements else None


def error_detail_call(
    model: str,
    codes_module: str,
    code: str,
    message: cst.BaseExpression,
    details: cst.Dict | None,
) -> cst.Call:
    """``ErrorDetail(code=error_codes.X, message=..., details={...}).to_dict()``."""
    args = [
        keyword("code", cst.Attribute(cst.Name(codes_module), cst.Name(code))),
        keyword("message", message),
    ]
    if details is not None:
        args.append(keyword("details", details))
    detail = cst.Call(cst.Name(model), args)
    return cst.Call(cst.Attribute(detail, cst.Name("to_dict")))


def helper_call(
    helper: str,
    codes_module: str,
    code: str,
    message: cst.BaseExpression,
    details: cst.Dict | None,
) -> cst.Call:
    """``error_response(error_codes.X, message, {...})``: the repository's own envelope helper."""
    args = [cst.Arg(cst.Attribute(cst.Name(codes_module), cst.Name(code))), cst.Arg(message)]
    if details is not None:
        args.append(cst.Arg(details))
    return cst.Call(cst.Name(helper), args)


def error_of(response: cst.BaseExpression) -> cst.Subscript:
    """``<response>["error"]``: the error object of an envelope a helper built."""
    return cst.Subscript(response, [cst.SubscriptElement(cst.Index(string("error")))])


def envelope(error: cst.BaseExpression) -> cst.Dict:
    """The spec's failed response: ``{"success": False, "error": <error>}``."""
    return cst.Dict(
        [
            cst.DictElement(string("success"), cst.Name("False")),
            cst.DictElement(string("error"), error),
        ]
    )


def carry_updates(built: _N, original: cst.CSTNode, updated: cst.CSTNode) -> _N:
    """``built`` (made from ``original``'s parts) with the edits other sites made inside them.

    Replacements are built from the original nodes; when another edit changed one of them
    (a client read ``resp["error"]`` used as the message), the updated part takes its place.
    """
    for old, new in _changed_parts(original, updated):
        built = cast(_N, built.deep_replace(old, new))
    return built


def _changed_parts(
    original: cst.CSTNode, updated: cst.CSTNode
) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    if type(original) is not type(updated) or original.deep_equals(updated):
        return []  # LibCST rebuilds every node it visits: compare structure, not identity
    if isinstance(original, (cst.Dict, cst.Assign, cst.DictElement)) or not isinstance(
        original, cst.BaseExpression
    ):
        pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        old_children, new_children = original.children, updated.children
        if len(old_children) != len(new_children):
            return []
        for old, new in zip(old_children, new_children, strict=True):
            pairs.extend(_changed_parts(old, new))
        return pairs
    return [(original, updated)]
