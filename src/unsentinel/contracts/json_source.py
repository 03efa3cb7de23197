"""JSON schema files: where each value is, and a rewrite that touches nothing else.

``json`` gives no positions, so a small scanner walks the (already valid) text once and
records, for every JSON pointer, where its value starts and ends and where its key is.
An update splices the new value over the old one's span, rendered in the file's own style
(indent unit, the line's indentation, ASCII escaping, line endings): key order, the rest
of the file and its trailing newline stay byte for byte.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_INDENT = re.compile(r"\n([ \t]+)\S")
# A member whose array value starts on the key's line: "required": ["ok", "warnings"]
_INLINE_ARRAY = re.compile(r':[ \t]*\[[ \t]*[-"0-9tfn]')
_DECODER = json.JSONDecoder()

Pointer = tuple[str, ...]


@dataclass(frozen=True)
class Span:
    start: int  # where the value starts
    end: int  # just past it
    key: int  # where its key (or the value, for array items and the root) starts


def spans(text: str) -> dict[Pointer, Span]:
    """Every value's span in ``text``, a valid JSON document, keyed by its pointer."""
    found: dict[Pointer, Span] = {}
    _value(text, _skip(text, 0), (), None, found)
    return found


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _value(
    text: str, index: int, pointer: Pointer, key: int | None, found: dict[Pointer, Span]
) -> int:
    """Scan the value at ``index``; record it and its children; return where it ends."""
    char = text[index]
    if char == "{":
        end = _object(text, index, pointer, found)
    elif char == "[":
        end = _array(text, index, pointer, found)
    else:
        _scalar, end = _DECODER.raw_decode(text, index)
    found[pointer] = Span(index, end, index if key is None else key)
    return end


def _object(text: str, index: int, pointer: Pointer, found: dict[Pointer, Span]) -> int:
    index = _skip(text, index + 1)
    if text[index] == "}":
        return index + 1
    while True:
        key_start = index
        name, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index) + 1  # past the colon
        index = _value(text, _skip(text, index), (*pointer, name), key_start, found)
        index = _skip(text, index)
        if text[index] == "}":
            return index + 1
        index = _skip(text, index + 1)  # past the comma


def _array(text: str, index: int, pointer: Pointer, found: dict[Pointer, Span]) -> int:
    index = _skip(text, index + 1)
    if text[index] == "]":
        return index + 1
    position = 0
    while True:
        index = _value(text, index, (*pointer, str(position)), None, found)
        position += 1
        index = _skip(text, index)
        if text[index] == "]":
            return index + 1
        index = _skip(text, index + 1)


@dataclass(frozen=True)
class Style:
    """How the file writes JSON, so that new text reads as if its author wrote it."""

    indent: str | None  # one level of indentation; None: the file is on one line
    ascii_only: bool  # non-ASCII written as \\u escapes
    newline: str  # "\n" or "\r\n"
    inline_arrays: bool  # arrays of scalars kept on one line: ["ok", "warnings"]

    @classmethod
    def of(cls, text: str) -> Style:
        found = _INDENT.search(text.replace("\r\n", "\n"))
        return cls(
            indent=found.group(1) if found else None,
            ascii_only="\\u" in text or text.isascii(),
            newline="\r\n" if "\r\n" in text else "\n",
            inline_arrays=_INLINE_ARRAY.search(text) is not None,
        )


def replace_values(text: str, replacements: dict[Pointer, Any]) -> str:
    """``text`` with the value at each pointer replaced, everything else unchanged."""
    located = spans(text)
    style = Style.of(text)
    for pointer in sorted(replacements, key=lambda p: located[p].start, reverse=True):
        span = located[pointer]
        line_start = text.rfind("\n", 0, span.start) + 1
        margin = text[line_start : _skip_blanks(text, line_start)]
        rendered = _render(replacements[pointer], style, margin)
        text = text[: span.start] + rendered + text[span.end :]
    return text


def _skip_blanks(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index


def _render(value: Any, style: Style, margin: str) -> str:
    """``value`` as JSON starting at a line indented by ``margin``, in ``style``."""
    flat = json.dumps(value, ensure_ascii=style.ascii_only)
    if style.indent is None or not value or not isinstance(value, (dict, list)):
        return flat
    scalars = isinstance(value, list) and not any(isinstance(i, (dict, list)) for i in value)
    if scalars and style.inline_arrays:
        return flat
    inner = margin + style.indent
    if isinstance(value, dict):
        entries = [
            f"{inner}{json.dumps(key, ensure_ascii=style.ascii_only)}: "
            + _render(item, style, inner)
            for key, item in value.items()
        ]
        opening, closing = "{", "}"
    else:
        entries = [inner + _render(item, style, inner) for item in value]
        opening, closing = "[", "]"
    separator = "," + style.newline
    return opening + style.newline + separator.join(entries) + style.newline + margin + closing


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
