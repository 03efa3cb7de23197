"""The byte-level prefilter: decide, without parsing, whether a file can matter at all.

Each enabled rule names the byte patterns it needs (``Rule.patterns``, by default its
``needles``); a file that matches none of them is never handed to LibCST. This is what keeps ``check`` fast on large trees:
most modules of a real repository mention neither a sentinel nor a warnings list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from unsentinel.core.config import Config
from unsentinel.core.rule import Rule


class Prefilter:
    def __init__(self, rules: Iterable[type[Rule]], config: Config) -> None:
        patterns = sorted({pattern for rule in rules for pattern in rule.patterns(config)})
        self._pattern = re.compile(b"|".join(patterns)) if patterns else None

    def may_match(self, data: bytes) -> bool:
        return self._pattern is not None and self._pattern.search(data) is not None
