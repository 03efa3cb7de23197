"""``[tool.unsentinel]`` configuration: discovery, the common keys, and the features' hook.

Keys are kebab-case in TOML (as in ruff) and snake_case in code. The core reads only the
keys every run has (``select``, ``exclude``, ``target-version``, ...); each feature
registers a :class:`Section` (in ``registry.SECTIONS``, as it registers its rules) that
owns its keys, reads them into its own settings class and validates them. So this module
never names a feature's key. It finds and reads the settings; ``config_checks`` says whether
they are acceptable: unknown keys and bad values, in any section, are errors that name the
key and the file, and suggest the nearest known key or value.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from unsentinel.core.config_checks import (
    COMMON_KEYS,
    ConfigError,
    check_common_settings,
    check_known_keys,
)
from unsentinel.core.packaging import unshipped_root_module
from unsentinel.core.project import (
    DEFAULT_LINE_LENGTH,
    DEFAULT_TARGET,
    ImportStyle,
    project_import_style,
    project_line_length,
    project_package,
    project_quote,
    requires_python_target,
)
from unsentinel.core.pyversion import parse_target

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


S = TypeVar("S")


@dataclass(frozen=True)
class Config:
    """The effective settings of a run: the common keys, and each feature's own section.

    A feature's settings are a frozen dataclass of its own (``WarningSettings``,
    ``ErrorSettings``), stored under its class in ``sections`` and read with
    :meth:`section`; the core never names a feature's key.
    """

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
    # The quote new strings take, and how new imports are sorted: the project's ruff /
    # isort settings too.
    quote: str = '"'
    import_style: ImportStyle = field(default_factory=ImportStyle)
    # The lowest Python the output must be valid for (target-version, else requires-python).
    target: tuple[int, int] = DEFAULT_TARGET
    # Each feature's validated settings, keyed by their class (see :class:`Section`).
    sections: Mapping[type[Any], Any] = field(default_factory=dict)

    def is_rule_enabled(self, code: str) -> bool:
        selected = not self.select or any(code.startswith(s) for s in self.select)
        return selected and not any(code.startswith(i) for i in self.ignore)

    def section(self, kind: type[S]) -> S:
        """The settings of type ``kind``; its defaults when none were loaded (``Config()``)."""
        found = self.sections.get(kind)
        return found if isinstance(found, kind) else kind()

    def with_section(self, settings: object) -> Config:
        """A copy holding ``settings`` as the section of its type (for code building a Config)."""
        return replace(self, sections={**self.sections, type(settings): settings})

    def with_values(self, values: Mapping[str, Any], sections: Sequence[Section] = ()) -> Config:
        """A copy with settings changed by field name, each where it lives: on the Config or
        in the section of ``sections`` that owns it (rule examples and tests set values so).
        A name no one owns is a :class:`KeyError`."""
        common = {item.name for item in fields(self)}
        config = replace(self, **{k: v for k, v in values.items() if k in common})
        left = {k: v for k, v in values.items() if k not in common}
        for section in sections:
            owned = {k: v for k, v in left.items() if k.replace("_", "-") in section.keys}
            if owned:
                config = config.with_section(replace(config.section(section.kind), **owned))
            left = {k: v for k, v in left.items() if k not in owned}
        if left:
            raise KeyError(f"no setting named {', '.join(sorted(left))}")
        return config


# -- a feature's section: the hook each feature registers -----------------------------------


@dataclass(frozen=True)
class SectionContext:
    """What a feature's reader may need besides its own keys: where the project is."""

    root: Path
    source: Path | None  # the settings file, for messages
    prefix: str  # "tool.unsentinel." in a pyproject.toml, "" in a dedicated file
    package: str | None  # the project's one top-level package (``pkg``, ``src/pkg``), if any

    def where(self, key: str) -> str:
        """``"<file>: 'tool.unsentinel.<key>'"``: how every message names a key."""
        return f"{self.source or '<settings>'}: '{self.prefix}{key}'"


@dataclass(frozen=True)
class Section:
    """A feature's part of ``[tool.unsentinel]``, registered like its rules (registry.py).

    ``kind`` is a frozen dataclass whose fields are the feature's keys (snake_case for the
    kebab-case TOML keys) and whose no-argument instance is the defaults. ``read`` gets the
    raw values of those keys (absent keys absent) and returns a validated ``kind``, raising
    :class:`ConfigError` for a bad value. ``outputs`` names the generated-module paths in a
    ``kind`` (key -> path), which must stay inside the project root.
    """

    kind: type[Any]
    read: Callable[[Mapping[str, Any], SectionContext], Any]
    outputs: Callable[[Any], Mapping[str, str]] = lambda _settings: {}

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(item.name.replace("_", "-") for item in fields(self.kind))


