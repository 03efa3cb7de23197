"""The byte-level prefilter: decide, without parsing, whether a file can matter at all.

Each enabled rule names the byte patterns it needs (``patterns``, by default its
``needles``); a file that matches none of them is never handed to LibCST. This is what keeps
``check`` fast on large trees: most modules of a real repository mention neither a sentinel
nor a warnings list.

The prefilter reads rules through :class:`Detects` only. A feature describes each of its
rules by a :class:`Detector` in a module that imports no LibCST (``warnings/detect.py``,
``errors/detect.py``, ``review/detect.py``), so that a run whose files all stop here never
imports LibCST or a rule module: the rule class is imported when a file reaches LibCST.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol

from unsentinel.core.config import Config
from unsentinel.core.pywalk import walk

if TYPE_CHECKING:
    from unsentinel.core.rule import Rule

Needles = Callable[[Config], "tuple[bytes, ...]"]
Refine = Callable[[bytes, ast.Module, Config], bool]


class Detects(Protocol):
    """What the prefilter asks of a rule: a :class:`Detector`, or a rule class itself (its
    classmethods of the same names; tests declare small rules that way)."""

    @property
    def code(self) -> str: ...

    def needles(self, config: Config) -> tuple[bytes, ...]: ...

    def patterns(self, config: Config) -> tuple[bytes, ...]: ...

    def refine(self, data: bytes, tree: ast.Module, config: Config) -> bool: ...

    def load(self) -> type[Rule]: ...


@dataclass(frozen=True)
class Detector:
    """One rule as the prefilter sees it, without LibCST: its code and name, the words a
    file must contain, the patterns that narrow them, and a second look on Python's ``ast``.

    ``rule`` names the rule class (``"package.module:Class"``); it is imported only by
    :meth:`load`, when a file reaches LibCST or a command needs the class (docs, listings).
    The class points back (``Rule.detector``), so code, name and needles are written once.
    """

    code: str
    name: str
    rule: str
    needles_of: Needles
    patterns_of: Needles | None = None  # None: the needles, as literal text
    refine_with: Refine | None = None  # None: a pattern match is enough

    def needles(self, config: Config) -> tuple[bytes, ...]:
        """Byte strings of which one must occur in a file (in any case) for the rule to act;
        every match of a pattern contains one of them."""
        return self.needles_of(config)

    def patterns(self, config: Config) -> tuple[bytes, ...]:
        """Regular expressions (bytes): a common needle (``warnings``) narrowed to the uses
        the rule cares about, so that ``import warnings`` alone does not cost a parse."""
        if self.patterns_of is not None:
            return self.patterns_of(config)
        return tuple(re.escape(needle) for needle in self.needles(config))

    def refine(self, data: bytes, tree: ast.Module, config: Config) -> bool:
        """Second look, on Python's own parse: could the rule act here? Never says no where
        the rule would report or rewrite something."""
        return self.refine_with is None or self.refine_with(data, tree, config)

    def load(self) -> type[Rule]:
        """The rule class, imported now (its module imports LibCST)."""
        module, _, name = self.rule.partition(":")
        rule: type[Rule] = getattr(importlib.import_module(module), name)
        return rule


class Prefilter:
    """The rules' needles and patterns over a file's bytes, then over its ``ast``.

    ``names``: the functions the gather pass has facts about (a helper that returns
    warnings, a tuple slot that holds one). A file that spells one may have something to
    rewrite though it spells no needle: the helper's own module (``return None, note``),
    a test that only reads its result (``assert "9999" in note``). Such a file must reach
    the rules, or one half of a group would change without the other.
    """

    def __init__(
        self,
        rules: Iterable[Detects],
        config: Config,
        names: Iterable[str] = (),
        module_functions: Iterable[str] = (),
    ) -> None:
        self._config = config
        self._rules = [(rule, _compiled(rule.patterns(config))) for rule in rules]
        self._pattern = _compiled(p for rule, _ in self._rules for p in rule.patterns(config))
        self._cover = _by_part(_anchors(n for rule, _ in self._rules for n in rule.needles(config)))
        self._names = frozenset(name for name in names if name.isidentifier())
        self._module_functions = frozenset(module_functions) & self._names
        self._name_bytes = tuple(sorted(name.encode() for name in self._names))

    @property
    def fact_names(self) -> frozenset[str]:
        return self._names

    def spells_fact_name(self, data: bytes) -> bool:
        """Do the bytes spell, as a whole word, a function the facts name?

        Each name that occurs at all is then looked for as a word on its own: one regular
        expression of every name, each behind a lookbehind, reads a large file at a
        fraction of the speed of these few searches.
        """
        return self._spells_a_name(data, whole_word)

    def may_call_a_fact_name(self, data: bytes) -> bool:
        """May the code call, define or import under another name a function the facts
        name (what :meth:`CallNames.spells_any` asks of Python's parse)? Read off the bytes:
        such a name is followed by a parenthesis or a bracket, or by ``as``. A no is
        certain where the bytes are ASCII; elsewhere ``ast`` may spell a name otherwise."""
        return self._spells_a_name(data, called_word if data.isascii() else whole_word)

    def _spells_a_name(self, data: bytes, spelling: Callable[[bytes], re.Pattern[bytes]]) -> bool:
        # Each name that occurs at all is then looked for as ``spelling`` has it.
        return any(
            name in data and spelling(name).search(data) is not None for name in self._name_bytes
        )

    def may_match(self, data: bytes) -> bool:
        """First look, on the bytes: does any rule's pattern occur at all?

        Plain substring tests go first: ``in`` on bytes runs at memory speed, while one
        regular expression of many alternatives (lookarounds included) reads about 20 MB/s.
        A pattern only ever matches where one of its rule's needles occurs, so a file
        without any needle (ignoring case) cannot match.
        """
        return self.matches_a_rule(data) or self.spells_fact_name(data)

    def matches_a_rule(self, data: bytes) -> bool:
        """Does any rule's pattern occur in the bytes (the first look without the facts)?"""
        if self._pattern is None:
            return False
        if not holds_an_anchor(data.lower(), self._cover):
            return False
        return self._pattern.search(data) is not None

    def second_look(self, data: bytes, tree: ast.Module, *, any_rule: bool = True) -> SecondLook:
        """Second look, on Python's own parse: could a rule whose pattern occurs act here,
        or does the code (not a comment or a docstring) spell a function the facts name?
        What the code calls, where that was read to decide, comes with the answer: a later
        gather round asks it again when the facts learn about more functions.

        ``any_rule`` False: the first look found no rule's pattern in the bytes (a fact name
        let the file through), so the rules' patterns are not searched again.
        """
        if any_rule and any(
            pattern is not None and pattern.search(data) and rule.refine(data, tree, self._config)
            for rule, pattern in self._rules
        ):
            return SecondLook(candidates=True)
        if not self.spells_fact_name(data):
            return SecondLook(candidates=False)
        calls = CallNames.of(tree)
        return SecondLook(self.admits(calls), calls)

    def admits(self, calls: CallNames) -> bool:
        """Does a file that calls ``calls`` call a function the facts name?"""
        return calls.spells_any(self._names, self._module_functions)


def _compiled(patterns: Iterable[bytes]) -> re.Pattern[bytes] | None:
    unique = sorted(set(patterns))
    return re.compile(b"|".join(unique)) if unique else None


@cache  # the facts name the same functions round after round
def whole_word(name: bytes) -> re.Pattern[bytes]:
    """``name`` as a word on its own in a file's bytes."""
    return re.compile(rb"(?<!\w)" + re.escape(name) + rb"(?!\w)")


@cache
def called_word(name: bytes) -> re.Pattern[bytes]:
    """``name`` as a word on its own where a call, a ``def`` or a renaming import may
    spell it: before an opening parenthesis or bracket (``f(x)``, ``def f[T](``, also after
    closing ones: ``(f)(x)``) or ``as`` (``import f as g``), with spaces, comments and line
    continuations between."""
    between = rb"(?:\s|\\\n|#[^\n]*\n|\))*"
    return re.compile(rb"(?<!\w)" + re.escape(name) + rb"(?!\w)" + between + rb"(?:[(\[]|as(?!\w))")


def _anchors(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles, lower-cased, without those that contain a shorter one (implied by it)."""
    lowered = sorted({needle.lower() for needle in needles}, key=len)
    anchors: list[bytes] = []
    for needle in lowered:
        if not any(anchor in needle for anchor in anchors):
            anchors.append(needle)
    return tuple(anchors)


_RARE = frozenset(b"\"'()[]{}:")  # in code, rarer than letters: a part holding one is kept
_COVER_PART = range(4, 13)  # lengths of the parts a cover is made of


def _is_rare(part: bytes) -> bool:
    return not _RARE.isdisjoint(part)


def _part_rank(part: bytes) -> tuple[bool, int, bytes]:
    return (_is_rare(part), len(part), part)


Cover = tuple[tuple[bytes, tuple[bytes, ...]], ...]  # each part, with the anchors holding it


def _by_part(anchors: tuple[bytes, ...]) -> Cover:
    """Each part of :func:`shared_anchors` with the anchors that hold it."""
    return tuple(
        (part, tuple(anchor for anchor in anchors if part in anchor))
        for part in shared_anchors(anchors)
    )


def holds_an_anchor(lowered: bytes, cover: Cover) -> bool:
    """Does ``lowered`` hold one of the anchors ``cover`` was made of?

    Most files hold none, and each absent anchor is a scan of the whole file: the parts'
    few scans turn most files away, and a part found asks only the anchors holding it.
    """
    return any(
        part in lowered and (anchors == (part,) or any(a in lowered for a in anchors))
        for part, anchors in cover
    )


@cache
def shared_anchors(anchors: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """Parts of the anchors, each found in some of them and every anchor holding one.

    ``"ok"]``, ``"ok" in`` and ``get("ok"`` are three scans of a file; ``"ok"`` is one,
    and an anchor can only occur in a file where its part does. Parts are taken greedily:
    those holding a quote, bracket or colon first (``"error`` occurs in fewer files than
    ``error``, which every ``ValueError`` spells), then those in the most anchors, then
    the longest; no whitespace (``" in`` would be in most files).
    """
    holders: dict[bytes, set[bytes]] = {}
    for anchor in anchors:
        for start in range(len(anchor)):
            for length in _COVER_PART:
                part = anchor[start : start + length]
                if len(part) < length:
                    break
                if b" " not in part and b"\t" not in part:
                    holders.setdefault(part, set()).add(anchor)
    # Of parts held by the same anchors, only the best can be chosen: keep that one.
    best: dict[frozenset[bytes], bytes] = {}
    for part, held in holders.items():
        key = frozenset(held)
        if key not in best or _part_rank(part) > _part_rank(best[key]):
            best[key] = part
    left = set(anchors)
    cover: list[bytes] = []
    while left:
        useful = [(held & left, part) for held, part in best.items() if not held.isdisjoint(left)]
        if not useful:
            break
        covered, part = max(useful, key=lambda it: (_is_rare(it[1]), len(it[0]), len(it[1]), it[1]))
        cover.append(part)
        left -= covered
    return (*cover, *sorted(left))  # an anchor too short for a part is its own


@dataclass(frozen=True)
class SecondLook:
    """The prefilter's second look at one file: may a rule act on it, and what the file
    calls, where the answer needed it (the code spells a function the facts name)."""

    candidates: bool
    calls: CallNames | None = None


@dataclass(frozen=True)
class CallNames:
    """What a module calls, defines and imports, as far as the facts' function names go:
    kept for a file the prefilter stopped, so a later gather round that learns about more
    functions asks this instead of reading and parsing the file again."""

    bare: frozenset[str]  # ``x = request(...)``, a ``def``, ``import check as run_check``
    attributes: dict[str, frozenset[str]]  # ``x = client.request(...)``: name -> roots
    imported: frozenset[str]  # names the imports bind

    @classmethod
    def of(cls, tree: ast.Module) -> CallNames:
        """What ``tree`` calls where it keeps the result. A call that is a statement of
        its own (``self.check(data)``, ``await client.request(...)``) throws its result
        away: what the facts say a function returns never reaches the file through it.
        (Counted, such calls admitted a test suite's every ``self.check(...)`` once some
        method named ``check`` returned warnings: 147 of the 219 files of the standard
        library and site-packages admitted by a fact name, none with anything to migrate.)"""
        bare: set[str] = set()
        attributes: dict[str, set[str]] = {}
        imported: set[str] = set()
        discarded: set[int] = set()  # the calls that are statements (parents come first)
        for node in walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
            if isinstance(node, ast.Expr):
                value = node.value.value if isinstance(node.value, ast.Await) else node.value
                discarded.add(id(value))
            elif isinstance(node, ast.Call):
                if id(node) not in discarded:
                    _add_call(node.func, bare, attributes)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bare.add(node.name)
            elif isinstance(node, ast.alias) and node.asname not in (None, node.name):
                # ``from helpers import check as run_check``: the calls spell the new name.
                bare.add(node.name.rpartition(".")[2])
        frozen = {name: frozenset(roots) for name, roots in attributes.items()}
        return cls(frozenset(bare), frozen, frozenset(imported))

    def spells_any(
        self, names: frozenset[str], module_functions: frozenset[str] = frozenset()
    ) -> bool:
        """Does the code call or define one of ``names``, or import one under another name?

        What the facts say about a function reaches a file through a call's result (or the
        function's own ``def``); a name that is only mentioned (``import urllib.request``, an
        attribute read, a reference passed on) reads no result. Only calls count, so a common
        name (``request``, ``run``) admits the files that call it, not every file that spells
        it. A module-level function (``module_functions``) is called bare or through a module
        the file imports (``client.request(...)``), never as a method of another object
        (``conn.request("GET", ...)``).
        """
        if not self.bare.isdisjoint(names):
            return True
        receivers: set[str] = set()
        for name, roots in self.attributes.items():
            if name in module_functions:
                receivers |= roots
            elif name in names:
                return True
        return not receivers.isdisjoint(self.imported)


def _add_call(func: ast.expr, bare: set[str], attributes: dict[str, set[str]]) -> None:
    if isinstance(func, ast.Name):
        bare.add(func.id)
    elif isinstance(func, ast.Attribute):
        roots = attributes.setdefault(func.attr, set())
        receiver = func.value
        while isinstance(receiver, ast.Attribute):  # ``pkg.client.request(...)``
            receiver = receiver.value
        if isinstance(receiver, ast.Name):
            roots.add(receiver.id)
