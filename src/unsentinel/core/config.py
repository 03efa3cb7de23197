"""``[tool.unsentinel]`` configuration: defaults, discovery, validation.

Keys are kebab-case in TOML (as in ruff) and snake_case on :class:`Config`.
Unknown keys and wrong types are errors that name the key and the file.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from unsentinel.core.model import Severity
from unsentinel.core.pyversion import lowest_from_requires_python, parse_target

SEVERITIES = tuple(severity.value for severity in Severity)
DEFAULT_LINE_LENGTH = 88  # black's and ruff's default
DEFAULT_TARGET = (3, 8)  # when a project says nothing, assume an old grammar: always valid

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "site-packages",
    ".unsentinel_cache",
    ".unsentinel_journal",
)

DEFAULT_INFO_KEYWORDS = (
    "default",
    "defaulted",
    "auto-selected",
    "automatically selected",
    "dry-run",
    "dry run",
    "preview",
    "sandbox",
    "cache",
    "cached",
)


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


@dataclass(frozen=True)
class Config:
    sentinel_prefixes: tuple[str, ...] = ("BLOCK:",)
    sentinel_constants: tuple[str, ...] = ("BLOCK_WARNING_PREFIX",)
    markers: Mapping[str, Severity] = field(default_factory=dict)  # extra prefix -> severity
    warning_list_names: tuple[str, ...] = ("warnings",)
    info_keywords: tuple[str, ...] = DEFAULT_INFO_KEYWORDS
    entity_nouns: tuple[str, ...] = ()  # the project's domain nouns, dropped from codes
    codes_module: str = "warning_codes.py"
    models_module: str = "warning_model.py"
    error_codes_module: str = "error_codes.py"
    error_model_module: str = "error_model.py"
    error_target: str = "envelope"  # or "helper": call ``error_helper`` instead
    error_helper: str = ""  # "pkg.errors:error_response"; default: in the error model module
    error_codes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # CODE -> keywords
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    max_file_size: int = 2_000_000
    include_generated: bool = False
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the file the settings came from, if any
    target_version: str = ""  # "py310"; unset: the lowest Python `requires-python` allows
    # Where generated calls wrap: the target project's ruff / black setting, not ours.
    line_length: int = DEFAULT_LINE_LENGTH
    # The lowest Python the output must be valid for (target-version, else requires-python).
    target: tuple[int, int] = DEFAULT_TARGET

    @property
    def severity_markers(self) -> dict[str, Severity]:
        """Every textual marker the rules recognise, mapped to the severity it means."""
        markers = {prefix: Severity.BLOCKING for prefix in self.sentinel_prefixes}
        markers.update(self.markers)
        return markers

    def is_rule_enabled(self, code: str) -> bool:
        selected = not self.select or any(code.startswith(s) for s in self.select)
        return selected and not any(code.startswith(i) for i in self.ignore)


_LIST_KEYS = {
    "sentinel-prefixes",
    "sentinel-constants",
    "warning-list-names",
    "info-keywords",
    "entity-nouns",
    "select",
    "ignore",
    "exclude",
    "extend-exclude",
}
_STR_KEYS = {"codes-module", "models-module", "error-codes-module", "error-model-module"}
_ERROR_KEYS = {"error-target", "error-helper", "error-codes"}
ERROR_TARGETS = ("envelope", "helper")
DEFAULT_ERROR_HELPER = "error_response"
_INT_KEYS = {"max-file-size"}
_VERSION_KEYS = {"target-version"}
_BOOL_KEYS = {"include-generated"}
_TABLE_KEYS = {"markers"}
# Config fields that are not [tool.unsentinel] keys: where the project is, and what it
# already says elsewhere (the line length comes from its ruff / black configuration).
NOT_SETTINGS = frozenset({"root", "source", "line_length", "target"})
KNOWN_KEYS = (
    _LIST_KEYS | _STR_KEYS | _INT_KEYS | _BOOL_KEYS | _TABLE_KEYS | _ERROR_KEYS | _VERSION_KEYS
)


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a [tool.unsentinel] table,
    else the nearest one at all."""
    start = _absolute(start)
    directory = start if start.is_dir() else start.parent
    nearest: Path | None = None
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            nearest = nearest or candidate
            if "unsentinel" in _read_toml(candidate).get("tool", {}):
                return candidate
    return nearest