# Config fields that are not [tool.unsentinel] keys: where the project is, what it already
# says elsewhere (the line length, quote and import style come from its ruff / black /
# isort configuration), and the features' sections (whose keys their own settings classes
# list).
NOT_SETTINGS = frozenset(
    {"root", "source", "line_length", "quote", "import_style", "target", "sections"}
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
    paths: tuple[Path, ...] = (),
    config_file: Path | None = None,
    *,
    sections: Sequence[Section],
    **overrides: Any,
) -> Config:
    """Build the effective configuration: defaults < pyproject / --config < overrides.

    ``sections`` are the features' parts of the table (``registry.SECTIONS``; the
    library's ``unsentinel.load_config`` passes them). They are required: a Config loaded
    without them would silently miss every feature's package defaults. A key no section
    and no common setting owns is an error, with the nearest known key suggested. ``overrides`` are
    field values (``select=...``, or a section's ``sentinel_prefixes=...``); None is unset.
    """
    first = paths[0] if paths else Path.cwd()
    source = config_file or find_pyproject(first)
    table, prefix = _settings_table(source) if source is not None else ({}, "")
    owners = _owners(sections)
    if source is not None:
        check_known_keys(table, prefix, source, COMMON_KEYS | owners.keys())
    common = {k: v for k, v in table.items() if k in COMMON_KEYS}
    settings = check_common_settings(common, prefix, source)
    if source is None or config_file is not None:
        # A --config file may live anywhere; the project is where the files are.
        root = find_project_root(first)
    else:
        root = source.parent.resolve()
    context = SectionContext(root, source, prefix, project_package(root))
    parsed = {
        section.kind: section.read(
            {k: v for k, v in table.items() if owners.get(k) is section}, context
        )
        for section in sections
    }
    config = Config(
        root=root,
        source=source,
        line_length=project_line_length(root),
        quote=project_quote(root),
        import_style=project_import_style(root),
        sections=parsed,
        **settings,
    )
    config = config.with_values({k: v for k, v in overrides.items() if v is not None}, sections)
    config = replace(config, target=project_target(config))
    check_output_paths(config, sections)
    return config


def _owners(sections: Sequence[Section]) -> dict[str, Section]:
    """Which section reads each feature key; two owners of one key is a wiring bug."""
    owners: dict[str, Section] = {}
    for section in sections:
        for key in section.keys:
            if key in COMMON_KEYS or key in owners:
                raise ValueError(f"settings key {key!r} registered twice")
            owners[key] = section
    return owners


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
    return requires_python_target(config.root) or DEFAULT_TARGET


def generated_modules(config: Config, sections: Sequence[Section]) -> list[str]:
    """The paths of every module the features generate (first-party before they exist)."""
    return [
        path
        for section in sections
        for path in section.outputs(config.section(section.kind)).values()
    ]


def unshipped_outputs(
    config: Config, sections: Sequence[Section], written: Collection[Path]
) -> list[str]:
    """A warning for each generated module among ``written`` that lands at the project root
    (or a bare ``src/``) of a project whose built distribution would not ship it: the
    rewritten code imports it (``import error_codes``), which works from a checkout, where
    the root is on ``sys.path``, but not once the project is installed."""
    warnings = []
    for section in sections:
        for key, value in section.outputs(config.section(section.kind)).items():
            parts = PurePosixPath(value.replace("\\", "/")).parts
            if parts[:1] == ("src",):
                parts = parts[1:]
            if len(parts) != 1 or (config.root / value).resolve() not in written:
                continue
            module = PurePosixPath(parts[0]).stem
            reason = unshipped_root_module(config.root, module)
            if reason is not None:
                warnings.append(
                    f"{value} is generated at the project root, outside the installed "
                    f"package ({reason}): `import {module}` works in a checkout but not "
                    f"once the project is installed; set '{key}' to a path inside the package"
                )
    return warnings


def check_output_paths(config: Config, sections: Sequence[Section] = ()) -> None:
    """Refuse generated-module paths that would land outside the project root.

    The paths are relative to the root; an absolute path, a ``..`` that climbs out, or a
    symbolic link (of the file or of a directory on the way) that leads out is an error.
    ``sections`` say which settings name output paths: each section in ``config``.
    """
    root = Path(os.path.realpath(config.root))
    where = f"{config.source}: " if config.source else ""
    for section in sections:
        for key, value in section.outputs(config.section(section.kind)).items():
            if Path(value).is_absolute():
                raise ConfigError(
                    f"{where}'{key}' must be relative to the project root, got {value!r}"
                )
            target = Path(os.path.realpath(config.root / value))
            if not target.is_relative_to(root):
                raise ConfigError(
                    f"{where}'{key}' = {value!r} leads outside the project root {root} "
                    f"(to {target}); unsentinel only writes inside the project"
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
