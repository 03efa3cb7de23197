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

from .config import Config, ConfigError, load_config
from .engine import rewrite_source
from .lock import LockError
from .model import Action, Confidence, FileResult, Inferred, Kind, Mode, Site, Status
from .runner import RunResult, run

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