def find_project_root(start: Path) -> Path:
    """The directory holding the nearest pyproject.toml or .git, else ``start`` itself."""
    start = _absolute(start)
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        if (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
            return candidate
    return directory


def _absolute(path: Path) -> Path:
    """``path`` made absolute without following a final symbolic link.

    A file named through a link belongs to the project the link is in, not to the one its
    target is in (which may be anywhere, and must not become the root writes are held to).
    """
    absolute = Path(os.path.abspath(path))
    return absolute if absolute.is_dir() else absolute.parent.resolve() / absolute.name


def load_config(
    paths: tuple[Path, ...] = (), config_file: Path | None = None, **overrides: Any
) -> Config:
    """Build the effective configuration: defaults < pyproject / --config < CLI overrides."""
    first = paths[0] if paths else Path.cwd()
    source = config_file or find_pyproject(first)
    settings: dict[str, Any] = {}
    if source is not None:
        settings = _validate(*_settings_table(source), source)
    if source is None or config_file is not None:
        # A --config file may live anywhere; the project is where the files are.
        root = find_project_root(first)
    else:
        root = source.parent.resolve()
    defaults: dict[str, Any] = {
        k: v for k, v in default_output_modules(root).items() if k not in settings
    }
    defaults["line_length"] = project_line_length(root)
    config = Config(root=root, source=source, **defaults, **settings)
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    config = replace(config, target=project_target(config))
    check_output_paths(config)
    check_error_helper(config)
    return config


def project_target(config: Config) -> tuple[int, int]:
    """The lowest Python the output must parse on: ``target-version`` (or
    ``--target-version``), else the lower bound of the project's ``requires-python``."""
    if config.target_version:
        found = parse_target(config.target_version)
        if found is None:
            raise ConfigError(
                f"target-version must look like 'py310', got {config.target_version!r}"
            )
        return found
    try:
        document = _read_toml(config.root / "pyproject.toml")
    except ConfigError:
        return DEFAULT_TARGET
    project = document.get("project", {})
    spec = project.get("requires-python") if isinstance(project, dict) else None
    lowest = lowest_from_requires_python(spec) if isinstance(spec, str) else None
    return lowest or DEFAULT_TARGET


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
        try:
            value: Any = _read_toml(path)
        except ConfigError:
            continue
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


NOT_PACKAGES = frozenset({"tests", "test", "testing", "docs", "examples", "scripts", "benchmarks"})


def default_output_modules(root: Path) -> dict[str, str]:
    """Generated modules go inside the project's package when it has exactly one.

    A repository laid out as ``pkg/`` or ``src/pkg/`` gets ``pkg/warning_codes.py`` and
    ``pkg/warning_model.py`` (and the error-dict pair); anything else keeps the root-level
    defaults, and the ``*-module`` keys always win.
    """
    packages = [
        path.relative_to(root).as_posix()
        for base in (root, root / "src")
        if base.is_dir()
        for path in sorted(base.iterdir())
        if path.is_dir() and (path / "__init__.py").is_file() and path.name not in NOT_PACKAGES
    ]
    if len(packages) != 1:
        return {}
    package = packages[0]
    return {
        "codes_module": f"{package}/warning_codes.py",
        "models_module": f"{package}/warning_model.py",
        "error_codes_module": f"{package}/error_codes.py",
        "error_model_module": f"{package}/error_model.py",
    }


OUTPUT_KEYS = ("codes_module", "models_module", "error_codes_module", "error_model_module")


def check_output_paths(config: Config) -> None:
    """Refuse generated-module paths that would land outside the project root.

    The paths are relative to the root; an absolute path, a ``..`` that climbs out, or a
    symbolic link (of the file or of a directory on the way) that leads out is an error.
    """
    root = Path(os.path.realpath(config.root))
    for name in OUTPUT_KEYS:
        value: str = getattr(config, name)
        where = f"{config.source}: " if config.source else ""
        key = name.replace("_", "-")
        if Path(value).is_absolute():
            raise ConfigError(f"{where}'{key}' must be relative to the project root, got {value!r}")
        target = Path(os.path.realpath(config.root / value))
        if not target.is_relative_to(root):
            raise ConfigError(
                f"{where}'{key}' = {value!r} leads outside the project root {root} "
                f"(to {target}); unsentinel only writes inside the project"
            )


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def _checked_error_key(key: str, value: Any, prefix: str, source: Path) -> Any:
    """``error-target``, ``error-helper`` and ``error-codes`` (UNS501's output)."""
    where = f"{source}: '{prefix}{key}'"
    if key == "error-target":
        if value not in ERROR_TARGETS:
            raise ConfigError(f"{where} must be one of {', '.join(ERROR_TARGETS)}, got {value!r}")
        return value
    if key == "error-helper":
        if not isinstance(value, str) or split_helper(value) is None:
            raise ConfigError(
                f'{where} must be "module.path:function" '
                f'(e.g. "pkg.errors:error_response"), got {value!r}'
            )
        return value
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where} must be a table of CODE = [keywords], got {type(value).__name__}"
        )
    codes: dict[str, tuple[str, ...]] = {}
    for code, keywords in value.items():
        if not _CODE_NAME.fullmatch(code):
            raise ConfigError(f"{where}: code {code!r} must be UPPER_SNAKE_CASE (e.g. NOTE_LOCKED)")
        if (
            not isinstance(keywords, list)
            or not keywords
            or not all(isinstance(k, str) and k.strip() for k in keywords)
        ):
            raise ConfigError(
                f"{where}.{code} must be a non-empty list of message keywords, got {keywords!r}"
            )
        codes[code] = tuple(keywords)
    return codes


