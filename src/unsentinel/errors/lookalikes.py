"""Dicts that look like error responses but are not (helpers of UNS501).

UNS501 never rewrites these. It lists them in ``plan`` as notes (``Action.NOTE``: not a
``check`` finding) so a reviewer sees what was left alone and why. :func:`suspicious`
says whether a dict is worth a note at all; :func:`reason` names what it is instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.syntax import is_name
from unsentinel.errors.key_places import DETAIL_CONTAINERS, DISCRIMINATORS, MESSAGE_KEYS
from unsentinel.errors.shapes import (
    COLLECTIONS,
    SEVERITY_KEYS,
    Parent,
    Shape,
    ShapeKind,
    call_name,
    elements_by_key,
    is_error_string,
    is_stringish,
    response_flow,
)

_LABEL_KEYWORDS = frozenset({"labels", "tags", "attributes", "dimensions"})
_DETAIL_KEYWORDS = frozenset({"details", "metadata", "context", "meta", "payload", "data"})
_COLLECTORS = frozenset({"append", "extend", "add", "insert", "put", "put_nowait", "send"})


def suspicious(node: cst.Dict, shape: Shape | None) -> bool:
    """Error-shaped, or with an ``"error"`` key, ``"status": "error"`` or a failed flag."""
    if shape is not None:
        return shape.kind is not ShapeKind.MESSAGE_ONLY  # {"message": ...} alone is everywhere
    values = elements_by_key(node)
    if not values:
        return False
    if "error" in values:
        return not _already_migrated(values)
    status = values.get("status")
    if status is not None and (is_error_string(status) or _mentions_error(status)):
        return True
    return any(is_name(values.get(k), "False") for k in DISCRIMINATORS)


def reason(node: cst.Dict, parent: Parent) -> str:
    """Why this error-looking dict is not an error response (for the ``plan`` note)."""
    values = elements_by_key(node) or {}
    if "jsonrpc" in values:
        return "JSON-RPC protocol error: its shape is fixed by JSON-RPC 2.0"
    if isinstance(values.get("status"), cst.IfExp):
        return "status probe: the status is computed, and there is no message"
    up = parent(node)
    if isinstance(up, cst.BinaryOperation) and isinstance(up.operator, cst.Modulo):
        return "%-format mapping: an argument of string formatting, not a response"
    if isinstance(up, cst.Arg):
        from_argument = _argument_reason(up, parent)
        if from_argument is not None:
            return from_argument
    if values and all(isinstance(v, cst.Integer) for v in values.values()):
        return "counters: every value is a number"
    names = [v for v in values.values() if isinstance(v, cst.Name)]
    flags = [v for v in names if is_name(v, "False", "True", "None")]
    if len(values) > 1 and len(names) == len(values) and not flags:
        return "name-keyed table: every value is a name (a routing or dispatch table)"
    beside = sorted(SEVERITY_KEYS & set(values))
    if "error" in values and beside:
        return f'counters or a level table: "error" sits beside {", ".join(beside)}'
    if any(isinstance(v, cst.Dict) for k, v in values.items() if k == "error"):
        return "the error is already a structured object"
    if response_flow(node, parent) is not None:
        message = next((values[k] for k in MESSAGE_KEYS if k in values), None)
        shown = f" `{expression_code(message)}`" if message is not None else ""
        return (
            f"returned, but UNS501 cannot tell that its error value{shown} is a message "
            "text (review by hand)"
        )
    read = [v for v in values.values() if isinstance(v, (cst.Name, cst.Attribute))]
    if len(values) > 1 and len(read) == len(values) and not flags:
        return (
            "name-keyed table: every value is a name or an attribute (a routing or dispatch table)"
        )
    return "never reaches a return of the enclosing function, so it is not the response"


def _argument_reason(arg: cst.Arg, parent: Parent) -> str | None:
    keyword = arg.keyword.value if arg.keyword is not None else None
    if keyword in _LABEL_KEYWORDS:
        return f"metric labels ({keyword}=), not a response"
    if keyword == "extra":
        return "log extra= fields: they become LogRecord attributes"
    if keyword in _DETAIL_KEYWORDS:
        return f"passed as {keyword}= to a helper; it is stored, not returned"
    call = parent(arg)
    if not isinstance(call, cst.Call):
        return None
    name = call_name(call)
    if name in _COLLECTORS:
        return f"per-item result collected with .{name}(); the item is not the response"
    if name == "dumps":
        return "serialised with json.dumps but never returned"
    return None


def _already_migrated(values: dict[str, cst.BaseExpression]) -> bool:
    """``{"success": False, "error": <call or name>}``: the spec's envelope already (or one
    built key by key, ``"error": None`` filled in later). An error read out of something
    else (``pf["_error"]``, ``exc.message``) or computed (``a if c else b`` of such reads)
    may well be a string: that dict is worth a note, and it holds the function's other
    error dicts with it."""
    flag = values.get("success")
    error = values.get("error")
    return (
        flag is not None
        and is_name(flag, "False")
        and len(values) == 2
        and error is not None
        and _structured_already(error)
    )


def _structured_already(value: cst.BaseExpression) -> bool:
    """An error value that may be the structured object: a call (``err.to_dict()``), a
    name, a dict literal, or a choice between those. Anything else (``x if c else y`` of
    other values, an operation) is read as it is, so it may be text."""
    if isinstance(value, cst.IfExp):
        return _structured_already(value.body) and _structured_already(value.orelse)
    return isinstance(value, (cst.Call, cst.Name, cst.Dict))


def _mentions_error(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.IfExp):
        return is_error_string(node.body) or is_error_string(node.orelse)
    return False


_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")


def code_valued(node: cst.Dict, shape: Shape) -> str | None:
    """Why an ``{"error": "invalid_grant", ...}`` is no message to migrate, or None.

    An error value that is an identifier (``snake_case`` or ``UPPER_CASE`` words joined by
    underscores, no spaces) is a machine-readable code, as OAuth 2.0 and the protocols
    built on it write their error responses (``{"error": "invalid_token",
    "error_description": ...}``): clients compare it as a code, and the shape is the
    protocol's. Made the message of an envelope, it would read as a sentence it is not.
    """
    values = elements_by_key(node) or {}
    value = values.get(shape.message_key)
    if shape.message_key != "error" or not isinstance(value, cst.SimpleString):
        return None
    text = value.evaluated_value
    if not isinstance(text, str) or not _IDENTIFIER.fullmatch(text):
        return None
    return (
        f"its error value {text!r} is a machine-readable code, not a message (as in OAuth "
        "2.0 error responses, whose shape the protocol fixes); review by hand"
    )


def text_details(node: cst.Dict, shape: Shape) -> str | None:
    """Why ``{"error": "...", "details": str(e)}`` is no dict to migrate as it is, or None.

    The envelope's ``error.details`` is a mapping: a detail container holding a mapping is
    spread into it, but one holding text (``str(e)``, an f-string) cannot be, and its
    readers (``"x" in result["details"]``) search the text where a rewrite would hand them
    a dict.
    """
    values = elements_by_key(node) or {}
    for key in shape.extra_keys:
        value = values[key]
        if key in DETAIL_CONTAINERS and is_stringish(value) and not isinstance(value, cst.Name):
            return (
                f"its {key!r} value `{expression_code(value)}` is a text, where the "
                "envelope's details are a mapping; review by hand"
            )
    return None


def unclear_bare(
    node: cst.Dict,
    shape: Shape,
    status: int | None,
    in_handler: bool,
    holds_text: Callable[[str], bool],
) -> str | None:
    """Why a returned ``{"error": E, ...}`` (no failed flag) is not clearly a response.

    Without ``success: False`` or ``status: "error"``, the dict is an error response only
    on evidence: an HTTP status >= 400 says so outright. Otherwise a dict whose other keys
    carry collections is a data response with an error column, and an error value that is
    a variable may well be None (a table row) unless an ``except`` clause produced it or
    the variable is a local that only ever holds text (``holds_text``: ``error_msg =
    f"..."``). None means the evidence is clear.
    """
    if shape.kind is not ShapeKind.BARE or status is not None and status >= 400:
        return None
    values = elements_by_key(node) or {}
    data = [
        key
        for key in shape.extra_keys
        if key not in DETAIL_CONTAINERS and isinstance(values[key], COLLECTIONS)
    ]
    if data:
        return (
            f"data response with an error column: {', '.join(data)} carry data, "
            "so the error is one field of it (review by hand)"
        )
    value = values[shape.message_key]
    if isinstance(value, cst.Name) and holds_text(value.value):
        return None
    if not in_handler and isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
        return (
            "row with an error column: its error value is a variable that may be None, "
            "with no HTTP status and no except clause to say it failed (review by hand)"
        )
    return None
