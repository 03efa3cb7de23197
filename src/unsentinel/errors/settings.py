"""The error-dict feature's part of ``[tool.unsentinel]``: UNS501's target and codes.

Where the generated ``error_codes`` and ``ErrorDetail`` modules go, whether a rewrite
builds the envelope or calls a helper (``error-target``, ``error-helper``), and the
project's own codes (``error-codes``: CODE = [message keywords]). The registry hands
:data:`SECTION` to ``load_config``; rules and the emitter read the result with
:func:`error_settings`. The core never names these keys.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from unsentinel.core.config import Config, Section, SectionContext
from unsentinel.core.config_checks import ConfigError, check_choice, check_table, check_text

ERROR_TARGETS = ("envelope", "helper")
DEFAULT_ERROR_HELPER = "error_response"
_MODULE_KEYS = {"error-codes-module": "error_codes.py", "error-model-module": "error_model.py"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True)
class ErrorSettings:
    """UNS501's settings; each field is the key of the same name, kebab-cased."""

    error_codes_module: str = _MODULE_KEYS["error-codes-module"]
    error_model_module: str = _MODULE_KEYS["error-model-module"]
    error_target: str = "envelope"  # or "helper": call ``error_helper`` instead
    error_helper: str = ""  # "pkg.errors:error_response"; default: in the error model module
    error_codes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # CODE -> keywords


def error_settings(config: Config) -> ErrorSettings:
    """The error settings in force (the defaults for a ``Config()`` built in code)."""
    return config.section(ErrorSettings)


def read_settings(table: Mapping[str, Any], context: SectionContext) -> ErrorSettings:
    """Validate the error keys; a configured helper must exist where it is said to be."""
    values: dict[str, Any] = {
        key.replace("-", "_"): f"{context.package}/{name}"
        for key, name in _MODULE_KEYS.items()
        if context.package is not None
    }
    for key, value in table.items():
        values[key.replace("-", "_")] = _checked(key, value, context)
    settings = ErrorSettings(**values)
    if settings.error_helper and settings.error_target != "helper":
        raise ConfigError(
            f"{context.where('error-helper')} only applies with "
            f"'{context.prefix}error-target' = \"helper\""
        )
    _check_helper_exists(settings, context)
    return settings


def _checked(key: str, value: Any, context: SectionContext) -> Any:
    where = context.where(key)
    if key in _MODULE_KEYS:
        return check_text(value, where)
    if key == "error-target":
        return check_choice(value, ERROR_TARGETS, where)
    if key == "error-helper":
        if not isinstance(value, str) or split_helper(value) is None:
            raise ConfigError(
                f'{where} must be "module.path:function" '
                f'(e.g. "pkg.errors:error_response"), got {value!r}'
            )
        return value
    return _codes(check_table(value, where, "a table of CODE = [keywords]"), where)


def _codes(table: Mapping[str, Any], where: str) -> dict[str, tuple[str, ...]]:
    """``error-codes``: UPPER_SNAKE_CASE names, each with a non-empty list of keywords."""
    codes: dict[str, tuple[str, ...]] = {}
    for code, keywords in table.items():
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
    return _helper_target(error_settings(config))


def _helper_target(settings: ErrorSettings) -> tuple[str, str]:
    found = split_helper(settings.error_helper) if settings.error_helper else None
    if found is not None:
        return found
    return module_path(settings.error_model_module), DEFAULT_ERROR_HELPER


def module_path(path: str) -> str:
    """``errsvc/error_codes.py`` -> ``errsvc.error_codes`` (a leading ``src/`` dropped)."""
    parts = list(PurePosixPath(path.replace("\\", "/")).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    return ".".join(parts)


def _check_helper_exists(settings: ErrorSettings, context: SectionContext) -> None:
    """A configured helper outside the error model module must exist in the repository.

    unsentinel only ever adds the helper to the error model module it generates; it does not
    write into other modules, so a helper it cannot find there is a configuration error.
    """
    if settings.error_target != "helper" or not settings.error_helper:
        return
    module, name = _helper_target(settings)
    if module == module_path(settings.error_model_module):
        return
    root, relative = context.root, Path(*module.split("."))
    candidates = [root / base / relative.with_suffix(".py") for base in ("", "src")] + [
        root / base / relative / "__init__.py" for base in ("", "src")
    ]
    if any(candidate.is_file() and _defines(candidate, name) for candidate in candidates):
        return
    raise ConfigError(
        f"{context.where('error-helper')} = {settings.error_helper!r}: no module {module} in "
        f"{root} defines {name}(); define it there, or leave 'error-helper' unset so "
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


def _outputs(settings: ErrorSettings) -> dict[str, str]:
    return {
        "error-codes-module": settings.error_codes_module,
        "error-model-module": settings.error_model_module,
    }


SECTION = Section(ErrorSettings, read_settings, _outputs)
