"""The check cache's gather outputs: one pack per round, every file's output in one file.

What a gather round reads from a file is a function of the file's key and of what the
round starts from (its *stamp*: the round's number, the facts it starts with and the
functions whose facts just changed). Kept as one JSON file per file and round, a warm check
after a one-file edit opened and decoded 13,885 of them on the standard library plus
site-packages (three rounds of 4,629 files): most of its two seconds. A pack holds one
round's outputs for every file, under a key of the settings and the stamp: a round opens
one file, and decodes only the lines of the files it looks up.

The layout is a line per entry, so that a pack is read and rewritten without decoding the
entries it does not need, and an entry without its facts (a file's facts are decoded only
where the run merges them)::

    {"format": 11, "key": "<the pack's key>"}
    <file key> TAB <display path, as JSON> TAB <the entry, as JSON> TAB <its facts, as JSON>

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
    # file key -> (display, entry, facts), each JSON
    lines: dict[str, tuple[bytes, bytes, bytes]] = field(default_factory=dict)
    added: dict[str, tuple[bytes, bytes, bytes]] = field(default_factory=dict)

    def entry(self, file_key: str) -> tuple[Any, bytes]:
        """The decoded entry of ``file_key`` and its facts, still encoded; None for the
        entry where the pack has none, or a broken one."""
        line = self.added.get(file_key) or self.lines.get(file_key)
        if line is None:
            return None, b""
        if line[1] == skipped(file_key):  # most lines of a later round's pack: no decoding
            return {"format": FORMAT, "key": file_key, "skipped": True}, line[2]
        try:
            return json.loads(line[1]), line[2]
        except (ValueError, RecursionError):
            return None, b""

    def add(self, file_key: str, display: str, entry: Mapping[str, Any], facts: bytes) -> None:
        self.added[file_key] = (json.dumps(display).encode(), json.dumps(entry).encode(), facts)

    def encoded(self, current: Mapping[bytes, str]) -> bytes:
        """The pack to write: its lines less those of a path ``current`` (display path, as a
        line spells it -> this run's key) knows under another key, and the lines this run
        added."""
        kept = {k: line for k, line in self.lines.items() if current.get(line[0], k) == k}
        kept.update(self.added)
        header = json.dumps({"format": FORMAT, "key": self.key}).encode()
        body = [_TAB.join((key.encode(), *line)) for key, line in kept.items()]
        return b"\n".join([header, *body]) + b"\n"


def skipped(file_key: str) -> bytes:
    """The entry of a file a round left as it was, as :func:`json.dumps` spells it for a
    key of hexadecimal digits (every key is a hash)."""
    return b'{"format": %d, "key": "%s", "skipped": true}' % (FORMAT, file_key.encode())


def decode_pack(key: str, data: bytes) -> Pack:
    """The pack ``data`` holds if its header names ``key``, else an empty one."""
    header, _, rest = data.partition(b"\n")
    try:
        head = json.loads(header)
    except (ValueError, RecursionError):
        return Pack(key)
    if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("key") != key:
        return Pack(key)
    lines: dict[str, tuple[bytes, bytes, bytes]] = {}
    for line in rest.split(b"\n"):
        parts = line.split(_TAB, 3)
        if len(parts) == 4:
            file_key, display, entry, facts = parts
            lines[file_key.decode("ascii", "replace")] = (display, entry, facts)
    return Pack(key, lines)
