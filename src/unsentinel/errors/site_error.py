"""What one error site becomes: its code (inferred, or the plan's), message and details.

The code is inferred from the evidence around the site -- the returned HTTP status, the
exception the enclosing ``except`` handles, whether the ``try`` ran an external binary,
the message's wording -- and an edited plan may replace it. The details gather what the
old dict carried besides its message, the parameter a validation message names, and the
placeholders of an f-string message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from unsentinel.core.model import Inferred
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import string_value
from unsentinel.errors import build
from unsentinel.errors.code import infer_error_code
from unsentinel.errors.key_places import DETAIL_CONTAINERS
from unsentinel.errors.settings import error_settings
from unsentinel.errors.shapes import Shape, elements_by_key, exception_names, handler_of
from unsentinel.errors.text_locals import text_bound_before

_SUBPROCESS_HINTS = ("subprocess.", "Popen(", "check_output(", "shutil.which(")
# Keys under which an error dict names its kind of error, most specific first.
_TYPE_KEYS = ("error_type", "errorType", "error_code", "errorCode", "type", "kind", "code")


@dataclass(frozen=True)
class SiteError:
    """What the rewrite of one site needs: the code constant, the message, the details."""

    code: str
    message: cst.BaseExpression
    details: cst.Dict | None


@dataclass(frozen=True)
class ErrorAtSite:
    """A site's error with the evidence its code came from (for the finding's report)."""

    error: SiteError
    code: Inferred
    exceptions: tuple[str, ...]


@dataclass(frozen=True)
class _Handler:
    """What the enclosing ``except`` tells: its exceptions, their alias, a binary run."""

    exceptions: tuple[str, ...] = ()
    alias: str | None = None
    external_binary: bool = False


def split_extras(
    shape: Shape, values: dict[str, cst.BaseExpression]
) -> tuple[dict[str, cst.BaseExpression], list[cst.BaseExpression]]:
    """The old dict's other keys as details: named entries, and values spread in whole.

    A detail container written as a literal dict gives its own keys; any other container
    value is spread (``**value``); ``status`` is dropped (the response keeps its status).
    """
    extras: dict[str, cst.BaseExpression] = {}
    spreads: list[cst.BaseExpression] = []
    for key in shape.extra_keys:
        value = values[key]
        if key in DETAIL_CONTAINERS and isinstance(value, cst.Dict):
            inner = elements_by_key(value)
            if inner is None:
                spreads.append(value)
            else:
                extras.update(inner)
        elif key in DETAIL_CONTAINERS:
            spreads.append(value)
        elif key not in ("status",):
            extras[key] = value
    return extras, spreads


def error_at(
    context: RuleContext,
    node: cst.CSTNode,
    message: cst.BaseExpression,
    status: int | None,
    *,
    extras: dict[str, cst.BaseExpression],
    spreads: Sequence[cst.BaseExpression],
) -> ErrorAtSite:
    """The error the site at ``node`` becomes; its code is the plan's where a plan sets one."""
    handler = _handler(context, node)
    text = build.read_message(message, handler.alias)
    code = infer_error_code(
        status,
        handler.exceptions,
        text.text if text.text is not None else _text_of_local(context, message),
        external_binary=handler.external_binary,
        translated=text.translated,
        custom=error_settings(context.config).error_codes,
        declared=declared_type(extras),
    )
    decided = context.decide(node, "code", code)  # an edited plan's code, if any
    code = decided if decided.value is not None else code  # an error always has a code
    assert code.value is not None
    entries: list[tuple[str, cst.BaseExpression]] = []
    param = build.param_name(text, code.value)
    if param is not None and "param_name" not in extras:
        entries.append(("param_name", build.string(param)))
    entries += [(k, cst.Name(v)) for k, v in text.placeholders if k not in extras]
    entries += list(extras.items())
    details = build.details_dict(_unique(entries), list(spreads), _keys(context, extras))
    return ErrorAtSite(SiteError(code.value, message, details), code, handler.exceptions)


def _text_of_local(context: RuleContext, message: cst.BaseExpression) -> str | None:
    """The words of ``error_msg`` where the lines above bind it to text: evidence for the
    code only (the message stays the local, and its placeholders add no details)."""
    if not isinstance(message, cst.Name):
        return None
    bound = text_bound_before(message, context.parent)
    return build.read_message(bound, None).text if bound is not None else None


def _keys(
    context: RuleContext, extras: dict[str, cst.BaseExpression]
) -> dict[str, cst.BaseExpression]:
    """The literal each extra key was written as in the old dict (``'request_id'``)."""
    keys: dict[str, cst.BaseExpression] = {}
    for key, value in extras.items():
        element = context.parent(value)
        if isinstance(element, cst.DictElement) and element.value is value:
            keys[key] = element.key
    return keys


def declared_type(extras: dict[str, cst.BaseExpression]) -> str | None:
    """The error type the old dict names as a string literal (``"error_type": "..."``)."""
    for key in _TYPE_KEYS:
        value = extras.get(key)
        if isinstance(value, cst.SimpleString):
            text = string_value(value)
            if isinstance(text, str) and text.strip():
                return text.strip()
    return None


def _handler(context: RuleContext, node: cst.CSTNode) -> _Handler:
    found = handler_of(node, context.parent)
    if found is None:
        return _Handler()
    handler, try_node = found
    alias = None
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        alias = handler.name.name.value
    body_code = context.code_for(try_node.body)
    external_binary = any(hint in body_code for hint in _SUBPROCESS_HINTS)
    return _Handler(exception_names(handler), alias, external_binary)


def _unique(entries: list[tuple[str, cst.BaseExpression]]) -> list[tuple[str, cst.BaseExpression]]:
    seen: dict[str, cst.BaseExpression] = {}
    for key, value in entries:
        seen.setdefault(key, value)
    return list(seen.items())
