"""unsentinel: migrate sentinel warnings and ad-hoc error dicts to structured models.

The library API mirrors the command line::

    from pathlib import Path
    from unsentinel import Mode, load_config, run

    config = load_config((Path("src"),))
    result = run([Path("src")], config, Mode.CHECK)
    for path, site in result.sites:
        ...
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from unsentinel.core.config import Config
from unsentinel.core.config_checks import ConfigError
from unsentinel.core.lock import LockError
from unsentinel.core.model import Action, Confidence, FileResult, Inferred, Kind, Mode, Site, Status

if TYPE_CHECKING:
    from unsentinel.core.runner import RunResult
    from unsentinel.registry import load_config, rewrite_source, run

# The engine, the rules and LibCST load on first use, so that `unsentinel --version` and
# a `check` with nothing to parse start quickly (PEP 562 module __getattr__).
_LAZY = {
    "RunResult": "unsentinel.core.runner",
    "load_config": "unsentinel.registry",  # with every feature's [tool.unsentinel] keys
    "rewrite_source": "unsentinel.registry",
    "run": "unsentinel.registry",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'unsentinel' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Action",
    "Confidence",
    "Config",
    "ConfigError",
    "FileResult",
    "Inferred",
    "Kind",
    "LockError",
    "Mode",
    "RunResult",
    "Site",
    "Status",
    "load_config",
    "rewrite_source",
    "run",
]
