"""The byte-level prefilter: decide, without parsing, whether a file can matter at all.

Each enabled rule names the byte patterns it needs (``Rule.patterns``, by default its
``needles``); a file that matches none of them is never handed to LibCST. This is what keeps
``check`` fast on large trees: most modules of a real repository mention neither a sentinel
nor a warnings list.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from unsentinel.core.config import Config
from unsentinel.core.rule import Rule


class Prefilter:
    def __init__(self, rules: Iterable[type[Rule]], config: Config) -> None:
        self._config = config
        self._rules = [(rule, _compiled(rule.patterns(config))) for rule in rules]
        self._pattern = _compiled(p for rule, _ in self._rules for p in rule.patterns(config))
        self._anchors = _anchors(n for rule, _ in self._rules for n in rule.needles(config))

    def may_match(self, data: bytes) -> bool:
        """First look, on the bytes: does any rule's pattern occur at all?

        Plain substring tests go first: ``in`` on bytes runs at memory speed, while one
        regular expression of many alternatives (lookarounds included) reads about 20 MB/s.
        A pattern only ever matches where one of its rule's needles occurs, so a file
        without any needle (ignoring case) cannot match.
        """
        if self._pattern is None:
            return False
        lowered = data.lower()
        if not any(anchor in lowered for anchor in self._anchors):
            return False
        return self._pattern.search(data) is not None

    def has_candidates(self, data: bytes, tree: ast.Module) -> bool:
        """Second look, on Python's own parse: could a rule whose pattern occurs act here?"""
        return any(
            pattern is not None and pattern.search(data) and rule.refine(data, tree, self._config)
            for rule, pattern in self._rules
        )


def _compiled(patterns: Iterable[bytes]) -> re.Pattern[bytes] | None:
    unique = sorted(set(patterns))
    return re.compile(b"|".join(unique)) if unique else None


def _anchors(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles, lower-cased, without those that contain a shorter one (implied by it)."""
    lowered = sorted({needle.lower() for needle in needles}, key=len)
    anchors: list[bytes] = []
    for needle in lowered:
        if not any(anchor in needle for anchor in anchors):
            anchors.append(needle)
    return tuple(anchors)
