"""The check cache's analyses kept by their answers, so an edit of the facts is not a cold run.

A gather round's output for a file and its check result were keyed by the digest of the
whole fact book: adding a function anywhere changed it, and every file the rules read was
parsed and analysed again, although its analysis would ask the same questions and get the
same answers. :mod:`unsentinel.core.asked` already records those questions within a run;
this module keeps them across runs.

An :class:`Answered` is one analysis's record as the cache stores it: whether the facts were
gathered, each question (the feature, the attribute, how it was asked, its arguments) as
JSON text, and one digest of all their answers, in order. A *kept analysis*
(:class:`Kept`) pairs that record with what the analysis produced: a gather round's output
(the file's facts) or ``check``'s result (its sites). Kept analyses live in one entry per
file key (``answers/``, :func:`load_kept`, :func:`store_kept`); the file key covers the
bytes, the path, the module name, the settings and the versions, so the tree and
everything but the facts are the same. Where :meth:`Answers.holds` finds that the facts
of this run answer every question of a kept analysis alike, that analysis is the one the
rules would make: the pipeline takes its output instead of parsing and analysing
(:meth:`unsentinel.core.engine.Pipeline.process`), and ``check`` its result.

Answers are compared by their canonical encoding (:class:`~unsentinel.core.cache_codec.
FactCodec`: same values and types, sets and mappings sorted), as the fact digests always
were: the order of a set differs between processes with the hash seed, so no run could
rely on it. An analysis whose questions or answers are no data (an unhashable or
unencodable argument, a reviewer's decisions in the book) is not kept; a question that
cannot be asked again (an argument that does not decode, a method that raises) does not
hold. Where no kept analysis holds, the file is analysed as without a cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from unsentinel.core.asked import MISSING, Asked, How, Question, answer_to, same
from unsentinel.core.cache import CheckCache
from unsentinel.core.cache_codec import (
    FORMAT,
    FactCodec,
    class_name,
    decode_result,
    encode_result,
    sha256,
)
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult, Status

Mode = Literal["gather", "check"]
_KEEP = 8  # kept analyses per file key (a run adds up to one per gather round and check)
_MISSING = '{"X": 0}'  # a mapping's answer for a key it lacks (no encoded value looks so)
_FLAT = frozenset({str, int, bool, type(None)})  # exact through JSON
_HOW = frozenset(get_args(How))


@dataclass(frozen=True)
class Answered:
    """An analysis's questions (JSON text each) and the digest of their answers."""

    gathered: bool
    questions: tuple[str, ...]
    digest: str


@dataclass(frozen=True)
class Kept:
    """A kept analysis: its record and its output, as JSON data (a gather round's: the
    file's facts, canonically encoded; ``check``'s: the result, as the cache encodes it)."""

    mode: Mode
    answered: Answered
    output: Any


class Answers:
    """One fact book's answers, encoded once per question however many files ask it."""

    def __init__(self, book: FactBook, codec: FactCodec) -> None:
        self.book = book
        self.codec = codec
        self._texts: dict[str, str | None] = {}  # question -> its answer (None: cannot ask)
        self._questions: dict[Question, str] = {}  # as this run asked them -> their text
        self._asked: dict[str, Question] = {}  # and back
        self._kinds = {class_name(kind): kind for kind in codec.kinds}
        self._clean = set(book.entries) <= set(codec.kinds)  # no reviewer's decisions

    def record(self, asked: Asked | None) -> Answered | None:
        """``asked`` as the cache keeps it (None: it cannot be kept)."""
        if asked is None or not asked.usable or asked.others or not self._clean:
            return None
        try:
            questions = tuple(self._question(question) for question in asked.answers)
        except (TypeError, ValueError, RecursionError):
            return None
        # Asked again of this book, as :meth:`holds` will: the analysis's answers held here.
        answers = [self._answer(question) for question in questions]
        if None in answers or asked.gathered != self.book.gathered:
            return None
        return Answered(asked.gathered, questions, _digest(answers))

    def holds(self, answered: Answered) -> bool:
        """Does this book answer every question of ``answered`` as its analysis was told?"""
        if not self._clean or answered.gathered != self.book.gathered:
            return False
        answers = [self._answer(question) for question in answered.questions]
        return None not in answers and _digest(answers) == answered.digest

    def _question(self, question: Question) -> str:
        if question in self._questions:
            return self._questions[question]
        kind, name, how, args, keywords = question
        text = json.dumps(
            [class_name(kind), name, how, self.codec.encode(args), self.codec.encode(keywords)]
        )
        # Asked again from its text alike? Strings, numbers and None come back from JSON
        # as they were; anything else is decoded and compared.
        flat = not keywords and _FLAT.issuperset(map(type, args))
        if not flat and not same(self._decoded(text), question):
            raise ValueError("a question that does not decode to itself")
        self._questions[question] = text
        self._asked[text] = question
        return text

    def _decoded(self, text: str) -> Question:
        kind, name, how, args, keywords = json.loads(text)
        args, keywords = self.codec.decode(args), self.codec.decode(keywords)
        if how not in _HOW or not isinstance(name, str) or name.startswith("_"):
            raise ValueError("not a question the rules ask")  # never a private method
        if not (isinstance(args, tuple) and isinstance(keywords, tuple)):
            raise ValueError("not a question")
        return (self._kinds[kind], name, how, args, keywords)

    def _answer(self, text: str) -> str | None:
        if text not in self._texts:
            try:
                question = self._asked.get(text) or self._decoded(text)
                answer = answer_to(self.book.get(question[0]), question)
                self._texts[text] = self._encoded(answer)
            except Exception:  # a question this book cannot answer: the record does not hold
                self._texts[text] = None
        return self._texts[text]

    def _encoded(self, answer: object) -> str:
        if answer is MISSING:
            return _MISSING
        return json.dumps(self.codec.encode(answer, canonical=True))


