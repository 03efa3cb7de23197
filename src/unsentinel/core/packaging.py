"""What a project's packaging configuration says it ships, read statically: the package
directories and top-level modules named by hatch, setuptools (``pyproject.toml`` or a
literal ``setup()`` call), poetry or flit, and whether it builds a distribution at all.

Read leniently, like the rest of what a project says about itself (``core.project``): an
unreadable or invalid file counts as unset.
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
    pyproject = read_toml(root / "pyproject.toml")
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
    hatch = toml_table(tool, "hatch", "build")
    for where, table in (
        ("[tool.hatch.build.targets.wheel]", toml_table(hatch, "targets", "wheel")),
        ("[tool.hatch.build]", hatch),
    ):
        paths = _toml_strings(table.get("packages"))
        if paths:
            return f"pyproject.toml {where} packages", paths, []
    return "", [], []


def _setuptools(root: Path, tool: dict[str, Any]) -> _Declared:
    setuptools = toml_table(tool, "setuptools")
    base = _toml_strings(toml_table(setuptools, "package-dir").get(""))
    prefix = f"{base[0]}/" if base else ""
    packages = setuptools.get("packages")
    names = _toml_strings(packages)
    modules = _toml_strings(setuptools.get("py-modules"))
    if names or modules:
        paths = [prefix + name.replace(".", "/") for name in names]
        return "pyproject.toml [tool.setuptools] packages", paths, modules
    find = toml_table(setuptools, "packages", "find")
    if not find:
        return "", [], []
    include = _toml_strings(find.get("include")) or ["*"]
    paths = []
    for where in _toml_strings(find.get("where")) or ["."]:
        base_dir = root / where
        if not base_dir.is_dir():
            continue
        for child in sorted(base_dir.iterdir()):
            if is_code_dir(child) and any(fnmatch(child.name, p.split(".")[0]) for p in include):
                paths.append(child.relative_to(root).as_posix())
    return "pyproject.toml [tool.setuptools.packages.find]", paths, []


def _poetry(tool: dict[str, Any]) -> _Declared:
    entries = toml_table(tool, "poetry").get("packages")
    paths = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("include"), str):
            base = entry.get("from")
            include = entry["include"]
            paths.append(f"{base}/{include}" if isinstance(base, str) else include)
    return "pyproject.toml [tool.poetry] packages", paths, []


def _flit(root: Path, tool: dict[str, Any]) -> _Declared:
    name = toml_table(tool, "flit", "module").get("name")
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


def toml_table(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The table at ``keys`` (``tool.ruff.format``), empty where any step is missing or
    not a table."""
    value: Any = document
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _toml_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def is_code_dir(path: Path) -> bool:
    """Could installed code live in this directory? Not in tests, docs, builds or venvs."""
    return path.is_dir() and not path.name.startswith((".", "_")) and path.name not in NOT_CODE


def read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML document; empty when it is missing, unreadable or invalid."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
