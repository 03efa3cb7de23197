"""Reading source bytes the way Python does: BOM, PEP 263 coding cookie, NUL checks.

The decoded text is only for diffs and messages; LibCST parses the raw bytes and
re-encodes with the same encoding, so untouched bytes stay untouched.
"""

from __future__ import annotations

import ast
import io
import tokenize

GENERATED_MARKER = b"@" + b"generated"  # split so this file is not itself "generated"
GENERATED_SCAN_BYTES = 4096


class SourceError(Exception):
    """A file that cannot be treated as Python source; the message says why."""


def decode_source(data: bytes) -> tuple[str, str]:
    """Return ``(text, encoding)``; raise :class:`SourceError` with a readable reason."""
    if b"\x00" in data:
        raise SourceError("contains NUL bytes (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not exc.msg.startswith("invalid or missing encoding declaration"):
            raise SourceError(f"bad coding declaration: {exc.msg}") from exc
        # No cookie and the first lines are not UTF-8: say where decoding fails.
        encoding = "utf-8"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        raise SourceError(
            f"cannot decode as {encoding}: invalid byte 0x{byte:02x} on line {line}"
        ) from exc
    except LookupError as exc:
        raise SourceError(f"unknown encoding {encoding!r}") from exc


def is_generated(data: bytes) -> bool:
    """True when the file says it is generated (LibCST's and Phabricator's convention)."""
    return GENERATED_MARKER in data[:GENERATED_SCAN_BYTES]


def constant_names(text: str | None) -> set[str]:
    """Names assigned at the top level of a module's source (empty if it does not parse)."""
    if text is None:
        return set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
