"""The byte-level prefilter: decide, without parsing, whether a file can matter at all.

Each enabled rule names the byte strings it needs (``Rule.needles``); a file that contains
none of them is never handed to LibCST. This is what keeps ``check`` fast on large trees:
most modules of a real repository mention neither a sentinel nor a warnings list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .config import Config
from .rules import Rule


class Prefilter:
    def __init__(self, rules: Iterable[type[Rule]], config: Config) -> None:
        needles = sorted({needle for rule in rules for needle in rule.needles(config)})
        self._pattern = re.compile(b"|".join(re.escape(n) for n in needles)) if needles else None

    def may_match(self, data: bytes) -> bool:
        return self._pattern is not None and self._pattern.search(data) is not None
