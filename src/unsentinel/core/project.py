"""What a project says about itself, outside ``[tool.unsentinel]``: the Python it supports
(``requires-python``), the line length its formatter uses, and its one top-level package.

Read leniently: an unreadable or invalid file counts as unset (the project's own tooling
reports it), unlike unsentinel's own configuration, whose errors stop the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from unsentinel.core.pyversion import lowest_from_requires_python

DEFAULT_LINE_LENGTH = 88  # black's and ruff's default
DEFAULT_TARGET = (3, 8)  # when a project says nothing, assume an old grammar: always valid


def requires_python_target(root: Path) -> tuple[int, int] | None:
    """The lowest Python ``[project] requires-python`` allows, if it says."""
    project = _read_toml(root / "pyproject.toml").get("project", {})
    spec = project.get("requires-python") if isinstance(project, dict) else None
    return lowest_from_requires_python(spec) if isinstance(spec, str) else None


def project_line_length(root: Path) -> int:
    """The line length the project formats to: ruff's, else black's, else 88.

    ``ruff.toml`` / ``.ruff.toml`` win over ``[tool.ruff]`` (as in ruff); an unreadable file
    or a value that is not a positive integer counts as unset.
    """
    candidates: list[tuple[Path, tuple[str, ...]]] = [
        (root / "ruff.toml", ("line-length",)),
        (root / ".ruff.toml", ("line-length",)),
        (root / "pyproject.toml", ("tool", "ruff", "line-length")),
        (root / "pyproject.toml", ("tool", "black", "line-length")),
    ]
    for path, keys in candidates:
        if not path.is_file():
            continue
        value: Any = _read_toml(path)
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


NOT_PACKAGES = frozenset({"tests", "test", "testing", "docs", "examples", "scripts", "benchmarks"})


def project_package(root: Path) -> str | None:
    """The project's one top-level package (``pkg`` or ``src/pkg``, the package inside a
    pkgutil-style namespace), else None.

    Features put their generated modules inside it by default (``pkg/warning_codes.py``),
    so a repository laid out as a package gets them where its code lives; anything else
    (no package, or several) keeps the root-level defaults.
    """
    packages = [
        path for base in (root, root / "src") if base.is_dir() for path in _subpackages(base)
    ]
    if len(packages) != 1:
        return None
    return _inside_namespace(packages[0]).relative_to(root).as_posix()


def _subpackages(directory: Path) -> list[Path]:
    return [
        path
        for path in sorted(directory.iterdir())
        if path.is_dir() and (path / "__init__.py").is_file() and path.name not in NOT_PACKAGES
    ]


def _inside_namespace(package: Path) -> Path:
    """``awslabs/cloudwatch_mcp_server`` for ``awslabs``, a pkgutil-style namespace
    package (its ``__init__.py`` extends ``__path__``) that holds one package: the shared
    directory belongs to every distribution of the namespace, the code to the one inside."""
    while _declares_namespace(package / "__init__.py"):
        inner = _subpackages(package)
        if len(inner) != 1:
            break
        package = inner[0]
    return package


def _declares_namespace(init: Path) -> bool:
    try:
        text = init.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "extend_path" in text or "declare_namespace" in text


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML document; empty when it is missing, unreadable or invalid."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