def split_helper(value: str) -> tuple[str, str] | None:
    """``"pkg.errors:error_response"`` -> ``("pkg.errors", "error_response")``, else None."""
    module, colon, name = value.partition(":")
    parts = module.split(".")
    if not colon or not all(_IDENTIFIER.fullmatch(p) for p in (*parts, name)):
        return None
    return module, name


def error_helper_target(config: Config) -> tuple[str, str]:
    """The helper UNS501 calls with ``error-target = "helper"``: ``(module, function)``.

    Without ``error-helper`` it is ``error_response`` in the error model module, which the
    emitter creates when it is missing.
    """
    found = split_helper(config.error_helper) if config.error_helper else None
    if found is not None:
        return found
    return module_path(config.error_model_module), DEFAULT_ERROR_HELPER


def module_path(path: str) -> str:
    """``errsvc/error_codes.py`` -> ``errsvc.error_codes`` (a leading ``src/`` dropped)."""
    parts = list(PurePosixPath(path.replace("\\", "/")).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    return ".".join(parts)


def check_error_helper(config: Config) -> None:
    """A configured helper outside the error model module must exist in the repository.

    unsentinel only ever adds the helper to the error model module it generates; it does not
    write into other modules, so a helper it cannot find there is a configuration error.
    """
    if config.error_target != "helper" or not config.error_helper:
        return
    module, name = error_helper_target(config)
    if module == module_path(config.error_model_module):
        return
    relative = Path(*module.split("."))
    candidates = [config.root / base / relative.with_suffix(".py") for base in ("", "src")] + [
        config.root / base / relative / "__init__.py" for base in ("", "src")
    ]
    for candidate in candidates:
        if candidate.is_file() and _defines(candidate, name):
            return
    where = f"{config.source}: " if config.source else ""
    raise ConfigError(
        f"{where}'error-helper' = {config.error_helper!r}: no module {module} in "
        f"{config.root} defines {name}(); define it there, or leave 'error-helper' unset so "
        f"unsentinel adds {DEFAULT_ERROR_HELPER}() to the error model module"
    )


def _defines(path: Path, name: str) -> bool:
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name == name
        or isinstance(node, (ast.Import, ast.ImportFrom))
        and any((alias.asname or alias.name) == name for alias in node.names)
        or isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        for node in tree.body
    )


def _settings_table(source: Path) -> tuple[dict[str, Any], str]:
    """The settings in ``source`` and the dotted prefix their keys have in it.

    A ``pyproject.toml`` keeps them in ``[tool.unsentinel]``; a dedicated file (given with
    ``--config``) may hold them at top level instead.
    """
    document = _read_toml(source)
    tool = document.get("tool", {})
    if source.name == "pyproject.toml" or (isinstance(tool, dict) and "unsentinel" in tool):
        table = tool.get("unsentinel", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            raise ConfigError(f"{source}: 'tool.unsentinel' must be a table")
        return table, "tool.unsentinel."
    return document, ""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def _validate(table: Mapping[str, Any], prefix: str, source: Path) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KNOWN_KEYS:
            known = ", ".join(sorted(KNOWN_KEYS))
            raise ConfigError(f"{source}: unknown key '{prefix}{key}' (known keys: {known})")
        settings[key.replace("-", "_")] = _checked(key, value, prefix, source)
    if settings.get("error_helper") and settings.get("error_target") != "helper":
        raise ConfigError(
            f"{source}: '{prefix}error-helper' only applies with "
            f"'{prefix}error-target' = \"helper\""
        )
    return settings


def _checked(key: str, value: Any, prefix: str, source: Path) -> Any:
    def wrong(expected: str) -> ConfigError:
        return ConfigError(
            f"{source}: '{prefix}{key}' must be {expected}, got {type(value).__name__}"
        )

    if key in _ERROR_KEYS:
        return _checked_error_key(key, value, prefix, source)
    if key in _LIST_KEYS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise wrong("a list of strings")
        return tuple(value)
    if key in _STR_KEYS:
        if not isinstance(value, str) or not value:
            raise wrong("a non-empty string")
        return value
    if key in _VERSION_KEYS:
        if not isinstance(value, str) or parse_target(value) is None:
            raise ConfigError(f"{source}: '{prefix}{key}' must look like \"py310\", got {value!r}")
        return value
    if key in _INT_KEYS:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise wrong("a positive integer")
        return value
    if key in _BOOL_KEYS:
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if not isinstance(value, dict):
        raise wrong("a table of prefix = severity")
    for marker, severity in value.items():
        if severity not in SEVERITIES:
            raise ConfigError(
                f"{source}: '{prefix}markers.\"{marker}\"' must be one of "
                f"{', '.join(SEVERITIES)}, got {severity!r}"
            )
    return {marker: Severity(severity) for marker, severity in value.items()}
