"""The journal of the last ``apply``: what each file was before, so ``undo`` restores it exactly.

``apply`` records every file it is about to write -- its original bytes (or that it did
not exist) and a hash of the new bytes -- *before* the first write, under
``<root>/.unsentinel_journal/journal.json`` (a folder git ignores through its own ``.gitignore``).
A write that fails part-way rolls the files already written back from it, so a run is
applied whole or not at all; ``unsentinel undo`` uses the same record later. Undo refuses,
naming the file, when a file changed since the apply: it never overwrites later work.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from unsentinel.core.writer import write_atomic

JOURNAL_DIR = ".unsentinel_journal"
JOURNAL_NAME = "journal.json"
VERSION = 1


class UndoError(Exception):
    """The last apply cannot be undone as it stands; the message says why and where."""


@dataclass(frozen=True)
class Entry:
    """One file of an apply: where, what it held before (None: created), what it holds now."""

    path: str  # relative to the root, /-separated
    original: bytes | None
    new_sha256: str


def journal_path(root: Path) -> Path:
    return root / JOURNAL_DIR / JOURNAL_NAME


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record(root: Path, entries: list[Entry]) -> None:
    """Write the journal (atomically) before anything else is written."""
    folder = root / JOURNAL_DIR
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# unsentinel's own state; never committed\n*\n")
    document = {
        "version": VERSION,
        "files": [
            {
                "path": entry.path,
                "original": None
                if entry.original is None
                else base64.b64encode(entry.original).decode(),
                "new_sha256": entry.new_sha256,
            }
            for entry in entries
        ],
    }
    write_atomic(journal_path(root), json.dumps(document, indent=1).encode())


def load(root: Path) -> list[Entry]:
    path = journal_path(root)
    try:
        document = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise UndoError(f"nothing to undo: no journal at {path}") from None
    except (OSError, ValueError) as exc:
        raise UndoError(f"cannot read the journal {path}: {exc}") from exc
    if not isinstance(document, dict) or document.get("version") != VERSION:
        raise UndoError(f"{path} is not a journal this version of unsentinel can read")
    return [
        Entry(
            item["path"],
            None if item["original"] is None else base64.b64decode(item["original"]),
            item["new_sha256"],
        )
        for item in document["files"]
    ]


def restore(root: Path, entries: list[Entry]) -> list[str]:
    """Put every entry back as it was; the paths restored, in order."""
    restored = []
    for entry in entries:
        target = root / entry.path
        if entry.original is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
        else:
            write_atomic(target, entry.original)
        restored.append(entry.path)
    return restored


def changed_since(root: Path, entries: list[Entry]) -> list[str]:
    """Entries whose file no longer holds what the apply wrote."""
    changed = []
    for entry in entries:
        try:
            current = (root / entry.path).read_bytes()
        except FileNotFoundError:
            changed.append(f"{entry.path} (deleted since)")
            continue
        if sha256(current) != entry.new_sha256:
            changed.append(entry.path)
    return changed


def undo(root: Path) -> list[str]:
    """Restore the last apply exactly, or raise :class:`UndoError` and touch nothing."""
    entries = load(root)
    changed = changed_since(root, entries)
    if changed:
        raise UndoError(
            "refusing to undo: changed since the apply (undo would overwrite that work): "
            + ", ".join(changed)
        )
    restored = restore(root, entries)
    forget(root)
    return restored


def forget(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal_path(root))
