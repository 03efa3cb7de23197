"""The warning feature's part of ``[tool.unsentinel]``: what a warning looks like here.

The core reads only the common keys; these are the warning rules' own (which prefixes and
constants mark a sentinel warning, which names hold warnings lists, where the generated
``warning_codes`` and ``Warning`` modules go). The registry hands :data:`SECTION` to
``load_config``, which gives :func:`read_settings` the raw values of exactly these keys;
rules read the result with :func:`warning_settings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unsentinel.core.config import Config, Section, SectionContext
from unsentinel.core.config_checks import (
    ConfigError,
    check_strings,
    check_table,
    check_text,
    did_you_mean,
)
from unsentinel.core.model import Severity

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
SEVERITIES = tuple(severity.value for severity in Severity)
_LIST_KEYS = frozenset(
    {
        "sentinel-prefixes",
        "sentinel-constants",
        "warning-list-names",
        "info-keywords",
        "entity-nouns",
    }
)
_MODULE_KEYS = {"codes-module": "warning_codes.py", "models-module": "warning_model.py"}


@dataclass(frozen=True)
class WarningSettings:
    """The warning rules' settings; each field is the key of the same name, kebab-cased."""

    sentinel_prefixes: tuple[str, ...] = ("BLOCK:",)
    sentinel_constants: tuple[str, ...] = ("BLOCK_WARNING_PREFIX",)
    markers: Mapping[str, Severity] = field(default_factory=dict)  # extra prefix -> severity
    warning_list_names: tuple[str, ...] = ("warnings",)
    info_keywords: tuple[str, ...] = DEFAULT_INFO_KEYWORDS
    entity_nouns: tuple[str, ...] = ()  # the project's domain nouns, dropped from codes
    codes_module: str = _MODULE_KEYS["codes-module"]
    models_module: str = _MODULE_KEYS["models-module"]

    @property
    def severity_markers(self) -> dict[str, Severity]:
        """Every textual marker the rules recognise, mapped to the severity it means."""
        markers = {prefix: Severity.BLOCKING for prefix in self.sentinel_prefixes}
        markers.update(self.markers)
        return markers


def warning_settings(config: Config) -> WarningSettings:
    """The warning settings in force (the defaults for a ``Config()`` built in code)."""
    return config.section(WarningSettings)


def read_settings(table: Mapping[str, Any], context: SectionContext) -> WarningSettings:
    """Validate the warning keys; generated modules default into the project's package."""
    values: dict[str, Any] = {
        key.replace("-", "_"): f"{context.package}/{name}"
        for key, name in _MODULE_KEYS.items()
        if context.package is not None
    }
    for key, value in table.items():
        where = context.where(key)
        if key in _LIST_KEYS:
            values[key.replace("-", "_")] = check_strings(value, where)
        elif key in _MODULE_KEYS:
            values[key.replace("-", "_")] = check_text(value, where)
        else:  # "markers": the core hands a section only the keys it owns
            values["markers"] = _markers(value, context)
    return WarningSettings(**values)


def _markers(value: object, context: SectionContext) -> dict[str, Severity]:
    table = check_table(value, context.where("markers"), "a table of prefix = severity")
    for marker, severity in table.items():
        if severity not in SEVERITIES:
            hint = did_you_mean(severity, SEVERITIES) if isinstance(severity, str) else ""
            where = context.where(f'markers."{marker}"')
            raise ConfigError(
                f"{where} must be one of {', '.join(SEVERITIES)}, got {severity!r}{hint}"
            )
    return {marker: Severity(severity) for marker, severity in table.items()}


def _outputs(settings: WarningSettings) -> dict[str, str]:
    return {"codes-module": settings.codes_module, "models-module": settings.models_module}


SECTION = Section(WarningSettings, read_settings, _outputs)
