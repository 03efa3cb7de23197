"""Writing results back: atomically, keeping mode bits, and never over uncommitted work."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never a mix.

    The temp file lives in the same directory (``os.replace`` is atomic only within one
    file system) and takes the original's permission bits (a new file: the umask's) before
    it is moved into place. A symbolic link is written through: its target changes, the
    link stays a link.
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
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _new_file_mode() -> int:
    """What ``open()`` would give a new file: 0o666 minus the umask (mkstemp gives 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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
