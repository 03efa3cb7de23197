"""File discovery: which files a run looks at, as ruff would choose them.

Directories are walked for ``*.py`` / ``*.pyi``; ``.gitignore`` files (at every level) and
``.git/info/exclude`` are honoured through ``pathspec``; default and configured excludes
prune whole directories; symlinks that leave the project root are not followed.
Files named explicitly on the command line (or by ``--files-from``) are always taken.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from unsentinel.core.config import Config
from unsentinel.core.model import FileTask

PYTHON_SUFFIXES = (".py", ".pyi")

_Specs = list[tuple[Path, pathspec.GitIgnoreSpec]]  # (directory, its ignore rules)


@dataclass(frozen=True)
class Discovery:
    tasks: tuple[FileTask, ...]
    errors: tuple[tuple[str, str], ...] = ()  # (path, reason) for arguments that don't work
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) left out on purpose


@dataclass
class _Walk:
    root: Path
    excludes: pathspec.GitIgnoreSpec
    tasks: dict[Path, FileTask] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    suffixes: tuple[str, ...] = PYTHON_SUFFIXES
    by_name: dict[str, bool] = field(default_factory=dict)  # the excludes, by entry name

    def excluded_name(self, name: str) -> bool:
        """Do the excludes match an entry's bare name? (names repeat: ``__init__.py``)"""
        found = self.by_name.get(name)
        if found is None:
            found = self.by_name[name] = self.excludes.match_file(name)
        return found


def discover(
    paths: Iterable[Path],
    config: Config,
    files_from: Iterable[str] = (),
    *,
    suffixes: tuple[str, ...] = PYTHON_SUFFIXES,
) -> Discovery:
    """``suffixes``: what a directory walk takes (schema files are found the same way)."""
    root = config.root.resolve()
    walk = _Walk(root, pathspec.GitIgnoreSpec.from_lines(_exclude_patterns(config)))
    walk.suffixes = suffixes
    for raw in [*paths, *(Path(line) for line in files_from if line.strip())]:
        _take_argument(walk, Path(raw))
    tasks = sorted(walk.tasks.values(), key=lambda t: t.display)
    return Discovery(tuple(tasks), tuple(walk.errors), tuple(walk.skipped))


def read_files_from(source: str) -> list[str]:
    """Lines of a ``--files-from`` file, or of standard input for ``-``."""
    import sys

    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _exclude_patterns(config: Config) -> list[str]:
    return [*config.exclude, *config.extend_exclude]


def _take_argument(walk: _Walk, path: Path) -> None:
    if path.is_symlink() and not path.exists():
        walk.errors.append((display_path(path), "broken symbolic link"))
    elif not path.exists():
        walk.errors.append((display_path(path), "no such file or directory"))
    elif path.is_dir():
        for file, found in _walk_directory(walk, path.resolve()):
            if found is None:
                _add(walk, file)
            elif file not in walk.tasks:  # a real path already: nothing to resolve
                walk.tasks[file] = FileTask(file, found.display, found.module)
    else:
        _add(walk, path)


def _walk_directory(walk: _Walk, directory: Path) -> Iterator[tuple[Path, _Found | None]]:
    specs = _ignore_specs_above(walk.root, directory)
    if any(_matches(spec, base, directory, is_dir=True) for base, spec in specs):
        specs = []  # the user named an ignored directory explicitly: take it
    yield from _walk(walk, _Place.of(walk, directory, specs))


@dataclass(frozen=True)
class _Place:
    """A walked directory, spelled once for all its entries: relative to the root, to each
    ignore file's folder, and as the user sees it. Thousands of files share a few hundred
    directories, and ``pathlib`` spelling each file's path afresh was most of a warm
    check's discovery (resolving, ``relpath``, ``relative_to`` per file)."""

    path: Path  # real: the walk starts at a resolved directory and follows no symlink
    specs: _Specs
    relative: str | None  # to the root
    inner: tuple[str | None, ...]  # to each spec's folder, in the order of ``specs``
    shown: str  # :func:`display_path`

    @classmethod
    def of(cls, walk: _Walk, directory: Path, specs: _Specs) -> _Place:
        local = _gitignore(directory)
        if local is not None:
            specs = [*specs, (directory, local)]
        inner = tuple(_relative(directory, base) for base, _spec in specs)
        return cls(
            directory, specs, _relative(directory, walk.root), inner, display_path(directory)
        )

    def child(self, walk: _Walk, name: str) -> _Place:
        """The subdirectory ``name``: a spelling under a folder the parent is under is the
        parent's plus the name; the others (a root or ignore file below where the walk
        started) and the displayed path (the current directory may be below) are computed."""
        specs = self.specs
        directory = self.path / name
        local = _gitignore(directory)
        inner = tuple(
            _child(folder, name) if folder is not None else _relative(directory, base)
            for (base, _spec), folder in zip(specs, self.inner, strict=True)
        )
        if local is not None:
            specs, inner = [*specs, (directory, local)], (*inner, ".")
        relative = self.relative
        relative = (
            _child(relative, name) if relative is not None else _relative(directory, walk.root)
        )
        return _Place(directory, specs, relative, inner, display_path(directory))

    def excludes(self, walk: _Walk, name: str, is_dir: bool) -> bool:
        """Is the entry ``name`` excluded: by name, by its path from the root, or by an
        ignore file on the way?"""
        suffix = "/" if is_dir else ""
        if walk.excluded_name(name + suffix):
            return True
        relative = _child(self.relative, name)
        if relative is not None and walk.excludes.match_file(relative + suffix):
            return True
        return any(
            inner is not None and spec.match_file(f"{inner}{suffix}")
            for (_base, spec), inner in zip(
                self.specs, (_child(folder, name) for folder in self.inner), strict=True
            )
        )


