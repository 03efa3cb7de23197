"""What a project says about itself, outside ``[tool.unsentinel]``: the Python it supports
(``requires-python``), the line length its formatter uses, its one top-level package and
what its packaging configuration ships.

Read leniently: an unreadable or invalid file counts as unset (the project's own tooling
reports it), unlike unsentinel's own configuration, whose errors stop the run.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
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


def _ruff_settings(root: Path) -> dict[str, Any]:
    """The project's ruff configuration: ``ruff.toml`` / ``.ruff.toml`` win over
    ``[tool.ruff]``, as in ruff; empty when it has none."""
    for name in ("ruff.toml", ".ruff.toml"):
        if (root / name).is_file():
            return _read_toml(root / name)
    return _table(_read_toml(root / "pyproject.toml"), "tool", "ruff")


def project_quote(root: Path) -> str:
    """The quote the project's formatter writes strings with: ``'`` for ruff's
    ``quote-style = "single"`` (or, without a formatter setting, flake8-quotes'
    ``inline-quotes = "single"``), else ``"`` (black's and ruff's default)."""
    ruff = _ruff_settings(root)
    style = _table(ruff, "format").get("quote-style")
    if style in ("single", "double"):
        return "'" if style == "single" else '"'
    for quotes in (_table(ruff, "lint", "flake8-quotes"), _table(ruff, "flake8-quotes")):
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


def project_import_style(root: Path) -> ImportStyle:
    """The project's isort settings: ruff's ``[lint.isort]`` (or the older ``[isort]``)
    when it configures ruff, else ``[tool.isort]``; unset values keep isort's defaults."""
    ruff = _ruff_settings(root)
    table = _table(ruff, "lint", "isort") or _table(ruff, "isort")
    names = ("no-sections", "force-sort-within-sections", "lines-after-imports")
    if not table and not ruff:
        table = _table(_read_toml(root / "pyproject.toml"), "tool", "isort")
        names = ("no_sections", "force_sort_within_sections", "lines_after_imports")
    no_sections, force_sort, lines_after = (table.get(name) for name in names)
    return ImportStyle(
        no_sections=no_sections is True,
        force_sort_within_sections=force_sort is True,
        lines_after_imports=lines_after
        if isinstance(lines_after, int) and not isinstance(lines_after, bool)
        else -1,
    )


NOT_PACKAGES = frozenset({"tests", "test", "testing", "docs", "examples", "scripts", "benchmarks"})
# Directories no installed code lives in (a PEP 420 namespace path never runs through them).
NOT_CODE = NOT_PACKAGES | {
    "build",
    "dist",
    "venv",
    "node_modules",
    "site-packages",
    "__pycache__",
}
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


@dataclass(frozen=True)
class Packaging:
    """What a project's packaging configuration says it ships, read statically."""

    source: str = ""  # where it says so (``pyproject.toml [tool.hatch...]``), "" if nowhere
    directories: tuple[Path, ...] = ()  # the top-level package directories it names
    modules: tuple[str, ...] = ()  # top-level modules it names (``py-modules``)
    builds: bool = False  # does the project build a distribution at all?


def packaging(root: Path) -> Packaging:
    """What the project's packaging configuration ships: the package directories it names,
    outermost only (``["awslabs", "awslabs.x"]`` is ``awslabs``), and its top-level modules.
    Unreadable configuration counts as none."""
    pyproject = _read_toml(root / "pyproject.toml")
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    builds = "build-system" in pyproject or (root / "setup.py").is_file()
    builds = builds or (root / "setup.cfg").is_file()
    for source, paths, modules in (
        _hatch(tool),
        _setuptools(root, tool),
        _poetry(tool),
        _flit(root, tool),
        _setup_py(root),
    ):
        if paths or modules:
            directories = tuple(root / path for path in _outermost(paths))
            return Packaging(source, directories, tuple(modules), True)
    return Packaging(builds=builds)


_Declared = tuple[str, list[str], list[str]]  # (source, package paths, module names)


def _hatch(tool: dict[str, Any]) -> _Declared:
    hatch = _table(tool, "hatch", "build")
    for where, table in (
        ("[tool.hatch.build.targets.wheel]", _table(hatch, "targets", "wheel")),
        ("[tool.hatch.build]", hatch),
    ):
        paths = _strings(table.get("packages"))
        if paths:
            return f"pyproject.toml {where} packages", paths, []
    return "", [], []


