"""What a project says about itself, outside ``[tool.unsentinel]``: the Python it supports
(``requires-python``), the line length and quotes its formatter uses, how its import
sorter lays imports out, and its one top-level package (``core.packaging`` reads what its
packaging configuration ships).

Read leniently: an unreadable or invalid file counts as unset (the project's own tooling
reports it), unlike unsentinel's own configuration, whose errors stop the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unsentinel.core.packaging import NOT_PACKAGES, is_code_dir, packaging, read_toml, toml_table
from unsentinel.core.pyversion import lowest_from_requires_python

DEFAULT_LINE_LENGTH = 88  # black's and ruff's default
DEFAULT_TARGET = (3, 8)  # when a project says nothing, assume an old grammar: always valid


def requires_python_target(root: Path) -> tuple[int, int] | None:
    """The lowest Python ``[project] requires-python`` allows, if it says."""
    project = read_toml(root / "pyproject.toml").get("project", {})
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
        value: Any = read_toml(path)
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def _ruff_settings(root: Path) -> dict[str, Any]:
    """The project's ruff configuration: ``ruff.toml`` / ``.ruff.toml`` win over
    ``[tool.ruff]``, as in ruff; empty when it has none."""
    for name in ("ruff.toml", ".ruff.toml"):
        if (root / name).is_file():
            return read_toml(root / name)
    return toml_table(read_toml(root / "pyproject.toml"), "tool", "ruff")


def project_quote(root: Path) -> str:
    """The quote the project's formatter writes strings with: ``'`` for ruff's
    ``quote-style = "single"`` (or, without a formatter setting, flake8-quotes'
    ``inline-quotes = "single"``), else ``"`` (black's and ruff's default)."""
    ruff = _ruff_settings(root)
    style = toml_table(ruff, "format").get("quote-style")
    if style in ("single", "double"):
        return "'" if style == "single" else '"'
    for quotes in (toml_table(ruff, "lint", "flake8-quotes"), toml_table(ruff, "flake8-quotes")):
        if quotes.get("inline-quotes") in ("single", "double"):
            return "'" if quotes["inline-quotes"] == "single" else '"'
    return '"'


@dataclass(frozen=True)
class ImportStyle:
    """How the project's import sorter (ruff's isort rules, or isort) lays imports out,
    where it differs from isort's defaults."""

    no_sections: bool = False  # one block for every section but ``__future__``
    force_sort_within_sections: bool = False  # ``import x`` and ``from x import`` mixed
    lines_after_imports: int = -1  # -1: two before a class or function, one otherwise
    force_single_line: bool = False  # ``from x import a`` and ``from x import b`` apart


def project_import_style(root: Path) -> ImportStyle:
    """The project's isort settings: ruff's ``[lint.isort]`` (or the older ``[isort]``)
    when it configures ruff, else ``[tool.isort]``; unset values keep isort's defaults."""
    ruff = _ruff_settings(root)
    table = toml_table(ruff, "lint", "isort") or toml_table(ruff, "isort")
    names: tuple[str, ...] = (
        "no-sections",
        "force-sort-within-sections",
        "lines-after-imports",
        "force-single-line",
    )
    if not table and not ruff:
        table = toml_table(read_toml(root / "pyproject.toml"), "tool", "isort")
        names = tuple(name.replace("-", "_") for name in names)
    no_sections, force_sort, lines_after, single_line = (table.get(name) for name in names)
    return ImportStyle(
        no_sections=no_sections is True,
        force_sort_within_sections=force_sort is True,
        lines_after_imports=lines_after
        if isinstance(lines_after, int) and not isinstance(lines_after, bool)
        else -1,
        force_single_line=single_line is True,
    )


# Modules at the root of a repository that run its tooling, not its code.
TOOLING_MODULES = frozenset(
    {"setup.py", "conftest.py", "noxfile.py", "fabfile.py", "tasks.py", "dodo.py"}
)
NAMESPACE_DEPTH = 3  # ``google/cloud/<package>``: deeper namespace paths are not looked for


def project_package(root: Path) -> str | None:
    """The project's one top-level package, else None: the one its packaging configuration
    ships (``[tool.hatch.build.targets.wheel] packages``, ``[tool.setuptools] packages`` or
    ``packages.find``, ``[tool.poetry] packages``, ``setup(packages=[...])``), else the one
    package of its layout (``pkg`` or ``src/pkg``).

    A namespace is looked through to the one package it holds: a pkgutil-style one
    (``awslabs/__init__.py`` extends ``__path__``) or a PEP 420 one (a chain of directories
    without ``__init__.py``, ``awslabs/well_architected_server/``). Its shared directory
    belongs to every distribution of the namespace, the code to the package inside.

    Features put their generated modules inside it by default (``pkg/warning_codes.py``),
    so a repository laid out as a package gets them where its code lives; anything else
    (no package, or several) keeps the root-level defaults.
    """
    declared = _declared_package(root)
    if declared is not None:
        return declared.relative_to(root).as_posix()
    packages = [
        path for base in (root, root / "src") if base.is_dir() for path in _subpackages(base)
    ]
    if not packages:
        packages = _namespace_packages(root)
    if len(packages) != 1:
        return None
    return _inside_namespace(packages[0]).relative_to(root).as_posix()


def _declared_package(root: Path) -> Path | None:
    """The one package directory the packaging configuration ships, if it names one."""
    found: list[Path] = []
    for directory in packaging(root).directories:
        if not directory.resolve().is_relative_to(root.resolve()):
            continue  # ``../shared``: not where this project's code lives
        if (directory / "__init__.py").is_file():
            found.append(_inside_namespace(directory))
        elif directory.is_dir():
            inner = _through_namespace(directory, NAMESPACE_DEPTH)
            found.append(inner[0] if len(inner) == 1 else directory)
    unique = sorted(set(found))
    return unique[0] if len(unique) == 1 else None


def _subpackages(directory: Path) -> list[Path]:
    return [
        path
        for path in sorted(directory.iterdir())
        if path.is_dir() and (path / "__init__.py").is_file() and path.name not in NOT_PACKAGES
    ]


def _namespace_packages(root: Path) -> list[Path]:
    """The regular packages at the end of PEP 420 namespace paths (directories without
    ``__init__.py``) from the root or ``src/``: ``awslabs/x_server/``. None when the root
    holds modules of its own: then the code is there, and a directory is only a directory."""
    if any(path.suffix == ".py" and path.name not in TOOLING_MODULES for path in root.iterdir()):
        return []
    found: list[Path] = []
    for base in (root, root / "src"):
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            if (
                is_code_dir(child)
                and not (child / "__init__.py").exists()
                and child != root / "src"
            ):
                found.extend(_through_namespace(child, NAMESPACE_DEPTH))
    return found


def _through_namespace(directory: Path, depth: int) -> list[Path]:
    """The regular packages below ``directory`` reached only through directories without
    ``__init__.py``, at most ``depth`` levels down."""
    if depth == 0:
        return []
    found: list[Path] = []
    for child in sorted(directory.iterdir()) if directory.is_dir() else []:
        if not is_code_dir(child):
            continue
        if (child / "__init__.py").is_file():
            found.append(child)
        else:
            found.extend(_through_namespace(child, depth - 1))
    return found


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
