"""What an ad-hoc error dict looks like, and where its value goes (helpers of UNS501).

Reading only: nothing here schedules edits. :func:`classify` says whether a dict literal
has an error shape; :func:`response_flow` whether that dict reaches a ``return`` of the
enclosing function (directly, through ``jsonify`` / ``JSONResponse`` / ``Response`` /
``json.dumps``, or through a local variable) and with which HTTP status.
"""

from __future__ import annotations

import enum
import http
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import libcst as cst

from unsentinel.core.syntax import is_name, string_value
from unsentinel.errors.key_places import DISCRIMINATORS, MESSAGE_KEYS

if TYPE_CHECKING:
    pass

T = TypeVar("T", bound=cst.CSTNode)

# Keys that sit beside "error" in a tally or a level table, never in an error response.
SEVERITY_KEYS = frozenset({"warning", "warnings", "info", "debug", "critical", "fatal", "notice"})
# Values that are data, not error details: a response carrying rows with an error column.
COLLECTIONS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)

# Calls that carry a response body, and the keyword naming the body / status.
RESPONSE_CALLS = frozenset(
    {
        "jsonify",
        "make_response",
        "JSONResponse",
        "ORJSONResponse",
        "UJSONResponse",
        "Response",
        "HttpResponse",
        "JsonResponse",
        "dumps",
    }
)
BODY_KEYWORDS = frozenset({"content", "body", "response", "data", "obj"})
STATUS_KEYWORDS = frozenset({"status", "status_code", "code"})
TRANSLATORS = frozenset({"_", "gettext", "gettext_lazy", "ugettext", "lazy_gettext", "_l"})

_STATUS_CONSTANT = re.compile(r"HTTP_(\d{3})_")


class ShapeKind(enum.Enum):
    ENVELOPE = "envelope"  # success/ok/succeed False, or status "error": an error on its own
    BARE = "bare"  # {"error": E, ...}: an error when it is the response
    MESSAGE_ONLY = "message-only"  # {"message"|"detail": E}: an error only with a 4xx/5xx
    WRAPPED = "wrapped"  # success True *and* an error message: review, never move


@dataclass(frozen=True)
class Shape:
    kind: ShapeKind
    message_key: str
    discriminator: str | None  # the key that said "failed", if any
    keys: tuple[str, ...]  # every key, in source order

    @property
    def extra_keys(self) -> tuple[str, ...]:
        skip = {self.message_key, self.discriminator}
        return tuple(k for k in self.keys if k not in skip)


@dataclass(frozen=True)
class Flow:
    """How a dict reaches the function's return value."""

    status: int | None
    via: tuple[str, ...] = field(default_factory=tuple)  # e.g. ("jsonify",), ("json.dumps",)


def key_of(element: cst.BaseDictElement) -> str | None:
    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
        value = string_value(element.key)
        return value if isinstance(value, str) else None
    return None


def elements_by_key(node: cst.Dict) -> dict[str, cst.BaseExpression] | None:
    """``{key: value}`` for a dict whose keys are all string literals, else None."""
    result: dict[str, cst.BaseExpression] = {}
    for element in node.elements:
        key = key_of(element)
        if key is None or key in result:
            return None
        assert isinstance(element, cst.DictElement)
        result[key] = element.value
    return result


def is_false(node: cst.BaseExpression) -> bool:
    return is_name(node, "False")


def is_error_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString) and string_value(node) == "error"


def is_stringish(node: cst.BaseExpression) -> bool:
    """Could this be a human message? Literals, f-strings, ``str(e)``, ``_()``, ``%``, names."""
    if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.SimpleString):
        return isinstance(string_value(node), str)
    if isinstance(node, cst.Call):
        return is_name(node.func, "str", "repr") or call_name(node) in TRANSLATORS
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Modulo, cst.Add)) and is_stringish(node.left)
    if isinstance(node, cst.IfExp):  # ``str(exc.args[0]) if exc.args else str(exc)``
        return _texty(node.body) and _texty(node.orelse)
    return isinstance(node, cst.Name) and node.value not in ("None", "True", "False")


def _texty(node: cst.BaseExpression) -> bool:
    """Stringish, and not a bare name: in a choice of two values, a name alone may as well
    be an error object (``err if err else None``)."""
    return is_stringish(node) and not isinstance(node, cst.Name)


def classify(node: cst.Dict) -> Shape | None:
    """The error shape of a dict literal, or None when it is not one."""
    values = elements_by_key(node)
    if not values or "jsonrpc" in values:
        return None
    keys = tuple(values)
    message_key = next((k for k in MESSAGE_KEYS if k in values and is_stringish(values[k])), None)
    if message_key is None:
        return None
    discriminator = next((k for k in DISCRIMINATORS if k in values), None)
    if discriminator is not None:
        flag = values[discriminator]
        if is_name(flag, "True"):
            # success True with a "message" is an ordinary success response; only an
            # "error" key inside it is worth a report.
            if message_key != "error":
                return None
            return Shape(ShapeKind.WRAPPED, message_key, discriminator, keys)
        if is_false(flag):
            return Shape(ShapeKind.ENVELOPE, message_key, discriminator, keys)
        return None
    if "status" in values and is_error_string(values["status"]):
        return Shape(ShapeKind.ENVELOPE, message_key, "status", keys)
    if "status" in values:
        return None
    if message_key == "error":
        if SEVERITY_KEYS & set(keys):
            return None  # {"error": n_errors, "warning": n_warnings}: a tally or level table
        return Shape(ShapeKind.BARE, message_key, None, keys)
    return Shape(ShapeKind.MESSAGE_ONLY, message_key, None, keys)


