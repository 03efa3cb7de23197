"""The check cache's gather outputs: one pack per round, every file's output in one file.

What a gather round reads from a file is a function of the file's key and of what the
round starts from (its *stamp*: the round's number, the facts it starts with and the
functions whose facts just changed). Kept as one JSON file per file and round, a warm check
after a one-file edit opened and decoded 13,885 of them on the standard library plus
site-packages (three rounds of 4,629 files): most of its two seconds. A pack holds one
round's outputs for every file, under a key of the settings and the stamp: a round opens
one file, and decodes only the lines of the files it looks up.

The layout is a line per entry, so that a pack is read and rewritten without decoding the
entries it does not need::

    {"format": 9, "key": "<the pack's key>"}
    <file key> TAB <display path, as JSON> TAB <the entry, as JSON>

A header that does not match makes the whole pack a miss; a line that does not read (cut
short, edited) is a miss for its file alone. A run that computed outputs rewrites the pack:
the lines it read, less those of a file this run knows under another key (the bytes it had
before an edit: one version per path, so a pack grows with the tree, not with its history),
with the new lines. The file is written whole to a temporary name and renamed into place,
so a run at the same time reads either pack, never half of one; the worst a race can do is
drop the other run's new lines, which are then missed and written again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unsentinel.core.cache_codec import FORMAT

SUFFIX = ".pack"
_TAB = b"\t"


@dataclass
class Pack:
    """One round's entries, as read (raw lines) and as added by this run."""

    key: str
    lines: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # key -> (display, entry)
    added: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)

    def entry(self, file_key: str) -> Any:
        """The decoded entry of ``file_key``; None where the pack has none, or a broken one."""
        line = self.added.get(file_key) or self.lines.get(file_key)
        if line is None:
            return None
        try:
            return json.loads(line[1])
        except (ValueError, RecursionError):
            return None

    def add(self, file_key: str, display: str, entry: Mapping[str, Any]) -> None:
        self.added[file_key] = (json.dumps(display).encode(), json.dumps(entry).encode())

    def encoded(self, current: Mapping[str, str]) -> bytes:
        """The pack to write: its lines less those of a path ``current`` (display -> this
        run's key) knows under another key, and the lines this run added."""
        kept = {key: line for key, line in self.lines.items() if _current(key, line, current)}
        kept.update(self.added)
        header = json.dumps({"format": FORMAT, "key": self.key}).encode()
        body = [_TAB.join((key.encode(), *line)) for key, line in kept.items()]
        return b"\n".join([header, *body]) + b"\n"


def decode_pack(key: str, data: bytes) -> Pack:
    """The pack ``data`` holds if its header names ``key``, else an empty one."""
    header, _, rest = data.partition(b"\n")
    try:
        head = json.loads(header)
    except (ValueError, RecursionError):
        return Pack(key)
    if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("key") != key:
        return Pack(key)
    lines: dict[str, tuple[bytes, bytes]] = {}
    for line in rest.split(b"\n"):
        parts = line.split(_TAB, 2)
        if len(parts) == 3:
            file_key, display, entry = parts
            lines[file_key.decode("ascii", "replace")] = (display, entry)
    return Pack(key, lines)


def _current(key: str, line: tuple[bytes, bytes], current: Mapping[str, str]) -> bool:
    """Is the line worth keeping: its path readable, and not known under another key?"""
    try:
        display = json.loads(line[0])
    except (ValueError, RecursionError):
        return False
    return isinstance(display, str) and current.get(display, key) == key
