"""``check --add-noqa``: a ``# noqa: CODE`` on each current finding, keeping every comment.

The comment goes at the end of the first line of the site that ends in code (not inside a
string or after a backslash continuation), which is where the suppression is looked for
(:meth:`~unsentinel.core.rule.RuleContext.apply_suppressions`). An existing ``# noqa:``
gains the new codes; another comment is kept and the directive follows it; a bare
``# noqa`` already covers everything.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from unsentinel.core.model import FileResult
from unsentinel.core.writer import write_atomic

_NOQA = re.compile(rb"#\s*noqa(?P<colon>:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_EOL = re.compile(rb"\r\n|\r|\n")


def add_noqa(results: Iterable[FileResult]) -> tuple[int, list[str]]:
    """Insert the directives; returns how many were added and the sites that had no place."""
    added = 0
    missed: list[str] = []
    for result in results:
        wanted: dict[int, set[str]] = defaultdict(set)
        findings = [s for s in result.sites if s.action.is_finding]
        if not findings:
            continue
        path = Path(result.path)
        data = path.read_bytes()
        open_lines = _code_line_ends(data)
        for site in findings:
            line = next(
                (
                    n
                    for n in range(site.position.line, site.position.end_line + 1)
                    if n in open_lines
                ),
                None,
            )
            if line is None:
                missed.append(f"{result.path}:{site.position.line}: {site.rule}")
            else:
                wanted[line].add(site.rule)
        new, count = _insert(data, wanted)
        if count:
            write_atomic(path, new)
            added += count
    return added, missed


def _code_line_ends(data: bytes) -> set[int]:
    """Lines whose end is in code: a comment may be appended there."""
    lines: set[int] = set()
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL):
                lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return lines


def _insert(data: bytes, wanted: dict[int, set[str]]) -> tuple[bytes, int]:
    lines = data.splitlines(keepends=True)
    count = 0
    for number, codes in wanted.items():
        if number > len(lines):
            continue
        line = lines[number - 1]
        ending = _EOL.search(line)
        body, end = (line[: ending.start()], line[ending.start() :]) if ending else (line, b"")
        new_body, added = _with_codes(body, sorted(codes))
        lines[number - 1] = new_body + end
        count += added
    return b"".join(lines), count


def _with_codes(body: bytes, codes: list[str]) -> tuple[bytes, int]:
    match = _NOQA.search(body)
    if match is not None and match.group("colon") is None:
        return body, 0  # a bare noqa covers every code
    if match is not None:
        present = re.split(rb"[\s,]+", match.group("codes").upper())
        missing = [c for c in codes if c.encode() not in present]
        if not missing:
            return body, 0
        extra = b"".join(b", " + c.encode() for c in missing)
        return body[: match.end("codes")] + extra + body[match.end("codes") :], len(missing)
    directive = b"# noqa: " + ", ".join(codes).encode()
    return body.rstrip() + b"  " + directive, len(codes)
