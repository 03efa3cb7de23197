"""The error-dict rule as the prefilter sees it (UNS501), without LibCST.

The rule class (:class:`~unsentinel.errors.rules.error_dict.ErrorDict`) points at
:data:`ERROR_DICT`; only a file that passes these words and the second look on Python's
``ast`` (:func:`~unsentinel.errors.candidates.may_hold_error_dicts`) imports it.
"""

from __future__ import annotations

import ast

from unsentinel.core.config import Config
from unsentinel.core.prefilter import Detector
from unsentinel.errors.candidates import may_hold_error_dicts


def _needles(config: Config) -> tuple[bytes, ...]:
    """Keys, falsy flags, message reads and framework responses of an error dict, and the
    keys a generic error check tests."""
    keys = [b'"error":', b"'error':", b'"error"]', b"'error']"]
    for flag in (b"success", b"ok", b"succeed"):
        keys += [b'"' + flag + b'": False', b"'" + flag + b"': False"]
    keys += [b'["message"]', b"['message']", b'["detail"]', b"['detail']"]
    keys += [b"jsonify(", b"JSONResponse(", b'"status": "error"', b"'status': 'error'"]
    keys += [b"_tool("]  # call_tool(...) and friends: a test reading a tool's failure
    # a generic error check: ``x.get("status") == "error"``, ``"error" in x``,
    # ``x["error_type"]``, ``x.get("ok")`` (errors/generic_checks.py)
    for quote in (b'"', b"'"):
        keys += [quote + b"error"]  # ``"error"``, ``"error_type"``, ``"errorCode"``
        for flag in (b"success", b"ok", b"succeed"):
            key = quote + flag + quote
            keys += [b"get(" + key, key + b"]", key + b" in", key + b" not in"]
    return tuple(keys)


def _refine(data: bytes, tree: ast.Module, config: Config) -> bool:
    return may_hold_error_dicts(tree)


ERROR_DICT = Detector(
    "UNS501", "error-dict", "unsentinel.errors.rules.error_dict:ErrorDict", _needles, None, _refine
)

DETECTORS: tuple[Detector, ...] = (ERROR_DICT,)
