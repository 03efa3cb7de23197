"""What one analysis asked the cross-file facts, so a later pass can tell if it still holds.

A file's analysis reads the facts only through the questions its rules ask of each
feature's value (``facts.return_shape("load")``, ``name in facts.returning``,
``facts.gathered``). Given the same tree, configuration and answers, the rules do the same
thing: the analysis is a function of its answers. :func:`asking` hands the rules a fact
book that notes every question with its answer (:class:`Asked`); :meth:`Asked.holds_under`
asks the same questions of a later round's book. Where every answer is the same, the
earlier analysis is the one the rules would make again, so a later gather round or the
final pass takes it instead of running the rules once more.

Questions are as narrow as the rules ask them: a set read only by ``name in ...`` and a
mapping read only by ``.get(name)`` are questions about that one name, so a file is not
analysed again because the facts learnt about functions it never names. Any other use of
such a value (iterating, combining, its size) reads it whole.

The answers are compared strictly (:func:`same`): equal values, the same types, and the
same order wherever a collection is iterated, since an analysis may act on the first of a
set. A question whose arguments cannot be kept as a key (unhashable) makes the record
unusable, never a guess.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import and_, or_, sub, xor
from typing import Any, Literal

from unsentinel.core.facts import FactBook

How = Literal["value", "call", "in", "get", "bool", "len"]
# (feature, attribute, how it was asked, arguments, keyword arguments)
Question = tuple[type[Any], str, How, "tuple[object, ...]", "tuple[tuple[str, object], ...]"]

MISSING = object()  # a mapping's answer for a key it does not hold
_FLAT: frozenset[type[Any]] = frozenset({str, int, bool, float, bytes, type(None)})


@dataclass
class Asked:
    """The questions one analysis asked, each with its answer, and the book it asked."""

    gathered: bool
    kinds: tuple[type[Any], ...]  # the features whose questions are recorded
    others: dict[type[Any], Any]  # other entries (a reviewer's decisions): these very values
    answers: dict[Question, object] = field(default_factory=dict)
    usable: bool = True  # False: a question could not be recorded

    def note(self, question: Question, answer: object) -> None:
        try:
            if question in self.answers:
                return  # the facts do not change during an analysis: asked before, same answer
        except TypeError:  # an unhashable argument: no key to ask it by again
            self.usable = False
            return
        # A fresh set or list may be changed by its caller; keep what was answered.
        if isinstance(answer, (set, list, dict)):
            answer = answer.copy()
        self.answers[question] = answer

    def holds_under(self, book: FactBook) -> bool:
        """Would every question get the same answer from ``book``?"""
        if not self.usable or book.gathered != self.gathered:
            return False
        others = {kind: value for kind, value in book.entries.items() if kind not in self.kinds}
        if others.keys() != self.others.keys() or any(
            value is not self.others[kind] for kind, value in others.items()
        ):
            return False
        return all(
            same(answer, answer_to(book.get(question[0]), question))
            for question, answer in self.answers.items()
        )


def answer_to(value: object, question: Question) -> object:
    """What ``value`` (one feature's facts) answers to ``question``."""
    _kind, name, how, args, keywords = question
    found = getattr(value, name)
    if how == "call":
        return found(*args, **dict(keywords))
    if how == "in":
        return args[0] in found
    if how == "get":
        return found.get(args[0], MISSING)
    if how == "bool":
        return bool(found)
    if how == "len":
        return len(found)
    return found


def asking(book: FactBook, kinds: tuple[type[Any], ...]) -> tuple[FactBook, Asked]:
    """``book`` as the rules read it, with every question about a value of ``kinds`` noted
    in the returned :class:`Asked`; other entries pass through and must stay the same."""
    others = {kind: value for kind, value in book.entries.items() if kind not in kinds}
    asked = Asked(book.gathered, kinds, others)
    entries: dict[type[Any], Any] = dict(others)
    for kind in kinds:
        entries[kind] = _Asking(kind, book.get(kind), asked)
    return FactBook(entries, gathered=book.gathered), asked


class _Asking:
    """One feature's facts as the rules see them: every attribute read and method call goes
    to the real value and is noted, with its answer, in ``asked``."""

    __slots__ = ("_asked", "_kind", "_value")

    def __init__(self, kind: type[Any], value: object, asked: Asked) -> None:
        self._kind = kind
        self._value = value
        self._asked = asked

    def note(self, name: str, how: How, args: tuple[object, ...], answer: object) -> None:
        self._asked.note((self._kind, name, how, args, ()), answer)

    def __getattr__(self, name: str) -> object:
        if name in _Asking.__slots__:  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        value = getattr(self._value, name)
        if isinstance(value, (set, frozenset)):
            return _AskingSet(self, name, value)
        if isinstance(value, Mapping):
            return _AskingMapping(self, name, value)
        if not callable(value):
            self.note(name, "value", (), value)
            return value
        method: Callable[..., object] = value

        def ask(*args: object, **keywords: object) -> object:
            answer = method(*args, **keywords)
            self._asked.note((self._kind, name, "call", args, tuple(keywords.items())), answer)
            return answer

        return ask


class _Whole:
    """An attribute that is a collection, as the rules read it: what its subclass answers
    by key is a question about that key; every other use reads (and notes) it whole."""

    __slots__ = ("_asking", "_name", "_real")

    def __init__(self, asking: _Asking, name: str, real: Any) -> None:
        self._asking = asking
        self._name = name
        self._real = real

    def _whole(self) -> Any:
        self._asking.note(self._name, "value", (), self._real)
        return self._real

    def __getattr__(self, name: str) -> object:
        if name in _Whole.__slots__:
            raise AttributeError(name)
        return getattr(self._whole(), name)  # ``items()``, ``isdisjoint(...)``, ...

    def __iter__(self) -> Iterator[Any]:
        return iter(self._whole())

    def __len__(self) -> int:  # its size, not which names: a question of its own
        answer = len(self._real)
        self._asking.note(self._name, "len", (), answer)
        return answer

    def __bool__(self) -> bool:
        answer = bool(self._real)
        self._asking.note(self._name, "bool", (), answer)
        return answer

    def __eq__(self, other: object) -> bool:
        return bool(self._whole() == _real(other))

    def __hash__(self) -> int:
        return hash(self._whole())

    def __repr__(self) -> str:
        return repr(self._whole())


class _SetOperators:
    """``|``, ``&``, ``-`` and ``^`` with a recorded set on either side: a
    :class:`_Combined` that asks its operands one name at a time when tested for one, and
    builds the real set, operands in their order, for anything else."""

    __slots__ = ()

    def __or__(self, other: Any) -> Any:
        return _combined(or_, self, other)

    def __ror__(self, other: Any) -> Any:
        return _combined(or_, other, self)

    def __and__(self, other: Any) -> Any:
        return _combined(and_, self, other)

    def __rand__(self, other: Any) -> Any:
        return _combined(and_, other, self)

    def __sub__(self, other: Any) -> Any:
        return _combined(sub, self, other)

    def __rsub__(self, other: Any) -> Any:
        return _combined(sub, other, self)

    def __xor__(self, other: Any) -> Any:
        return _combined(xor, self, other)

    def __rxor__(self, other: Any) -> Any:
        return _combined(xor, other, self)

    def __le__(self, other: Any) -> bool:
        return bool(_real(self) <= _real(other))

    def __lt__(self, other: Any) -> bool:
        return bool(_real(self) < _real(other))

    def __ge__(self, other: Any) -> bool:
        return bool(_real(self) >= _real(other))

    def __gt__(self, other: Any) -> bool:
        return bool(_real(self) > _real(other))


class _AskingSet(_SetOperators, _Whole):
    """A set of the facts: ``x in s`` asks about ``x`` alone."""

    __slots__ = ()

    def __contains__(self, item: object) -> bool:
        answer = item in self._real
        self._asking.note(self._name, "in", (item,), answer)
        return answer


def _combined(operator: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
    """``operator(left, right)``, kept lazy where both are sets (or recorded ones);
    anything else is worked out at once, as the expression would have been."""
    if all(isinstance(side, (frozenset, _AskingSet, _Combined)) for side in (left, right)):
        return _Combined(operator, left, right)
    # A plain ``set`` may change before the result is read: the expression's value is now.
    return operator(_real(left), _real(right))


class _Combined(_SetOperators):
    """A union, intersection, difference or symmetric difference not built yet."""

    __slots__ = ("_built", "_left", "_operator", "_right")

    def __init__(self, operator: Callable[[Any, Any], Any], left: Any, right: Any) -> None:
        self._operator = operator
        self._left = left
        self._right = right
        self._built: Any = None

    def _whole(self) -> Any:
        # Built once: every operand is immutable (a frozenset, or the facts' own set).
        if self._built is None:
            self._built = self._operator(_real(self._left), _real(self._right))
        return self._built

    def __contains__(self, item: object) -> bool:
        # Each operand answers for itself, a recorded one by key; the operand an answer
        # does not need is not asked (the recorded answers decide this one all the same).
        inside = item in self._left
        if self._operator is or_:
            return inside or item in self._right
        if self._operator is and_:
            return inside and item in self._right
        if self._operator is sub:
            return inside and item not in self._right
        return inside != (item in self._right)

    def __getattr__(self, name: str) -> object:
        if name in _Combined.__slots__:
            raise AttributeError(name)
        return getattr(self._whole(), name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def __bool__(self) -> bool:
        if self._operator is or_:  # a union is empty where both operands are
            return bool(self._left) or bool(self._right)
        return bool(self._whole())

    def __eq__(self, other: object) -> bool:
        return bool(self._whole() == _real(other))

    def __hash__(self) -> int:
        return hash(self._whole())

    def __repr__(self) -> str:
        return repr(self._whole())


class _AskingMapping(_Whole):
    """A mapping of the facts: ``m.get(k)``, ``m[k]`` and ``k in m`` ask about ``k`` alone."""

    __slots__ = ()

    def _at(self, key: object) -> object:
        answer = self._real.get(key, MISSING)
        self._asking.note(self._name, "get", (key,), answer)
        return answer

    def get(self, key: object, default: object = None) -> object:
        answer = self._at(key)
        return default if answer is MISSING else answer

    def __getitem__(self, key: object) -> object:
        answer = self._at(key)
        if answer is MISSING:
            raise KeyError(key)
        return answer

    def __contains__(self, key: object) -> bool:
        return self._at(key) is not MISSING


def _real(value: Any) -> Any:
    """The value behind a recorded collection (read whole), or ``value`` itself."""
    return value._whole() if isinstance(value, (_Whole, _Combined)) else value


def same(a: object, b: object) -> bool:
    """Equal, of the same types, and in the same order wherever a collection iterates."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return _same_items(list(a), list(b)) and _same_items(list(a.values()), list(b.values()))
    if isinstance(a, (set, frozenset, list, tuple)):
        assert isinstance(b, (set, frozenset, list, tuple))
        return _same_items(list(a), list(b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        names = [f.name for f in dataclasses.fields(a)]
        return _same_items([getattr(a, n) for n in names], [getattr(b, n) for n in names])
    return a == b


def _same_items(a: list[object], b: list[object]) -> bool:
    # Equal element by element first (at C speed), then the types (``1 == True``) and the
    # order inside elements that are collections themselves.
    if len(a) != len(b) or a != b:
        return False
    types_a, types_b = list(map(type, a)), list(map(type, b))
    if types_a != types_b:
        return False
    if _FLAT.issuperset(types_a):
        return True
    return all(same(x, y) for x, y in zip(a, b, strict=True))
