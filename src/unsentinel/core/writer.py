"""Writing results back: atomically, keeping mode bits, and never over uncommitted work.

Nothing is written over a file that changed after the run read it (:class:`StaleFileError`)
or outside the project root (:func:`outside_root`).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from unsentinel.core.source import SourceError, decode_source


class StaleFileError(Exception):
    """The file on disk is no longer what the run read; it was left as it is."""


def write_atomic(
    path: Path, data: bytes, *, unchanged: Callable[[bytes | None], bool] | None = None
) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never a mix.

    The temp file lives in the same directory (``os.replace`` is atomic only within one
    file system) and takes the original's permission bits (a new file: the umask's) before
    it is moved into place. A symbolic link is written through: its target changes, the
    link stays a link.

    ``unchanged`` is asked, with the file's current bytes (None: no file), at the last
    moment before the replace; when it says no, nothing is replaced and
    :class:`StaleFileError` is raised.
    """
    path = Path(os.path.realpath(path))
    mode = path.stat().st_mode & 0o7777 if path.exists() else _new_file_mode()
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".unsentinel", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        if unchanged is not None and not unchanged(_current_bytes(path)):
            raise StaleFileError("changed on disk while unsentinel ran; not written")
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _current_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def same_text(original: str | None) -> Callable[[bytes | None], bool]:
    """A check for :func:`write_atomic`: the file still decodes to ``original``.

    ``original`` is the text the run read (a BOM kept as U+FEFF), or None for a file that
    did not exist; the check then insists that it still does not.
    """

    def check(current: bytes | None) -> bool:
        if current is None or original is None:
            return current is None and original is None
        try:
            text, _encoding = decode_source(current)
        except SourceError:
            return False
        bom = "\ufeff" if current.startswith(codecs.BOM_UTF8) else ""
        return bom + text == original

    return check


def outside_root(path: Path, root: Path) -> bool:
    """True when ``path``, with every symbolic link followed, is not inside ``root``."""
    real = Path(os.path.realpath(path))
    return not real.is_relative_to(Path(os.path.realpath(root)))


def _new_file_mode() -> int:
    """What ``open()`` would give a new file: 0o666 minus the umask (mkstemp gives 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


VCS_MARKERS = (".git", ".hg", ".svn", ".jj", ".fossil", "_darcs", ".bzr")


def is_version_controlled(root: Path) -> bool:
    """Is ``root`` inside a work tree of a version-control system (git, Mercurial, ...)?"""
    for directory in (root.resolve(), *root.resolve().parents):
        if any((directory / marker).exists() for marker in VCS_MARKERS):
            return True
    return False


def dirty_files(root: Path, paths: Iterable[Path]) -> list[Path]:
    """Those of ``paths`` that git reports as modified, staged or untracked.

    Outside a git work tree (or without git) nothing counts as dirty, as with ``cargo fix
    --allow-no-vcs``: there is no committed state to protect.
    """
    wanted = {p.resolve() for p in paths}
    if not wanted:
        return []
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return []
    if top.returncode != 0:
        return []
    git_root = Path(top.stdout.strip()).resolve()
    status = subprocess.run(
        ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
        cwd=git_root,
        capture_output=True,
        check=False,
    )
    dirty = set()
    entries = status.stdout.split(b"\0")
    index = 0
    while index < len(entries):
        entry = entries[index].decode("utf-8", "surrogateescape")
        index += 1
        if len(entry) < 4:
            continue
        code, name = entry[:2], entry[3:]
        if code[0] in "RC":
            index += 1  # a rename's second field is the old name
        dirty.add((git_root / name).resolve())
    return sorted(p for p in wanted if p in dirty)