@dataclass(frozen=True)
class _Found:
    """A regular file met by the walk, spelled from its directory's :class:`_Place`."""

    display: str
    module: str


def _walk(walk: _Walk, place: _Place) -> Iterator[tuple[Path, _Found | None]]:
    try:
        entries = sorted(os.scandir(place.path), key=lambda e: e.name)
    except OSError as exc:
        walk.errors.append((place.shown, f"cannot list directory: {exc.strerror}"))
        return
    for entry in entries:
        name = entry.name
        is_dir = entry.is_dir(follow_symlinks=False)
        if place.excludes(walk, name, is_dir):
            continue
        if entry.is_symlink():
            yield from ((path, None) for path in _symlink(walk, Path(entry.path)))
        elif is_dir:
            yield from _walk(walk, place.child(walk, name))
        elif name.endswith(walk.suffixes):
            module = _dotted(_child(place.relative, name))
            yield Path(entry.path), _Found(_child(place.shown, name) or name, module)


def _child(parent: str | None, name: str) -> str | None:
    """The relative spelling of ``name`` inside a folder spelled ``parent`` (None: outside)."""
    if parent is None:
        return None
    return name if parent == "." else f"{parent}/{name}"


def _symlink(walk: _Walk, path: Path) -> Iterator[Path]:
    target = Path(os.path.realpath(path))  # unlike Path.resolve, never raises on a loop
    if not target.exists():
        walk.errors.append((display_path(path), "broken symbolic link"))
    elif not target.is_relative_to(walk.root):
        walk.skipped.append((display_path(path), "symbolic link leaves the project root"))
    elif target.is_file() and path.name.endswith(walk.suffixes):
        yield path
    # Symlinked directories inside the root are reached through their real path.


def _matches(spec: pathspec.GitIgnoreSpec, base: Path, path: Path, *, is_dir: bool) -> bool:
    inner = _relative(path, base)
    return inner is not None and inner != "." and spec.match_file(inner + ("/" if is_dir else ""))


def _ignore_specs_above(root: Path, directory: Path) -> _Specs:
    """``.git/info/exclude`` and the ``.gitignore`` files between the root and ``directory``."""
    specs: _Specs = []
    exclude = root / ".git" / "info" / "exclude"
    if exclude.is_file():
        specs.append((root, _spec_from(exclude)))
    if directory.is_relative_to(root):
        parents = [p for p in reversed(directory.parents) if p.is_relative_to(root)]
        for parent in parents:
            spec = _gitignore(parent)
            if spec is not None:
                specs.append((parent, spec))
    return specs


def _gitignore(directory: Path) -> pathspec.GitIgnoreSpec | None:
    candidate = directory / ".gitignore"
    return _spec_from(candidate) if candidate.is_file() else None


def _spec_from(path: Path) -> pathspec.GitIgnoreSpec:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _add(walk: _Walk, path: Path) -> None:
    resolved = path.resolve()
    if resolved not in walk.tasks:
        walk.tasks[resolved] = FileTask(path, display_path(path), module_name(resolved, walk.root))


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def display_path(path: Path) -> str:
    """Paths as the user sees them: relative to the current directory where possible."""
    try:
        return Path(os.path.relpath(path)).as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()


def module_name(path: Path, root: Path) -> str:
    """The dotted module a file defines, relative to the project root (``src/`` dropped)."""
    return _dotted(_relative(path, root))


def _dotted(relative: str | None) -> str:
    if relative is None:
        return ""
    parts = relative.removesuffix(".pyi").removesuffix(".py").split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
