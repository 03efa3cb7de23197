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

from unsentinel.core.config import Config, ConfigError, load_config
from unsentinel.core.lock import LockError
from unsentinel.core.model import Action, Confidence, FileResult, Inferred, Kind, Mode, Site, Status
from unsentinel.core.runner import RunResult
from unsentinel.registry import rewrite_source, run

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
