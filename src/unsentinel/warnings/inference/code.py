"""Codes: a stable snake_case slug per message *template*.

A template is the message with its placeholders replaced by ``{}``. Messages that share a
template share a code, across files, and so do rephrasings of one situation (the same
meaningful words in any order); two situations never share one. The slug keeps at most
four meaningful words of the first sentence: placeholders, entity nouns, stop-words and
filler ("got") are dropped, idioms of repetition read as ``duplicate``. Collisions resolve
deterministically (sorted by template text): the first template keeps the short slug,
later ones grow a word at a time, then a number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from unsentinel.warnings.inference.code_words import (
    ABSENCE_PARTICIPLES,
    AUXILIARIES,
    CONDITION_WORDS,
    GENERIC_ENTITY_NOUNS,
    IDIOMS,
    IRREGULAR_PARTICIPLES,
    NEGATIONS,
    STOP_WORDS,
    TRAILING_CONDITIONS,
)
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.config import Config

MAX_WORDS = 4


@dataclass(frozen=True)
class Template:
    """A warning message template (placeholders as ``{}``) and the slug it asks for, with
    the severity its producer got (read by the consumer rule for literals in tests)."""

    text: str
    slug: str
    severity: str | None = None


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# A placeholder with the suffix that makes it a file name, "{}.yml": the value's part.
_VALUE = re.compile(r"\{[^{}]*\}(?:\.[A-Za-z0-9]+\b)*")
_PARENTHETICAL = re.compile(r"\([^()]*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)|\s[-–—]\s|:\s")
_CLAUSE_SPLIT = re.compile(f"({_SENTENCE_END.pattern})")
_SENTENCE = re.compile(r"[.!?](?:\s|$)")
# Where a main clause ends and one that says when or why it holds begins.
_SUBORDINATE = re.compile(r"\b(?:when|whenever|if|unless|because|since|while)\b", re.IGNORECASE)


def slug_words(template: str, nouns: frozenset[str] = GENERIC_ENTITY_NOUNS) -> list[str]:
    """The meaningful words of a template's first substantial clause, in order.

    A clause that is only a label ("Row {}:", "rows[{}]:") is skipped; if no clause has two
    meaningful words, the whole message is used.
    """
    return _slug_and_whose(template, nouns)[0]


def _slug_and_whose(template: str, nouns: frozenset[str]) -> tuple[list[str], set[str]]:
    """The slug words, and the words dropped before a field and its condition (whose rule
    it is: never a difference between two situations)."""
    text = _PARENTHETICAL.sub(" ", _VALUE.sub(" ", _plain_idioms(template)))
    pieces = _CLAUSE_SPLIT.split(text)  # clause, separator, clause, ...
    for index in range(0, len(pieces), 2):
        words = _clause_words(pieces[index], nouns)
        if len(words) >= 2:
            label = _after_label(pieces, index, words, nouns)
            if label is not None:
                return _subject_first(_keep_condition(label)), set()
            kept = _from_field_or_condition(words)
            return _subject_first(_keep_condition(kept)), set(words[: len(words) - len(kept)])
    return _meaningful(text, nouns) or ["warning"], set()


def _after_label(
    pieces: list[str], index: int, words: list[str], nouns: frozenset[str]
) -> list[str] | None:
    """A clause without a condition that a colon ends is a label for the next one, which
    says what is wrong: "file section: pattern {} not found" and "file section: heading
    {} not found" are ``pattern_not_found`` and ``heading_not_found``, not two slugs
    ``file_section`` told apart by a number. The label's words can still tell two
    situations apart if their slugs meet (the extended words keep them). A next clause
    that opens with its condition has no subject of its own ("content-type: {} is not
    one of ..."): there the label is the subject."""
    if condition_word(words) is not None or index + 2 >= len(pieces):
        return None
    if pieces[index + 1].strip() != ":":
        return None
    following = _clause_words(pieces[index + 2], nouns)
    condition = condition_word(following)
    if condition is None or following.index(condition) == 0:
        return None  # "content-type: {} is not one of ...": the label is the subject
    return _from_field_or_condition(following)


def _clause_words(clause: str, nouns: frozenset[str]) -> list[str]:
    """A clause's meaningful words, up to the end of its main clause: "DBT_PATH is required
    when the CLI is used" is the situation ``dbt_path_required`` whatever needs it -- the
    condition said, a ``when``/``if``/``because`` clause after it only says when it holds.
    A repeated word says nothing new ("not running or not reachable")."""
    words = _condition_of(clause, nouns)
    main = _SUBORDINATE.split(clause, maxsplit=1)[0]
    if main != clause:
        head = _condition_of(main, nouns)
        if len(head) >= 2 and condition_word(head) is not None:
            words = head
    return list(dict.fromkeys(words))


def _condition_of(clause: str, nouns: frozenset[str]) -> list[str]:
    words = _failed_action(clause, nouns) or _absent_subject(clause, _meaningful(clause, nouns))
    return _without_noticing(words)


_NOTICED = frozenset(["found", "detected"])


def _without_noticing(words: list[str]) -> list[str]:
    """ "Found X" and "X detected in Y" report that X is there: the verb says how the check
    noticed, not what is wrong (as "got" does). "Found path with spaces" is
    ``path_spaces``, "Token-based publishing detected" ``token_based_publishing``. Not
    with a negation ("X not found", "no X detected": an absence) nor when fewer than two
    words would be left."""
    if NEGATIONS & set(words):
        return words
    kept = [word for word in words if word not in _NOTICED]
    return kept if len(kept) >= 2 else words


# "Could not fetch", "Failed to fetch", "Unable to fetch", "Cannot fetch": one condition.
_FAILED_ACTION = re.compile(
    r"^\W*(?:could\s+not|couldn['’]?t|can\s*not|can['’]t|unable\s+to|failed\s+to|"
    r"did\s+not|didn['’]?t)\s+"
    r"([A-Za-z]+)\b",
    re.IGNORECASE,
)


def _failed_action(clause: str, nouns: frozenset[str]) -> list[str] | None:
    """A clause that opens with an action that failed names what it acted on, the action,
    then ``failed``: "Could not fetch price lists", "Failed to fetch price lists" and
    "Unable to fetch price lists" are all ``price_lists_fetch_failed`` -- subject, then
    condition, one situation however it is put."""
    found = _FAILED_ACTION.match(clause)
    if found is None:
        return None
    verb = found.group(1).lower()
    if verb in STOP_WORDS or verb in nouns:
        return None  # "could not be parsed": no action named
    rest = [w for w in _meaningful(clause[found.end() :], nouns) if w != verb]
    keep = MAX_WORDS - 2  # "Could not fetch {}" is fetch_failed
    if verb == "find":  # "Could not find X", "Did not find X": X not found
        return [*rest[:keep], "not", "found", *rest[keep:]]
    return [*rest[:keep], verb, "failed", *rest[keep:]]


def _subject_first(words: list[str]) -> list[str]:
    """Subject, then condition: "Invalid region format" is ``region_format_invalid``, as a
    person names it (``MISSING_TITLE`` reads as an action). Only a condition that reads
    after its subject moves (``invalid``, ``missing``, ``required`` ...); a negation or
    ``already`` keeps its place ("no stock moved", "already completed"). The condition stays
    within the words a slug keeps."""
    if len(words) < 2 or words[0] not in TRAILING_CONDITIONS:
        return words
    head = words[1:MAX_WORDS]
    return [*head, words[0], *words[MAX_WORDS:]]


def _happened(word: str) -> bool:
    """A participle that reports an event ("returned", "moved", "found"), not one that only
    says the subject was not there ("specified", "given")."""
    if word in ABSENCE_PARTICIPLES:
        return False
    return (len(word) > 3 and word.endswith("ed")) or word in IRREGULAR_PARTICIPLES


def situation_words(template: str, nouns: frozenset[str] = GENERIC_ENTITY_NOUNS) -> list[str]:
    """What a template says is wrong: the meaningful words of its first sentence with two
    of them. Later sentences advise or explain ("Pass force=true to override", "This will
    cause ..."): two messages that open alike and advise differently report one situation.
    A clause within the sentence (after ``:`` or ``;``) still counts -- "Invalid value:
    must be positive" and "Invalid value: must be a number" are two."""
    text = _PARENTHETICAL.sub(" ", _VALUE.sub(" ", _plain_idioms(template)))
    for sentence in _SENTENCE.split(text):
        words = _clause_words(sentence, nouns)
        if len(words) >= 2:
            return _from_field_or_condition(words)
    return _slug_and_whose(template, nouns)[0]


def _absent_subject(clause: str, words: list[str]) -> list[str]:
    """A clause that opens with "no" says its subject is missing: "No delivery date
    specified", "No name for project URL {}" -> ``delivery_date_missing``,
    ``name_project_url_missing`` (the participle says how it was noticed). "Wave has no
    orders" does not open with it, nor "Order {} has no rows" once the entity noun is
    dropped: there the subject has something missing. A clause with a verb of its own
    ("no stock has been moved", "no records returned", "no match found") reports that
    something did not happen, not an absence."""
    raw = [word.lower() for word in _WORD.findall(clause)]
    if len(words) < 2 or words[0] != "no" or raw[:1] != ["no"] or AUXILIARIES & set(raw):
        return words
    if any(_happened(word) for word in raw[1:]):
        return words
    return [word for word in words[1:] if word not in ABSENCE_PARTICIPLES] + ["missing"]


def _from_field_or_condition(words: list[str]) -> list[str]:
    """A clause that names one field (an identifier with an underscore) and a condition is
    about that field: "Java requires code_unit" and "Python requires code_unit" are both
    ``required_code_unit``. The words before both only say whose rule it is."""
    fields = {word for word in words if "_" in word and word not in CONDITION_WORDS}
    condition = condition_word(words)
    if len(fields) != 1 or condition is None:
        return words
    return words[min(words.index(condition), words.index(fields.pop())) :]


def _keep_condition(words: list[str]) -> list[str]:
    """Keep the clause's condition word within the first four: ``missing`` in
    "Config manifest version value missing" says more than the fourth noun."""
    head = words[:MAX_WORDS]
    if condition_word(head) is not None:
        return words
    condition = condition_word(words)
    if condition is None:
        return words
    return [*head[: MAX_WORDS - 1], condition]


def extended_words(template: str, nouns: frozenset[str] = GENERIC_ENTITY_NOUNS) -> list[str]:
    """The slug words followed by every other meaningful word: material to disambiguate."""
    words, whose = _slug_and_whose(template, nouns)
    plain = _VALUE.sub(" ", _plain_idioms(template))
    rest = [w for w in _meaningful(plain, nouns) if w not in words and w not in whose]
    return words + rest


def _plain_idioms(text: str) -> str:
    for pattern, replacement in IDIOMS:
        text = pattern.sub(replacement, text)
    return text


def situation_key(words: Iterable[str]) -> frozenset[str]:
    """What a code names, order and inflection aside: ``positive_quantity`` and
    ``quantity_positive_got`` are one situation, and so are ``export_failed`` and
    ``exporting_failed``. Plural ``s``, a verb's ``-ing`` and filler words are dropped; a
    condition word keeps its form (``missing`` is not ``missed``) or its one other
    spelling (``duplicated`` is ``duplicate``)."""
    return frozenset(
        _stem(w) for part in words for w in part.lower().split("_") if w and w not in STOP_WORDS
    )


_INFLECTION = re.compile(r"ing$")
# Two forms of one condition word.
_CONDITION_FORMS = {
    "duplicated": "duplicate",
    "fails": "failed",
    "exceeds": "exceeded",
    "conflicts": "conflict",
    "unrecognised": "unrecognized",
}


def _stem(word: str) -> str:
    """One form for a verb and its ``-ing`` noun: ``create``, ``creates`` and ``creating``
    all read ``creat``, so "Creating the export failed" is "Failed to create the export".
    Only to compare two situations, never shown. A past tense keeps its form: "Added
    labels" reports what was done, "Add labels" what to do. A short word keeps its ``e``
    ("mode" is not "mod", "plane" not "plan"): words that differ stay apart, and a pair
    that does not meet ("parse", "parsing") only keeps two codes."""
    if word in CONDITION_WORDS:
        return _CONDITION_FORMS.get(word, word)
    singular = _singular(word)
    stem = _INFLECTION.sub("", singular)
    if stem != singular:
        return stem if len(stem) >= 3 else singular
    return singular[:-1] if len(singular) >= 6 and singular.endswith("e") else singular


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return f"{word[:-3]}y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


_POSSESSIVE = re.compile(r"(?<=[A-Za-z])['’]s\b")
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])['’](?=[A-Za-z])")


def condition_word(words: Iterable[str]) -> str | None:
    """The first word that names a condition (``invalid``, ``missing``, ``not`` ...)."""
    return next((w for w in words if w in CONDITION_WORDS), None)


def code_confidence(template: str, nouns: frozenset[str] = GENERIC_ENTITY_NOUNS) -> str | None:
    """The shape of a code's template: at least two content words, one a condition --
    or None. Only a description for the reason: on real warnings such slugs matched a
    person's name for the situation about one time in four, so codes stay ``low``."""
    words = slug_words(template, nouns)[:MAX_WORDS]
    condition = condition_word(words)
    if len(words) >= 2 and condition is not None:
        return f"{len(words)} content words with the condition {condition!r}"
    return None


def _meaningful(text: str, nouns: frozenset[str]) -> list[str]:
    """Content words: no stop-words, no entity nouns -- except right after a negation
    ("wave has no orders" keeps "orders"), and nothing inside parentheses. Accented
    letters keep their base letter ("café" -> "cafe"), so codes stay ASCII identifiers."""
    text = _APOSTROPHE.sub("", _POSSESSIVE.sub("", text))  # "can't" -> cant, not can + t
    plain = unicodedata.normalize("NFKD", _PARENTHETICAL.sub(" ", text).casefold())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    words = [w.lower() for w in _WORD.findall(plain)]
    kept = []
    negated = False
    for word in words:
        if word in STOP_WORDS:
            continue  # "no such order": the negation still governs "order"
        if word not in nouns or negated:
            kept.append(word)
        negated = word in NEGATIONS
    return kept


def slug_for(
    template: str, words: int = MAX_WORDS, nouns: frozenset[str] = GENERIC_ENTITY_NOUNS
) -> str:
    return "_".join(slug_words(template, nouns)[:words])


def constant_name(slug: str) -> str:
    name = slug.upper()
    return name if name.isidentifier() else f"CODE_{name}"


def assign_codes(
    templates: Iterable[Template],
    existing: Mapping[str, str] | None = None,
    nouns: frozenset[str] = GENERIC_ENTITY_NOUNS,
) -> tuple[dict[str, str], dict[str, str]]:
    """Map each template text to a constant name, and each constant name to its value.

    Rephrasings of one situation share a code: templates with the same meaningful words,
    in any order ("{} must be positive, got {}" and "must be positive: {}"), are one
    situation. ``existing`` (constant name -> value, from a ``warning_codes`` module a
    human may have edited) wins: a template whose slug is an existing value, or names the
    same situation (an older slug with a filler word), uses that constant's name.
    A value minted under older rules is read again as words ("sku_not_valid" is the
    situation ``sku_invalid``), and a template's words as an older slug spelled them,
    before any rewrite ("Could not fetch {}" was ``not_fetch``): a rule that rewords a
    slug never mints a second constant for a situation the module already names.
    """
    existing = dict(existing or {})
    by_value = {value: name for name, value in existing.items()}
    by_situation: dict[frozenset[str], str] = {}
    for constant, value in sorted(existing.items(), reverse=True):  # the first one wins
        by_situation[situation_key(situation_words(value.replace("_", " "), nouns))] = constant
        by_situation[situation_key([value])] = constant
    values: dict[str, str] = dict(existing)
    used_slugs: dict[str, str] = {}  # slug -> template that owns it
    situations: dict[frozenset[str], str] = {}  # a situation -> its constant name
    codes: dict[str, str] = {}
    for text in sorted({t.text for t in templates}):
        situation = situation_key(situation_words(text, nouns))
        name = situations.get(situation)
        if name is None:
            slug = _unique_slug(text, used_slugs, nouns)
            used_slugs[slug] = text
            name = (
                by_value.get(slug)
                or by_situation.get(situation_key([slug]))
                or by_situation.get(situation)
                or by_situation.get(situation_key(_plain_words(text, nouns)))
                or constant_name(slug)
            )
            values.setdefault(name, slug)
            situations[situation] = name
        codes[text] = name
    return codes, values


def _plain_words(template: str, nouns: frozenset[str]) -> list[str]:
    """The meaningful words of the first clause with two, as they are written (no rewrite
    of a failed action, an absence or an idiom): what an older slug was made of."""
    text = _PARENTHETICAL.sub(" ", _PLACEHOLDER.sub(" ", template))
    for clause in _SENTENCE_END.split(text):
        words = list(dict.fromkeys(_meaningful(clause, nouns)))
        if len(words) >= 2:
            return words[:MAX_WORDS]
    return []


def _unique_slug(text: str, used: Mapping[str, str], nouns: frozenset[str]) -> str:
    slug = slug_for(text, nouns=nouns)
    if slug not in used:
        return slug
    words = extended_words(text, nouns)
    for count in range(len(slug.split("_")) + 1, len(words) + 1):
        slug = "_".join(words[:count])
        if slug not in used:
            return slug
    base = "_".join(words[:MAX_WORDS])
    number = 2
    while f"{base}_{number}" in used:
        number += 1
    return f"{base}_{number}"


_LETTERS = re.compile(r"[A-Za-z]{2,}")  # a word of its own to name a template by


@lru_cache(maxsize=4096)
def own_code(template: str, nouns: frozenset[str]) -> str | None:
    """The constant a template's own words name, before the repository's other templates
    are known (None: it has no literal words). Kept: asked of each template when the facts
    settle, every round, and again of each site."""
    if _LETTERS.search(template.replace("{}", "")) is None:
        return None
    return constant_name(slug_for(template, nouns=nouns))


def entity_nouns(config: Config) -> frozenset[str]:
    """The generic entity nouns plus the project's own (``entity-nouns``)."""
    return GENERIC_ENTITY_NOUNS | {noun.lower() for noun in warning_settings(config).entity_nouns}