def _digest(answers: Iterable[str | None]) -> str:
    return sha256("\n".join(a or "" for a in answers).encode())


def holding(kept: Sequence[Kept], mode: Mode, answers: Answers) -> Kept | None:
    """The first of ``kept`` made in ``mode`` whose answers ``answers`` gives again."""
    for candidate in kept:
        if candidate.mode == mode and answers.holds(candidate.answered):
            return candidate
    return None


def kept_result(kept: Kept, display: str, codec: FactCodec) -> FileResult:
    """The result ``kept``'s analysis produced (raises ``ValueError``, ``TypeError`` or
    ``KeyError`` where its output does not read)."""
    if kept.mode == "check":
        result = decode_result(kept.output, "", display)
        if result is None or result.status is not Status.PARSED:
            raise ValueError("not a kept result")
        return replace(result, answered=kept.answered)
    facts = tuple(codec.decode(value) for value in kept.output)
    if not all(type(value) in codec.kinds for value in facts):
        raise ValueError("a kept output holds a value of no fact kind")
    return FileResult(display, Status.PARSED, facts=facts, answered=kept.answered)


def kept_output(mode: Mode, result: FileResult, codec: FactCodec) -> Any:
    """What :func:`kept_result` reads back: a gather round's facts, canonically encoded (as
    a pack line holds them), or the check result (raises ``TypeError`` where they are no
    data)."""
    if mode == "check":
        return encode_result(result, "")
    return [codec.encode(value, canonical=True) for value in result.facts]


# -- the entries: one per file key ----------------------------------------------------------


def load_kept(cache: CheckCache, key: str) -> tuple[Kept, ...]:
    """The analyses kept for the file with key ``key`` (none where the entry is absent or
    does not read)."""
    try:
        entry = json.loads(cache.read_entry(key, "answers"))
        if entry["format"] != FORMAT or entry["key"] != key:
            return ()
        questions = entry["questions"]
        if not all(isinstance(question, str) for question in questions):
            return ()
        return tuple(_kept(item, questions) for item in entry["kept"])
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return ()


def _kept(item: Mapping[str, Any], questions: Sequence[str]) -> Kept:
    mode, gathered, asked, digest = item["mode"], item["gathered"], item["asked"], item["digest"]
    if mode not in ("gather", "check") or not isinstance(gathered, bool):
        raise ValueError("not a kept analysis")
    if not isinstance(digest, str) or not all(type(index) is int and index >= 0 for index in asked):
        raise ValueError("not a kept analysis")
    answered = Answered(gathered, tuple(questions[index] for index in asked), digest)
    return Kept(mode, answered, item["output"])


def store_kept(cache: CheckCache, key: str, kept: Sequence[Kept]) -> None:
    """Keep ``kept`` (newest first) for the file with key ``key``, one per record. The
    records of one file ask mostly the same questions: each is written once, and a
    record lists the questions it asked by their place."""
    unique: dict[tuple[str, Answered], Kept] = {}
    for item in kept:
        unique.setdefault((item.mode, item.answered), item)
    places: dict[str, int] = {}
    items = [
        {
            "mode": item.mode,
            "gathered": item.answered.gathered,
            "asked": [places.setdefault(q, len(places)) for q in item.answered.questions],
            "digest": item.answered.digest,
            "output": item.output,
        }
        for item in list(unique.values())[:_KEEP]
    ]
    entry = {"format": FORMAT, "key": key, "questions": list(places), "kept": items}
    try:
        data = json.dumps(entry).encode()
    except (TypeError, ValueError, RecursionError):
        return
    cache.write_entry(key, "answers", data)
