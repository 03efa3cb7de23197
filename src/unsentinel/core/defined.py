"""The names the repository itself defines: a fact both features share.

A call's callee decides what a value passed to it may become. A function or class the
repository defines is ours: its parameters are places the flow follows (or holds back).
One it does not define is library code (``Badge(label=w)``, ``logger.info(w)``): it keeps
the contract it had, so a warning passed to it stays what it was there (text).

Read from every file's bytes with a regular expression, parsed or not (see
``_DEF`` for why not ``ast``). A ``def`` inside a docstring adds a
name too: an extra name only makes a callee look like ours, the cautious side.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.facts import FactBook, ReadFile

# ``def name(`` / ``class Name`` at the start of a line (any depth), with its indentation (an
# indented ``def`` is a method, or a nested function, which ``obj.name(...)`` may run). A
# regular expression over the bytes is two orders of magnitude cheaper than ``ast.parse``
# plus a walk, which was most of ``check``'s time on a large tree. Each keyword has its
# own expression, beginning with the keyword: the engine then looks for that word alone
# (five times faster over sympy than one expression anchored at every line start), and
# what comes before it on the line is tested per definition. The name stops at ``[``,
# where a generic (``def first[T](items)``) lists its type parameters.
_DEF = re.compile(rb"def[ \t]+([^\s(:\[]+)[ \t]*[(:\[]")
_CLASS = re.compile(rb"class[ \t]+([^\s(:\[]+)[ \t]*[(:\[]")
_BEFORE_DEF = re.compile(rb"[ \t]*(?:async[ \t]+)?")
_BEFORE_CLASS = re.compile(rb"[ \t]*")


def _definitions(
    data: bytes, keyword: re.Pattern[bytes], before: re.Pattern[bytes]
) -> Iterator[tuple[bool, bytes]]:
    """``(indented, name)`` of each definition ``keyword`` finds at the start of a line."""
    for match in keyword.finditer(data):
        start = match.start()
        head = data[data.rfind(b"\n", 0, start) + 1 : start]
        if before.fullmatch(head) is not None:
            yield head[:1] in (b" ", b"\t"), match.group(1)


@dataclass(frozen=True)
class DefinedNames:
    """Functions (at any depth, methods included) and classes the repository defines."""

    functions: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    methods: frozenset[str] = frozenset()  # of ``functions``, those defined indented

    def defines(self, name: str) -> bool:
        return name in self.functions or name in self.classes

    # -- the protocol (unsentinel.core.facts.Facts) ---------------------------------------
    @classmethod
    def from_source(cls, data: bytes) -> DefinedNames | None:
        functions: set[str] = set()
        classes: set[str] = set()
        methods: set[str] = set()
        for indented, raw in _definitions(data, _DEF, _BEFORE_DEF):
            name = raw.decode("utf-8", "replace")
            if name.isidentifier():
                functions.add(name)
                if indented:
                    methods.add(name)
        for _indented, raw in _definitions(data, _CLASS, _BEFORE_CLASS):
            name = raw.decode("utf-8", "replace")
            if name.isidentifier():
                classes.add(name)
        if not functions and not classes:
            return None
        return cls(frozenset(functions), frozenset(classes), frozenset(methods))

    @classmethod
    def from_context(cls, context: ReadFile) -> DefinedNames:
        return cls()  # everything is in the bytes

    def merge(self, other: DefinedNames) -> DefinedNames:
        return DefinedNames(
            self.functions | other.functions,
            self.classes | other.classes,
            self.methods | other.methods,
        )

    def settle(self, config: Config) -> DefinedNames:
        return self

    def changed_functions(self, previous: DefinedNames) -> set[str]:
        return set()  # the bytes say it all in the first round

    def function_names(self) -> frozenset[str]:
        return frozenset()  # admits no prefiltered file


def may_be_defined(facts: FactBook, name: str) -> bool:
    """May the repository define ``name``? Every name may before the gather pass merged
    the repository's definitions (its first round); after, only the names it defines.

    A callee the repository does not define (``os.path.abspath``, ``requests.get``) never
    returns a project warning: what it returns is no place of the flow, whatever project
    function of the same name returns."""
    return not facts.gathered or facts.get(DefinedNames).defines(name)


# Names Python resolves to its builtins where a module binds nothing of that name.
BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))


def binds_name(text: str, name: str) -> bool:
    """May the module ``text`` bind ``name`` itself (a ``def``, a class, an import, an
    assignment, a parameter or a loop target)? Read off the text, so a false yes is
    possible (the cautious side: the call may then be the module's own function), a
    false no is not for the ordinary ways of binding a name."""
    return name in _bound_builtins(text)


# Every analysis of a file asks, with the same text; a gather round analyses every file
# that reached the rules before the next round comes back to the first.
@lru_cache(maxsize=512)
def _bound_builtins(text: str) -> frozenset[str]:
    found: set[str] = set()
    for match in _BINDING.finditer(text):
        words = match.group("words") or match.group("words2")
        if words:
            found.update(_IDENTIFIER.findall(words))
        else:
            found.add(match.group("name") or match.group("target") or match.group("param"))
    return frozenset(found) & BUILTIN_NAMES


_BINDING = re.compile(
    r"\b(?:def|class|as|global|nonlocal|lambda)\s+(?P<name>\w+)"  # def type, as type
    r"|\bimport\s+(?P<words>\([^)]*\)|[^\n#]*)"  # from x import type, (a, type)
    r"|\bfor\s+(?P<words2>[^\n]*?)\s+in\b"  # for type in ..., for a, type in ...
    r"|(?<![\w.])(?P<target>\w+)\s*(?::[^=\n]*)?:?=(?!=)"  # type = ..., type: T = ..., :=
    r"|[(,*]\s*(?P<param>\w+)(?=\s*[,):=])"  # a parameter (or an argument: cautious)
)
_IDENTIFIER = re.compile(r"\w+")