def is_json_loads(node: cst.BaseExpression) -> bool:
    """``json.loads(...)``: a response's text parsed back into its dict."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False  # isinstance, not a matcher: asked of most calls the readers meet
    module = node.func.value
    return (
        isinstance(module, cst.Name) and module.value == "json" and node.func.attr.value == "loads"
    )


def call_name(node: cst.Call) -> str | None:
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def status_value(node: cst.BaseExpression) -> int | None:
    """An HTTP status written as ``404``, ``HTTPStatus.NOT_FOUND`` or ``status.HTTP_404_...``."""
    if isinstance(node, cst.Integer):
        value = int(node.evaluated_value)  # 0o600, 0x194, 4_04 too
        return value if 100 <= value <= 599 else None
    if isinstance(node, cst.Attribute):
        name = node.attr.value
        match = _STATUS_CONSTANT.match(name)
        if match:
            return int(match.group(1))
        if name in http.HTTPStatus.__members__:
            return int(http.HTTPStatus[name])
    return None


Parent = Callable[[cst.CSTNode], "cst.CSTNode | None"]


def response_flow(node: cst.BaseExpression, parent: Parent) -> Flow | None:
    """Follow ``node`` outwards to a ``return``; None when it goes anywhere else."""
    current: cst.CSTNode = node
    status: int | None = None
    via: list[str] = []
    while True:
        up = parent(current)
        if isinstance(up, cst.Arg):
            call = parent(up)
            if not isinstance(call, cst.Call) or not _is_body_arg(call, up):
                return None
            name = call_name(call)
            via.append("json.dumps" if name == "dumps" else str(name))
            status = _status_of_call(call) or status
            current = call
            continue
        if isinstance(up, cst.Element):
            tuple_node = parent(up)
            if not isinstance(tuple_node, cst.Tuple) or tuple_node.elements[0] is not up:
                return None
            return _through_tuple(tuple_node, parent, status, via)
        if isinstance(up, cst.Return):
            return Flow(status, tuple(via))
        if isinstance(up, (cst.Assign, cst.AnnAssign)):
            return _through_variable(up, parent, status, via)
        return None


def _is_body_arg(call: cst.Call, arg: cst.Arg) -> bool:
    if call_name(call) not in RESPONSE_CALLS:
        return False
    if arg.keyword is not None:
        return arg.keyword.value in BODY_KEYWORDS
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return bool(positional) and positional[0] is arg


def _status_of_call(call: cst.Call) -> int | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in STATUS_KEYWORDS:
            return status_value(arg.value)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) >= 2 and call_name(call) != "dumps":
        return status_value(positional[1].value)
    return None


def _through_tuple(
    tuple_node: cst.Tuple, parent: Parent, status: int | None, via: list[str]
) -> Flow | None:
    if not isinstance(parent(tuple_node), cst.Return):
        return None
    if len(tuple_node.elements) >= 2:
        status = status_value(tuple_node.elements[1].value) or status
    return Flow(status, tuple(via))


def _through_variable(
    assign: cst.Assign | cst.AnnAssign, parent: Parent, status: int | None, via: list[str]
) -> Flow | None:
    """``body = json.dumps(d)`` (or ``result: dict = {...}``) ... ``return body, 401`` in
    the same block."""
    targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else []
    target = assign.target if isinstance(assign, cst.AnnAssign) else None
    if isinstance(assign, cst.Assign) and len(targets) == 1:
        target = targets[0]
    if not isinstance(target, cst.Name):
        return None
    name = target.value
    line = parent(assign)
    block = parent(line) if line is not None else None
    if not isinstance(line, cst.SimpleStatementLine) or not isinstance(
        block, (cst.IndentedBlock, cst.Module)
    ):
        return None
    body = list(block.body)
    for statement in body[body.index(line) + 1 :]:
        returned = _returned_value(statement)
        if returned is None:
            continue
        if is_name(returned, name):
            return Flow(status, tuple(via))
        if isinstance(returned, cst.Tuple) and is_name(returned.elements[0].value, name):
            second = returned.elements[1].value if len(returned.elements) > 1 else None
            return Flow((status_value(second) if second else None) or status, tuple(via))
        return None
    return None


def _returned_value(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Return) and small.value is not None:
                return small.value
    return None


def handler_of(node: cst.CSTNode, parent: Parent) -> tuple[cst.ExceptHandler, cst.Try] | None:
    """The ``except`` clause whose body holds ``node`` (within the same function)."""
    current: cst.CSTNode | None = node
    while current is not None:
        up = parent(current)
        if isinstance(up, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) or up is None:
            return None
        if isinstance(up, cst.ExceptHandler) and current is up.body:
            try_node = parent(up)
            return (up, try_node) if isinstance(try_node, cst.Try) else None
        current = up
    return None


def exception_names(handler: cst.ExceptHandler) -> tuple[str, ...]:
    if handler.type is None:
        return ("BaseException",)
    items = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = []
    for item in items:
        value = item.value if isinstance(item, cst.BaseElement) else item
        dotted = _dotted(value)
        if dotted:
            names.append(dotted)
    return tuple(names)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def enclosing_function(node: cst.CSTNode, parent: Parent) -> cst.FunctionDef | None:
    current = parent(node)
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = parent(current)
    return current
