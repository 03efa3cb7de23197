"""Which site a plan entry (or a baseline entry) means: its source text, hashed.

The fingerprint is a hash of the site's own source text and its enclosing function, so it
survives edits elsewhere in the file (lines moving) and breaks when the site itself, or the
function it sits in, changes: such an entry is refused rather than applied to other code.
The plan reader, the plan writer and the baseline all name sites this way, so it lives
apart from any of them.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from unsentinel.core.model import Position, Site
from unsentinel.core.source import SourceError, decode_source

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def site_source(text: str, position: Position) -> str:
    """The exact source text a position covers (columns are 1-based, end exclusive)."""
    lines = _lines(text)
    first, last = position.line - 1, position.end_line - 1
    if first == last:
        return lines[first][position.column - 1 : position.end_column - 1]
    middle = lines[first + 1 : last]
    return "\n".join(
        [lines[first][position.column - 1 :], *middle, lines[last][: position.end_column - 1]]
    )


@lru_cache(maxsize=8)
def _lines(text: str) -> list[str]:
    """``text`` split at its line breaks, once per text: a plan asks this for every site of
    a file, and splitting the whole file per site made a file of a thousand sites
    quadratic (4 s of CPU for the 10,029-line benchmark module). Never mutated."""
    return _LINE_BREAK.split(text)


def fingerprint(source: str, scope: str = "") -> str:
    """A short, stable hash of a site's source text and its enclosing scope."""
    digest = hashlib.sha256(f"{scope}\0{source}".encode()).hexdigest()
    return f"sha256:{digest[:16]}"


def site_fingerprint(text: str, site: Site) -> str:
    return fingerprint(site_source(text, site.position), site.scope)


def file_text(path: str | Path) -> str | None:
    """A file's text as the engine decodes it (BOM dropped), or None if it cannot be read."""
    try:
        text, _encoding = decode_source(Path(path).read_bytes())
    except (OSError, SourceError):
        return None
    return text.removeprefix("\ufeff")