def _setuptools(root: Path, tool: dict[str, Any]) -> _Declared:
    setuptools = _table(tool, "setuptools")
    base = _strings(_table(setuptools, "package-dir").get(""))
    prefix = f"{base[0]}/" if base else ""
    packages = setuptools.get("packages")
    names = _strings(packages)
    modules = _strings(setuptools.get("py-modules"))
    if names or modules:
        paths = [prefix + name.replace(".", "/") for name in names]
        return "pyproject.toml [tool.setuptools] packages", paths, modules
    find = _table(setuptools, "packages", "find")
    if not find:
        return "", [], []
    include = _strings(find.get("include")) or ["*"]
    paths = []
    for where in _strings(find.get("where")) or ["."]:
        base_dir = root / where
        if not base_dir.is_dir():
            continue
        for child in sorted(base_dir.iterdir()):
            if _is_code_dir(child) and any(fnmatch(child.name, p.split(".")[0]) for p in include):
                paths.append(child.relative_to(root).as_posix())
    return "pyproject.toml [tool.setuptools.packages.find]", paths, []


def _poetry(tool: dict[str, Any]) -> _Declared:
    entries = _table(tool, "poetry").get("packages")
    paths = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("include"), str):
            base = entry.get("from")
            include = entry["include"]
            paths.append(f"{base}/{include}" if isinstance(base, str) else include)
    return "pyproject.toml [tool.poetry] packages", paths, []


def _flit(root: Path, tool: dict[str, Any]) -> _Declared:
    name = _table(tool, "flit", "module").get("name")
    if not isinstance(name, str):
        return "", [], []
    path = name.replace(".", "/")
    if (root / f"{path}.py").is_file():
        return "pyproject.toml [tool.flit.module]", [], [name]
    return "pyproject.toml [tool.flit.module]", [path], []


def _setup_py(root: Path) -> _Declared:
    """``setup(packages=[...], package_dir={"": "src"}, py_modules=[...])`` written as literals."""
    try:
        tree = ast.parse((root / "setup.py").read_bytes())
    except (OSError, SyntaxError, ValueError):
        return "", [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node) == "setup"):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        names = _literal_strings(keywords.get("packages"))
        modules = _literal_strings(keywords.get("py_modules"))
        base = ""
        package_dir = keywords.get("package_dir")
        if isinstance(package_dir, ast.Dict):
            for key, value in zip(package_dir.keys, package_dir.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "":
                    base = next(iter(_literal_strings(value) or [""]))
        prefix = f"{base}/" if base else ""
        paths = [prefix + name.replace(".", "/") for name in names]
        return "setup.py setup(packages=...)", paths, modules
    return "", [], []


def unshipped_root_module(root: Path, module: str) -> str | None:
    """Why a module written at the root of the project would be missing from the
    distribution it builds (its packaging ships named packages only), or None when the
    project builds none (the root is on ``sys.path`` wherever its code runs) or ships it."""
    found = packaging(root)
    if not found.builds or module in found.modules:
        return None
    if found.directories:
        names = ", ".join(d.relative_to(root).as_posix() for d in found.directories)
        return f"{found.source} ships {names}"
    if found.source:
        return f"{found.source} ships {', '.join(found.modules)}"
    return "the project builds a distribution of its packages, not of loose modules"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _literal_strings(node: ast.expr | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def _outermost(paths: list[str]) -> list[str]:
    """``["awslabs", "awslabs/x"]`` -> ``["awslabs"]``: a package and its subpackages ship
    together; the outermost directory is where the namespace (or the package) starts."""
    clean = sorted({PurePosixPath(p.strip("/")).as_posix() for p in paths if p.strip("/")})
    return [p for p in clean if not any(p.startswith(f"{o}/") for o in clean if o != p)]


def _table(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    value: Any = document
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _subpackages(directory: Path) -> list[Path]:
    return [
        path
        for path in sorted(directory.iterdir())
        if path.is_dir() and (path / "__init__.py").is_file() and path.name not in NOT_PACKAGES
    ]


def _is_code_dir(path: Path) -> bool:
    return path.is_dir() and not path.name.startswith((".", "_")) and path.name not in NOT_CODE


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
                _is_code_dir(child)
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
        if not _is_code_dir(child):
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


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML document; empty when it is missing, unreadable or invalid."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
